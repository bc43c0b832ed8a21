//! `cast serve`: a tree's index kept open, answering searches and maps over a Unix socket.
//!
//! A `cast find` process opens the index, checks every file for changes (a `stat` each) and
//! pages the database in, every time. A server does that once: it keeps the index open
//! ([`KeptIndex`](cast_analyzer::KeptIndex)), has the kernel tell it of changes, and answers
//! each question of its tree over a Unix socket in the tree's `.cast/`. A question is the
//! library's own options type ([`FindOptions`](cast_analyzer::FindOptions),
//! [`MapOptions`](cast_analyzer::MapOptions)) and an answer the library's own result
//! ([`Found`](cast_analyzer::Found), [`LogicMap`](cast_analyzer::LogicMap)), so the asker
//! renders a served answer exactly as one it worked out itself; a command asks when a server
//! answers there and otherwise runs as before, so a server only ever makes it faster.
//!
//! ```no_run
//! use cast_analyzer::{FindMode, FindOptions};
//! use cast_server::{Answer, Question};
//!
//! let question = Question::Find(FindOptions {
//!     mode: FindMode::Files,
//!     ..FindOptions::new("parse an HTTP date")
//! });
//! match cast_server::ask("/src/project".as_ref(), question) {
//!     Ok(Answer::Found(found)) => println!("{}", found.render()),
//!     Ok(answer) => println!("{answer:?}"),
//!     // No server (or it declined): answer from the index here, then perhaps start one.
//!     Err(unanswered) => println!("{unanswered:?}"),
//! }
//! ```
//!
//! - [`client`](ask): asking ([`ask`]), starting a server for a tree asked about again
//!   ([`Unanswered::start_server_if_asked_again`]), [`status`], [`stop`], [`started_servers`];
//! - [`serve`]: the server's loop, what it answers, and when it stops ([`End`]);
//! - the wire format: one JSON line each way, a request naming the asking build (a server
//!   answers its own build only) and its tree.
//!
//! The library neither prints nor exits: [`serve`] hands what it has to say to a callback,
//! and the CLI (`cast serve`, `cast find`, `cast map`) decides what to print and the exit code.

mod client;
mod error;
mod protocol;
mod server;
mod slots;

pub use client::{
    Answer, LOG, ServerState, StartedServer, Stopped, Unanswered, ask, started_servers, status,
    stop,
};
pub use error::ServerError;
pub use protocol::{Question, SOCKET, Status, socket_of};
pub use server::{End, Event, ServeOptions, serve};
pub use slots::STARTED_SERVERS;
