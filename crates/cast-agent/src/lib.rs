//! CAST's coding agent, as a library.
//!
//! This crate owns the decision loop ([`Agent`]: a main agent that picks one tool with a reason,
//! runs it, records `{tool, reason, params, result, timestamp}` and repeats until `finish`), the
//! edit-file sub-agent, the LLM providers ([`llm`]: OpenAI-compatible chat completions, Anthropic
//! messages, and a text protocol for models without tool calls), configuration, memory and
//! sessions ([`memory`]), approvals ([`approval`]), the test-fix loop, and the skills that
//! build and improve agents ([`skills`]).
//!
//! The `cast` binary (`cast run`, `cast chat`, the skills) is the `cast-cli` crate; it builds
//! agents through this crate's public API and does all the printing.

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod approval;
mod builder;
mod clock;
pub mod config;
mod edit_agent;
pub mod llm;
pub mod memory;
pub mod prompt;
mod runner;
pub mod skills;
mod test_fix;

pub use agent::{Agent, AgentConfig, CallStatus, Event, HistoryEntry, RunOutcome, Stop, Timings};
pub use approval::{ApprovalMode, ApprovalRequest, Approver, Decision, PendingEdit};
pub use builder::{AgentBuilder, BuildError};
pub use runner::apply_pending;
pub use test_fix::detect_test_command;

pub use cast_tools;
