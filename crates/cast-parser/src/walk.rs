//! Parsing a whole tree: a gitignore-aware walk (ripgrep's `ignore` crate) and a parallel parse.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::{DEFAULT_MAX_FILESIZE, ParseError, ParsedFile, Registry};

/// Which files a walk visits. The defaults equal ripgrep's: `.gitignore`, `.ignore` and
/// `.git/info/exclude` are respected (gitignore only inside a git repository), hidden files and
/// folders are skipped.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Visit hidden files and folders too.
    pub hidden: bool,
    /// Do not read ignore files.
    pub no_ignore: bool,
    /// Follow symbolic links.
    pub follow_links: bool,
    /// Files over this many bytes are skipped with [`ParseError::TooLarge`].
    pub max_filesize: u64,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            hidden: false,
            no_ignore: false,
            follow_links: false,
            max_filesize: DEFAULT_MAX_FILESIZE,
        }
    }
}

impl WalkOptions {
    /// A configured `ignore` walker over `root`.
    pub fn builder(&self, root: &Path) -> ignore::WalkBuilder {
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .hidden(!self.hidden)
            .ignore(!self.no_ignore)
            .git_ignore(!self.no_ignore)
            .git_global(!self.no_ignore)
            .git_exclude(!self.no_ignore)
            .parents(!self.no_ignore)
            .follow_links(self.follow_links);
        builder
    }
}

/// One file found by a walk: where it is and what parsing it gave.
#[derive(Debug)]
pub struct FileOutcome {
    /// The path as reached from the root given (root joined with the relative path).
    pub path: PathBuf,
    /// The path relative to the root, with forward slashes; the file name when the root is a file.
    pub rel: String,
    pub result: Result<ParsedFile, ParseError>,
}

/// A path relative to `root`, with forward slashes.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = match path.strip_prefix(root) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel,
        _ => Path::new(path.file_name().unwrap_or(path.as_os_str())),
    };
    let rel = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        rel.into_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// The files under `root` that some language in `registry` parses, sorted by relative path.
/// Walk errors (unreadable folders, broken links) come back as outcomes holding the error.
pub fn source_files(
    root: &Path,
    options: &WalkOptions,
    registry: &Registry,
) -> (Vec<(PathBuf, String)>, Vec<FileOutcome>) {
    let found = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    options.builder(root).build_parallel().run(|| {
        Box::new(|entry| {
            match entry {
                Ok(entry) => {
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    if is_file && registry.for_path(entry.path()).is_some() {
                        let rel = relative(root, entry.path());
                        if let Ok(mut found) = found.lock() {
                            found.push((entry.into_path(), rel));
                        }
                    }
                }
                Err(err) => {
                    if let Ok(mut errors) = errors.lock() {
                        errors.push(err);
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_default();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    let errors = errors
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .map(|err| {
            let path = walk_error_path(&err).unwrap_or_else(|| root.to_path_buf());
            FileOutcome {
                rel: relative(root, &path),
                path: path.clone(),
                result: Err(ParseError::Io {
                    path,
                    source: std::io::Error::other(err.to_string()),
                }),
            }
        })
        .collect();
    (found, errors)
}

fn walk_error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error_path(err)
        }
        _ => None,
    }
}

/// Walks `root` and parses every supported file on all cores. Outcomes are sorted by relative
/// path; walk errors come first.
pub fn parse_tree(root: &Path, options: &WalkOptions, registry: &Registry) -> Vec<FileOutcome> {
    let (files, mut outcomes) = source_files(root, options, registry);
    let parsed: Vec<FileOutcome> = files
        .into_par_iter()
        .map(|(path, rel)| {
            let result = registry.parse_file(&path, options.max_filesize);
            FileOutcome { path, rel, result }
        })
        .collect();
    outcomes.extend(parsed);
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_respects_gitignore_and_hidden_like_ripgrep() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".gitignore"), "skipped.py\n").unwrap();
        std::fs::write(root.join("kept.py"), "def a(): pass\n").unwrap();
        std::fs::write(root.join("skipped.py"), "def b(): pass\n").unwrap();
        std::fs::write(root.join(".hidden.py"), "def c(): pass\n").unwrap();
        std::fs::write(root.join("notes.txt"), "def d(): pass\n").unwrap();
        std::fs::create_dir(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/page.html"), "<div id=x></div>\n").unwrap();

        let registry = Registry::default();
        let rels = |opts: &WalkOptions| -> Vec<String> {
            parse_tree(root, opts, &registry)
                .into_iter()
                .map(|o| o.rel)
                .collect()
        };
        assert_eq!(
            rels(&WalkOptions::default()),
            vec!["kept.py", "pkg/page.html"]
        );
        let no_ignore = WalkOptions {
            no_ignore: true,
            ..Default::default()
        };
        assert_eq!(
            rels(&no_ignore),
            vec!["kept.py", "pkg/page.html", "skipped.py"]
        );
        let all = WalkOptions {
            no_ignore: true,
            hidden: true,
            ..Default::default()
        };
        assert_eq!(
            rels(&all),
            vec![".hidden.py", "kept.py", "pkg/page.html", "skipped.py"]
        );
    }

    #[test]
    fn a_file_root_is_named_by_its_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("one.py");
        std::fs::write(&file, "class A: pass\n").unwrap();
        let out = parse_tree(&file, &WalkOptions::default(), &Registry::default());
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].rel, "one.py");
        assert_eq!(out[0].result.as_ref().unwrap().symbols[0].name, "A");
    }
}
