//! What can go wrong serving a tree or asking its server.

use std::path::PathBuf;

/// An error of [`serve`](crate::serve), [`stop`](crate::stop) or [`status`](crate::status).
/// (Asking a question never fails: a command that gets no answer works it out itself.) The
/// message says what was being done; its `source` says why.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(
        "{}: a tree whose path is not UTF-8 has no server (a request names its tree in JSON); \
         `cast find` and `cast map` answer on their own there",
        .0.display()
    )]
    NotUtf8(PathBuf),
    #[error("{}: no such folder", .0.display())]
    NoSuchFolder(PathBuf),
    #[error(transparent)]
    StateDir(#[from] cast_workspace::StateDirError),
    #[error("cast serve needs Unix sockets (Linux or macOS)")]
    Unsupported,
    #[error(
        "cannot listen on {}: a socket's path is limited to about 100 bytes",
        .0.display()
    )]
    SocketPathTooLong(PathBuf),
    /// Another server holds the tree's lock (or is starting).
    #[error("a server already answers for {} (or is starting; it holds {})", .root.display(), .lock.display())]
    AlreadyLocked { root: PathBuf, lock: PathBuf },
    /// A server of a build from before the lock listens on the socket.
    #[error("a server already answers for {} (on {})", .root.display(), .socket.display())]
    AlreadyListening { root: PathBuf, socket: PathBuf },
    #[error(
        "{max} servers started by commands already run for this user (slots in {}); the \
         commands answer on their own meanwhile (`cast serve --status --all` lists them, \
         `--stop --all` stops them)",
        .dir.display()
    )]
    SlotsTaken { max: usize, dir: PathBuf },
    #[error("cannot index {}", .root.display())]
    Index {
        root: PathBuf,
        source: cast_analyzer::IndexError,
    },
    /// A file or socket operation failed: `what` says which (`cannot open PATH`).
    #[error("{what}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error(
        "the server of {} did not answer (a build of cast from before `--stop` and `--status`?); stop it with `kill`",
        .0.display()
    )]
    NoAnswer(PathBuf),
    #[error("the server of {} has been starting for 5 minutes", .0.display())]
    StillStarting(PathBuf),
    #[error(
        "the server of {} did not agree to stop (a build of cast from before `--stop`?); stop it with `kill`",
        .0.display()
    )]
    WouldNotStop(PathBuf),
    #[error("the server of {} is still answering after 5 minutes", .0.display())]
    StillAnswering(PathBuf),
    #[error(
        "the server of {} did not say its status (a build of cast from before `--status`?)",
        .0.display()
    )]
    NoStatus(PathBuf),
}

impl ServerError {
    /// An I/O error with what was being done.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ServerError {
        let what = what.into();
        move |source| ServerError::Io { what, source }
    }
}
