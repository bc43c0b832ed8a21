//! Running tool calls for the agent and its sub-agents: each call on a blocking thread (tools read
//! and write files), through the approver in `ask` mode, with a typed outcome.

use std::sync::Arc;

use cast_tools::tools::{FILE_EDITS, RunCommand, UndoEdit, apply_file_edits};
use cast_tools::{
    ChangeSummary, EditMode, ReadSummary, Registry, Status, ToolContext, ToolError, ToolOutput,
    TypedTool,
};
use serde::Serialize;
use serde_json::Value;

use crate::approval::{ApprovalRequest, Approver, Decision, PendingEdit};

/// How one tool call ended, as events, history and traces record it (`ok`, `refused`, `error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CallStatus {
    /// The tool did what was asked.
    Ok,
    /// The tool (or the sandbox, or the user) refused; nothing changed, and the text says why.
    Refused,
    /// The call could not run: unreadable arguments, an unknown tool, a crash.
    Error,
}

impl CallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::Ok => "ok",
            CallStatus::Refused => "refused",
            CallStatus::Error => "error",
        }
    }
}

impl std::fmt::Display for CallStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Compares with the wire name (`status == "ok"`), as tests and log readers do.
impl PartialEq<&str> for CallStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<Status> for CallStatus {
    fn from(status: Status) -> Self {
        match status {
            Status::Ok => CallStatus::Ok,
            Status::Refused => CallStatus::Refused,
        }
    }
}

/// What running one call gave.
#[derive(Debug, Clone)]
pub(crate) struct CallOutcome {
    pub status: CallStatus,
    /// What the model reads.
    pub text: String,
    pub truncated: bool,
    /// The tool itself answered (a refusal then concerns the edit, not the path or the call).
    pub answered: bool,
    /// The files the call changed.
    pub change: Option<ChangeSummary>,
    /// The file the call read.
    pub read: Option<ReadSummary>,
    /// The change the user did not approve, kept for later.
    pub pending: Option<PendingEdit>,
}

impl CallOutcome {
    /// A call that could not run.
    pub(crate) fn error(text: impl Into<String>) -> Self {
        CallOutcome {
            status: CallStatus::Error,
            text: text.into(),
            truncated: false,
            answered: false,
            change: None,
            read: None,
            pending: None,
        }
    }

    /// A refusal made by the agent itself (the user said no, the tests failed).
    pub(crate) fn refused(text: impl Into<String>) -> Self {
        CallOutcome {
            status: CallStatus::Refused,
            ..CallOutcome::error(text)
        }
    }

    fn from_tool(result: Result<ToolOutput, ToolError>) -> Self {
        match result {
            Ok(out) => CallOutcome {
                status: out.status.into(),
                text: out.text,
                truncated: out.truncated,
                answered: true,
                change: out.change,
                read: out.read,
                pending: None,
            },
            Err(err) if err.is_refusal() => CallOutcome::refused(err.to_string()),
            Err(err) => CallOutcome::error(err.to_string()),
        }
    }

    pub(crate) fn is_ok(&self) -> bool {
        self.status == CallStatus::Ok
    }
}

/// Runs calls against one registry and workspace.
#[derive(Clone)]
pub(crate) struct ToolRunner {
    pub registry: Arc<Registry>,
    pub ctx: Arc<ToolContext>,
    /// In `ask` mode, who approves changes.
    pub approver: Option<Arc<dyn Approver>>,
}

impl ToolRunner {
    /// Runs a call by name, after asking the approver when it would change something.
    pub(crate) async fn call(&self, name: &str, args: Value) -> CallOutcome {
        if let Some(refused) = self.ask_approval(name, &args).await {
            return refused;
        }
        self.run_in(Arc::clone(&self.ctx), name, args).await
    }

    /// Runs a call the user has already approved (a pending change), without asking again.
    pub(crate) async fn call_approved(&self, name: &str, args: Value) -> CallOutcome {
        self.run_in(Arc::clone(&self.ctx), name, args).await
    }

