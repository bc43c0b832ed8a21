//! A [`WalkWatch`] the kernel keeps: told of each change in the walked folders as it happens.
//!
//! Knowing that a tree is as indexed costs a `stat` per folder and per file (21,000 on the
//! standard library with site-packages: 40–50 ms of CPU on every query). A process that answers
//! many queries — the MCP server, the agent — can instead ask the kernel to note every change in
//! the folders a walk read (inotify on Linux) and `stat` only the few paths outside them that
//! rule the walk (the parents' ignore files, git's configuration). While nothing relevant was
//! noted, the tree is as it was when the watch was armed.
//!
//! Armed *before* the tree is checked the usual way: a change made during that check is then
//! noted too, and the next [`LiveWatch::unchanged`] says so. A change the kernel does not report
//! through the folder — a file written through a hard link in another folder, through a memory
//! map, or on a network file system by another machine — is not seen; hence a watch is armed
//! only by a process that asked for it, and never for a tree walked through links.
//!
//! ```no_run
//! # fn check_the_tree_the_usual_way() {}
//! # fn answer_from_the_index() {}
//! use cast_workspace::{LiveWatch, WalkWatch};
//!
//! # fn f(watch: &WalkWatch) {
//! let mut live = LiveWatch::arm(watch).ok();
//! check_the_tree_the_usual_way();
//! // ... later, for each query:
//! let is_source = |path: &std::path::Path| path.extension().is_some_and(|e| e == "py");
//! if live.as_mut().is_some_and(|live| live.unchanged(&is_source)) {
//!     answer_from_the_index();
//! }
//! # }
//! ```

#[cfg(target_os = "linux")]
use std::ffi::OsStr;
use std::io;
use std::path::Path;

use crate::WalkWatch;

/// A [`WalkWatch`] kept by the kernel. See the module documentation.
#[derive(Debug)]
pub struct LiveWatch {
    watch: WalkWatch,
    #[cfg(target_os = "linux")]
    inner: linux::Notify,
}

impl LiveWatch {
    /// Asks the kernel to note changes in every folder of `watch` from now on. Fails when the
    /// system cannot (not Linux, the per-user limit of watches reached) or the walk read no
    /// folder (its root was a file).
    pub fn arm(watch: &WalkWatch) -> io::Result<LiveWatch> {
        if watch.folders().next().is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "the walk read no folder",
            ));
        }
        #[cfg(target_os = "linux")]
        {
            Ok(LiveWatch {
                inner: linux::Notify::arm(watch.folders())?,
                watch: watch.clone(),
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "change notification is only used on Linux",
            ))
        }
    }

    /// Whether nothing that could change the walk's answer or a listed file happened since
    /// [`LiveWatch::arm`]. `listed` tells whether a file of that path would be listed (its
    /// language is indexed); changes to other files are passed over, as are their folders'
    /// mtimes. Any change to a folder itself, to a sub-folder, an ignore file or a repository
    /// marker counts, as does the kernel's queue having overflowed. Once this says `false`,
    /// the watch is spent: arm a new one.
    pub fn unchanged(&mut self, listed: &dyn Fn(&Path) -> bool) -> bool {
        #[cfg(target_os = "linux")]
        let quiet = self.inner.quiet(listed);
        #[cfg(not(target_os = "linux"))]
        let quiet = {
            let _ = listed;
            false
        };
        quiet && self.watch.rules_unchanged()
    }
}

