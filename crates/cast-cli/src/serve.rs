//! `cast serve`: keeps a tree's index open and answers `cast find` and `cast map` for it.
//!
//! A `cast find` process opens the index, checks every file for changes (a `stat` each) and
//! pages the database in, every time. A server does that once: it keeps the index open
//! ([`KeptIndex`]), has the kernel tell it of changes, and answers each `cast find` and `cast
//! map` of its tree over a Unix socket in the tree's `.cast/`. They ask it when one answers
//! there and otherwise run as before, so a server only ever makes them faster, never different.

// Elsewhere than Unix there is no server: `cast find` never asks and `cast serve` says so, so
// the pieces that talk over the socket go unused there.
#![cfg_attr(not(unix), allow(unused_imports, dead_code))]

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use cast_analyzer::{FindMode, KeptIndex, MapOptions};
use cast_workspace::StateDir;
use serde::{Deserialize, Serialize};

use crate::{Exit, Out};

/// Keep a tree's index open and answer `cast find` and `cast map` for it, until stopped.
///
/// Runs in the foreground (stop it with Ctrl-C or `kill`; run it in the background with `&`).
/// While it runs, `cast find` and `cast map` (without --trace) of the same tree (whatever path
/// names it, but not a folder inside it; no --db) send their question to the server and print
/// the answer, instead of opening and checking the index themselves:
/// the index stays open and warm, and the kernel tells the server of every change to the tree
/// (inotify, on Linux), so a question asked while nothing changed is answered without looking
/// at the files. The answers are the same as the commands' own, and as current: after a change
/// the server checks and refreshes the index as they would (`--no-refresh` is not needed and
/// makes no difference). The socket is ROOT/.cast/serve.sock, open to its user only. The
/// commands ignore a server when CAST_NO_SERVER is set, and run on their own when none answers,
/// the server is another build of cast (another version, or a binary rebuilt since it
/// started), or it is busy: it answers 64 requests at once and declines more at once.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  cast serve --root ~/src/project &\n  cast find \"parse an HTTP date\" --root ~/src/project\n  cast map ~/src/project --focus \"the pager leaks its temp file\""
)]
pub struct Args {
    /// The root of the code base.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
}

/// The socket's name in the tree's `.cast/`.
const SOCKET: &str = "serve.sock";

/// Which build this is: the version, and the size and mtime of the executable (a server of
/// another build, even of the same version, may answer differently: it is not asked). Taken
/// once by a server, when it starts: a binary rebuilt under it is then another build.
fn build() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let exe = std::env::current_exe().and_then(std::fs::metadata);
    match exe {
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

/// Asks the server of `root`; `None` when there is none, it declined, or anything went wrong
/// talking to it (the caller then answers on its own).
pub(crate) fn ask(root: &Path, asked: Asked) -> Option<Answered> {
    if std::env::var_os("CAST_NO_SERVER").is_some() {
        return None;
    }
    let root = std::fs::canonicalize(root).ok()?;
    let socket = socket_of(&root);
    let request = Request {
        version: build(),
        root,
        asked,
    };
    let reply = exchange(&socket, &request)?;
    match reply {
        Reply::Answer {
            output,
            nothing_found,
            note,
        } => Some(Answered::Output {
            output,
            note,
            exit: if nothing_found {
                Exit::NothingOrRefused
            } else {
                Exit::Success
            },
        }),
        Reply::Failed { message } => Some(Answered::Failed(anyhow::anyhow!(message))),
        Reply::Declined { .. } => None,
    }
}

#[cfg(unix)]
fn exchange(socket: &Path, request: &Request) -> Option<Reply> {
    use std::os::unix::net::UnixStream;
    let mut stream = UnixStream::connect(socket).ok()?;
    let mut line = serde_json::to_vec(request).ok()?;
    line.push(b'\n');
    stream.write_all(&line).ok()?;
    // A refresh after a large change takes seconds; a server stuck for this long is not
    // waited for.
    stream
        .set_read_timeout(Some(Duration::from_secs(300)))
        .ok()?;
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).ok()?;
    serde_json::from_str(&reply).ok()
}

#[cfg(not(unix))]
fn exchange(_socket: &Path, _request: &Request) -> Option<Reply> {
    None
}

pub fn run(args: Args, _out: &mut Out) -> anyhow::Result<Exit> {
    serve(&args.root)
}

#[cfg(not(unix))]
fn serve(_root: &Path) -> anyhow::Result<Exit> {
    anyhow::bail!("cast serve needs Unix sockets (Linux or macOS)")
}

