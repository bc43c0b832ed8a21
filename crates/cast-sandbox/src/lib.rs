//! Confines the commands CAST runs for a model: `run_command`, the test command of the
//! test-fix loop and the skills' validation.
//!
//! A [`Sandbox`] is a [`SandboxMode`] (`read-only`, `workspace-write` — the default — or
//! `danger-full-access`) and a [`Helper`]: the program that confines *itself* and then
//! `exec`s the command, so that CAST's own process is never confined: the `cast-sandbox` binary
//! installed beside `cast`, `cast __sandbox-exec`, or this crate's `cast-sandbox-helper`. On Linux the helper
//! ([`confine_and_exec`]) makes `.git/` and `.cast/` read-only in a private mount namespace,
//! restricts writes with Landlock (the workspace root and a private temporary folder that is
//! the command's `TMPDIR`; reading stays allowed everywhere, as in Codex) and refuses every
//! socket but Unix ones with a seccomp filter; child processes inherit all of it. Where the
//! kernel cannot do this, confined modes refuse to run anything and say how to choose
//! `danger-full-access` instead. Other systems refuse for now (macOS Seatbelt is the next step).
//!
//! ```no_run
//! use cast_sandbox::{Helper, Sandbox, SandboxMode};
//!
//! // The helper is any binary whose main calls `cast_sandbox::confine_and_exec`, such as
//! // this crate's `cast-sandbox-helper`.
//! let helper = Helper::new("/usr/local/bin/cast-sandbox-helper");
//! let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite, Some(helper));
//! let mut confined = sandbox.command("/src/app".as_ref(), "sh", ["-c", "pytest -q"])?;
//! let status = confined.command.status()?; // keep `confined` alive: it owns the TMPDIR
//! println!("{status}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// A library never prints: stdout and stderr belong to the binaries.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod error;
mod helper;
mod mode;
mod platform;
mod policy;
mod scope;

pub use error::ConfinementError;
pub use helper::confine_and_exec;
pub use mode::SandboxMode;
pub use policy::{Helper, PROTECTED, Sandbox, SandboxedCommand, Simulate, denial_note};
pub use scope::WriteScope;
