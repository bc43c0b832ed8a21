//! `cast serve`, and how `cast find` and `cast map` ask a server (the server itself is the
//! `cast-server` crate: this module parses the flags, prints and decides the exit codes).

use std::path::{Path, PathBuf};
use std::time::Duration;

use cast_server::{Answer, Question, ServerState, StartedServer, Status, Stopped, Unanswered};

use crate::{Exit, Out};

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

/// How long a server started by a command waits for a question before it stops.
const STARTED_IDLE_EXIT: &str = "10m";

/// What `cast find` or `cast map` prints: the server's answer when one answers, else the one
/// the command worked out itself.
pub(crate) struct Answered<T> {
    pub value: T,
    /// Why no server answered, when none did.
    unanswered: Option<Unanswered>,
}

impl<T> Answered<T> {
    /// Once printed: a command that answered on its own may start a server for its tree (see
    /// [`start_if_asked_again`]).
    pub(crate) fn done(self) {
        if let Some(unanswered) = self.unanswered {
            start_if_asked_again(&unanswered);
        }
    }
}

/// The answer to `question`: the server's of `root`, when there is a question (none: the
/// command's options are ones a server does not answer) and a server answers; else `here()`.
/// `served` takes the answer of the kind asked for; a server's failure is the command's.
pub(crate) fn answer<T>(
    root: &Path,
    question: Option<Question>,
    served: impl FnOnce(Answer) -> Option<T>,
    here: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<Answered<T>> {
    let asked = match question {
        Some(question) => cast_server::ask(root, question),
        None => Err(Unanswered::NotAsked),
    };
    let (value, unanswered) = match asked {
        Ok(Answer::Failed(message)) => return Err(anyhow::anyhow!(message)),
        Ok(answer) => match served(answer) {
            Some(value) => (value, None),
            // An answer of another kind: not a server to trust; answered here.
            None => (here()?, None),
        },
        Err(unanswered) => (here()?, Some(unanswered)),
    };
    Ok(Answered { value, unanswered })
}

/// Called once a command has answered on its own: starts `cast serve` for its tree in the
/// background when the tree was asked about again within two minutes (see
/// [`Unanswered::start_server_if_asked_again`]), and tells a person at a terminal so.
fn start_if_asked_again(unanswered: &Unanswered) {
    let started = unanswered.start_server_if_asked_again(|root| {
        let mut command = std::process::Command::new(std::env::current_exe()?);
        command.arg("serve").arg("--root").arg(root).args([
            "--idle-exit",
            STARTED_IDLE_EXIT,
            "--started-by-command",
        ]);
        Ok(command)
    });
    // A person at a terminal is told what was started on their behalf; a program reading
    // stderr is spared the line at every start.
    if let Some(root) = started
        && std::io::IsTerminal::is_terminal(&std::io::stderr())
    {
        crate::output::warn(format!(
            "started `cast serve` for {} in the background: it answers the next questions \
             sooner and stops after {STARTED_IDLE_EXIT} without one (`cast serve --status \
             --all` lists such servers, `--stop --all` stops them; `--no-server` or \
             CAST_NO_SERVER=1 starts none)",
            root.display()
        ));
    }
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    match (args.stop, args.status, args.all) {
        (true, _, true) => return stop_all(),
        (_, true, true) => return status_all(out),
        (true, _, false) => return stop(&args.root),
        (_, true, false) => return status(&args.root, out),
        _ => {}
    }
    let options = cast_server::ServeOptions {
        idle_exit: args.idle_exit,
        started_by_command: args.started_by_command,
    };
    let end = cast_server::serve(&args.root, &options, &|event| {
        crate::output::warn(event.to_string())
    })?;
    crate::output::warn(end.to_string());
    Ok(Exit::Success)
}

/// `cast serve --stop`: exit 1 when no server runs.
fn stop(root: &Path) -> anyhow::Result<Exit> {
    match cast_server::stop(root)? {
        Stopped::Stopped(root) => {
            crate::output::warn(format!("stopped the server of {}", root.display()));
            Ok(Exit::Success)
        }
        Stopped::NoneRuns(root) => {
            crate::output::warn(format!("no server runs for {}", root.display()));
            Ok(Exit::NothingOrRefused)
        }
    }
}

/// `cast serve --status`: one line on the server of `root`, or exit 1 when none runs.
fn status(root: &Path, out: &mut Out) -> anyhow::Result<Exit> {
    match cast_server::status(root)? {
        (root, Some(ServerState::Starting)) => out.line(&starting_line(&root))?,
        (root, Some(ServerState::Answers(status))) => out.line(&status_line(&root, &status))?,
        (root, None) => {
            crate::output::warn(format!("no server runs for {}", root.display()));
            return Ok(Exit::NothingOrRefused);
        }
    }
    Ok(Exit::Success)
}

/// `cast serve --status --all`: a line on each server the commands started; exit 1 when none
/// runs.
fn status_all(out: &mut Out) -> anyhow::Result<Exit> {
    let servers = cast_server::started_servers();
    if servers.is_empty() {
        crate::output::warn("no server started by a command runs for this user");
        return Ok(Exit::NothingOrRefused);
    }
    for server in servers {
        match server {
            StartedServer::Answers(root, status) => out.line(&status_line(&root, &status))?,
            StartedServer::Starting(root) => out.line(&starting_line(&root))?,
            StartedServer::Unknown(pid) => out.line(&unknown_server(pid))?,
        }
    }
    Ok(Exit::Success)
}

/// `cast serve --stop --all`: stops every server the commands started; fails when one could
/// not be stopped.
fn stop_all() -> anyhow::Result<Exit> {
    let servers = cast_server::started_servers();
    if servers.is_empty() {
        crate::output::warn("no server started by a command runs for this user");
        return Ok(Exit::NothingOrRefused);
    }
    let mut failed = 0;
    for server in servers {
        let root = match server {
            StartedServer::Answers(root, _) | StartedServer::Starting(root) => root,
            StartedServer::Unknown(pid) => {
                crate::output::warn(unknown_server(pid));
                failed += 1;
                continue;
            }
        };
        match cast_server::stop(&root) {
            Ok(Stopped::Stopped(root)) => {
                crate::output::warn(format!("stopped the server of {}", root.display()));
            }
            // It ended meanwhile.
            Ok(Stopped::NoneRuns(_)) => {}
            Err(err) => {
                crate::output::warn(format!("{:#}", anyhow::Error::from(err)));
                failed += 1;
            }
        }
    }
    if failed > 0 {
        anyhow::bail!("{failed} server(s) started by commands were not stopped");
    }
    Ok(Exit::Success)
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

fn starting_line(root: &Path) -> String {
    format!(
        "a server is starting for {} (checking the index; it answers once that is done)",
        root.display()
    )
}

/// Whole seconds, as a server reported them (nonsense reads as zero).
fn seconds(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.round()).unwrap_or_default()
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
