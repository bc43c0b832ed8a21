//! What a run tells the outside: the events it streams, the history it records, why it stopped
//! and what it returns.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use crate::approval::PendingEdit;
use crate::llm::Usage;
use crate::memory::Session;
pub use crate::runner::CallStatus;
pub use crate::test_fix::TestsSummary;

/// One action the agent took: the seed's `{tool, reason, params, result, timestamp}`.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryEntry {
    pub step: usize,
    pub tool: String,
    pub reason: String,
    pub params: Value,
    pub status: CallStatus,
    pub result: String,
    /// RFC 3339, UTC.
    pub timestamp: String,
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Stop {
    /// The model called `finish` (or answered without a tool call).
    Finished,
    /// The step limit was reached.
    StepLimit(usize),
    /// The model made the same call too many times in a row.
    Repeated(String),
    /// The model could not be reached or answered unreadably.
    ModelError(String),
    /// The tests still failed after the last allowed fix attempt.
    TestsFailing(String),
}

/// What happens during a run, for a printer (`cast run`) or a log.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Start {
        model: String,
        root: String,
        task: String,
        tools: Vec<String>,
        /// The command sandbox's mode (`read-only`, `workspace-write`, `danger-full-access`).
        sandbox: String,
    },
    /// The model answered: the estimated prompt size, the tokens the provider counted, and how
    /// long the answer took.
    Model {
        step: usize,
        prompt_tokens: usize,
        input_tokens: u64,
        output_tokens: u64,
        latency_ms: u64,
    },
    /// The model's words before its tool calls.
    Thought { step: usize, text: String },
    /// A piece of the model's text as it streams (only with `stream_text`).
    Delta { step: usize, text: String },
    /// The model could not be asked this time (unreachable, busy, timed out); the request is
    /// sent again after `wait_ms`.
    Retry {
        step: usize,
        /// The attempt that failed (1 for the first).
        attempt: u32,
        /// Attempts allowed in all.
        attempts: u32,
        wait_ms: u64,
        reason: String,
    },
    ToolCall {
        step: usize,
        id: String,
        tool: String,
        reason: String,
        params: Value,
    },
    ToolResult {
        step: usize,
        id: String,
        tool: String,
        status: CallStatus,
        summary: String,
        truncated: bool,
        latency_ms: u64,
    },
    /// The test command ran after the model tried to finish.
    Tests {
        step: usize,
        attempt: usize,
        passed: bool,
        summary: String,
    },
    /// A file changed (an applied edit or a deletion).
    Edit {
        step: usize,
        path: String,
        diff: String,
    },
    Final {
        response: String,
        stop: Stop,
        steps: usize,
        changed_files: Vec<String>,
        /// Whether the changes were tested.
        tests: TestsSummary,
        usage: Usage,
    },
}

/// The result of a run.
#[derive(Debug, Clone, Serialize)]
pub struct RunOutcome {
    pub response: String,
    pub stop: Stop,
    pub steps: usize,
    pub history: Vec<HistoryEntry>,
    pub changed_files: Vec<String>,
    pub usage: Usage,
    /// Where the run's time went.
    pub timings: Timings,
    /// Files the model read (read_file), for the session and the answer cache.
    pub files_read: Vec<String>,
    /// Changes the user rejected in `ask` mode.
    pub pending: Vec<PendingEdit>,
    /// Whether the changes were tested.
    pub tests: TestsSummary,
}

/// Wall time of a run, split into waiting for the model, running tools, and the rest (the
/// agent's own work: building requests, parsing answers, history, events).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    pub total: std::time::Duration,
    pub model: std::time::Duration,
    pub tools: std::time::Duration,
}

impl RunOutcome {
    /// Records this run of `task` in a session: the files it read, its steps, how it ended and
    /// the changes the user did not approve.
    pub fn record_in(&self, session: &mut Session, root: &Path, task: &str) {
        for path in &self.files_read {
            session.note_read(root, path);
        }
        session.tasks.push(task.to_owned());
        session.steps += self.steps;
        session.last_stop = Some(format!("{:?}", self.stop));
        session.pending.extend(self.pending.iter().cloned());
    }
}

impl Timings {
    /// Everything but waiting for the model and running tools.
    pub fn agent(&self) -> std::time::Duration {
        self.total.saturating_sub(self.model + self.tools)
    }
}
