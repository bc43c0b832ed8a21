//! The serving side: one server per tree, a loop that hands each request to a thread of its
//! own, what it answers, and when it stops.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cast_analyzer::{KeptIndex, Queries};
use cast_workspace::StateDir;

use crate::ServerError;
use crate::protocol::{
    LOCK, MAX_REQUEST, Question, Reply, Request, Status, build, exe, servable, socket_of,
};
#[cfg(unix)]
use crate::slots::{take_slot, try_lock_a_while};

/// How a server runs.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// Stop after this long without a question; `None`: run until stopped.
    pub idle_exit: Option<Duration>,
    /// Started by a command, not by a person: takes one of the user's
    /// [`STARTED_SERVERS`](crate::STARTED_SERVERS) slots, closes the files it inherited, and
    /// stops after declining a command of its own executable rebuilt (whose next question then
    /// starts a server of that build).
    pub started_by_command: bool,
}

/// What a server has to say while it runs (the caller decides where it goes: `cast serve`
/// writes each to stderr).
#[derive(Debug)]
pub enum Event<'a> {
    /// It opens (or builds, or refreshes) the tree's index before it listens.
    Indexing(&'a Path),
    /// It listens.
    Listening {
        root: &'a Path,
        socket: &'a Path,
        idle_exit: Option<Duration>,
    },
    /// A request could not be taken or answered (the server goes on).
    RequestFailed(String),
}

impl std::fmt::Display for Event<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Indexing(root) => write!(f, "indexing {} …", root.display()),
            Event::Listening {
                root,
                socket,
                idle_exit,
            } => {
                write!(
                    f,
                    "answering `cast find` and `cast map` for {} on {} (",
                    root.display(),
                    socket.display()
                )?;
                match idle_exit {
                    Some(idle) => write!(
                        f,
                        "stops after {} without a question, or with `cast serve --stop`)",
                        humantime::format_duration(*idle)
                    ),
                    None => write!(f, "Ctrl-C or `cast serve --stop` to stop)"),
                }
            }
            Event::RequestFailed(why) => write!(f, "{why}"),
        }
    }
}

/// Why a server stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// `cast serve --stop`, or a command of its own executable rebuilt asked one started by a
    /// command.
    Asked,
    /// No question for this long (`--idle-exit`).
    Idle(Duration),
    /// Its socket was removed or replaced (`.cast/` or the tree deleted): nobody can ask it.
    SocketGone(PathBuf),
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Asked => write!(f, "stopped: asked to"),
            End::Idle(idle) => write!(
                f,
                "stopped: no question for {}",
                humantime::format_duration(*idle)
            ),
            End::SocketGone(socket) => write!(f, "stopped: {} was removed", socket.display()),
        }
    }
}

