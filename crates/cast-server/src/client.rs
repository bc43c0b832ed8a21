//! The asking side: ask a tree's server a question, start one for a tree asked about again,
//! and ask one for its status or to stop.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cast_analyzer::{Found, LogicMap};
use cast_workspace::StateDir;

use crate::ServerError;
use crate::protocol::{
    LOCK, MAX_REPLY, Question, Reply, Request, Status, build, exe, resolved, servable, socket_of,
};
use crate::slots::{self, held, slot_free};

/// A server's answer to a question.
#[derive(Debug)]
pub enum Answer {
    /// What a search found.
    Found(Found),
    /// The map asked for.
    Mapped(LogicMap),
    /// The server could not answer: its index could not be opened or refreshed. This is the
    /// command's failure too (it would have failed the same way).
    Failed(String),
}

/// Why a command answers on its own.
#[derive(Debug)]
pub enum Unanswered {
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

/// The file in `.cast/` whose mtime says when a command last answered on its own.
const ASKED: &str = "serve.asked";

/// The file in `.cast/` that a server started by a command writes its messages to.
pub const LOG: &str = "serve.log";

/// The log is appended to by each server started (its few lines each); past this size a start
/// empties it first.
const LOG_LIMIT: u64 = 256 << 10;

/// Whether an environment variable is set to something meaning yes (not empty, not `0`).
fn env_says_yes(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// Asks the server of `root` (any path naming the tree) `question`: its answer, or why there
/// is none (the caller then answers on its own, and may start a server with
/// [`Unanswered::start_server_if_asked_again`]). Never asks when CAST_NO_SERVER is set.
pub fn ask(root: &Path, question: Question) -> Result<Answer, Unanswered> {
    if env_says_yes("CAST_NO_SERVER") {
        return Err(Unanswered::NotAsked);
    }
    let root = std::fs::canonicalize(root).map_err(|_| Unanswered::NotAsked)?;
    // Neither asked nor started: its server could not be asked (see `servable`).
    servable(&root).map_err(|_| Unanswered::NotAsked)?;
    let request = request(root, question);
    let reply = exchange(&socket_of(&request.root), &request).map_err(|failed| match failed {
        Exchange::NoServer => Unanswered::NoServer(request.root.clone()),
        Exchange::Broken => Unanswered::Declined,
    })?;
    match reply {
        Reply::Found(found) => Ok(Answer::Found(found)),
        Reply::Mapped(map) => Ok(Answer::Mapped(map)),
        Reply::Failed { message } => Ok(Answer::Failed(message)),
        Reply::Declined { .. } | Reply::Stopping | Reply::Status(_) => Err(Unanswered::Declined),
    }
}

fn request(root: PathBuf, asked: Question) -> Request {
    let exe = exe();
    Request {
        version: build(&exe),
        exe,
        root,
        asked,
    }
}

impl Unanswered {
    /// Called once the command has answered on its own. Notes the time in `.cast/`, and when
    /// the tree was asked about less than two minutes before, starts a server for it in the
    /// background: `serve(root)` is the command that runs one (`cast serve --root ROOT
    /// --idle-exit 10m --started-by-command`), run here in its own process group, with no
    /// terminal, its messages to `.cast/serve.log`. The next question is answered by it. A
    /// one-off question starts nothing, nor does one asked where CI is set. Returns the tree
    /// when a server was started. Nothing here is an error of the command: a server is only
    /// ever a speed-up.
    pub fn start_server_if_asked_again(
        &self,
        serve: impl FnOnce(&Path) -> std::io::Result<std::process::Command>,
    ) -> Option<&Path> {
        let Unanswered::NoServer(root) = self else {
            return None;
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
        // A CI job is a one-off, whatever it asks; and a server that holds the lock is one
        // starting (checking the index) or one that stopped listening: no second one.
        let started = marked.is_ok()
            && asked_recently
            && !env_says_yes("CI")
            && !held(&state.join(LOCK))
            && slot_free()
            && serve(root)
                .and_then(|command| start(root, &state, command))
                .is_ok();
        started.then_some(root.as_path())
    }
}

/// Runs `command` (a `cast serve` of `root`) in the background, not waited for.
#[cfg(unix)]
fn start(root: &Path, state: &StateDir, mut command: std::process::Command) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    // A socket path longer than the system takes (about 100 bytes) cannot be listened on: no
    // server to start, then, every time.
    std::os::unix::net::SocketAddr::from_pathname(socket_of(root))?;
    let log_path = state.join(LOG);
    if std::fs::metadata(&log_path).is_ok_and(|meta| meta.len() > LOG_LIMIT) {
        std::fs::remove_file(&log_path)?;
    }
    // Appended to: a start that loses the race for the lock says so after the winner's lines.
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)?;
    // A server outlives the command: git's variables of a hook or of a `git -C` wrapper that
    // ran it would point its history at another repository for every later question.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("GIT_") {
            command.env_remove(name);
        }
    }
    command
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
fn start(_root: &Path, _state: &StateDir, _command: std::process::Command) -> std::io::Result<()> {
    Ok(())
}

/// How long [`stop`] and [`status`] wait for a server that is starting (checking the index).
const STARTING_WAIT: Duration = Duration::from_secs(300);

