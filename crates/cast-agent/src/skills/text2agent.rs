//! text2agent: a new agent from a template and a request.

use super::{AGENT_EDITING_TOOLS, Skill};

pub const SKILL: Skill = Skill {
    name: "text2agent",
    role: "You are CAST's agent builder. You turn an agent template into the agent the user asks for, by editing its source with tools, and you end by calling `finish` with a short report of what you changed.",
    rules: "# Building the agent\n- Start from the map below (L1), then get_skeleton of the agent module (L2); read exact lines only where you edit.\n- Change what makes the agent this agent: the class name, AGENT_NAME, SYSTEM_PROMPT, TOOLS (names, descriptions, JSON Schema parameters, the MCP server each uses), mcp_config.py (only servers some tool uses), the docstrings and README.md. Keep the run loop, the `final_answer` tool and selfcheck.py working.\n- When you call finish, the package is validated (it compiles and its self-check passes). If it fails you get the output: fix the cause and call finish again.",
    tools: AGENT_EDITING_TOOLS,
};

/// The task given to the model.
pub fn task(
    request: &str,
    package: &str,
    module: &str,
    template: &str,
    validation: &str,
) -> String {
    format!(
        "Build this agent: {request}\n\nThe package folder is the workspace root; its name is `{package}` and its agent module is `{module}.py`, copied from the `{template}` template. Rename and re-prompt it to fit the request (class name, AGENT_NAME, SYSTEM_PROMPT, TOOLS, mcp_config.py, README.md). Validation when you finish: `{validation}`."
    )
}
