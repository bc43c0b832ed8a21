//! Which files a search sees, and in which order: ripgrep's rules, on ripgrep's `ignore` crate.

use std::cmp::Ordering;
use std::path::Path;

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use serde::{Deserialize, Serialize};

use crate::SearchError;

/// How folders are walked. The defaults are ripgrep's: `.gitignore` (inside a git repository),
/// `.ignore`, `.rgignore`, `.git/info/exclude` and the global git excludes are respected, hidden
/// files and folders are skipped, symbolic links are not followed, files of any size are read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WalkOptions {
    /// Include hidden files and folders (names starting with a dot).
    pub hidden: bool,
    /// Do not respect ignore files (`.gitignore`, `.ignore`, `.rgignore`, git excludes).
    pub no_ignore: bool,
    /// Follow symbolic links.
    pub follow_links: bool,
    /// Skip files larger than this many bytes (`None`: no limit, as ripgrep).
    pub max_filesize: Option<u64>,
    /// Worker threads (0: one per core, at most 12, as ripgrep).
    pub threads: usize,
}

impl WalkOptions {
    /// The number of worker threads these options ask for.
    pub fn thread_count(&self) -> usize {
        if self.threads > 0 {
            return self.threads;
        }
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(12)
    }

    /// A walk builder for `root` with these rules, plus include and exclude globs (matched like
    /// ripgrep's `-g GLOB` and `-g '!GLOB'`, relative to `root`).
    pub(crate) fn builder(
        &self,
        root: &Path,
        include: &[String],
        exclude: &[String],
    ) -> Result<WalkBuilder, SearchError> {
        let mut builder = WalkBuilder::new(root);
        let respect = !self.no_ignore;
        builder
            .hidden(!self.hidden)
            .ignore(respect)
            .git_ignore(respect)
            .git_global(respect)
            .git_exclude(respect)
            .parents(respect)
            .follow_links(self.follow_links)
            .max_filesize(self.max_filesize)
            .threads(self.thread_count());
        if respect {
            builder.add_custom_ignore_filename(".rgignore");
        }
        if !include.is_empty() || !exclude.is_empty() {
            let mut overrides = OverrideBuilder::new(root);
            for glob in include {
                overrides.add(glob).map_err(|e| invalid_glob(glob, &e))?;
            }
            for glob in exclude {
                let negated = format!("!{}", glob.strip_prefix('!').unwrap_or(glob));
                overrides
                    .add(&negated)
                    .map_err(|e| invalid_glob(glob, &e))?;
            }
            let overrides = overrides
                .build()
                .map_err(|e| invalid_glob(&include.join(" "), &e))?;
            builder.overrides(overrides);
        }
        Ok(builder)
    }
}

fn invalid_glob(glob: &str, err: &ignore::Error) -> SearchError {
    SearchError::InvalidGlob {
        glob: glob.to_owned(),
        message: err.to_string(),
    }
}

/// Checks that `root` exists, so a typo gives "no such file or folder" rather than nothing.
pub(crate) fn check_root(root: &Path) -> Result<std::fs::Metadata, SearchError> {
    std::fs::metadata(root).map_err(|e| SearchError::io(root, e))
}

/// A path relative to `root`, with forward slashes; the file name when `path` is `root` itself.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = match path.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel,
        _ => match path.file_name() {
            Some(name) => Path::new(name),
            None => path,
        },
    };
    let rel = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        rel.into_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// The order of every result: by path, folder by folder (`a/z.py` before `a.py`, as a sorted
/// depth-first walk and `rg --sort path` list them), comparing names bytewise.
pub fn path_order(a: &str, b: &str) -> Ordering {
    let key = |c: u8| if c == b'/' { 0 } else { c };
    a.bytes().map(key).cmp(b.bytes().map(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_order_is_folder_by_folder() {
        let mut paths = vec!["a.py", "a/z.py", "a/b/c.py", "B.py", "a-b.py", "a"];
        paths.sort_by(|a, b| path_order(a, b));
        assert_eq!(paths, ["B.py", "a", "a/b/c.py", "a/z.py", "a-b.py", "a.py"]);
        // The same as comparing `Path`s, which compare component by component.
        let mut by_path = paths.clone();
        by_path.sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
        assert_eq!(paths, by_path);
    }

    #[test]
    fn relative_uses_forward_slashes_and_names_a_root_file() {
        let root = Path::new("/w/project");
        assert_eq!(relative(root, Path::new("/w/project/a/b.py")), "a/b.py");
        assert_eq!(relative(Path::new("/w/x.py"), Path::new("/w/x.py")), "x.py");
        assert_eq!(relative(Path::new("."), Path::new("./a/b.py")), "a/b.py");
        assert_eq!(relative(Path::new("/"), Path::new("/")), "/");
    }

    #[test]
    fn a_bad_glob_is_an_error_not_a_panic() {
        let err = WalkOptions::default()
            .builder(Path::new("."), &["a[".to_owned()], &[])
            .err();
        assert!(
            matches!(err, Some(SearchError::InvalidGlob { .. })),
            "{err:?}"
        );
    }
}
