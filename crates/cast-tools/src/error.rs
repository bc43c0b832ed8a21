use crate::SandboxError;

/// Why a tool call could not run. Each message is written for a model to correct itself from.
///
/// A tool that ran and *refused* (an edit that does not apply, a file that is not there) is not
/// an error: it returns a [`crate::ToolOutput`] with [`crate::Status::Refused`].
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("unknown tool {name:?}; the tools are: {known}")]
    UnknownTool { name: String, known: String },
    #[error("invalid arguments for {tool}: {problem}\nExpected arguments (JSON Schema): {schema}")]
    InvalidArguments {
        tool: String,
        problem: String,
        schema: String,
    },
    #[error("{tool} is disabled: {reason}")]
    Disabled { tool: String, reason: String },
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// A command was not run: it could not be confined as the command sandbox's mode requires.
    #[error(transparent)]
    CommandSandbox(#[from] cast_sandbox::ConfinementError),
    #[error("{tool} failed: {message}")]
    Failed { tool: String, message: String },
}

impl ToolError {
    /// Whether the call was refused by a rule (sandbox, disabled tool) rather than malformed.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            ToolError::Sandbox(_) | ToolError::CommandSandbox(_) | ToolError::Disabled { .. }
        )
    }
}
