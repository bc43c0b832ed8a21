//! `finish`: the agent's last call, carrying its answer to the user.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::{ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FinishParams {
    /// The final answer to the user: what was done, which files changed, and anything left open.
    pub response: String,
}

/// Ends the task.
#[derive(Debug, Default)]
pub struct Finish;

impl TypedTool for Finish {
    type Params = FinishParams;
    const NAME: &'static str = "finish";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Finish the task and give the final answer to the user. Call it once the request is done (or cannot be done), with a short summary of what you did and which files changed.";

    fn run(&self, _ctx: &ToolContext, params: FinishParams) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::ok(
            params.response.clone(),
            serde_json::json!({ "response": params.response }),
        ))
    }
}
