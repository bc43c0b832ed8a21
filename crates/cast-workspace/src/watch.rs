//! Whether a walk would list the same files again, told without walking.
//!
//! A walk's answer — which files a tree holds — depends on the entries of the folders it read
//! and on the ignore files that ruled it. Adding, removing or renaming an entry changes its
//! folder's mtime; editing an ignore file changes that file's. So a [`WalkWatch`] records the
//! folders a walk read and everything else that could rule it — the ignore files in those
//! folders and in the root's parents, each repository's `.git/info/exclude`, the parents'
//! repository markers, the `pyvenv.cfg` of each virtualenv left out, git's global configuration
//! and excludes — each with its state; while none of them changed, the same walk lists the same
//! names. Checking it costs a `stat` per folder instead of reading every folder and matching
//! every name against the ignore rules. The walk is built with
//! [`WalkOptions::watched_builder`] and tells [`WatchRecorder::folder`] each folder it reads.
//!
//! Timestamps are coarse (a clock tick, and whole seconds on some file systems): a change made
//! in the same tick as the one recorded would leave the mtime equal. A watch is therefore only
//! made when every recorded mtime is older than the walk's start by [`RACY_MARGIN`]; otherwise
//! [`WatchRecorder::finish`] gives `None` and the caller walks next time, as git treats a
//! "racily clean" entry.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::{StatFrom, WalkOptions};

/// How much older than the walk's start every recorded time must be (see the module doc).
pub const RACY_MARGIN: Duration = Duration::from_secs(2);

/// Ignore files a folder may hold, as [`WalkOptions::builder`] reads them.
pub(crate) const IGNORE_FILES: &[&str] = &[".gitignore", ".ignore", ".rgignore"];

/// Where the walk's filter puts the virtualenvs it leaves out.
pub(crate) type ExcludedSink = Arc<Mutex<Vec<PathBuf>>>;

/// How a path is watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Watched {
    /// Size, times and inode: a folder, an ignore file.
    Full,
    /// Only whether it is there and is a folder: a parent's `.git` or `.jj` (a repository
    /// folder changes with every git command; only its presence rules the walk).
    Presence,
}

/// The state of a path when it was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stamp {
    Absent,
    /// A symbolic link whose target does not exist.
    Dangling,
    Present {
        dir: bool,
    },
    Full {
        len: u64,
        mtime_ns: i64,
        /// The change time catches what leaves size and mtime alone (`chmod`, `cp -p`).
        ctime_ns: i64,
        ino: u64,
    },
}

impl Stamp {
    fn of(path: &Path, how: Watched) -> Stamp {
        Stamp::of_from(None, path, how)
    }

    /// [`Stamp::of`], the path looked up from `from` when it is inside that folder.
    fn of_from(from: Option<(&Path, &StatFrom)>, path: &Path, how: Watched) -> Stamp {
        let inside = from.and_then(|(root, from)| {
            let rel = path.strip_prefix(root).ok()?.to_str()?;
            (!rel.is_empty()).then_some((from, rel))
        });
        let stat = match inside {
            Some((from, rel)) => from.stat(rel),
            None => crate::stat(path),
        };
        let Ok(st) = stat else {
            return if std::fs::symlink_metadata(path).is_ok() {
                Stamp::Dangling
            } else {
                Stamp::Absent
            };
        };
        if how == Watched::Presence {
            return Stamp::Present { dir: st.is_dir };
        }
        Stamp::Full {
            len: st.len,
            mtime_ns: st.mtime_ns,
            ctime_ns: st.ctime_ns,
            ino: st.ino,
        }
    }

    /// Whether it was modified at or after `since_ns`. The change time is left out: setting
    /// an mtime (as `touch -d`, `cp -p` or `rsync -a` do) makes it new, so every copied tree
    /// would be racy; a `chmod` of an ignore file during the walk itself is missed.
    fn since(&self, since_ns: i64) -> bool {
        matches!(*self, Stamp::Full { mtime_ns, .. } if mtime_ns >= since_ns)
    }
}

