//! The commands' side: ask a tree's server, and start one for a tree asked about again.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cast_workspace::StateDir;

use super::{Answered, Asked, LOCK, Reply, Request, build, socket_of};
use crate::Exit;

/// Why a command answers on its own.
pub(crate) enum Unanswered {
    /// CAST_NO_SERVER is set, or the root cannot be resolved: no server asked or started.
    NotAsked,
    /// Nobody listens for this tree (the tree's root, links resolved).
    NoServer(PathBuf),
    /// A server listens but did not answer: it declined (another build, busy) or the exchange
    /// failed. Another server would not be let in while it listens.
    Declined,
}

/// A command answering on its own starts a server when its tree was asked about this recently.
const ASKED_AGAIN_WITHIN: Duration = Duration::from_secs(120);

/// How long a server started by a command waits for a question before it stops.
const STARTED_IDLE_EXIT: &str = "10m";

/// The file in `.cast/` whose mtime says when a command last answered on its own.
const ASKED: &str = "serve.asked";

/// The file in `.cast/` that a server started by a command writes its messages to.
const LOG: &str = "serve.log";

/// Asks the server of `root`: its answer, or why there is none (the caller then answers on its
/// own, and may start a server with [`Unanswered::start_server_if_asked_again`]).
pub(crate) fn ask(root: &Path, asked: Asked) -> Result<Answered, Unanswered> {
    if std::env::var_os("CAST_NO_SERVER").is_some() {
        return Err(Unanswered::NotAsked);
    }
    let root = std::fs::canonicalize(root).map_err(|_| Unanswered::NotAsked)?;
    let socket = socket_of(&root);
    let request = Request {
        version: build(),
        root,
        asked,
    };
    let reply = exchange(&socket, &request).map_err(|failed| match failed {
        Exchange::NoServer => Unanswered::NoServer(request.root.clone()),
        Exchange::Broken => Unanswered::Declined,
    })?;
    match reply {
        Reply::Answer {
            output,
            nothing_found,
            note,
        } => Ok(Answered::Output {
            output,
            note,
            exit: if nothing_found {
                Exit::NothingOrRefused
            } else {
                Exit::Success
            },
        }),
        Reply::Failed { message } => Ok(Answered::Failed(anyhow::anyhow!(message))),
        Reply::Declined { .. } | Reply::Stopping => Err(Unanswered::Declined),
    }
}

impl Unanswered {
    /// Called once the command has answered on its own. Notes the time in `.cast/`, and when
    /// the tree was asked about less than [`ASKED_AGAIN_WITHIN`] before, starts a server for it
    /// in the background (its own process group, no terminal, messages to `.cast/serve.log`):
    /// the next question is answered by it. A one-off question starts nothing. Nothing here is
    /// an error of the command: a server is only ever a speed-up.
    pub(crate) fn start_server_if_asked_again(&self) {
        let Unanswered::NoServer(root) = self else {
            return;
        };
        let state = StateDir::of(root);
        let mark = state.join(ASKED);
        let now = SystemTime::now();
        let asked_recently = std::fs::metadata(&mark)
            .and_then(|meta| meta.modified())
            .ok()
            .and_then(|then| now.duration_since(then).ok())
            .is_some_and(|age| age <= ASKED_AGAIN_WITHIN);
        // Only where the index lives: a command that could not make `.cast/` made no index.
        let marked = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&mark)
            .and_then(|file| file.set_modified(now));
        if marked.is_ok() && asked_recently {
            let _ = start(root, &state);
        }
    }
}

/// Starts `cast serve --root ROOT --idle-exit 10m` in the background, not waited for.
#[cfg(unix)]
fn start(root: &Path, state: &StateDir) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    // A socket path longer than the system takes (about 100 bytes) cannot be listened on: no
    // server to start, then, every time.
    std::os::unix::net::SocketAddr::from_pathname(socket_of(root))?;
    let log = std::fs::File::create(state.join(LOG))?;
    Command::new(std::env::current_exe()?)
        .arg("serve")
        .arg("--root")
        .arg(root)
        .args(["--idle-exit", STARTED_IDLE_EXIT, "--started-by-command"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        // Holds no folder of the command's (one it might be deleting or unmounting).
        .current_dir("/")
        // Out of the terminal's foreground group: the Ctrl-C meant for a later command does
        // not reach it.
        .process_group(0)
        .spawn()
        .map(drop)
}

#[cfg(not(unix))]
fn start(_root: &Path, _state: &StateDir) -> std::io::Result<()> {
    Ok(())
}

/// `cast serve --stop`: asks the server of `root` to stop and waits until it has.
pub(super) fn stop(root: &Path) -> anyhow::Result<Exit> {
    let root = std::fs::canonicalize(root)
        .map_err(|_| anyhow::anyhow!("{}: no such folder", root.display()))?;
    let request = Request {
        version: build(),
        root: root.clone(),
        asked: Asked::Stop,
    };
    match exchange(&socket_of(&root), &request) {
        Ok(Reply::Stopping) => {}
        Ok(_) | Err(Exchange::Broken) => {
            anyhow::bail!(
                "the server of {} did not agree to stop (a build of cast from before `--stop`?); stop it with `kill`",
                root.display()
            )
        }
        Err(Exchange::NoServer) => {
            crate::output::warn(format!("no server runs for {}", root.display()));
            return Ok(Exit::NothingOrRefused);
        }
    }
    // Stopped once it lets go of its lock (after the requests in flight are answered).
    let lock = std::fs::File::open(StateDir::of(&root).join(LOCK))?;
    let start = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(err)) => return Err(err.into()),
        }
        if start.elapsed() > Duration::from_secs(300) {
            anyhow::bail!(
                "the server of {} is still answering after 5 minutes",
                root.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    crate::output::warn(format!("stopped the server of {}", root.display()));
    Ok(Exit::Success)
}

/// Why an exchange with a server came to nothing.
enum Exchange {
    /// Nobody listens on the socket (no socket, or one left by a server that is gone).
    NoServer,
    /// Something went wrong after connecting.
    Broken,
}

#[cfg(unix)]
fn exchange(socket: &Path, request: &Request) -> Result<Reply, Exchange> {
    use std::os::unix::net::UnixStream;
    let mut stream = UnixStream::connect(socket).map_err(|_| Exchange::NoServer)?;
    let broken = |_| Exchange::Broken;
    let mut line = serde_json::to_vec(request).map_err(|_| Exchange::Broken)?;
    line.push(b'\n');
    stream.write_all(&line).map_err(broken)?;
    // A refresh after a large change takes seconds; a server stuck for this long is not
    // waited for.
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .map_err(broken)?;
    let mut reply = String::new();
    BufReader::new(stream)
        .read_line(&mut reply)
        .map_err(broken)?;
    serde_json::from_str(&reply).map_err(|_| Exchange::Broken)
}

#[cfg(not(unix))]
fn exchange(_socket: &Path, _request: &Request) -> Result<Reply, Exchange> {
    Err(Exchange::NoServer)
}
