//! Approvals: in `ask` mode every call that would change something — an edit, a deletion, an
//! undo, a command — is shown to an [`Approver`] first (edits as their dry-run diff). A
//! rejected edit changes nothing, goes back to the model with the user's reason, and is kept
//! as a [`PendingEdit`] that can be approved later in the session.

use serde::Serialize;
use serde_json::Value;

/// How edits are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ApprovalMode {
    /// Apply and journal every edit.
    #[default]
    Auto,
    /// Show each change and apply it only when approved.
    Ask,
    /// Offer no tool that changes anything.
    ReadOnly,
}

impl std::str::FromStr for ApprovalMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ApprovalMode::Auto),
            "ask" => Ok(ApprovalMode::Ask),
            "read-only" | "readonly" => Ok(ApprovalMode::ReadOnly),
            other => Err(format!(
                "unknown approval mode {other:?}: use ask, auto or read-only"
            )),
        }
    }
}

/// What the user is asked to approve.
#[derive(Debug, Clone, Serialize)]
pub struct ApprovalRequest {
    pub tool: String,
    pub params: Value,
    /// The change as a unified diff (edits), or what will run (commands).
    pub preview: String,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject { reason: String },
}

/// Decides on changes (a terminal prompt, a chat UI, a test script).
pub trait Approver: Send + Sync + std::fmt::Debug {
    fn decide(&self, request: &ApprovalRequest) -> Decision;
}

/// A change the user did not approve (yet): it can be approved or dropped later.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct PendingEdit {
    pub id: usize,
    pub tool: String,
    pub params: Value,
    pub preview: String,
    pub reason: String,
}
