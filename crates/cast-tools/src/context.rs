//! The state a tool call runs with: the sandboxed workspace and the caller's policy.

use std::path::Path;

use crate::{SandboxError, Workspace};

/// Whether edit tools may change files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EditMode {
    /// Apply edits (each one journaled, so it can be undone).
    #[default]
    Apply,
    /// Check edits and return their diff, but write nothing (approval flows use this).
    DryRun,
    /// Refuse every edit.
    ReadOnly,
}

/// Everything a tool call may use.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub workspace: Workspace,
    /// A tool's text is cut to this many bytes, with a note saying so.
    pub max_output_bytes: usize,
    pub edit_mode: EditMode,
    /// Upper bound for `run_command`'s `timeout_s`.
    pub max_command_seconds: u64,
    /// Refuse an edit that leaves a file which parses unparseable (by default it is applied
    /// and the result names the line and the parser's message).
    pub refuse_syntax_errors: bool,
    /// How commands run for the model are confined (`run_command`, the agent's test command,
    /// the skills' validation). The default, `workspace-write` without a helper, refuses to run
    /// commands until the embedding program names its helper (see [`cast_sandbox::Helper`]).
    pub sandbox: cast_sandbox::Sandbox,
    /// The workspace's index, kept open between tool calls (shared by clones of the context).
    pub(crate) index: cast_analyzer::KeptIndex,
}

/// 32 KiB: about 8,000 tokens, enough for a 250-line read and small enough to keep a context
/// window for the task.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 32 * 1024;

impl ToolContext {
    /// A context over `root` with the defaults: edits applied, 32 KiB outputs, 10-minute
    /// command limit, commands confined to the workspace (`workspace-write`).
    pub fn new(root: impl AsRef<Path>) -> Result<Self, SandboxError> {
        Ok(ToolContext {
            workspace: Workspace::new(root)?,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            edit_mode: EditMode::Apply,
            max_command_seconds: 600,
            refuse_syntax_errors: false,
            sandbox: cast_sandbox::Sandbox::default(),
            index: cast_analyzer::KeptIndex::default(),
        })
    }
}