#[cfg(not(unix))]
pub fn serve(
    _root: &Path,
    _options: &ServeOptions,
    _events: &(dyn Fn(Event<'_>) + Sync),
) -> Result<End, ServerError> {
    Err(ServerError::Unsupported)
}

/// How often an idle server looks at the clock and at its socket.
#[cfg(unix)]
const TICK: Duration = Duration::from_millis(500);

/// Serves the tree `root` until it is stopped (see [`End`]): keeps its index open, current
/// with the files (the kernel tells it of changes), and answers every [`Question`] of the
/// commands of its own build on `ROOT/.cast/serve.sock` (open to its user only), up to 64 at
/// once. One server per tree: a second is refused. `events` hears what it has to say.
#[cfg(unix)]
pub fn serve(
    root: &Path,
    options: &ServeOptions,
    events: &(dyn Fn(Event<'_>) + Sync),
) -> Result<End, ServerError> {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::{UnixListener, UnixStream};

    if options.started_by_command {
        close_inherited_files();
    }
    let root =
        std::fs::canonicalize(root).map_err(|_| ServerError::NoSuchFolder(root.to_path_buf()))?;
    servable(&root)?;
    let state = StateDir::of(&root);
    state.ensure()?;
    let socket = socket_of(&root);
    if std::os::unix::net::SocketAddr::from_pathname(&socket).is_err() {
        return Err(ServerError::SocketPathTooLong(socket));
    }
    // One server per tree, also when two start at once: each takes the lock first, and holds it
    // until it ends (the kernel lets go of it with the process, however it ends).
    let lock_path = state.join(LOCK);
    // Read only: a lock file another user made (`sudo cast …`) still locks.
    let lock = std::fs::File::open(&lock_path)
        .or_else(|err| match err.kind() {
            std::io::ErrorKind::NotFound => std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&lock_path),
            _ => Err(err),
        })
        .map_err(ServerError::io(format!(
            "cannot open {}",
            lock_path.display()
        )))?;
    match try_lock_a_while(&lock) {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(ServerError::AlreadyLocked {
                root,
                lock: lock_path,
            });
        }
        Err(std::fs::TryLockError::Error(err)) => {
            return Err(ServerError::io(format!(
                "cannot lock {}",
                lock_path.display()
            ))(err));
        }
    }
    // A server of a build from before the lock.
    if UnixStream::connect(&socket).is_ok() {
        return Err(ServerError::AlreadyListening { root, socket });
    }
    // Servers that commands start are capped per user; one a person starts is theirs to count.
    let _slot = if options.started_by_command {
        take_slot(&root)?
    } else {
        None
    };
    let exe = exe();
    let build = build(&exe);
    let kept = KeptIndex::default();
    events(Event::Indexing(&root));
    kept.query(&root, |_| Ok::<_, cast_analyzer::IndexError>(()))
        .map_err(|source| ServerError::Index {
            root: root.clone(),
            source,
        })?;
    // Left by a server that was killed: nobody listens on it.
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).map_err(ServerError::io(format!(
        "cannot listen on {}",
        socket.display()
    )))?;
    // Only its user may ask (the answers show the tree's code).
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).map_err(
        ServerError::io(format!("cannot restrict {}", socket.display())),
    )?;
    let ours = SocketId::of(&socket)
        .map_err(ServerError::io(format!("cannot stat {}", socket.display())))?;
    // Waiting is poll's, so the loop can look at the clock and the socket between requests.
    listener
        .set_nonblocking(true)
        .map_err(ServerError::io(format!(
            "cannot listen on {}",
            socket.display()
        )))?;
    events(Event::Listening {
        root: &root,
        socket: &socket,
        idle_exit: options.idle_exit,
    });
    let questions = Questions::default();
    let stop = AtomicBool::new(false);
    let server = Server {
        kept: &kept,
        root: &root,
        socket: &socket,
        build: &build,
        exe: &exe,
        questions: &questions,
        options,
        stop: &stop,
        events,
    };
    let ended = answer_until_stopped(server, &listener, ours);
    // Every request in flight is answered by now (the loop's scope waited for them).
    if !matches!(ended, End::SocketGone(_)) && SocketId::of(&socket).ok() == Some(ours) {
        let _ = std::fs::remove_file(&socket);
    }
    drop(listener);
    drop(lock);
    Ok(ended)
}

/// Takes each request as it comes and hands it to a thread of its own, and between requests
/// looks at the clock and at the socket: why it stopped. Returns once every request in flight
/// is answered.
#[cfg(unix)]
fn answer_until_stopped(
    server: Server<'_>,
    listener: &std::os::unix::net::UnixListener,
    ours: SocketId,
) -> End {
    let events = server.events;
    let in_flight = InFlight::default();
    std::thread::scope(|scope| {
        loop {
            if server.stop.load(Ordering::Acquire) {
                return End::Asked;
            }
            match listener.accept() {
                Ok((stream, _)) => {
                    if let Err(err) = stream.set_nonblocking(false) {
                        events(Event::RequestFailed(format!(
                            "cannot take a request: {err}"
                        )));
                        continue;
                    }
                    dispatch(scope, server, &in_flight, stream);
                    continue;
                }
                Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => events(Event::RequestFailed(format!(
                    "cannot accept a request: {err}"
                ))),
            }
            // Nothing waiting: wait for a request, at most a tick, then look around.
            let mut waiting = [rustix::event::PollFd::new(
                listener,
                rustix::event::PollFlags::IN,
            )];
            match rustix::event::Timespec::try_from(TICK)
                .map_err(|_| rustix::io::Errno::INVAL)
                .and_then(|tick| rustix::event::poll(&mut waiting, Some(&tick)))
            {
                // A request waiting or not, the look around below is taken: requests that keep
                // coming (a status polled, declined ones) must not keep it from ever running.
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                // Not to spin on a poll that keeps failing.
                Err(err) => {
                    events(Event::RequestFailed(format!(
                        "cannot wait for a request: {err}"
                    )));
                    std::thread::sleep(TICK);
                }
            }
            if SocketId::of(server.socket).ok() != Some(ours) {
                return End::SocketGone(server.socket.to_path_buf());
            }
            if let Some(idle) = server.options.idle_exit
                && server.questions.idle_for() >= idle
            {
                return End::Idle(idle);
            }
        }
    })
}

