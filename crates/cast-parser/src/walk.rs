//! Parsing a whole tree: the workspace's walk (cast-workspace: ripgrep's rules) and a parallel
//! parse.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use cast_workspace::{WalkOptions, WatchRecorder, relative};

use crate::{DEFAULT_MAX_FILESIZE, ParseError, ParsedFile, Registry};

/// One file found by a walk: where it is and what parsing it gave.
#[derive(Debug)]
pub struct FileOutcome {
    /// The path as reached from the root given (root joined with the relative path).
    pub path: PathBuf,
    /// The path relative to the root, with forward slashes; the file name when the root is a file.
    pub rel: String,
    pub result: Result<ParsedFile, ParseError>,
}

/// The files under `root` that some language in `registry` parses, sorted by relative path.
/// Walk errors (unreadable folders, broken links) come back as outcomes holding the error.
pub fn source_files(
    root: &Path,
    options: &WalkOptions,
    registry: &Registry,
) -> (Vec<(PathBuf, String)>, Vec<FileOutcome>) {
    source_files_watched(root, options, registry, None)
}

/// [`source_files`], telling `recorder` every folder the walk reads (see [`WatchRecorder`]).
pub fn source_files_watched(
    root: &Path,
    options: &WalkOptions,
    registry: &Registry,
    recorder: Option<&WatchRecorder>,
) -> (Vec<(PathBuf, String)>, Vec<FileOutcome>) {
    let (mut found, errors) = walk_sources(root, options, registry, recorder, |path| {
        let rel = relative(root, &path);
        (path, rel)
    });
    found.sort_by(|a, b| a.1.cmp(&b.1));
    (found, errors)
}

/// [`source_files`] in less memory, for a listing of a large tree: each file is its path
/// relative to `root` (its file name when `root` is a file), in the same order (by
/// [`relative`]'s text). The file to read is `root.join(rel)`, or `root` itself when it is a
/// file; [`relative`] of that path gives the text. About a third of the memory of
/// `source_files` per file.
pub fn source_paths(
    root: &Path,
    options: &WalkOptions,
    registry: &Registry,
) -> (Vec<Box<Path>>, Vec<FileOutcome>) {
    let (mut found, errors) = walk_sources(root, options, registry, None, |path| {
        let rel = match path.strip_prefix(root) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel,
            _ => path.file_name().map_or(path.as_path(), Path::new),
        };
        Box::<Path>::from(rel)
    });
    // The order of `relative`'s text, without making it for every comparison on Unix.
    found.sort_by(|a, b| rel_text(a).cmp(&rel_text(b)));
    (found, errors)
}

/// A relative path's text as [`relative`] writes it.
fn rel_text(rel: &Path) -> Cow<'_, str> {
    let text = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        text
    } else {
        Cow::Owned(text.replace(std::path::MAIN_SEPARATOR, "/"))
    }
}

/// Walks `root` in parallel, keeping what `keep` makes of each file some language parses (or
/// of the root, when it is a file); unsorted. Walk errors come back as outcomes.
fn walk_sources<T: Send>(
    root: &Path,
    options: &WalkOptions,
    registry: &Registry,
    recorder: Option<&WatchRecorder>,
    keep: impl Fn(PathBuf) -> T + Sync,
) -> (Vec<T>, Vec<FileOutcome>) {
    // A plain file named as the root is kept as the walk would keep it, without starting the
    // walk's threads (`cast symbols` given a thousand files starts no thousand walks).
    if recorder.is_none() && std::fs::symlink_metadata(root).is_ok_and(|m| m.is_file()) {
        return (vec![keep(root.to_path_buf())], Vec::new());
    }
    let found = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    let mut builder = match recorder {
        Some(recorder) => options.watched_builder(root, recorder),
        None => options.builder(root),
    };
    // A file over the size limit is reported as too large by the parse, not silently skipped.
    builder.max_filesize(None);
    builder.build_parallel().run(|| {
        Box::new(|entry| {
            match entry {
                Ok(entry) => {
                    if let Some(recorder) = recorder
                        && entry.file_type().is_some_and(|t| t.is_dir())
                    {
                        recorder.folder(entry.path());
                    }
                    let is_file = entry.file_type().is_some_and(|t| t.is_file());
                    // A file given as the root was named by the user: it is parsed, so that an
                    // unsupported one is reported instead of silently left out.
                    let named = entry.depth() == 0;
                    if is_file && (named || registry.for_path(entry.path()).is_some()) {
                        let kept = keep(entry.into_path());
                        if let Ok(mut found) = found.lock() {
                            found.push(kept);
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
    let found = found.into_inner().unwrap_or_default();
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
/// path; walk errors come first. A file over `options.max_filesize` (by default
/// [`DEFAULT_MAX_FILESIZE`]) is an outcome holding [`ParseError::TooLarge`].
pub fn parse_tree(root: &Path, options: &WalkOptions, registry: &Registry) -> Vec<FileOutcome> {
    let (files, mut outcomes) = source_files(root, options, registry);
    let max_filesize = options.max_filesize.unwrap_or(DEFAULT_MAX_FILESIZE);
    let parsed: Vec<FileOutcome> = files
        .into_par_iter()
        .map(|(path, rel)| {
            let result = registry.parse_file(&path, max_filesize);
            FileOutcome { path, rel, result }
        })
        .collect();
    outcomes.extend(parsed);
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 17, item 8: a file named as the root was dropped in silence when no parser
    /// handles it (while inside a folder it is rightly left out). Kotlin stands in for the
    /// unsupported language (JavaScript, the original case, is supported since issue 15, and
    /// Ruby, the next, since issue 37).
    #[test]
    fn regression_a_named_unsupported_file_is_reported_not_dropped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.kt"), "f()\n").unwrap();
        let registry = Registry::default();
        let named = parse_tree(&dir.path().join("a.kt"), &WalkOptions::default(), &registry);
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].rel, "a.kt");
        assert!(matches!(
            named[0].result,
            Err(ParseError::Unsupported { .. })
        ));
        assert!(parse_tree(dir.path(), &WalkOptions::default(), &registry).is_empty());
    }

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

    /// `source_paths` lists what `source_files` lists, in the same order, in less memory.
    #[test]
    fn source_paths_are_source_files_in_the_same_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in ["a.py", "a-b.py", "a/z.py", "a/b/c.py", "B.py", "notes.txt"] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x = 1\n").unwrap();
        }
        let registry = Registry::default();
        let options = WalkOptions::default();
        for root in [root.to_path_buf(), root.join("a.py")] {
            let (files, _) = source_files(&root, &options, &registry);
            let (paths, _) = source_paths(&root, &options, &registry);
            let listed: Vec<(PathBuf, String)> = paths
                .iter()
                .map(|rel| {
                    let path = if root.is_file() {
                        root.clone()
                    } else {
                        root.join(rel)
                    };
                    let text = relative(&root, &path);
                    (path, text)
                })
                .collect();
            assert_eq!(listed, files);
        }
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
