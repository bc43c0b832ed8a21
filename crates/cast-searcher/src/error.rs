//! The error type of this crate, and the per-file failures a search reports without failing.

use std::io;
use std::path::PathBuf;

use serde::Serialize;

/// Why a search, read or listing could not be done. Each message says what to change.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The root, file or folder given does not exist.
    #[error("{}: no such file or folder; check the path (it is relative to the workspace root)", path.display())]
    NotFound { path: PathBuf },

    /// A regex that does not compile.
    #[error(
        "invalid regex {query:?}: {message}\nhint: to search for the text exactly, use a fixed-string search (-F, fixed_strings)"
    )]
    InvalidRegex { query: String, message: String },

    /// A glob that does not parse.
    #[error("invalid glob {glob:?}: {message}")]
    InvalidGlob { glob: String, message: String },

    /// A file or folder that exists but cannot be read.
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },

    /// `read` was given a folder.
    #[error("{}: is a folder, not a file; list it instead (cast ls, list_dir)", path.display())]
    IsAFolder { path: PathBuf },

    /// `list_dir` was given a file.
    #[error("{}: is a file, not a folder; read it instead (cast read, read_file)", path.display())]
    NotAFolder { path: PathBuf },

    /// `read` was given a binary file.
    #[error("{}: is a binary file (a NUL byte at offset {offset}); only text files can be read", path.display())]
    Binary { path: PathBuf, offset: u64 },

    /// A line range that cannot be read.
    #[error("{}: {message}", path.display())]
    BadRange { path: PathBuf, message: String },
}

impl SearchError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        let path = path.into();
        if source.kind() == io::ErrorKind::NotFound {
            SearchError::NotFound { path }
        } else {
            SearchError::Io { path, source }
        }
    }
}

/// A file or folder that could not be searched, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileError {
    /// Relative to the root, with forward slashes.
    pub path: String,
    pub message: String,
}
