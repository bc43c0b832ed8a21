//! The crate's one error type.

use std::io;
use std::path::PathBuf;

use crate::refusal::Refusal;

/// Why applying or undoing an edit did not happen.
///
/// [`CoderError::Refused`] is the ordinary outcome of an edit that cannot be applied exactly:
/// the files are untouched and the [`Refusal`] says why in words a model can act on. The other
/// variants are failures of the machine (a file that cannot be read or written, a damaged
/// journal).
#[derive(Debug, thiserror::Error)]
pub enum CoderError {
    /// The edit was refused; nothing was written.
    #[error("{0}")]
    Refused(Box<Refusal>),
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder concerned.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The undo journal under `.cast/undo/` cannot be used.
    #[error("undo journal {path}: {message}")]
    Journal {
        /// The journal entry or folder concerned.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// Nothing to undo, or an undo that would overwrite later changes.
    #[error("{0}")]
    Undo(String),
}

impl CoderError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        CoderError::Io {
            path: path.into(),
            source,
        }
    }

    /// The refusal, when this error is one.
    pub fn refusal(&self) -> Option<&Refusal> {
        match self {
            CoderError::Refused(r) => Some(r),
            _ => None,
        }
    }
}

impl From<Refusal> for CoderError {
    fn from(r: Refusal) -> Self {
        CoderError::Refused(Box::new(r))
    }
}
