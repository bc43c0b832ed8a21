//! One walk for every command: ripgrep's rules on ripgrep's `ignore` crate, plus CAST's default
//! excludes outside a git repository.

use std::cmp::Ordering;
use std::path::Path;

use ignore::WalkBuilder;
use serde::{Deserialize, Serialize};

use crate::watch::{ExcludedSink, WatchRecorder};

/// Folders left out of a walk outside a git repository (inside one, `.gitignore` decides, as
/// for ripgrep). Besides these names, any folder holding a `pyvenv.cfg` — a Python virtualenv,
/// whatever it is called (`venv/`, `.venv/`, `env/`) — is left out too; a folder merely named
/// `venv` (the standard library's `venv` package) is kept. `--no-ignore` keeps everything.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    "node_modules",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
];

/// How folders are walked. The defaults are ripgrep's: `.gitignore` (inside a git repository),
/// `.ignore`, `.rgignore`, `.git/info/exclude` and the global git excludes are respected, hidden
/// files and folders are skipped, symbolic links are not followed, files of any size are read;
/// outside a git repository [`DEFAULT_EXCLUDES`] and virtualenvs are skipped as well.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WalkOptions {
    /// Include hidden files and folders (names starting with a dot).
    pub hidden: bool,
    /// Do not respect ignore files (`.gitignore`, `.ignore`, `.rgignore`, git excludes) nor the
    /// default excludes.
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

    /// A walk builder for `root` with these rules. Callers add what is theirs (overrides,
    /// sorting) and build a serial or parallel walk.
    pub fn builder(&self, root: &Path) -> WalkBuilder {
        self.builder_with(root, None)
    }

    /// [`WalkOptions::builder`], telling `recorder` the virtualenvs it leaves out (a folder
    /// left out by its content, not its name: see [`WatchRecorder`]). The caller still tells it
    /// the folders it walks.
    pub fn watched_builder(&self, root: &Path, recorder: &WatchRecorder) -> WalkBuilder {
        self.builder_with(root, Some(recorder.excluded_sink()))
    }

    fn builder_with(&self, root: &Path, excluded: Option<ExcludedSink>) -> WalkBuilder {
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
            if !in_git_repository(root) {
                builder.filter_entry(move |entry| {
                    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                    // The root itself is always walked, whatever its name.
                    if !is_dir || entry.depth() == 0 {
                        return true;
                    }
                    if is_excluded_name(entry.path()) {
                        return false;
                    }
                    if !is_virtualenv(entry.path()) {
                        return true;
                    }
                    // Left out for what it holds, not its name: a watch must know it.
                    if let Some(sink) = &excluded
                        && let Ok(mut venvs) = sink.lock()
                    {
                        venvs.push(entry.path().to_path_buf());
                    }
                    false
                });
            }
        }
        builder
    }
}

/// Whether `dir` is left out by its name (one of [`DEFAULT_EXCLUDES`]); virtualenvs are left
/// out by what they hold ([`is_virtualenv`]).
fn is_excluded_name(dir: &Path) -> bool {
    dir.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|name| DEFAULT_EXCLUDES.contains(&name))
}

/// Whether `dir` is a Python virtual environment (it holds `pyvenv.cfg`, PEP 405).
pub fn is_virtualenv(dir: &Path) -> bool {
    dir.join("pyvenv.cfg").is_file()
}

/// Whether `path` is inside a git repository (it or a parent holds `.git`), where `.gitignore`
/// rules apply, as ripgrep decides it.
pub fn in_git_repository(path: &Path) -> bool {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    absolute.ancestors().any(|dir| dir.join(".git").exists())
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

/// The order of every listing: by path, folder by folder (`a/z.py` before `a.py`, as a sorted
/// depth-first walk and `rg --sort path` list them), comparing names bytewise.
pub fn path_order(a: &str, b: &str) -> Ordering {
    let key = |c: u8| if c == b'/' { 0 } else { c };
    a.bytes().map(key).cmp(b.bytes().map(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(root: &Path, options: &WalkOptions) -> Vec<String> {
        let mut out: Vec<String> = options
            .builder(root)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .map(|e| relative(root, e.path()))
            .collect();
        out.sort_by(|a, b| path_order(a, b));
        out
    }

    fn write(root: &Path, rel: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x\n").unwrap();
    }

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
    fn outside_git_virtualenvs_and_node_modules_are_left_out_but_a_venv_package_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "app.py");
        write(root, "venv/pyvenv.cfg");
        write(root, "venv/lib/site.py");
        write(root, "env2/pyvenv.cfg");
        write(root, "env2/lib/x.py");
        write(root, "node_modules/a/index.js");
        write(root, "pkg/__pycache__/m.cpython-311.pyc");
        write(root, "lib/venv/__init__.py"); // the standard library's venv package: no pyvenv.cfg
        assert_eq!(
            files(root, &WalkOptions::default()),
            ["app.py", "lib/venv/__init__.py"]
        );
        let all = WalkOptions {
            no_ignore: true,
            ..Default::default()
        };
        assert_eq!(files(root, &all).len(), 8);
    }

    #[test]
    fn inside_git_gitignore_decides_and_rgignore_is_respected() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".gitignore"), "ignored.py\n").unwrap();
        std::fs::write(root.join(".rgignore"), "rg_ignored.py\n").unwrap();
        std::fs::write(root.join(".ignore"), "dot_ignored.py\n").unwrap();
        for f in [
            "kept.py",
            "ignored.py",
            "rg_ignored.py",
            "dot_ignored.py",
            ".hidden.py",
            "node_modules/kept_in_git.js",
        ] {
            write(root, f);
        }
        assert_eq!(
            files(root, &WalkOptions::default()),
            ["kept.py", "node_modules/kept_in_git.js"]
        );
        let hidden = WalkOptions {
            hidden: true,
            ..Default::default()
        };
        assert!(files(root, &hidden).contains(&".hidden.py".to_owned()));
    }

    #[test]
    fn a_root_named_like_an_exclude_is_still_walked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("node_modules");
        write(&root, "pkg/index.js");
        assert_eq!(files(&root, &WalkOptions::default()), ["pkg/index.js"]);
    }
}
