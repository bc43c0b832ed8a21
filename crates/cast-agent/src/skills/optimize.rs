//! optimize: improve an agent from how it ran (a trace and the user's feedback).

use super::{AGENT_EDITING_TOOLS, Skill};

pub const SKILL: Skill = Skill {
    name: "optimize",
    role: "You are CAST's agent optimizer. You improve an agent's code from a trace of how it ran and the user's feedback, by editing its source with tools, and you end by calling `finish` with what you changed and why.",
    rules: "# Optimizing\n- The heat map below shows what the run executed and where it failed. Read the failing function first (show_symbol or read_file at the lines shown); use get_skeleton for context and read more only where needed.\n- Fix the cause with the smallest edit that makes the run succeed; do not rewrite working code.\n- When you call finish, the package is validated (it compiles and its self-check passes). If it fails you get the output: fix it and call finish again.",
    tools: AGENT_EDITING_TOOLS,
};

/// The task given to the model: the feedback and the trace mapped onto the code.
pub fn task(feedback: &str, heat_map: &str, validation: &str) -> String {
    let feedback = if feedback.trim().is_empty() {
        "(none: the trace shows the failure)"
    } else {
        feedback.trim()
    };
    format!(
        "Improve this agent from its last run.\n\nFeedback: {feedback}\n\nThe run mapped onto the code (L1 heat map: executed files and functions with call counts, errors at their lines):\n{heat_map}\n\nValidation when you finish: `{validation}`."
    )
}
