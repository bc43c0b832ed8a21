//! The system prompt, built from parts: role, rules (with the SEARCH/REPLACE and lazy-edit
//! formats), the tools, the workspace's L1 map within a token budget, and a short worked example.

use cast_tools::{Registry, Status, ToolContext};

/// The parts, so a skill can replace one (e.g. its own role) and keep the rest.
#[derive(Debug, Clone)]
pub struct PromptParts {
    pub role: String,
    pub rules: String,
    pub tools: String,
    pub workspace: String,
    pub example: String,
}

impl PromptParts {
    pub fn render(&self) -> String {
        [
            self.role.as_str(),
            self.rules.as_str(),
            self.tools.as_str(),
            self.workspace.as_str(),
            self.example.as_str(),
        ]
        .iter()
        .filter(|p| !p.trim().is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("\n\n")
    }
}

pub const ROLE: &str = "You are CAST, a coding agent. You complete the user's request in the repository described below by calling tools, one step at a time, and you end by calling `finish` with a short answer for the user.";

pub const RULES: &str = r#"# Rules
- Before each tool call, write one sentence saying why you make it.
- Look before you change: locate code with analyze_repository, find_symbol, grep_search or get_skeleton, and read the exact lines with read_file before you edit them.
- Edit with search_replace. Its `diff` holds one or more blocks:
------- SEARCH
the exact current lines (copied from read_file without the line-number prefix; enough of them to match one place only)
=======
the new lines
+++++++ REPLACE
  Every block must match exactly one place, or the whole edit is refused and nothing changes. An empty REPLACE deletes the lines; an empty SEARCH replaces the whole file (use it to create a file).
- Or edit with edit_file: write the changed part of the file with unchanged code elided by a marker line `# ... existing code ...` (`// ... existing code ...` in C-like languages, `<!-- ... existing code ... -->` in HTML), keeping two or three unchanged lines around each change so it can be placed.
- If an edit is refused, read the reason: it shows the closest lines in the file with their numbers. Read the file again and retry with the exact text. Never repeat an identical call.
- Paths are relative to the repository root; you cannot leave it.
- When the task is done, call finish with what you changed (file names) and why. If it cannot be done, call finish and say why."#;

pub const EXAMPLE: &str = r#"# Example
User: In shop/cart.py, make add() refuse a negative quantity.
You: I need the current code of add(). → read_file {"target_file": "shop/cart.py", "explanation": "read add()", "start_line": 10, "end_line": 20}
Tool: (the numbered lines)
You: add() has no check; I insert one before the update. → search_replace {"target_file": "shop/cart.py", "diff": "------- SEARCH\n        self.items[sku] = self.items.get(sku, 0) + qty\n=======\n        if qty < 0:\n            raise ValueError(\"qty must be >= 0\")\n        self.items[sku] = self.items.get(sku, 0) + qty\n+++++++ REPLACE"}
Tool: applied, with the diff
You: Done. → finish {"response": "add() in shop/cart.py now raises ValueError for a negative qty."}"#;

/// One line per tool: name and the first sentence of its description.
pub fn tool_list(registry: &Registry) -> String {
    let mut out = String::from("# Tools\n");
    for spec in registry.specs() {
        let first = spec
            .description
            .split(". ")
            .next()
            .unwrap_or(spec.description);
        out.push_str(&format!(
            "- {}: {}\n",
            spec.name,
            first.trim_end_matches('.')
        ));
    }
    out
}

/// The workspace's L1 map (analyze_repository) within `budget` tokens, or its top-level listing
/// when no analyzer tool is registered.
pub fn workspace_overview(registry: &Registry, ctx: &ToolContext, budget: usize) -> String {
    workspace_overview_for(registry, ctx, budget, None)
}

/// The workspace's L1 map focused on a task (its relevant files and symbols first), or the
/// plain map without one.
pub fn workspace_overview_for(
    registry: &Registry,
    ctx: &ToolContext,
    budget: usize,
    task: Option<&str>,
) -> String {
    let root = ctx.workspace.root().display();
    let attempt = |name: &str, args: serde_json::Value| {
        registry
            .get(name)
            .and_then(|tool| tool.call(ctx, args).ok())
            .filter(|out| out.status == Status::Ok)
            .map(|out| out.text)
    };
    let args = match task.map(str::trim).filter(|t| !t.is_empty()) {
        Some(task) => serde_json::json!({ "budget": budget, "focus": task }),
        None => serde_json::json!({ "budget": budget }),
    };
    let body = attempt("analyze_repository", args)
        .or_else(|| {
            attempt(
                "list_dir",
                serde_json::json!({"relative_workspace_path": ".", "explanation": "overview"}),
            )
        })
        .unwrap_or_default();
    format!("# The repository ({root})\n{body}")
}

/// The standard prompt for a registry and workspace.
pub fn standard(registry: &Registry, ctx: &ToolContext, map_budget: usize) -> PromptParts {
    standard_for_task(registry, ctx, map_budget, None)
}

/// The standard prompt with the map focused on the task the agent starts with.
pub fn standard_for_task(
    registry: &Registry,
    ctx: &ToolContext,
    map_budget: usize,
    task: Option<&str>,
) -> PromptParts {
    PromptParts {
        role: ROLE.to_owned(),
        rules: RULES.to_owned(),
        tools: tool_list(registry),
        workspace: workspace_overview_for(registry, ctx, map_budget, task),
        example: EXAMPLE.to_owned(),
    }
}