/// Collects the folders of one walk; [`WatchRecorder::finish`] turns them into a [`WalkWatch`].
/// Made before the walk starts (its start time is what the racy check compares with). The walk
/// is built with [`WalkOptions::watched_builder`], which tells it the virtualenvs it leaves out.
#[derive(Debug)]
pub struct WatchRecorder {
    started: SystemTime,
    folders: Mutex<Vec<PathBuf>>,
    excluded: ExcludedSink,
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
            excluded: Arc::default(),
        }
    }

    /// Notes a folder the walk read (called from the walk's threads).
    pub fn folder(&self, path: &Path) {
        if let Ok(mut folders) = self.folders.lock() {
            folders.push(path.to_path_buf());
        }
    }

    pub(crate) fn excluded_sink(&self) -> ExcludedSink {
        Arc::clone(&self.excluded)
    }

    /// The watch of a finished walk of `root` with `options`, or `None` when the walk cannot be
    /// watched: it followed links (a link's target folder may change elsewhere), a `.git` is a
    /// file (a worktree's or submodule's excludes live elsewhere), git's configuration includes
    /// other files or no home folder is known, or something changed too recently to be told
    /// apart from the recorded state.
    pub fn finish(self, root: &Path, options: &WalkOptions) -> Option<WalkWatch> {
        if options.follow_links {
            return None;
        }
        let mut folders = self.folders.into_inner().ok()?;
        // The walk's threads note folders in any order; sorted, each shares most of its path
        // with the one before, which the encoding saves.
        folders.sort_unstable();
        let since_ns = self
            .started
            .duration_since(UNIX_EPOCH)
            .ok()?
            .saturating_sub(RACY_MARGIN)
            .as_nanos() as i64;
        let mut entries: Vec<(PathBuf, Watched, Stamp)> = Vec::with_capacity(folders.len() + 64);
        let mut watch = |path: PathBuf, how: Watched| -> Option<()> {
            let stamp = Stamp::of(&path, how);
            if stamp.since(since_ns) {
                return None;
            }
            entries.push((path, how, stamp));
            Some(())
        };
        // The folders first: a tree being edited usually has a folder changed just now, and
        // then nothing else need be looked at.
        for folder in &folders {
            watch(folder.clone(), Watched::Full)?;
        }
        for folder in &folders {
            for name in IGNORE_FILES {
                let file = folder.join(name);
                // An absent one needs no watching: creating it changes its folder's mtime. A
                // link to nowhere is watched: its target may appear.
                if std::fs::symlink_metadata(&file).is_ok() {
                    watch(file, Watched::Full)?;
                }
            }
            // A repository inside the tree has its own excludes.
            let git = folder.join(".git");
            if let Ok(meta) = std::fs::symlink_metadata(&git) {
                if !meta.is_dir() {
                    return None;
                }
                watch(git.join("info/exclude"), Watched::Full)?;
            }
        }
        for venv in self.excluded.lock().ok()?.iter() {
            // Left out for holding this file; without it, it would be walked.
            watch(venv.join("pyvenv.cfg"), Watched::Full)?;
        }
        // The parents' ignore files and repository markers, as the walk finds them: from the
        // root as given and from the root with links resolved.
        let absolute = std::path::absolute(root).ok()?;
        let canonical = std::fs::canonicalize(root).ok()?;
        let mut parents: Vec<&Path> = absolute.ancestors().skip(1).collect();
        parents.extend(canonical.ancestors().skip(1));
        parents.sort();
        parents.dedup();
        for parent in parents {
            for name in IGNORE_FILES {
                watch(parent.join(name), Watched::Full)?;
            }
            for marker in [".git", ".jj"] {
                watch(parent.join(marker), Watched::Presence)?;
            }
        }
        if let Some(repo) = canonical.ancestors().find(|d| d.join(".git").exists()) {
            if !repo.join(".git").is_dir() {
                return None;
            }
            watch(repo.join(".git/info/exclude"), Watched::Full)?;
        }
        let configs = git_configs()?;
        for file in git_global_files(&configs)? {
            watch(file, Watched::Full)?;
        }
        Some(WalkWatch {
            configs,
            folders: folders.len(),
            entries,
        })
    }
}

/// The git configuration files the `ignore` crate reads for the global excludes, as the
/// environment names them now; `None` without a home folder.
fn git_configs() -> Option<Vec<PathBuf>> {
    let home = std::env::home_dir()?;
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let xdg = var("XDG_CONFIG_HOME").unwrap_or_else(|| home.join(".config"));
    let mut configs = vec![home.join(".gitconfig"), xdg.join("git/config")];
    configs.extend(var("GIT_CONFIG_GLOBAL"));
    configs.push(var("GIT_CONFIG_SYSTEM").unwrap_or_else(|| PathBuf::from("/etc/gitconfig")));
    configs.push(xdg.join("git/ignore"));
    Some(configs)
}