/// Closes the files a server started by a command inherited beyond stdin, stdout and stderr:
/// the command's caller may wait for the end of a pipe it handed the command (`3>&1`, a build
/// tool's job server, Node's IPC channel), which a server holding it for minutes would delay.
/// Called first thing, before the server opens a file of its own.
#[cfg(unix)]
fn close_inherited_files() {
    let listed = std::fs::read_dir("/proc/self/fd").or_else(|_| std::fs::read_dir("/dev/fd"));
    let Ok(listed) = listed else {
        return;
    };
    let fds: Vec<i32> = listed
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    // The listing's own descriptor is among them, closed already with `listed`: EBADF.
    for fd in fds {
        let _ = nix::unistd::close(fd);
    }
}

/// A socket file's identity: a server whose socket was replaced stops.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SocketId {
    dev: u64,
    ino: u64,
}

#[cfg(unix)]
impl SocketId {
    fn of(socket: &Path) -> std::io::Result<SocketId> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(socket)?;
        Ok(SocketId {
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }
}

/// What a request's thread answers from.
#[cfg(unix)]
#[derive(Clone, Copy)]
struct Server<'a> {
    kept: &'a KeptIndex,
    root: &'a Path,
    socket: &'a Path,
    build: &'a str,
    exe: &'a Path,
    questions: &'a Questions,
    options: &'a ServeOptions,
    stop: &'a AtomicBool,
    events: &'a (dyn Fn(Event<'_>) + Sync),
}

/// Hands `stream` to a thread of its own, so a client that connects and says nothing holds
/// only itself; the queries themselves take the kept index in turn. Past [`MAX_IN_FLIGHT`]
/// (clients that hold their connections, a runaway script) a request is declined at once and
/// its command answers on its own.
#[cfg(unix)]
fn dispatch<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    server: Server<'scope>,
    in_flight: &InFlight,
    stream: std::os::unix::net::UnixStream,
) {
    let Some(entered) = in_flight.enter() else {
        let _ = decline(&stream, "busy: too many requests in flight");
        return;
    };
    let answered = move |stream| {
        if let Err(err) = answer(server, stream) {
            (server.events)(Event::RequestFailed(format!("a request failed: {err}")));
        }
    };
    // The stream goes to the thread once it runs: a spawn that fails keeps it here.
    let (handed, taken) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("request".to_owned())
        .spawn_scoped(scope, move || {
            let _entered = entered;
            if let Ok(stream) = taken.recv() {
                answered(stream);
            }
        });
    match spawned {
        Ok(_) => {
            let _ = handed.send(stream);
        }
        // No thread to be had: answered here, in turn (the count was let go with the closure
        // the spawn did not take).
        Err(_) => answered(stream),
    }
}

/// How many requests a server answers at once; more are declined (their commands answer on
/// their own). Each holds a thread, most of them only while a query runs.
#[cfg(unix)]
const MAX_IN_FLIGHT: usize = 64;

/// The requests being answered, counted so there are never more than [`MAX_IN_FLIGHT`].
#[cfg(unix)]
#[derive(Default)]
struct InFlight(Arc<AtomicUsize>);

/// One request counted by [`InFlight`], until dropped.
#[cfg(unix)]
struct Entered(Arc<AtomicUsize>);

#[cfg(unix)]
impl InFlight {
    fn enter(&self) -> Option<Entered> {
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_IN_FLIGHT).then_some(n + 1)
            })
            .ok()
            .map(|_| Entered(Arc::clone(&self.0)))
    }
}

#[cfg(unix)]
impl Drop for Entered {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The questions (`cast find`, `cast map`) being answered and answered so far, and when the
/// last one ended: what `--idle-exit` and `--status` measure. Other requests (a status, a
/// stop, one declined) do not count, so asking for the status does not keep a server up.
#[cfg(unix)]
#[derive(Default)]
struct Questions(Arc<QuestionCount>);

#[cfg(unix)]
struct QuestionCount {
    being_answered: AtomicUsize,
    answered: std::sync::atomic::AtomicU64,
    last_ended: Mutex<Instant>,
}

#[cfg(unix)]
impl Default for QuestionCount {
    fn default() -> QuestionCount {
        QuestionCount {
            being_answered: AtomicUsize::new(0),
            answered: std::sync::atomic::AtomicU64::new(0),
            last_ended: Mutex::new(Instant::now()),
        }
    }
}

/// One question being answered, counted by [`Questions`] until dropped.
#[cfg(unix)]
struct Answering(Arc<QuestionCount>);

#[cfg(unix)]
impl Questions {
    fn begin(&self) -> Answering {
        self.0.being_answered.fetch_add(1, Ordering::AcqRel);
        Answering(Arc::clone(&self.0))
    }

    fn answered(&self) -> u64 {
        self.0.answered.load(Ordering::Relaxed)
    }