/// Names whose change can change what a walk lists, whatever their language.
#[cfg(target_os = "linux")]
fn rules_the_walk(name: &OsStr) -> bool {
    crate::watch::IGNORE_FILES.iter().any(|f| name == *f)
        || [".git", ".jj", "pyvenv.cfg"].iter().any(|f| name == *f)
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::HashMap;
    use std::io;
    use std::path::{Path, PathBuf};

    use inotify::{EventMask, Inotify, WatchMask};

    /// An inotify instance watching folders, and which folder each watch is.
    pub(super) struct Notify {
        inotify: Inotify,
        folders: HashMap<i32, PathBuf>,
        /// Set once a change was seen: the watch stays spent.
        spent: bool,
    }

    impl std::fmt::Debug for Notify {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("Notify")
                .field("folders", &self.folders.len())
                .field("spent", &self.spent)
                .finish()
        }
    }

    /// Everything that changes a folder's entries or a file's content or metadata; reads and
    /// opens are not asked for.
    fn mask() -> WatchMask {
        WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::CLOSE_WRITE
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::DELETE_SELF
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR
    }

    impl Notify {
        pub(super) fn arm<'a>(folders: impl Iterator<Item = &'a Path>) -> io::Result<Notify> {
            let inotify = Inotify::init()?;
            let mut watches = inotify.watches();
            let mut by_id = HashMap::new();
            for folder in folders {
                let wd = watches.add(folder, mask())?;
                by_id.insert(wd.get_watch_descriptor_id(), folder.to_path_buf());
            }
            Ok(Notify {
                inotify,
                folders: by_id,
                spent: false,
            })
        }

        /// Reads every event queued so far; whether none of them counts.
        pub(super) fn quiet(&mut self, listed: &dyn Fn(&Path) -> bool) -> bool {
            let mut buffer = [0u8; 16 * 1024];
            while !self.spent {
                let events = match self.inotify.read_events(&mut buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(_) => {
                        self.spent = true;
                        break;
                    }
                };
                for event in events {
                    let counts = event.mask.contains(EventMask::Q_OVERFLOW)
                        || event.mask.contains(EventMask::ISDIR)
                        || match (
                            &event.name,
                            self.folders.get(&event.wd.get_watch_descriptor_id()),
                        ) {
                            (Some(name), Some(folder)) => {
                                super::rules_the_walk(name) || listed(&folder.join(name))
                            }
                            // The folder itself changed, was removed or moved, or the event is
                            // for a watch not known here.
                            _ => true,
                        };
                    if counts {
                        self.spent = true;
                        break;
                    }
                }
            }
            !self.spent
        }
    }
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use super::*;
    use crate::{WalkOptions, WatchRecorder};
    use cast_test_support::age_tree;

    fn is_py(path: &Path) -> bool {
        path.extension().is_some_and(|e| e == "py")
    }

    /// A tree with a nested package, aged, and a live watch of it.
    fn armed() -> (tempfile::TempDir, LiveWatch) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
        std::fs::write(root.join("top.py"), "A = 1\n").unwrap();
        std::fs::write(root.join("pkg/sub/deep.py"), "B = 1\n").unwrap();
        std::fs::write(root.join("pkg/notes.txt"), "hello\n").unwrap();
        age_tree(root);
        let watch = crate::watch::tests::watch_of(root).expect("an aged tree is watched");
        assert_eq!(watch.folders().count(), 3);
        let live = LiveWatch::arm(&watch).unwrap();
        (dir, live)
    }

    #[test]
    fn a_quiet_tree_stays_unchanged_and_reads_do_not_count() {
        let (dir, mut live) = armed();
        assert!(live.unchanged(&is_py));
        let _ = std::fs::read(dir.path().join("pkg/sub/deep.py")).unwrap();
        let _ = std::fs::read_dir(dir.path().join("pkg")).unwrap().count();
        assert!(live.unchanged(&is_py));
    }

    #[test]
    fn files_of_other_languages_do_not_count() {
        let (dir, mut live) = armed();
        std::fs::write(dir.path().join("pkg/notes.txt"), "edited\n").unwrap();
        std::fs::write(dir.path().join("pkg/new.log"), "x\n").unwrap();
        std::fs::remove_file(dir.path().join("pkg/new.log")).unwrap();
        assert!(live.unchanged(&is_py));
    }

    #[test]
    fn every_change_that_matters_is_seen() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 8] = [
            ("a listed file edited in a nested folder", |r| {
                std::fs::write(r.join("pkg/sub/deep.py"), "B = 2\n").unwrap()
            }),
            ("a listed file appended to", |r| {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(r.join("top.py"))
                    .unwrap();
                f.write_all(b"C = 3\n").unwrap();
            }),
            ("a listed file created", |r| {
                std::fs::write(r.join("pkg/new.py"), "").unwrap()
            }),
            ("a listed file removed", |r| {
                std::fs::remove_file(r.join("top.py")).unwrap()
            }),
            ("a listed file renamed", |r| {
                std::fs::rename(r.join("top.py"), r.join("pkg/moved.txt")).unwrap()
            }),
            ("a folder created", |r| {
                std::fs::create_dir(r.join("more")).unwrap()
            }),
            ("a folder removed", |r| {
                std::fs::remove_dir_all(r.join("pkg/sub")).unwrap()
            }),
            ("an ignore file written", |r| {
                std::fs::write(r.join("pkg/.ignore"), "*.py\n").unwrap()
            }),
        ];
        for (what, change) in changes {
            let (dir, mut live) = armed();
            change(dir.path());
            assert!(!live.unchanged(&is_py), "{what} was not seen");
            // Spent: it stays so.
            assert!(!live.unchanged(&is_py), "{what}: the watch came back");
        }
    }

    #[test]
    fn a_touch_counts() {
        let (dir, mut live) = armed();
        let file = std::fs::File::options()
            .write(true)
            .open(dir.path().join("pkg/sub/deep.py"))
            .unwrap();
        file.set_modified(std::time::SystemTime::now()).unwrap();
        assert!(!live.unchanged(&is_py));
    }

    #[test]
    fn a_walk_of_a_file_cannot_be_armed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("one.py");
        std::fs::write(&file, "A = 1\n").unwrap();
        age_tree(dir.path());
        // The walk of a file reads no folder: the recorder is told of none.
        let watch = WatchRecorder::new()
            .finish(&file, &WalkOptions::default())
            .expect("an aged file is watched");
        assert_eq!(watch.folders().count(), 0);
        assert!(LiveWatch::arm(&watch).is_err());
    }
}
