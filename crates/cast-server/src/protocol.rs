//! What crosses the socket: a [`Request`] (one JSON line) and its [`Reply`] (one JSON line).
//!
//! A question is the library's own options type and an answer the library's own result type, so
//! a served answer is rendered by the command exactly as an answer it worked out itself.

use std::path::{Path, PathBuf};

use cast_analyzer::{FindOptions, Found, LogicMap, MapOptions};
use cast_workspace::StateDir;
use serde::{Deserialize, Serialize};

use crate::ServerError;

/// The socket's name in the tree's `.cast/`.
pub const SOCKET: &str = "serve.sock";

/// The file a server holds locked while it starts and runs: one server per tree.
pub(crate) const LOCK: &str = "serve.lock";

/// The longest request read (a query is a task's text: well under this).
pub(crate) const MAX_REQUEST: u64 = 4 << 20;

/// The longest reply read: a map or a search is well under it; a server that sends more is
/// broken, and the command answers on its own.
pub(crate) const MAX_REPLY: u64 = 256 << 20;

/// The socket of `root`'s server: `ROOT/.cast/serve.sock`.
pub fn socket_of(root: &Path) -> PathBuf {
    StateDir::of(root).join(SOCKET)
}

/// What a command asks a server.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Question {
    /// A search (`cast find`).
    Find(FindOptions),
    /// A map (`cast map`); its `root_name` is the root as the command was given it (the map's
    /// header shows it).
    Map(MapOptions),
    /// Stop (`cast serve --stop`; any build may ask).
    Stop,
    /// Say how it is (`cast serve --status`; any build may ask).
    Status,
}

/// A question, as sent to the server.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Request {
    /// The asking build (see [`build`]): a server answers its own build only.
    pub version: String,
    /// The asking executable's path: a server started by a command gives way to the same
    /// path rebuilt (absent from builds before it was sent: never the same).
    #[serde(default)]
    pub exe: PathBuf,
    /// The tree, with links resolved (the server answers for its own only).
    pub root: PathBuf,
    pub asked: Question,
}

/// A server's reply.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Reply {
    /// What a search found.
    Found(Found),
    /// The map asked for.
    Mapped(LogicMap),
    /// The index could not be opened or refreshed.
    Failed { message: String },
    /// Not this server's to answer (another build or tree, a malformed request, busy): the
    /// asker answers on its own.
    Declined { why: String },
    /// Asked to stop: it stops once the requests in flight are answered.
    Stopping,
    /// How it is (`cast serve --status`).
    Status(Status),
}

/// A running server, as it says of itself.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Status {
    pub pid: u32,
    /// Its build (see [`build`]).
    pub version: String,
    pub started_by_command: bool,
    /// Questions answered (searches and maps) since it started.
    pub answered: u64,
    /// Seconds since the last question ended (0 while one is in flight).
    pub idle_secs: f64,
    pub idle_exit_secs: Option<f64>,
}

/// This executable's path (empty when it cannot be told).
pub(crate) fn exe() -> PathBuf {
    std::env::current_exe().unwrap_or_default()
}

/// Which build `exe` is: the version, and the size and mtime of the executable (a server of
/// another build, even of the same version, may answer differently: it is not asked). Taken
/// once by a server, when it starts: a binary rebuilt under it is then another build.
pub(crate) fn build(exe: &Path) -> String {
    let version = env!("CARGO_PKG_VERSION");
    match std::fs::metadata(exe) {
        Ok(meta) => {
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{version}+{}.{mtime}", meta.len())
        }
        Err(_) => version.to_string(),
    }
}

/// Refuses a tree whose path is not UTF-8: a request names its tree in JSON, which holds only
/// UTF-8, so no command could ever ask its server.
pub(crate) fn servable(root: &Path) -> Result<(), ServerError> {
    match root.to_str() {
        Some(_) => Ok(()),
        None => Err(ServerError::NotUtf8(root.to_path_buf())),
    }
}

/// The tree `root` names, links resolved, that a server may serve.
pub(crate) fn resolved(root: &Path) -> Result<PathBuf, ServerError> {
    let real =
        std::fs::canonicalize(root).map_err(|_| ServerError::NoSuchFolder(root.to_path_buf()))?;
    servable(&real)?;
    Ok(real)
}