/// `configs` and the excludes files they name; `None` when one includes other files (not
/// followed here).
fn git_global_files(configs: &[PathBuf]) -> Option<Vec<PathBuf>> {
    let home = std::env::home_dir();
    let mut files = configs.to_vec();
    for config in configs {
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
    /// The git configuration files as the environment named them (another `HOME` or
    /// `GIT_CONFIG_GLOBAL` names others, whose excludes the watch does not know).
    configs: Vec<PathBuf>,
    /// How many of `entries`, from the first, are the folders the walk read.
    folders: usize,
    entries: Vec<(PathBuf, Watched, Stamp)>,
}

impl WalkWatch {
    /// Whether every recorded path is as it was: then the same walk lists the same names.
    pub fn unchanged(&self) -> bool {
        // Looked up from the root (the first folder), which holds nearly every path: a lookup
        // from `/` walks the root's own components again for each (see [`StatFrom`]).
        let root = self.entries.first().map(|(root, _, _)| root.as_path());
        let from = root.map(|root| (root, StatFrom::new(root)));
        let from = from.as_ref().map(|(root, from)| (*root, from));
        git_configs().as_ref() == Some(&self.configs)
            && self
                .entries
                .iter()
                .all(|(path, how, stamp)| Stamp::of_from(from, path, *how) == *stamp)
    }

    /// The folders the walk read, the root first (all of them inside it).
    pub fn folders(&self) -> impl Iterator<Item = &Path> {
        self.entries[..self.folders]
            .iter()
            .map(|(path, _, _)| path.as_path())
    }

    /// Whether everything recorded but the folders is as it was: the ignore files, the
    /// repository markers, the virtualenvs' `pyvenv.cfg` and git's configuration (what a
    /// [`crate::LiveWatch`] cannot be told of, since it watches the folders only).
    pub(crate) fn rules_unchanged(&self) -> bool {
        git_configs().as_ref() == Some(&self.configs)
            && self.entries[self.folders..]
                .iter()
                .all(|(path, how, stamp)| Stamp::of(path, *how) == *stamp)
    }

    /// How many paths [`WalkWatch::unchanged`] looks at.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it looks at nothing (never so for a finished walk: the root is a folder of it).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The watch as bytes, for storing; [`WalkWatch::decode`] reads them back. Each path is
    /// written as the length of the prefix it shares with the path before and the rest: the
    /// folders are sorted, so most of a path is its neighbour's.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![FORMAT];
        out.extend_from_slice(&(self.folders as u64).to_le_bytes());
        out.extend_from_slice(&(self.configs.len() as u64).to_le_bytes());
        let mut prev = Vec::new();
        for c in &self.configs {
            prev = put_path(&mut out, &prev, c);
        }
        out.extend_from_slice(&(self.entries.len() as u64).to_le_bytes());
        for (path, how, stamp) in &self.entries {
            prev = put_path(&mut out, &prev, path);
            out.push(match how {
                Watched::Full => 0,
                Watched::Presence => 1,
            });
            match *stamp {
                Stamp::Absent => out.push(0),
                Stamp::Dangling => out.push(1),
                Stamp::Present { dir } => out.extend_from_slice(&[2, u8::from(dir)]),
                Stamp::Full {
                    len,
                    mtime_ns,
                    ctime_ns,
                    ino,
                } => {
                    out.push(3);
                    for v in [len, mtime_ns as u64, ctime_ns as u64, ino] {
                        out.extend_from_slice(&v.to_le_bytes());
                    }
                }
            }
        }
        out
    }

    /// A watch from [`WalkWatch::encode`]'s bytes; `None` for anything else.
    pub fn decode(bytes: &[u8]) -> Option<WalkWatch> {
        decode_watch(bytes)
    }
}

/// The first byte of [`WalkWatch::encode`]'s bytes: another layout is not read.
const FORMAT: u8 = 3;

/// Writes `path` as the length of the prefix it shares with `prev` and the rest (each a `u32`,
/// little-endian), and gives its bytes, the next path's `prev`.
fn put_path(out: &mut Vec<u8>, prev: &[u8], path: &Path) -> Vec<u8> {
    let p = path.to_string_lossy().into_owned().into_bytes();
    let shared = prev.iter().zip(&p).take_while(|(a, b)| a == b).count();
    out.extend_from_slice(&(shared as u32).to_le_bytes());
    out.extend_from_slice(&((p.len() - shared) as u32).to_le_bytes());
    out.extend_from_slice(&p[shared..]);
    p
}