#[cfg(unix)]
fn serve(root: &Path) -> anyhow::Result<Exit> {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::{UnixListener, UnixStream};

    let root = std::fs::canonicalize(root)
        .with_context(|| format!("cannot serve {}: no such folder", root.display()))?;
    let state = StateDir::of(&root);
    state.ensure()?;
    let socket = socket_of(&root);
    let already = || {
        UnixStream::connect(&socket).is_ok().then(|| {
            anyhow::anyhow!(
                "a server already answers for {} (on {})",
                root.display(),
                socket.display()
            )
        })
    };
    if let Some(err) = already() {
        return Err(err);
    }
    let build = build();
    let kept = KeptIndex::default();
    crate::output::warn(format!("indexing {} …", root.display()));
    kept.query(&root, |_| Ok(()))
        .with_context(|| format!("cannot index {}", root.display()))?;
    // Asked again: another server may have started while this one indexed.
    if let Some(err) = already() {
        return Err(err);
    }
    // Left by a server that was killed: nobody listens on it.
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    // Only its user may ask (the answers show the tree's code).
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot restrict {}", socket.display()))?;
    crate::output::warn(format!(
        "answering `cast find` and `cast map` for {} on {} (Ctrl-C to stop)",
        root.display(),
        socket.display()
    ));
    let in_flight = InFlight::default();
    std::thread::scope(|scope| {
        for stream in listener.incoming() {
            let stream = match stream {
                Ok(stream) => stream,
                Err(err) => {
                    crate::output::warn(format!("cannot accept a request: {err}"));
                    continue;
                }
            };
            // Each request on a thread of its own, so a client that connects and says nothing
            // holds only itself; the queries themselves take the kept index in turn. Past
            // MAX_IN_FLIGHT (clients that hold their connections, a runaway script) a request
            // is declined at once and its command answers on its own.
            let Some(entered) = in_flight.enter() else {
                let _ = decline(&stream, "busy: too many requests in flight");
                continue;
            };
            let (kept, root, build) = (&kept, &root, &build);
            let answered = move |stream| {
                if let Err(err) = answer(kept, root, build, stream) {
                    crate::output::warn(format!("a request failed: {err}"));
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
                // No thread to be had: answered here, in turn (the count was let go with the
                // closure the spawn did not take).
                Err(_) => answered(stream),
            }
        }
    });
    Ok(Exit::Success)
}

/// How many requests a server answers at once; more are declined (their commands answer on
/// their own). Each holds a thread, most of them only while a query runs.
#[cfg(unix)]
const MAX_IN_FLIGHT: usize = 64;

/// The requests being answered, counted so there are never more than [`MAX_IN_FLIGHT`].
#[cfg(unix)]
#[derive(Default)]
struct InFlight(std::sync::Arc<std::sync::atomic::AtomicUsize>);

/// One request counted by [`InFlight`], until dropped.
#[cfg(unix)]
struct Entered(std::sync::Arc<std::sync::atomic::AtomicUsize>);

#[cfg(unix)]
impl InFlight {
    fn enter(&self) -> Option<Entered> {
        use std::sync::atomic::Ordering;
        self.0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_IN_FLIGHT).then_some(n + 1)
            })
            .ok()
            .map(|_| Entered(std::sync::Arc::clone(&self.0)))
    }
}

#[cfg(unix)]
impl Drop for Entered {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
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
fn answer(
    kept: &KeptIndex,
    root: &Path,
    build: &str,
    stream: std::os::unix::net::UnixStream,
) -> std::io::Result<()> {
    // A client that connects and says nothing does not hold the server.
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut line = String::new();
    BufReader::new((&stream).take(MAX_REQUEST)).read_line(&mut line)?;
    let reply = match serde_json::from_str::<Request>(&line) {
        Err(err) => Reply::Declined {
            why: format!("not a request: {err}"),
        },
        Ok(request) if request.version != build => Reply::Declined {
            why: format!("this server is build {build}"),
        },
        Ok(request) if request.root != root => Reply::Declined {
            why: format!("this server answers for {}", root.display()),
        },
        Ok(request) => reply(kept, root, request.asked),
    };
    write_reply(&stream, &reply)
}

/// Answers as the command asking would have, from the kept index.
fn reply(kept: &KeptIndex, root: &Path, asked: Asked) -> Reply {
    let index_err = |err: cast_analyzer::AnalyzerError| {
        anyhow::Error::from(err).context(format!("cannot index {}", root.display()))
    };
    let mut out = Out::buffer();
    let mut note = None;
    let written: anyhow::Result<Exit> = match asked {
        Asked::Find {
            query,
            top,
            files,
            json,
            within,
        } => {
            let mode = if files {
                FindMode::Files
            } else {
                FindMode::Symbols
            };
            cast_workspace::Scope::new(&within)
                .context("--in")
                .and_then(|scope| {
                    kept.query(root, |index| {
                        index.find_in(&query, top.max(1), mode, &scope)
                    })
                    .map_err(index_err)
                })
                .and_then(|found| {
                    note = crate::find::nothing_note(&found, &query);
                    Ok(crate::find::write(&found, json, &mut out)?)
                })
        }
        Asked::Map {
            budget,
            focus,
            root_name,
            json,
            within,
        } => cast_workspace::Scope::new(&within)
            .context("--in")
            .and_then(|scope| {
                let options = MapOptions {
                    budget,
                    trace: None,
                    focus,
                    root_name: Some(root_name),
                    scope,
                };
                kept.query(root, |index| index.map(&options))
                    .map_err(index_err)
            })
            .and_then(|map| {
                note = crate::map::empty_scope_note(&map);
                Ok(crate::map::write(&map, json, &mut out)?)
            }),
    };
    match written {
        Ok(exit) => Reply::Answer {
            output: String::from_utf8_lossy(&out.into_bytes()).into_owned(),
            nothing_found: exit == Exit::NothingOrRefused,
            note,
        },
        Err(err) => Reply::Failed {
            message: format!("{err:#}"),
        },
    }
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
