//! The bottom layer of CAST: which files a workspace holds, how a path inside it is named, and
//! where CAST keeps its state.
//!
//! Every part of CAST that walks a tree — `cast symbols` and `cast index` (parser, analyzer),
//! `cast grep`, `glob`, `files` and `ls` (searcher) — builds its walk here, so they all see the
//! same files: ripgrep's rules (`.gitignore` inside a git repository, `.ignore`, `.rgignore`,
//! `.git/info/exclude` and the global git excludes; hidden files skipped; links not followed),
//! plus, outside a git repository, CAST's [default excludes](DEFAULT_EXCLUDES) (virtualenvs,
//! `node_modules/`, caches), so an un-versioned copy of a project does not index its virtualenv.
//! [`relative`] names a path the way every result does, and [`StateDir`] is the `.cast/` folder.
//! A [`WalkWatch`] tells, with a `stat` per folder, whether a walk would list the same files
//! again (the index's check for changes uses it to avoid walking), and a [`LiveWatch`] has the
//! kernel tell a long-lived process of every change to those folders instead (no `stat` at all).
//! [`stat`] and [`StatFrom`] are the `stat` those checks make: only the fields they read, and
//! from a folder they are under rather than from `/`. [`compile_glob`] is the one rule for file
//! patterns, and a [`Scope`] the files some folders, files and globs name.
//!
//! ```
//! use cast_workspace::{WalkOptions, relative};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.py"), "print('hi')\n")?;
//! std::fs::create_dir(dir.path().join("node_modules"))?;
//! std::fs::write(dir.path().join("node_modules/lib.js"), "x\n")?;
//!
//! let mut files: Vec<String> = WalkOptions::default()
//!     .builder(dir.path())
//!     .build()
//!     .filter_map(Result::ok)
//!     .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
//!     .map(|e| relative(dir.path(), e.path()))
//!     .collect();
//! files.sort();
//! assert_eq!(files, ["app.py"]); // not a git repository: node_modules/ is left out
//! # Ok::<(), std::io::Error>(())
//! ```

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod live;
pub mod ordered;
mod scope;
mod stat;
mod state;
mod walk;
mod watch;

pub use live::LiveWatch;
pub use scope::{Scope, ScopeError, compile_glob, is_glob, relative_pattern};
pub use stat::{Stat, StatFrom, stat};
pub use state::{STATE_DIR, StateDir, StateDirError};
pub use walk::{
    DEFAULT_EXCLUDES, WalkOptions, in_git_repository, is_virtualenv, path_order, relative,
};
pub use watch::{RACY_MARGIN, WalkWatch, WatchRecorder};
