//! CAST's coding agent, and the home of the `cast` command line.
//!
//! This crate owns the decision loop ([`Agent`]: a main agent that picks one tool with a reason,
//! runs it, records `{tool, reason, params, result, timestamp}` and repeats until `finish`), the
//! edit-file sub-agent, the LLM providers ([`llm`]: OpenAI-compatible chat completions, Anthropic
//! messages, and a text protocol for models without tool calls), configuration, memory and
//! sessions ([`memory`]), approvals ([`approval`]), the test-fix loop, and the skills that
//! build and improve agents ([`skills`]).
//!
//! The `cast` binary is [`cli::main`]: each subcommand (one module under `cli/`) parses its flags
//! and calls a library entry point, so the command line and the agent see the same behaviour.

pub mod agent;
pub mod approval;
pub mod cli;
pub mod config;
mod edit_agent;
pub mod llm;
pub mod memory;
pub mod prompt;
pub mod skills;
pub mod testing;

pub use agent::{Agent, AgentConfig, Event, HistoryEntry, RunOutcome, Stop, Timings};
pub use approval::{ApprovalMode, ApprovalRequest, Approver, Decision, PendingEdit};

pub use cast_tools;
