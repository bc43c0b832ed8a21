//! Whether a walk would list the same files again, told without walking.
//!
//! A walk's answer — which files a tree holds — depends on the entries of the folders it read
//! and on the ignore files that ruled it. Adding, removing or renaming an entry changes its
//! folder's mtime; editing an ignore file changes that file's. So a [`WalkWatch`] records the
//! folders a walk read and every ignore file that could rule it (in those folders, in the
//! root's ancestors, the repository's `.git/info/exclude`, git's global configuration and
//! excludes), each with its state; while none of them changed, the same walk lists the same
//! names. Checking it costs a `stat` per folder instead of reading every folder and matching
//! every name against the ignore rules.
//!
//! Timestamps are coarse (a clock tick, and whole seconds on some file systems): a change made
//! in the same tick as the one recorded would leave the mtime equal. A watch is therefore only
//! made when every recorded mtime is older than the walk's start by [`RACY_MARGIN`]; otherwise
//! [`WatchRecorder::finish`] gives `None` and the caller walks next time, as git treats a
//! "racily clean" entry.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::WalkOptions;

/// How much older than the walk's start every recorded mtime must be (see the module doc).
pub const RACY_MARGIN: Duration = Duration::from_secs(2);

/// Ignore files a folder may hold, as [`WalkOptions::builder`] reads them.
const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore", ".rgignore"];

/// The state of a path when it was recorded: absent, or its size and mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    mtime_ns: i64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    Some(Stamp {
        len: meta.len(),
        mtime_ns,
    })
}

/// Collects the folders of one walk; [`WatchRecorder::finish`] turns them into a [`WalkWatch`].
/// Made before the walk starts (its start time is what the racy check compares with).
#[derive(Debug)]
pub struct WatchRecorder {
    started: SystemTime,
    folders: Mutex<Vec<PathBuf>>,
}

impl Default for WatchRecorder {
    fn default() -> Self {
        Self::new()
    }
}

impl WatchRecorder {
    /// A recorder for a walk about to start.
    pub fn new() -> Self {
        WatchRecorder {
            started: SystemTime::now(),
            folders: Mutex::new(Vec::new()),
        }
    }

    /// Notes a folder the walk read (called from the walk's threads).
    pub fn folder(&self, path: &Path) {
        if let Ok(mut folders) = self.folders.lock() {
            folders.push(path.to_path_buf());
        }
    }

    /// The watch of a finished walk of `root` with `options`, or `None` when the walk cannot be
    /// watched: it followed links (a link's target folder may change elsewhere), a `.git` is a
    /// file (a worktree's or submodule's excludes live elsewhere), git's configuration includes
    /// other files, or something changed too recently to be told apart from the recorded state.
    pub fn finish(self, root: &Path, options: &WalkOptions) -> Option<WalkWatch> {
        if options.follow_links {
            return None;
        }
        let folders = self.folders.into_inner().ok()?;
        let started_ns = self
            .started
            .duration_since(UNIX_EPOCH)
            .ok()?
            .saturating_sub(RACY_MARGIN)
            .as_nanos() as i64;
        let racy = |s: &Option<Stamp>| s.is_some_and(|s| s.mtime_ns >= started_ns);
        // The folders first: a tree being edited usually has a folder changed just now, and
        // then the ignore files need not be looked for.
        let mut entries: Vec<(PathBuf, Option<Stamp>)> = Vec::with_capacity(folders.len() + 64);
        for folder in folders {
            let s = stamp(&folder);
            if racy(&s) {
                return None;
            }
            entries.push((folder, s));
        }
        let mut extra: Vec<PathBuf> = Vec::new();
        for (folder, _) in &entries {
            for name in IGNORE_FILES {
                let file = folder.join(name);
                // An absent one needs no watching: creating it changes its folder's mtime.
                if file.exists() {
                    extra.push(file);
                }
            }
        }
        let absolute = std::path::absolute(root).ok()?;
        for ancestor in absolute.ancestors().skip(1) {
            for name in IGNORE_FILES.iter().chain(&[".git"]) {
                extra.push(ancestor.join(name));
            }
        }
        if let Some(repo) = absolute.ancestors().find(|d| d.join(".git").exists()) {
            if !repo.join(".git").is_dir() {
                return None;
            }
            extra.push(repo.join(".git/info/exclude"));
        }
        extra.extend(git_global_files()?);
        for path in extra {
            let s = stamp(&path);
            if racy(&s) {
                return None;
            }
            entries.push((path, s));
        }
        Some(WalkWatch { entries })
    }
}

/// Git's global configuration files and the global excludes file they name, as the `ignore`
/// crate finds them; `None` when a configuration includes other files (not followed here).
fn git_global_files() -> Option<Vec<PathBuf>> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut configs: Vec<PathBuf> = Vec::new();
    if let Some(xdg) = &xdg {
        configs.push(xdg.join("git/config"));
    }
    if let Some(home) = &home {
        configs.push(home.join(".gitconfig"));
    }
    let mut files = configs.clone();
    if let Some(xdg) = &xdg {
        files.push(xdg.join("git/ignore"));
    }
    for config in &configs {
        let Ok(text) = std::fs::read_to_string(config) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim();
            let lower = line.to_ascii_lowercase();
            if lower.starts_with("[include") {
                return None;
            }
            if let Some(value) = lower
                .starts_with("excludesfile")
                .then(|| {
                    line.split_once('=')
                        .map(|(_, v)| v.trim().trim_matches('"'))
                })
                .flatten()
            {
                let path = match (value.strip_prefix("~/"), &home) {
                    (Some(rest), Some(home)) => home.join(rest),
                    _ => PathBuf::from(value),
                };
                files.push(path);
            }
        }
    }
    Some(files)
}