    /// How long no question has been answered (zero while one is).
    fn idle_for(&self) -> Duration {
        if self.0.being_answered.load(Ordering::Acquire) > 0 {
            return Duration::ZERO;
        }
        self.0
            .last_ended
            .lock()
            .map_or(Duration::ZERO, |last| last.elapsed())
    }
}

#[cfg(unix)]
impl Drop for Answering {
    fn drop(&mut self) {
        // The time first: a look between the two sees the question still being answered.
        if let Ok(mut last) = self.0.last_ended.lock() {
            *last = Instant::now();
        }
        self.0.answered.fetch_add(1, Ordering::Relaxed);
        self.0.being_answered.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Writes a `Declined` reply without reading the request (the asker then runs on its own).
#[cfg(unix)]
fn decline(stream: &std::os::unix::net::UnixStream, why: &str) -> std::io::Result<()> {
    write_reply(
        stream,
        &Reply::Declined {
            why: why.to_owned(),
        },
    )
}

/// Writes `reply` as one line of JSON.
#[cfg(unix)]
fn write_reply(mut stream: &std::os::unix::net::UnixStream, reply: &Reply) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(reply).map_err(std::io::Error::from)?;
    bytes.push(b'\n');
    stream.write_all(&bytes)
}

/// Reads one request from `stream` and writes its reply.
#[cfg(unix)]
fn answer(server: Server<'_>, stream: std::os::unix::net::UnixStream) -> std::io::Result<()> {
    let Server {
        kept,
        root,
        socket,
        build,
        exe,
        questions,
        options,
        stop,
        events: _,
    } = server;
    // A client that connects and says nothing does not hold the server.
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut line = String::new();
    BufReader::new((&stream).take(MAX_REQUEST)).read_line(&mut line)?;
    let reply = match serde_json::from_str::<Request>(&line) {
        Err(err) => Reply::Declined {
            why: format!("not a request: {err}"),
        },
        // Any build may stop it (the socket is its user's only).
        Ok(Request {
            asked: Question::Stop,
            ..
        }) => {
            stop.store(true, Ordering::Release);
            Reply::Stopping
        }
        Ok(Request {
            asked: Question::Status,
            ..
        }) => Reply::Status(Status {
            pid: std::process::id(),
            version: build.to_owned(),
            started_by_command: options.started_by_command,
            answered: questions.answered(),
            idle_secs: questions.idle_for().as_secs_f64(),
            idle_exit_secs: options.idle_exit.map(|idle| idle.as_secs_f64()),
        }),
        Ok(request) if request.version != build => {
            // Started by a command, for commands: the same executable rebuilt or upgraded is
            // what asks now, and its next question starts a server of its own once this one is
            // gone. Another executable (a debug build beside a release, an editor's copy) is
            // declined and this one stays, or the two would take turns starting servers.
            if options.started_by_command && !exe.as_os_str().is_empty() && request.exe == exe {
                stop.store(true, Ordering::Release);
            }
            Reply::Declined {
                why: format!("this server is build {build}"),
            }
        }
        Ok(request) if request.root != root => Reply::Declined {
            why: format!("this server answers for {}", root.display()),
        },
        Ok(request) => {
            let _question = questions.begin();
            reply(kept, root, request.asked)
        }
    };
    write_reply(&stream, &reply)?;
    if stop.load(Ordering::Acquire) {
        // Wakes the loop from its wait now rather than at the next tick (it stops before
        // taking this connection).
        let _ = std::os::unix::net::UnixStream::connect(socket);
    }
    Ok(())
}

/// Answers a question from the kept index, as the command asking would have.
fn reply(kept: &KeptIndex, root: &Path, asked: Question) -> Reply {
    let answered = match asked {
        Question::Find(options) => kept
            .query(root, |index| index.search(&options))
            .map(Reply::Found),
        Question::Map(options) => kept
            .query(root, |index| index.map(&options))
            .map(Reply::Mapped),
        // Answered in `answer`.
        Question::Stop => return Reply::Stopping,
        Question::Status => {
            return Reply::Declined {
                why: "a status is not a question".to_owned(),
            };
        }
    };
    answered.unwrap_or_else(|err| Reply::Failed {
        message: format!("cannot index {}: {}", root.display(), chain(&err)),
    })
}

/// An error and its sources, `: `-separated (what the command would have said).
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn requests_past_the_limit_are_not_entered_until_one_leaves() {
        let in_flight = InFlight::default();
        let mut entered: Vec<Entered> = (0..MAX_IN_FLIGHT)
            .map_while(|_| in_flight.enter())
            .collect();
        assert_eq!(entered.len(), MAX_IN_FLIGHT);
        assert!(in_flight.enter().is_none());
        drop(entered.pop());
        let again = in_flight.enter();
        assert!(again.is_some());
        assert!(in_flight.enter().is_none());
    }
}