    /// Whether a call changes something and so needs approval in `ask` mode.
    fn changes_things(&self, name: &str) -> bool {
        name != cast_tools::tools::Finish::NAME
            && self.registry.get(name).is_none_or(|t| !t.read_only())
    }

    /// In `ask` mode: previews the call (an edit's dry-run diff, a command line), asks the
    /// approver, and returns the refusal to give the model when the user says no.
    async fn ask_approval(&self, name: &str, args: &Value) -> Option<CallOutcome> {
        let approver = self.approver.clone()?;
        if !self.changes_things(name) {
            return None;
        }
        let preview = match name {
            RunCommand::NAME => format!(
                "$ {}",
                args.get("command").and_then(Value::as_str).unwrap_or("")
            ),
            UndoEdit::NAME => format!(
                "undo the last {} change set(s)",
                args.get("steps").and_then(Value::as_u64).unwrap_or(1)
            ),
            _ => {
                let mut dry = (*self.ctx).clone();
                dry.edit_mode = EditMode::DryRun;
                let preview = self.run_in(Arc::new(dry), name, args.clone()).await;
                if !preview.is_ok() {
                    return Some(preview); // refused anyway: nothing to ask
                }
                match preview.change {
                    Some(change) => change.diff,
                    None => preview.text,
                }
            }
        };
        let request = ApprovalRequest {
            tool: name.to_owned(),
            params: args.clone(),
            preview,
        };
        let asked = request.clone();
        let decision = tokio::task::spawn_blocking(move || approver.decide(&asked))
            .await
            .unwrap_or(Decision::Reject {
                reason: "the approval prompt failed".to_owned(),
            });
        match decision {
            Decision::Approve => None,
            Decision::Reject { reason } => {
                let why = if reason.trim().is_empty() {
                    String::new()
                } else {
                    format!(" Their reason: {}", reason.trim())
                };
                Some(CallOutcome {
                    pending: Some(PendingEdit {
                        id: 0,
                        tool: request.tool,
                        params: request.params,
                        preview: request.preview,
                        reason: reason.clone(),
                    }),
                    ..CallOutcome::refused(format!(
                        "The user did not approve this {name} call; nothing was changed and it is kept as a pending change.{why} Do not repeat it unchanged: take the reason into account or ask."
                    ))
                })
            }
        }
    }

    /// Runs one call on a blocking thread.
    async fn run_in(&self, ctx: Arc<ToolContext>, name: &str, args: Value) -> CallOutcome {
        let registry = Arc::clone(&self.registry);
        let name = name.to_owned();
        let work = move || dispatch(&registry, &ctx, &name, args);
        match tokio::task::spawn_blocking(work).await {
            Ok(result) => CallOutcome::from_tool(result),
            Err(join) => CallOutcome::error(format!("the tool crashed: {join}")),
        }
    }
}

/// Runs one call on this thread: a tool of `registry`, or a reply of `<file-edit>` blocks.
fn dispatch(
    registry: &Registry,
    ctx: &ToolContext,
    name: &str,
    args: Value,
) -> Result<ToolOutput, ToolError> {
    if name == FILE_EDITS {
        // A reply of <file-edit> blocks: the whole reply is the edit.
        let reply = args
            .get("reply")
            .and_then(Value::as_str)
            .unwrap_or_default();
        apply_file_edits(ctx, reply)
    } else {
        registry.call(ctx, name, args)
    }
}

/// Applies a change the user approved after all, without a model (what `cast pending approve`
/// does): the rejected call is made now with `registry`'s tools, through the same checks and
/// journal as any edit. `Ok` with the tool's text when it applied, `Err` with the reason when
/// it was refused (the file changed since, the tool is not offered, …).
pub fn apply_pending(
    registry: &Registry,
    ctx: &ToolContext,
    pending: &PendingEdit,
) -> Result<String, String> {
    let outcome = CallOutcome::from_tool(dispatch(
        registry,
        ctx,
        &pending.tool,
        pending.params.clone(),
    ));
    if outcome.is_ok() {
        Ok(outcome.text)
    } else {
        Err(outcome.text)
    }
}
