//! What CAST's tests share (a dev-only crate, never a dependency of the libraries):
//!
//! - [`ScriptedServer`]: a scripted OpenAI-compatible (or Anthropic) HTTP server on 127.0.0.1,
//!   for testing agents without a network or a real model;
//! - [`skip_test`]: how a test that needs an outside tool (python3, rg, tmux, the `mcp` package)
//!   says it did not run — visibly, and as a failure where CI requires the tools;
//! - [`age_tree`]: a tree's times set an hour back, so a walk of it can be watched.
//!
//! ```
//! use cast_test_support::{Reply, ScriptedServer};
//!
//! let server = ScriptedServer::start(vec![Reply::openai_text("Hello.")]);
//! let url = server.base_url(); // http://127.0.0.1:PORT/v1
//! # drop(url);
//! ```

// A library never prints: what a test shows goes through libtest (or skip_test's note).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod age;
mod server;
mod skip;

pub use age::age_tree;
pub use server::{Reply, ScriptedServer};
pub use skip::{REQUIRE_TOOLS_VAR, skip_test};
