//! Searching a workspace the way ripgrep does, for agents.
//!
//! This crate owns [`grep`] (regex or literal, case sensitivity, include/exclude globs,
//! gitignore-aware, binary files skipped, results capped in a deterministic order), [`glob`]
//! (file patterns) and [`find_files`] (fuzzy file names, ranked like an editor's quick-open),
//! [`read`] (a whole file or a line range, numbered, with a size guard) and [`list_dir`] (a tree
//! drawing with sizes and line counts). It is built on ripgrep's own crates — `ignore`,
//! `globset`, `grep-searcher`, `grep-regex` — and its results equal `rg`'s.
//!
//! Every entry point takes a root (a folder or a file) and an options struct whose `Default` is
//! the agent's default (ripgrep's rules, the agent's caps); options deserialize from JSON, and
//! results serialize to JSON and display as the text a model reads. Paths in results are relative
//! to the root, with forward slashes, in path order. This crate does not confine paths to a
//! workspace: the caller (cast-tools) does. It is a leaf: it depends on no other CAST crate.
//!
//! ```
//! use cast_searcher::{grep, GrepOptions};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.py"), "import os\n\ndef main():\n    return os.getcwd()\n")?;
//! let options = GrepOptions { fixed_strings: true, ..GrepOptions::default() };
//! let found = grep(dir.path(), "os.", &options)?;
//! let lines: Vec<_> = found.matches().map(|m| (m.path, m.line)).collect();
//! assert_eq!(lines, [("app.py", 4)]);
//! assert!(!found.capped);
//! assert_eq!(found.to_string(), "app.py\n4:    return os.getcwd()\n\n1 matching line in 1 file (1 files searched).");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod engine;
mod error;
mod find;
mod grep;
mod list;
mod read;
mod text;
mod walk;

pub use cast_workspace::{WalkOptions, path_order, relative};
pub use error::{FileError, SearchError};
pub use find::{
    DEFAULT_FILE_MAX_RESULTS, FindFilesOptions, FindFilesResult, GlobOptions, GlobResult,
    RankedFile, compile_glob, find_files, glob,
};
pub use grep::{DEFAULT_GREP_MAX_RESULTS, GrepLine, GrepOptions, GrepResult, grep, matcher};
pub use list::{
    DEFAULT_LIST_DEPTH, DEFAULT_LIST_MAX_ENTRIES, Entry, EntryKind, ListOptions, ListResult,
    list_dir,
};
pub use read::{
    DEFAULT_READ_MAX_BYTES, DEFAULT_READ_MAX_LINE_BYTES, DEFAULT_READ_MAX_LINES, ReadLine,
    ReadOptions, ReadResult, read,
};
pub use text::{DEFAULT_MAX_LINE_BYTES, grouped, human_size, line_text};