/// The folders a walk read and the ignore files that could rule it, each with its state then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkWatch {
    entries: Vec<(PathBuf, Option<Stamp>)>,
}

impl WalkWatch {
    /// Whether every recorded path is as it was: then the same walk lists the same names.
    pub fn unchanged(&self) -> bool {
        self.entries.iter().all(|(path, s)| stamp(path) == *s)
    }

    /// How many paths [`WalkWatch::unchanged`] looks at.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it looks at nothing (never so for a finished walk: the root is a folder of it).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The watch as bytes, for storing; [`WalkWatch::decode`] reads them back.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for (path, s) in &self.entries {
            let p = path.to_string_lossy();
            out.extend_from_slice(&(p.len() as u64).to_le_bytes());
            out.extend_from_slice(p.as_bytes());
            match s {
                Some(s) => {
                    out.push(1);
                    out.extend_from_slice(&s.len.to_le_bytes());
                    out.extend_from_slice(&s.mtime_ns.to_le_bytes());
                }
                None => out.push(0),
            }
        }
        out
    }

    /// A watch from [`WalkWatch::encode`]'s bytes; `None` for anything else.
    pub fn decode(bytes: &[u8]) -> Option<WalkWatch> {
        let mut at = 0usize;
        let mut take = |n: usize| -> Option<&[u8]> {
            let piece = bytes.get(at..at.checked_add(n)?)?;
            at += n;
            Some(piece)
        };
        let u64_of = |b: &[u8]| -> Option<u64> { Some(u64::from_le_bytes(b.try_into().ok()?)) };
        let count = u64_of(take(8)?)? as usize;
        let mut entries = Vec::with_capacity(count.min(bytes.len()));
        for _ in 0..count {
            let n = u64_of(take(8)?)? as usize;
            let path = PathBuf::from(std::str::from_utf8(take(n)?).ok()?);
            let s = match take(1)?[0] {
                0 => None,
                1 => Some(Stamp {
                    len: u64_of(take(8)?)?,
                    mtime_ns: u64_of(take(8)?)? as i64,
                }),
                _ => return None,
            };
            entries.push((path, s));
        }
        (at == bytes.len()).then_some(WalkWatch { entries })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    /// Sets a path's mtime an hour back, so it is not racy.
    fn age(path: &Path) {
        let old = SystemTime::now() - Duration::from_secs(3600);
        File::open(path).unwrap().set_modified(old).unwrap();
    }

    fn watch_of(root: &Path) -> Option<WalkWatch> {
        let recorder = WatchRecorder::new();
        let options = WalkOptions::default();
        for entry in options.builder(root).build().flatten() {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                recorder.folder(entry.path());
            }
        }
        recorder.finish(root, &options)
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "a = 1\n").unwrap();
        std::fs::write(root.join("pkg/sub/b.py"), "b = 1\n").unwrap();
        std::fs::write(root.join("pkg/.ignore"), "skip.py\n").unwrap();
        for p in [
            "pkg/a.py",
            "pkg/sub/b.py",
            "pkg/.ignore",
            "pkg/sub",
            "pkg",
            "",
        ] {
            age(&root.join(p));
        }
        dir
    }

    #[test]
    fn an_untouched_tree_is_unchanged_and_survives_encoding() {
        let dir = tree();
        let watch = watch_of(dir.path()).expect("an aged tree is watched");
        assert!(watch.unchanged());
        // The root, pkg, pkg/sub and pkg/.ignore at least.
        assert!(watch.len() >= 4, "{watch:?}");
        assert_eq!(WalkWatch::decode(&watch.encode()), Some(watch.clone()));
        assert_eq!(WalkWatch::decode(&watch.encode()[1..]), None);
        assert_eq!(WalkWatch::decode(b""), None);
    }

    #[test]
    fn added_removed_and_renamed_entries_and_edited_ignore_files_are_seen() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 5] = [
            ("a file added deep down", |r| {
                std::fs::write(r.join("pkg/sub/c.py"), "").unwrap()
            }),
            ("a file removed", |r| {
                std::fs::remove_file(r.join("pkg/a.py")).unwrap()
            }),
            ("a file renamed", |r| {
                std::fs::rename(r.join("pkg/sub/b.py"), r.join("pkg/sub/c.py")).unwrap()
            }),
            ("an ignore file edited in place", |r| {
                std::fs::write(r.join("pkg/.ignore"), "a.py\n").unwrap()
            }),
            ("an ignore file created at the root", |r| {
                std::fs::write(r.join(".gitignore"), "pkg/\n").unwrap()
            }),
        ];
        for (what, change) in changes {
            let dir = tree();
            let watch = watch_of(dir.path()).unwrap();
            change(dir.path());
            assert!(!watch.unchanged(), "{what}");
        }
    }

    #[test]
    fn an_ignore_file_in_a_parent_of_the_root_is_watched() {
        let dir = tree();
        let root = dir.path().join("pkg");
        let watch = watch_of(&root).unwrap();
        std::fs::write(dir.path().join(".ignore"), "sub/\n").unwrap();
        assert!(!watch.unchanged());
    }

    #[test]
    fn a_tree_changed_just_now_is_not_watched() {
        let dir = tree();
        std::fs::write(dir.path().join("pkg/sub/new.py"), "").unwrap();
        assert_eq!(watch_of(dir.path()), None);
        let links = WalkOptions {
            follow_links: true,
            ..Default::default()
        };
        let dir = tree();
        assert_eq!(WatchRecorder::new().finish(dir.path(), &links), None);
    }
}
