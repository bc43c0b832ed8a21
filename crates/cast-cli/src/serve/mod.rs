//! `cast serve`: keeps a tree's index open and answers `cast find` and `cast map` for it.
//!
//! A `cast find` process opens the index, checks every file for changes (a `stat` each) and
//! pages the database in, every time. A server does that once: it keeps the index open
//! ([`KeptIndex`]), has the kernel tell it of changes, and answers each `cast find` and `cast
//! map` of its tree over a Unix socket in the tree's `.cast/`. They ask it when one answers
//! there and otherwise run as before, so a server only ever makes them faster, never different.
//!
//! - [`client`]: what `cast find` and `cast map` do: ask, and start a server in the background
//!   for a tree they are asked about again and again;
//! - [`server`]: the server's loop, what it answers, and when it stops.
//!
//! [`KeptIndex`]: cast_analyzer::KeptIndex

// Elsewhere than Unix there is no server: `cast find` never asks and `cast serve` says so, so
// the pieces that talk over the socket go unused there.
#![cfg_attr(not(unix), allow(unused_imports, dead_code))]

mod client;
mod server;

use std::path::{Path, PathBuf};
use std::time::Duration;

use cast_workspace::StateDir;
use serde::{Deserialize, Serialize};

use crate::{Exit, Out};

pub(crate) use client::ask_if;

/// Keep a tree's index open and answer `cast find` and `cast map` for it, until stopped.
///
/// Runs in the foreground (stop it with Ctrl-C, `kill`, or `cast serve --stop`). While it runs,
/// `cast find` and `cast map` (without --trace) of the same tree (whatever path names it, but
/// not a folder inside it; no --db) send their question to the server and print the answer,
/// instead of opening and checking the index themselves: the index stays open and warm, and the
/// kernel tells the server of every change to the tree (inotify, on Linux), so a question asked
/// while nothing changed is answered without looking at the files. The answers are the same as
/// the commands' own, and as current: after a change the server checks and refreshes the index
/// as they would (`--no-refresh` is not needed and makes no difference). The socket is
/// ROOT/.cast/serve.sock, open to its user only.
///
/// Started for you: when `cast find` or `cast map` answers on its own for a tree it was asked
/// about less than two minutes before, it starts `cast serve --idle-exit 10m` for that tree in
/// the background (its messages go to ROOT/.cast/serve.log), so a tree that is searched again
/// and again is answered by a server, while a one-off search leaves nothing running. Such a
/// server stops after 10 minutes without a question, when its socket is removed (with `.cast/`
/// or the tree), or when the same `cast` executable, rebuilt or upgraded since, asks it (its
/// next question starts a new one). At most 8 such servers run for a user at once (a ninth does
/// not start); none is started when CI is set (to anything but empty, `0` or `false`).
///
/// The commands neither ask nor start a server when CAST_NO_SERVER is set (likewise) or with
/// their --no-server, and run on their own when none answers, the server is another build of cast (another
/// version, or a binary rebuilt since it started), or it is busy: it answers 64 requests at
/// once and declines more at once. `cast serve --status` says whether one runs for a tree,
/// `cast serve --status --all` lists those the commands started, and `--stop --all` stops them.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast serve --root ~/src/project &\n  cast find \"parse an HTTP date\" --root ~/src/project\n  cast map ~/src/project --focus \"the pager leaks its temp file\"\n  cast serve --stop --root ~/src/project\n  cast serve --status --all",
    group(clap::ArgGroup::new("ask").args(["stop", "status"]))
)]
pub struct Args {
    /// The root of the code base.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// Stop after this long without a question (`90s`, `10m`, `2h`); by default a server runs
    /// until stopped.
    #[arg(long, value_name = "DURATION", value_parser = idle_duration)]
    idle_exit: Option<Duration>,
    /// Stop the server of --root (waits until it has stopped); exits 1 when none runs. The
    /// commands start a new one only once the tree is asked about twice again.
    #[arg(long, conflicts_with = "idle_exit")]
    stop: bool,
    /// Say whether a server runs for --root: its process id, who started it, how many questions
    /// (`cast find`, `cast map`) it answered and how long since the last; exits 1 when none runs.
    #[arg(long, conflicts_with_all = ["idle_exit", "stop"])]
    status: bool,
    /// With --status or --stop: every server that `cast find` and `cast map` started for this
    /// user, whatever its tree, instead of --root's (a server a person started is not among
    /// them, nor one started where the runtime folder differs, as from an editor or cron);
    /// --status exits 1 when none runs, --stop fails when one cannot be asked to stop.
    #[arg(long, requires = "ask", conflicts_with = "root")]
    all: bool,
    /// Started by `cast find` or `cast map`, not by a person: gives way to a command of another
    /// build (stops after declining its question).
    #[arg(long, hide = true)]
    started_by_command: bool,
}

/// Whether `cast find` and `cast map` may ask a `cast serve` of their tree, and start one.
#[derive(Debug, clap::Args)]
pub struct ServerArgs {
    /// Answer here: neither ask a `cast serve` of the tree nor start one (as CAST_NO_SERVER=1
    /// does for every command).
    #[arg(long)]
    no_server: bool,
}

impl ServerArgs {
    /// Whether the command may ask (and start) a server.
    pub(crate) fn allowed(&self) -> bool {
        !self.no_server
    }
}

/// `--idle-exit`: a humantime duration, more than zero (a server idle for zero would stop
/// before its first question).
fn idle_duration(text: &str) -> Result<Duration, String> {
    match humantime::parse_duration(text) {
        Ok(idle) if idle.is_zero() => Err("must be more than zero, e.g. `30s` or `10m`".to_owned()),
        Ok(idle) => Ok(idle),
        Err(err) => Err(format!("{err} (e.g. `90s`, `10m`, `2h`)")),
    }
}

