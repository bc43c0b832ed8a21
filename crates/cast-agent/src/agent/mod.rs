//! The decision loop: the model picks one tool with a reason, CAST runs it and feeds the result
//! back, until the model calls `finish` (or a step limit or a repeated call stops the run).
//!
//! [`Agent::run`] drives a [`run::Run`] — the run's state — one model turn at a time; tool calls
//! go through the [`ToolRunner`] (approval, blocking thread), a refused `edit_file` through the
//! edit sub-agent, and a `finish` after changes through the test-fix loop.

mod events;
mod run;

use std::sync::Arc;

use cast_tools::{Registry, ToolContext};

pub use crate::clock::now;
pub use events::{CallStatus, Event, HistoryEntry, RunOutcome, Stop, TestsSummary, Timings};

use crate::approval::{Approver, PendingEdit};
use crate::llm::{Llm, Message, ToolDef};
use crate::runner::ToolRunner;
use run::Run;

/// Limits of a run.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model turns before the run is stopped.
    pub max_steps: usize,
    /// The same call (tool and arguments) this many times in a row stops the run.
    pub repeat_limit: usize,
    /// Tokens of the L1 map put in the system prompt.
    pub map_budget: usize,
    /// When `edit_file`'s lazy merge refuses, let the edit sub-agent place the edit by line
    /// numbers (one more model call).
    pub edit_subagent: bool,
    /// What the conversation may use; older tool results and steps are trimmed to fit.
    pub context: crate::memory::ContextBudget,
    /// In `ask` mode, who approves changes (`None`: changes apply without asking).
    pub approver: Option<Arc<dyn Approver>>,
    /// A command that must pass before the run may finish after changing files (e.g.
    /// `pytest -q`). A failure goes back to the model, mapped onto the code.
    pub test_cmd: Option<String>,
    /// Failed test runs before the agent gives up.
    pub fix_attempts: usize,
    /// Emit the model's text as it streams ([`Event::Delta`]), for an interactive front end.
    pub stream_text: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_steps: 30,
            repeat_limit: 3,
            map_budget: 1500,
            edit_subagent: true,
            context: crate::memory::ContextBudget::default(),
            approver: None,
            test_cmd: None,
            fix_attempts: 3,
            stream_text: false,
        }
    }
}

/// The agent: a model, a tool registry over one workspace, and a system prompt.
pub struct Agent {
    pub llm: Llm,
    pub registry: Arc<Registry>,
    pub ctx: Arc<ToolContext>,
    pub config: AgentConfig,
    pub system: String,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.llm.describe())
            .field("tools", &self.registry.names())
            .finish()
    }
}

impl Agent {
    /// The tools as the model sees them.
    pub fn tool_defs(&self) -> Vec<ToolDef> {
        self.registry
            .specs()
            .into_iter()
            .map(|s| ToolDef {
                name: s.name.to_owned(),
                description: s.description.to_owned(),
                parameters: s.parameters,
            })
            .collect()
    }

    /// Runs a task to the end. `messages` holds earlier turns (empty for a new session) and
    /// receives this run's turns. Events go to `sink` as they happen. A model or tool failure
    /// never panics: it ends the run with a [`Stop`] that says why.
    pub async fn run(
        &self,
        task: &str,
        messages: &mut Vec<Message>,
        sink: &mut (dyn FnMut(&Event) + Send),
    ) -> RunOutcome {
        let mut run = Run::start(self, task, messages, sink);
        for step in 1..=self.config.max_steps {
            run.step(step, messages).await;
            if run.is_over() {
                break;
            }
        }
        run.finish()
    }

    /// Applies a change the user approved after all (a [`PendingEdit`]), without asking again.
    pub async fn apply_pending(&self, pending: &PendingEdit) -> (bool, String) {
        let outcome = self
            .runner()
            .call_approved(&pending.tool, pending.params.clone())
            .await;
        (outcome.is_ok(), outcome.text)
    }

    /// Runs the agent's tool calls (and its sub-agents').
    pub(crate) fn runner(&self) -> ToolRunner {
        ToolRunner {
            registry: Arc::clone(&self.registry),
            ctx: Arc::clone(&self.ctx),
            approver: self.config.approver.clone(),
        }
    }
}