/// What a server of a tree is doing.
#[derive(Debug, Clone)]
pub enum ServerState {
    /// It listens and said this of itself.
    Answers(Status),
    /// It holds the tree's lock but does not listen yet (checking the index).
    Starting,
}

/// What [`ask_server`] found.
enum Reached {
    Reply(Box<Reply>),
    Starting,
    None,
}

/// Sends `asked` to the server of `root`; for one that is still starting, waits until it
/// listens when `wait`, else says so.
fn ask_server(root: &Path, asked: Question, wait: bool) -> Result<Reached, ServerError> {
    let state = StateDir::of(root);
    let request = request(root.to_path_buf(), asked);
    let start = std::time::Instant::now();
    loop {
        match exchange(&socket_of(root), &request) {
            Ok(reply) => return Ok(Reached::Reply(Box::new(reply))),
            Err(Exchange::Broken) => return Err(ServerError::NoAnswer(root.to_path_buf())),
            Err(Exchange::NoServer) if !held(&state.join(LOCK)) => return Ok(Reached::None),
            Err(Exchange::NoServer) if !wait => return Ok(Reached::Starting),
            // Holds the lock but does not listen yet: starting.
            Err(Exchange::NoServer) if start.elapsed() > STARTING_WAIT => {
                return Err(ServerError::StillStarting(root.to_path_buf()));
            }
            Err(Exchange::NoServer) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// What [`stop`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The server of this tree stopped (it answered the requests in flight first).
    Stopped(PathBuf),
    /// No server runs for this tree.
    NoneRuns(PathBuf),
}

/// Asks the server of `root` to stop and waits until it has. The time of the last question is
/// forgotten, so the next one does not start a server again at once.
pub fn stop(root: &Path) -> Result<Stopped, ServerError> {
    let root = resolved(root)?;
    let state = StateDir::of(&root);
    let _ = std::fs::remove_file(state.join(ASKED));
    match ask_server(&root, Question::Stop, true)? {
        Reached::Reply(reply) if matches!(*reply, Reply::Stopping) => {}
        Reached::Reply(_) | Reached::Starting => return Err(ServerError::WouldNotStop(root)),
        Reached::None => return Ok(Stopped::NoneRuns(root)),
    }
    // Stopped once it lets go of its lock (after the requests in flight are answered).
    let lock_path = state.join(LOCK);
    let lock = std::fs::File::open(&lock_path).map_err(ServerError::io(format!(
        "cannot open {}",
        lock_path.display()
    )))?;
    let start = std::time::Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(err)) => {
                return Err(ServerError::io(format!(
                    "cannot lock {}",
                    lock_path.display()
                ))(err));
            }
        }
        if start.elapsed() > STARTING_WAIT {
            return Err(ServerError::StillAnswering(root));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(Stopped::Stopped(root))
}

/// What the server of `root` says of itself: the tree (links resolved) and its state, or
/// `None` for the tree when no server runs for it.
pub fn status(root: &Path) -> Result<(PathBuf, Option<ServerState>), ServerError> {
    let root = resolved(root)?;
    let state = match ask_server(&root, Question::Status, false)? {
        Reached::Starting => Some(ServerState::Starting),
        Reached::Reply(reply) => match *reply {
            Reply::Status(status) => Some(ServerState::Answers(status)),
            _ => return Err(ServerError::NoStatus(root)),
        },
        Reached::None => None,
    };
    Ok((root, state))
}

/// A server that a command started, as [`started_servers`] finds it.
#[derive(Debug, Clone)]
pub enum StartedServer {
    /// It answers for this tree and said this of itself.
    Answers(PathBuf, Status),
    /// It holds its tree's lock but does not listen yet (checking the index).
    Starting(PathBuf),
    /// It cannot be told: its slot names no tree (a build from before `--all`), or the tree's
    /// server is another (the slot's server was killed and the tree moved or removed). The
    /// process id, when the slot names one.
    Unknown(Option<u32>),
}

/// The servers that commands started for this user, each checked against what it says of
/// itself: a slot left named by a server that ended and taken since by a build that names
/// none points at another tree, whose server, if any, is not the one holding the slot.
pub fn started_servers() -> Vec<StartedServer> {
    slots::started_servers()
        .into_iter()
        .map(|started| {
            let (Some(pid), Some(root)) = (started.pid, started.root) else {
                return StartedServer::Unknown(started.pid);
            };
            match ask_server(&root, Question::Status, false) {
                Ok(Reached::Reply(reply)) => match *reply {
                    Reply::Status(status) if status.pid == pid && status.started_by_command => {
                        StartedServer::Answers(root, status)
                    }
                    _ => StartedServer::Unknown(Some(pid)),
                },
                Ok(Reached::Starting) => StartedServer::Starting(root),
                _ => StartedServer::Unknown(Some(pid)),
            }
        })
        .collect()
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
    BufReader::new(std::io::Read::take(stream, MAX_REPLY))
        .read_line(&mut reply)
        .map_err(broken)?;
    serde_json::from_str(&reply).map_err(|_| Exchange::Broken)
}

#[cfg(not(unix))]
fn exchange(_socket: &Path, _request: &Request) -> Result<Reply, Exchange> {
    Err(Exchange::NoServer)
}
