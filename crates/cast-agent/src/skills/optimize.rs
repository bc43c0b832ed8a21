//! optimize: improve an agent from how it ran (a trace, the user's feedback, a reward).

use super::{AGENT_EDITING_TOOLS, Skill};

pub const SKILL: Skill = Skill {
    name: "optimize",
    role: "You are CAST's agent optimizer. You improve an agent's code from a trace of how it ran and the user's feedback, by editing its source with tools, and you end by calling `finish` with what you changed and why.",
    rules: "# Optimizing\n- The heat map below shows what the run executed and where it failed: read the failing function first (show_symbol or read_file at the lines shown). Without a trace, find the code the feedback is about (find_symbol, the map below). Use get_skeleton for context and read more only where needed.\n- Fix the cause with the smallest edit that makes the run succeed; do not rewrite working code.\n- When you call finish, the package is validated (it compiles and its self-check passes). If it fails you get the output: fix it and call finish again.",
    tools: AGENT_EDITING_TOOLS,
};

/// What the run is judged from besides the feedback: how it ran, or (without a trace) the code.
#[derive(Debug, Clone)]
pub enum Evidence {
    /// The trace mapped onto the code (L1 heat map).
    Trace(String),
    /// The L1 map of the package, focused on what the feedback talks about.
    Map(String),
}

/// The task given to the model: the feedback, the reward, and the trace mapped onto the code
/// (or the map of the code when there is no trace).
pub fn task(feedback: &str, reward: Option<f64>, evidence: &Evidence, validation: &str) -> String {
    let feedback = match (feedback.trim(), &evidence) {
        ("", Evidence::Trace(_)) => "(none: the trace shows the failure)",
        ("", Evidence::Map(_)) => "(none: only the reward below)",
        (text, _) => text,
    };
    let reward = reward
        .map(|r| format!("\n\nReward of the run: {r} (higher is better; raise it)."))
        .unwrap_or_default();
    let evidence = match evidence {
        Evidence::Trace(heat_map) => format!(
            "The run mapped onto the code (L1 heat map: executed files and functions with call \
             counts, errors at their lines):\n{heat_map}"
        ),
        Evidence::Map(map) => format!(
            "There is no trace of the run. The agent's code (L1 map, what the feedback is about \
             first):\n{map}"
        ),
    };
    format!(
        "Improve this agent from its last run.\n\nFeedback: {feedback}{reward}\n\n{evidence}\n\nValidation when you finish: `{validation}`."
    )
}
