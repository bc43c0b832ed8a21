//! The agent's memory in three tiers.
//!
//! - **Working** memory is the current task's steps and errors: the run's history, cleared when
//!   the task ends (see [`crate::RunOutcome`]).
//! - **Session** memory ([`Session`]) keeps the turns and the files read across tasks of one
//!   session, trimmed to a context budget ([`context`]); a resumed session re-reads files that
//!   changed.
//! - **Persistent** memory ([`PersistentMemory`], SQLite) keeps preferences, answers cached per
//!   question and code hash, and the last 1,000 execution log entries.

pub mod context;
mod persistent;
mod session;

pub use context::{ContextBudget, Trimmed, cut_file_text, estimate_tokens, request_tokens, trim};
pub use persistent::{FileStamp, LOG_LIMIT, LogEntry, MemoryError, PersistentMemory, hash_file};
pub use session::{FileSeen, Session, SessionError, SessionSummary};