/// [`WalkWatch::decode`].
fn decode_watch(bytes: &[u8]) -> Option<WalkWatch> {
    struct Bytes<'a> {
        data: &'a [u8],
        at: usize,
    }
    impl<'a> Bytes<'a> {
        fn take(&mut self, n: usize) -> Option<&'a [u8]> {
            let piece = self.data.get(self.at..self.at.checked_add(n)?)?;
            self.at += n;
            Some(piece)
        }
        fn u64(&mut self) -> Option<u64> {
            Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
        }
        fn byte(&mut self) -> Option<u8> {
            Some(self.take(1)?[0])
        }
        fn u32(&mut self) -> Option<usize> {
            usize::try_from(u32::from_le_bytes(self.take(4)?.try_into().ok()?)).ok()
        }
        /// A path written by [`put_path`] after `prev`'s bytes.
        fn path(&mut self, prev: &[u8]) -> Option<Vec<u8>> {
            let shared = self.u32()?;
            let rest = self.u32()?;
            let mut p = prev.get(..shared)?.to_vec();
            p.extend_from_slice(self.take(rest)?);
            Some(p)
        }
        /// A count of items of at least `min` bytes each, no more than the bytes left allow.
        fn count(&mut self, min: usize) -> Option<usize> {
            let n = usize::try_from(self.u64()?).ok()?;
            (n <= (self.data.len() - self.at) / min).then_some(n)
        }
    }
    let mut b = Bytes { data: bytes, at: 0 };
    if b.byte()? != FORMAT {
        return None;
    }
    let as_path = |p: &[u8]| Some(PathBuf::from(std::str::from_utf8(p).ok()?));
    let folders = usize::try_from(b.u64()?).ok()?;
    let n = b.count(8)?;
    let mut configs = Vec::with_capacity(n);
    let mut prev = Vec::new();
    for _ in 0..n {
        prev = b.path(&prev)?;
        configs.push(as_path(&prev)?);
    }
    let n = b.count(10)?;
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        prev = b.path(&prev)?;
        let path = as_path(&prev)?;
        let how = match b.byte()? {
            0 => Watched::Full,
            1 => Watched::Presence,
            _ => return None,
        };
        let stamp = match b.byte()? {
            0 => Stamp::Absent,
            1 => Stamp::Dangling,
            2 => Stamp::Present {
                dir: b.byte()? != 0,
            },
            3 => Stamp::Full {
                len: b.u64()?,
                mtime_ns: b.u64()? as i64,
                ctime_ns: b.u64()? as i64,
                ino: b.u64()?,
            },
            _ => return None,
        };
        entries.push((path, how, stamp));
    }
    (b.at == bytes.len() && folders <= entries.len()).then_some(WalkWatch {
        configs,
        folders,
        entries,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use cast_test_support::age_tree;

    /// A walk of `root` with the default options, recorded (the live watch's tests use it too).
    pub(crate) fn watch_of(root: &Path) -> Option<WalkWatch> {
        let options = WalkOptions::default();
        let recorder = WatchRecorder::new();
        for entry in options.watched_builder(root, &recorder).build().flatten() {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                recorder.folder(entry.path());
            }
        }
        recorder.finish(root, &options)
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join("pkg/a.py"), "a = 1\n");
        write(&root.join("pkg/sub/b.py"), "b = 1\n");
        write(&root.join("pkg/.ignore"), "skip.py\n");
        age_tree(root);
        dir
    }

    /// Asserts that `change`, made to a watched tree built by `setup`, is seen.
    fn seen(what: &str, setup: impl Fn(&Path), watched_root: &str, change: impl Fn(&Path)) {
        let dir = tree();
        setup(dir.path());
        age_tree(dir.path());
        let root = dir.path().join(watched_root);
        let watch = watch_of(&root).unwrap_or_else(|| panic!("{what}: not watched"));
        assert!(watch.unchanged(), "{what}: changed before the change");
        change(dir.path());
        assert!(!watch.unchanged(), "{what}: not seen");
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
        // A count that the bytes cannot hold is refused before anything is allocated for it.
        let mut huge = vec![FORMAT];
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(WalkWatch::decode(&huge), None);
        // Another layout (the first one had no format byte) is not read.
        let mut other = watch.encode();
        other[0] = FORMAT + 1;
        assert_eq!(WalkWatch::decode(&other), None);
        // The sorted folders share prefixes: the bytes are well under the paths' own length.
        let plain: usize = watch
            .entries
            .iter()
            .map(|(p, _, _)| p.as_os_str().len())
            .sum();
        assert!(watch.encode().len() < plain + 40 * watch.len(), "{watch:?}");
        // A path that claims more of the one before than there is: refused, not a panic.
        let mut bad = vec![FORMAT];
        bad.extend_from_slice(&1u64.to_le_bytes());
        bad.extend_from_slice(&5u32.to_le_bytes());
        bad.extend_from_slice(&0u32.to_le_bytes());
        assert_eq!(WalkWatch::decode(&bad), None);
    }

    #[test]
    fn added_removed_and_renamed_entries_and_edited_ignore_files_are_seen() {
        let none = |_: &Path| {};
        seen("a file added deep down", none, "", |r| {
            write(&r.join("pkg/sub/c.py"), "")
        });
        seen("a file removed", none, "", |r| {
            std::fs::remove_file(r.join("pkg/a.py")).unwrap()
        });
        seen("a file renamed", none, "", |r| {
            std::fs::rename(r.join("pkg/sub/b.py"), r.join("pkg/sub/c.py")).unwrap()
        });
        seen("an ignore file edited in place", none, "", |r| {
            write(&r.join("pkg/.ignore"), "a.py\n")
        });
        seen("an ignore file created at the root", none, "", |r| {
            write(&r.join(".gitignore"), "pkg/\n")
        });
        seen("an ignore file in a parent of the root", none, "pkg", |r| {
            write(&r.join(".ignore"), "sub/\n")
        });
        seen("a parent becoming a jj repository", none, "pkg", |r| {
            std::fs::create_dir(r.join(".jj")).unwrap()
        });
    }

    #[test]
    fn what_rules_the_walk_beyond_its_folders_is_seen() {
        seen(
            "a virtualenv no longer one (outside git, it is left out for its pyvenv.cfg)",
            |r| write(&r.join("pkg/venv/pyvenv.cfg"), "home = /usr\n"),
            "",
            |r| std::fs::remove_file(r.join("pkg/venv/pyvenv.cfg")).unwrap(),
        );
        seen(
            "the excludes of a repository inside the tree",
            |r| write(&r.join("pkg/clone/.git/info/exclude"), "\n"),
            "",
            |r| write(&r.join("pkg/clone/.git/info/exclude"), "scratch/\n"),
        );
        #[cfg(unix)]
        seen(
            "an ignore file made unreadable (its mtime and size stay)",
            |_| {},
            "",
            |r| {
                use std::os::unix::fs::PermissionsExt;
                let p = r.join("pkg/.ignore");
                std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o000)).unwrap();
            },
        );
        #[cfg(unix)]
        seen(
            "the target of an ignore file's link appearing",
            |r| std::os::unix::fs::symlink(r.join("rules"), r.join("pkg/.gitignore")).unwrap(),
            "",
            |r| write(&r.join("rules"), "a.py\n"),
        );
        #[cfg(unix)]
        seen(
            "an ignore file above a link in the root's path",
            |r| {
                std::fs::create_dir_all(r.join("data/work")).unwrap();
                std::fs::rename(r.join("pkg"), r.join("data/work/pkg")).unwrap();
                std::os::unix::fs::symlink(r.join("data/work"), r.join("work")).unwrap();
            },
            "work/pkg",
            |r| write(&r.join("data/.ignore"), "sub/\n"),
        );
    }

    #[test]
    fn a_tree_changed_just_now_or_walked_through_links_is_not_watched() {
        let dir = tree();
        assert!(watch_of(dir.path()).is_some());
        write(&dir.path().join("pkg/sub/new.py"), "");
        assert_eq!(watch_of(dir.path()), None);
        write(&dir.path().join("pkg/.ignore"), "new.py\n");
        age_tree(&dir.path().join("pkg/sub"));
        assert_eq!(
            watch_of(dir.path()),
            None,
            "an ignore file changed just now"
        );
        let links = WalkOptions {
            follow_links: true,
            ..Default::default()
        };
        let dir = tree();
        assert_eq!(WatchRecorder::new().finish(dir.path(), &links), None);
    }

    #[test]
    fn a_git_file_in_the_tree_is_not_watched() {
        let dir = tree();
        write(&dir.path().join("pkg/wt/.git"), "gitdir: /elsewhere\n");
        age_tree(dir.path());
        assert_eq!(watch_of(dir.path()), None);
    }
}
