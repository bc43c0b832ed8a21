use std::path::PathBuf;

/// Why building, refreshing or reading the index failed. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("{path}: no such folder; give the root of a code base to index")]
    RootNotFound { path: PathBuf },
    #[error("cannot create the index folder {path}: {source}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("index database {path}: {source}; if this persists, delete the file and it is rebuilt")]
    Db {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// A table a new index writes on a thread of its own could not be written (the thread
    /// could not start, or it panicked).
    #[error("cannot write the table in {path}: {reason}")]
    ScratchTable { path: PathBuf, reason: String },
    #[error("no index at {db}; build it with `cast index {root}`")]
    NoIndex { db: PathBuf, root: PathBuf },
}

/// Shorthand for results in this crate.
pub type Result<T, E = IndexError> = std::result::Result<T, E>;