/// How many servers started by commands may run for a user at once: each holds an inotify
/// instance (128 a user by default, shared with editors' file watchers), a watch per folder
/// and its own memory (64 MB for the stdlib with site-packages).
const STARTED_SERVERS: usize = 8;

/// Where the servers that commands start hold their slots (one lock file each):
/// `$XDG_RUNTIME_DIR/cast/servers`, else the same under `$XDG_CACHE_HOME` or `~/.cache`.
fn slot_dir() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = var("XDG_RUNTIME_DIR")
        .or_else(|| var("XDG_CACHE_HOME"))
        .or_else(|| var("HOME").map(|home| home.join(".cache")))?;
    Some(base.join("cast").join("servers"))
}

fn slot_path(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("slot-{n}.lock"))
}

/// The file beside slot `n`'s lock that names the tree of the server holding it (for
/// `--status --all` and `--stop --all`); a free slot's is stale and not read.
fn slot_root_path(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("slot-{n}.root"))
}

/// Refuses a tree whose path is not UTF-8: a request names its tree in JSON, which holds only
/// UTF-8, so no command could ever ask its server.
fn servable(root: &Path) -> anyhow::Result<()> {
    if root.to_str().is_none() {
        anyhow::bail!(
            "{}: a tree whose path is not UTF-8 has no server (a request names its tree in \
             JSON); `cast find` and `cast map` answer on their own there",
            root.display()
        );
    }
    Ok(())
}

/// The socket's name in the tree's `.cast/`.
const SOCKET: &str = "serve.sock";

/// The file a server holds locked while it starts and runs: one server per tree.
const LOCK: &str = "serve.lock";

/// This executable's path (empty when it cannot be told).
fn exe() -> PathBuf {
    std::env::current_exe().unwrap_or_default()
}

/// Which build `exe` (this executable, [`exe`]) is: the version, and the size and mtime of the
/// executable (a server of another build, even of the same version, may answer differently: it
/// is not asked). Taken once by a server, when it starts: a binary rebuilt under it is then
/// another build.
fn build(exe: &Path) -> String {
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

/// The longest request read (a query is a task's text: well under this).
const MAX_REQUEST: u64 = 4 << 20;

/// A question, as sent to the server.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    version: String,
    /// The asking executable's path: a server started by a command gives way to the same
    /// path rebuilt (absent from builds before it was sent: never the same).
    #[serde(default)]
    exe: PathBuf,
    /// The tree, with links resolved (the server answers for its own only).
    root: PathBuf,
    asked: Asked,
}

/// What a command asks of the server.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Asked {
    /// `cast find`.
    Find {
        query: String,
        top: usize,
        files: bool,
        json: bool,
        /// `--in`, relative to the root.
        #[serde(default)]
        within: Vec<String>,
    },
    /// `cast map` without a trace; `root_name` is the root as the command was given it (the
    /// map's header shows it).
    Map {
        budget: usize,
        focus: Option<String>,
        root_name: String,
        json: bool,
        /// `--in`, relative to the root.
        #[serde(default)]
        within: Vec<String>,
    },
    /// `cast serve --stop` (of any build).
    Stop,
    /// `cast serve --status` (of any build).
    Status,
}

#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    /// What `cast find` prints, its exit status, and what it says on stderr.
    Answer {
        output: String,
        nothing_found: bool,
        note: Option<String>,
    },
    /// The index could not be opened or refreshed.
    Failed { message: String },
    /// Not this server's to answer (another version or tree, a malformed request): the asker
    /// runs on its own.
    Declined { why: String },
    /// Asked to stop: it stops once the requests in flight are answered.
    Stopping,
    /// What `cast serve --status` shows.
    Status(Status),
}

/// A running server, as `cast serve --status` shows it.
#[derive(Debug, Serialize, Deserialize)]
struct Status {
    pid: u32,
    /// Its build (see [`build`]).
    version: String,
    started_by_command: bool,
    /// Questions answered (`cast find` and `cast map`), since it started.
    answered: u64,
    /// Seconds since the last request ended (0 while one is in flight).
    idle_secs: f64,
    idle_exit_secs: Option<f64>,
}

/// What a server said, for `cast find` to print.
pub(crate) enum Answered {
    Output {
        output: String,
        exit: Exit,
        note: Option<String>,
    },
    Failed(anyhow::Error),
}

impl Answered {
    /// Prints the answer as the command would have; a failure is the command's.
    pub(crate) fn print(self, out: &mut Out) -> anyhow::Result<Exit> {
        match self {
            Answered::Output { output, exit, note } => {
                out.bytes(output.as_bytes())?;
                if let Some(note) = note {
                    crate::output::warn(note);
                }
                Ok(exit)
            }
            Answered::Failed(err) => Err(err),
        }
    }
}

fn socket_of(root: &Path) -> PathBuf {
    StateDir::of(root).join(SOCKET)
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    match (args.stop, args.status, args.all) {
        (true, _, true) => return client::stop_all(),
        (_, true, true) => return client::status_all(out),
        (true, _, false) => return client::stop(&args.root),
        (_, true, false) => return client::status(&args.root, out),
        _ => {}
    }
    server::serve(
        &args.root,
        &server::Options {
            idle_exit: args.idle_exit,
            started_by_command: args.started_by_command,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_exit_takes_a_duration_above_zero() {
        assert_eq!(idle_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(idle_duration("90s"), Ok(Duration::from_secs(90)));
        assert!(idle_duration("0s").unwrap_err().contains("more than zero"));
        assert!(idle_duration("soon").unwrap_err().contains("e.g."));
    }
}
