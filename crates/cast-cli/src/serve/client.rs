//! The commands' side: ask a tree's server, and start one for a tree asked about again.

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use cast_workspace::StateDir;

use super::{
    Answered, Asked, LOCK, Reply, Request, STARTED_SERVERS, Status, build, exe, slot_dir,
    slot_path, slot_root_path, socket_of,
};
use crate::{Exit, Out};

/// Why a command answers on its own.
pub(crate) enum Unanswered {
    /// CAST_NO_SERVER is set, the command's options are ones a server does not answer (`--db`,
    /// `--trace`), or the root cannot be resolved: no server asked or started.
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

/// The log is appended to by each server started (its few lines each); past this size a start
/// empties it first.
const LOG_LIMIT: u64 = 256 << 10;

/// Whether an environment variable is set to something meaning yes (not empty, not `0`).
fn env_says_yes(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// [`ask`] when `allowed` (the command's options are ones a server answers), else
/// [`Unanswered::NotAsked`].
pub(crate) fn ask_if(allowed: bool, root: &Path, asked: Asked) -> Result<Answered, Unanswered> {
    if allowed {
        ask(root, asked)
    } else {
        Err(Unanswered::NotAsked)
    }
}

/// Asks the server of `root`: its answer, or why there is none (the caller then answers on its
/// own, and may start a server with [`Unanswered::start_server_if_asked_again`]).
fn ask(root: &Path, asked: Asked) -> Result<Answered, Unanswered> {
    if env_says_yes("CAST_NO_SERVER") {
        return Err(Unanswered::NotAsked);
    }
    let root = std::fs::canonicalize(root).map_err(|_| Unanswered::NotAsked)?;
    // Neither asked nor started: its server could not be asked (see `servable`).
    super::servable(&root).map_err(|_| Unanswered::NotAsked)?;
    let socket = socket_of(&root);
    let request = request(root, asked);
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
        Reply::Declined { .. } | Reply::Stopping | Reply::Status(_) => Err(Unanswered::Declined),
    }
}

fn request(root: PathBuf, asked: Asked) -> Request {
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
        // A CI job is a one-off, whatever it asks; and a server that holds the lock is one
        // starting (checking the index) or one that stopped listening: no second one.
        if marked.is_ok()
            && asked_recently
            && !env_says_yes("CI")
            && !lock_held(&state)
            && slot_free()
            && start(root, &state).is_ok()
            && std::io::stderr().is_terminal()
        {
            // A person at a terminal is told what was started on their behalf; a program
            // reading stderr is spared the line at every start.
            crate::output::warn(format!(
                "started `cast serve` for {} in the background: it answers the next questions \
                 sooner and stops after {STARTED_IDLE_EXIT} without one (`cast serve --status \
                 --all` lists such servers, `--stop --all` stops them; `--no-server` or \
                 CAST_NO_SERVER=1 starts none)",
                root.display()
            ));
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
    let log_path = state.join(LOG);
    if std::fs::metadata(&log_path).is_ok_and(|meta| meta.len() > LOG_LIMIT) {
        std::fs::remove_file(&log_path)?;
    }
    // Appended to: a start that loses the race for the lock says so after the winner's lines.
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)?;
    let mut command = Command::new(std::env::current_exe()?);
    // A server outlives the command: git's variables of a hook or of a `git -C` wrapper that
    // ran it would point its history at another repository for every later question.
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("GIT_") {
            command.env_remove(name);
        }
    }
    command
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

/// Whether a server started now could take one of the user's slots (see [`slot_dir`]): at the
/// cap, none is started (it would only fail).
fn slot_free() -> bool {
    let Some(dir) = slot_dir() else {
        return true;
    };
    (0..STARTED_SERVERS).any(|n| match std::fs::File::open(slot_path(&dir, n)) {
        Ok(slot) => slot.try_lock().is_ok(),
        Err(err) => err.kind() == std::io::ErrorKind::NotFound,
    })
}

/// Whether a server holds the tree's lock (one runs or is starting).
fn lock_held(state: &StateDir) -> bool {
    held(&state.join(LOCK))
}

/// Whether a process holds the lock file at `path`. flock has no test: a free lock is taken
/// here and let go at once (the file is closed), and a server tries its locks for longer.
fn held(path: &Path) -> bool {
    std::fs::File::open(path)
        .is_ok_and(|lock| matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
}

/// How long `--stop` and `--status` wait for a server that is starting (checking the index).
const STARTING_WAIT: Duration = Duration::from_secs(300);

/// What `--stop` and `--status` found.
enum Found {
    Reply(Reply),
    /// Holds the tree's lock but does not listen yet (checking the index).
    Starting,
    None,
}

/// Sends `asked` to the server of `root`; for one that is still starting, waits until it
/// listens when `wait`, else says so. `Found::None` when none runs.
fn ask_server(root: &Path, asked: Asked, wait: bool) -> anyhow::Result<Found> {
    let state = StateDir::of(root);
    let request = request(root.to_path_buf(), asked);
    let start = std::time::Instant::now();
    loop {
        match exchange(&socket_of(root), &request) {
            Ok(reply) => return Ok(Found::Reply(reply)),
            Err(Exchange::Broken) => anyhow::bail!(
                "the server of {} did not answer (a build of cast from before `--stop` and `--status`?); stop it with `kill`",
                root.display()
            ),
            Err(Exchange::NoServer) if !lock_held(&state) => return Ok(Found::None),
            Err(Exchange::NoServer) if !wait => return Ok(Found::Starting),
            // Holds the lock but does not listen yet: starting.
            Err(Exchange::NoServer) if start.elapsed() > STARTING_WAIT => anyhow::bail!(
                "the server of {} has been starting for 5 minutes",
                root.display()
            ),
            Err(Exchange::NoServer) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// Whole seconds, as a server reported them (nonsense reads as zero).
fn seconds(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.round()).unwrap_or_default()
}

fn resolved(root: &Path) -> anyhow::Result<PathBuf> {
    let root = std::fs::canonicalize(root)
        .map_err(|_| anyhow::anyhow!("{}: no such folder", root.display()))?;
    super::servable(&root)?;
    Ok(root)
}

/// `cast serve --stop`: asks the server of `root` to stop and waits until it has. The time of
/// the last question is forgotten, so the next one does not start a server again at once.
pub(super) fn stop(root: &Path) -> anyhow::Result<Exit> {
    let root = resolved(root)?;
    let state = StateDir::of(&root);
    let _ = std::fs::remove_file(state.join(ASKED));
    match ask_server(&root, Asked::Stop, true)? {
        Found::Reply(Reply::Stopping) => {}
        Found::Reply(_) | Found::Starting => anyhow::bail!(
            "the server of {} did not agree to stop (a build of cast from before `--stop`?); stop it with `kill`",
            root.display()
        ),
        Found::None => {
            crate::output::warn(format!("no server runs for {}", root.display()));
            return Ok(Exit::NothingOrRefused);
        }
    }
    // Stopped once it lets go of its lock (after the requests in flight are answered).
    let lock = std::fs::File::open(state.join(LOCK))?;
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

/// A server that a command started, as its slot names it: its process id and tree (`None`
/// when the slot names none, as a server of a build from before `--all` does not).
struct Started {
    pid: Option<u32>,
    root: Option<PathBuf>,
}

/// The servers that commands started for this user: one per held slot (see [`slot_dir`]; in
/// this environment's runtime or cache folder, so a server started where it differs, from an
/// editor or a cron job, is not among them).
#[cfg(unix)]
fn started_servers() -> Vec<Started> {
    use std::os::unix::ffi::OsStringExt;
    let Some(dir) = slot_dir() else {
        return Vec::new();
    };
    (0..STARTED_SERVERS)
        .filter(|&n| held(&slot_path(&dir, n)))
        .map(|n| {
            let text = std::fs::read(slot_root_path(&dir, n)).unwrap_or_default();
            let (pid, root) = match text.iter().position(|&b| b == b'\n') {
                Some(at) => (&text[..at], &text[at + 1..]),
                None => (&text[..0], &text[..0]),
            };
            Started {
                pid: std::str::from_utf8(pid).ok().and_then(|p| p.parse().ok()),
                root: (!root.is_empty())
                    .then(|| PathBuf::from(std::ffi::OsString::from_vec(root.to_vec()))),
            }
        })
        .collect()
}

#[cfg(not(unix))]
fn started_servers() -> Vec<Started> {
    Vec::new()
}

/// What the server named by a slot says of itself, when it is that server: a slot left named
/// by a server that ended (killed) and taken since by a build that names none points at
/// another tree, whose server, if any, is not the one holding the slot.
enum Checked {
    Answers(PathBuf, Status),
    /// Holds its tree's lock but does not listen yet (checking the index).
    Starting(PathBuf),
    /// The slot's server cannot be told: it names no tree, or the tree's server is another.
    Unknown(Option<u32>),
}

fn check(started: Started) -> Checked {
    let (Some(pid), Some(root)) = (started.pid, started.root) else {
        return Checked::Unknown(started.pid);
    };
    match ask_server(&root, Asked::Status, false) {
        Ok(Found::Reply(Reply::Status(status)))
            if status.pid == pid && status.started_by_command =>
        {
            Checked::Answers(root, status)
        }
        Ok(Found::Starting) => Checked::Starting(root),
        _ => Checked::Unknown(Some(pid)),
    }
}

/// What to say of a slot's server that cannot be told.
fn unknown_server(pid: Option<u32>) -> String {
    let pid = pid.map_or_else(|| "its process".to_owned(), |pid| format!("pid {pid}"));
    format!(
        "a server started by a command runs but cannot be asked ({pid}; a build of cast from \
         before `--all`, or its tree moved or removed): `pgrep -af 'cast serve'` lists such \
         servers, `kill` stops one"
    )
}

/// `cast serve --status --all`: a line on each server the commands started; exit 1 when none
/// runs.
pub(super) fn status_all(out: &mut Out) -> anyhow::Result<Exit> {
    let servers = started_servers();
    if servers.is_empty() {
        crate::output::warn("no server started by a command runs for this user");
        return Ok(Exit::NothingOrRefused);
    }
    for started in servers {
        match check(started) {
            Checked::Answers(root, status) => out.line(&status_line(&root, &status))?,
            Checked::Starting(root) => out.line(&starting_line(&root))?,
            Checked::Unknown(pid) => out.line(&unknown_server(pid))?,
        }
    }
    Ok(Exit::Success)
}

/// `cast serve --stop --all`: stops every server the commands started (see [`stop`]); fails
/// when one could not be stopped.
pub(super) fn stop_all() -> anyhow::Result<Exit> {
    let servers = started_servers();
    if servers.is_empty() {
        crate::output::warn("no server started by a command runs for this user");
        return Ok(Exit::NothingOrRefused);
    }
    let mut failed = 0;
    for started in servers {
        let root = match check(started) {
            Checked::Answers(root, _) | Checked::Starting(root) => root,
            Checked::Unknown(pid) => {
                crate::output::warn(unknown_server(pid));
                failed += 1;
                continue;
            }
        };
        match stop(&root) {
            // Stopped, or it ended meanwhile.
            Ok(_) => {}
            Err(err) => {
                crate::output::warn(format!("{err:#}"));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        anyhow::bail!("{failed} server(s) started by commands were not stopped");
    }
    Ok(Exit::Success)
}

fn starting_line(root: &Path) -> String {
    format!(
        "a server is starting for {} (checking the index; it answers once that is done)",
        root.display()
    )
}

fn status_line(root: &Path, status: &Status) -> String {
    let who = if status.started_by_command {
        "started by a command"
    } else {
        "started by a person"
    };
    let stops = match status.idle_exit_secs {
        Some(secs) => format!(
            "stops after {} without a question",
            humantime::format_duration(seconds(secs))
        ),
        None => "runs until stopped".to_owned(),
    };
    format!(
        "a server answers for {}: pid {}, {who}, {} question{} answered, idle {}, {stops} (build {})",
        root.display(),
        status.pid,
        status.answered,
        if status.answered == 1 { "" } else { "s" },
        humantime::format_duration(seconds(status.idle_secs)),
        status.version
    )
}

/// `cast serve --status`: one line on the server of `root`, or exit 1 when none runs.
pub(super) fn status(root: &Path, out: &mut Out) -> anyhow::Result<Exit> {
    let root = resolved(root)?;
    match ask_server(&root, Asked::Status, false)? {
        Found::Starting => {
            out.line(&starting_line(&root))?;
            Ok(Exit::Success)
        }
        Found::Reply(Reply::Status(status)) => {
            out.line(&status_line(&root, &status))?;
            Ok(Exit::Success)
        }
        Found::Reply(_) => anyhow::bail!(
            "the server of {} did not say its status (a build of cast from before `--status`?)",
            root.display()
        ),
        Found::None => {
            crate::output::warn(format!("no server runs for {}", root.display()));
            Ok(Exit::NothingOrRefused)
        }
    }
}

/// The longest reply read: a map or a search is well under it; a server that sends more is
/// broken, and the command answers on its own.
const MAX_REPLY: u64 = 256 << 20;

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
