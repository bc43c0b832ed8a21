//! The edit-file sub-agent (the seed's Edit File Agent).
//!
//! `edit_file` first tries the coder's deterministic lazy merge. When that refuses, this
//! sub-agent reads the target with line numbers, asks the model for a list of
//! `{start_line, end_line, replacement}` edits, and applies them bottom-up through the coder
//! (`apply_ops`: all or nothing, journaled). Its outcome is the `edit_file` call's result, so
//! it lands in the history like any other.

use cast_tools::TypedTool;
use cast_tools::tools::{ApplyOps, EditFileParams, ReadFile};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::llm::{ChatRequest, Llm, Message};
use crate::runner::{CallOutcome, CallStatus, ToolRunner};

const SYSTEM: &str = "You place code edits precisely. You get a file with line numbers, what the edit should do, and a sketch of the change in which unchanged code is collapsed to `... existing code ...` comments. Answer with ONLY a JSON array of line edits, nothing else:\n[{\"start_line\": A, \"end_line\": B, \"replacement\": \"new lines\\n\"}]\nLines are 1-based in the numbered file. Lines A..B (inclusive) are replaced by `replacement` (an empty string deletes them). To insert before line A without replacing anything, use end_line = A - 1. Edits must not overlap. Keep the file's indentation.";

/// One edit as the model gives it.
#[derive(Debug, Deserialize)]
struct LineEdit {
    start_line: usize,
    end_line: usize,
    replacement: String,
}

/// Tries to place a refused `edit_file` call (`args` are its arguments). `None` when the refusal
/// is not one the sub-agent can help with (a missing file, a sandbox refusal).
pub(crate) async fn place(
    llm: &Llm,
    runner: &ToolRunner,
    args: &Value,
    refusal: &CallOutcome,
) -> Option<CallOutcome> {
    let EditFileParams {
        target_file: target,
        instructions,
        code_edit: sketch,
    } = serde_json::from_value(args.clone()).ok()?;
    // Only a sketch the merge could not place; not a path the sandbox refused.
    if !refusal.answered {
        return None;
    }
    let read = runner
        .call(
            ReadFile::NAME,
            json!({"target_file": target, "explanation": "the edit sub-agent reads the target"}),
        )
        .await;
    if read.status != CallStatus::Ok || !read.read.as_ref().is_some_and(|r| r.whole) {
        return None; // unreadable, or too long to show whole: keep the refusal
    }
    let request = ChatRequest {
        system: SYSTEM.to_owned(),
        messages: vec![Message::user(format!(
            "File {target}:\n{}\nWhat the edit does: {instructions}\n\nThe sketch:\n{sketch}\n\nThe deterministic merge refused it: {}\n\nAnswer with the JSON array only.",
            read.text,
            first_line(&refusal.text)
        ))],
        tools: Vec::new(),
        max_tokens: None,
        temperature: Some(0.0),
    };
    let prefix = format!(
        "The sketch could not be merged ({}); the edit sub-agent placed it by line numbers.\n",
        first_line(&refusal.text)
    );
    let answer = match llm.chat(&request, &mut |_| {}).await {
        Ok(answer) => answer,
        Err(err) => {
            return Some(CallOutcome {
                text: format!(
                    "{}\nThe edit sub-agent could not ask the model: {err}",
                    refusal.text
                ),
                ..refusal.clone()
            });
        }
    };
    let edits = match parse_edits(&answer.content) {
        Ok(edits) => edits,
        Err(why) => {
            return Some(CallOutcome {
                text: format!(
                    "{}\nThe edit sub-agent's answer could not be used: {why}",
                    refusal.text
                ),
                ..refusal.clone()
            });
        }
    };
    let ops: Vec<Value> = edits.iter().map(to_op).collect();
    let applied = runner
        .call(ApplyOps::NAME, json!({"target_file": target, "ops": ops}))
        .await;
    Some(CallOutcome {
        text: format!("{prefix}{}", applied.text),
        ..applied
    })
}

fn first_line(text: &str) -> &str {
    text.lines()
        .find(|l| !l.trim().is_empty() && !l.starts_with("The edit was refused"))
        .unwrap_or("")
}

/// The JSON array in a model answer (fences and prose around it are ignored).
fn parse_edits(content: &str) -> Result<Vec<LineEdit>, String> {
    let start = content.find('[').ok_or("no JSON array in the answer")?;
    let end = content.rfind(']').ok_or("no JSON array in the answer")?;
    if end < start {
        return Err("no JSON array in the answer".to_owned());
    }
    let edits: Vec<LineEdit> = serde_json::from_str(&content[start..=end])
        .map_err(|e| format!("not a list of line edits: {e}"))?;
    if edits.is_empty() {
        return Err("the list of edits is empty".to_owned());
    }
    Ok(edits)
}

/// A line edit as a coder op: an insertion when `end_line` is `start_line - 1`.
fn to_op(edit: &LineEdit) -> Value {
    let body = edit
        .replacement
        .strip_suffix('\n')
        .unwrap_or(&edit.replacement);
    let content: Vec<&str> = if edit.replacement.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    if edit.end_line + 1 == edit.start_line {
        json!({"type": "insert", "after_line": edit.end_line, "content": content})
    } else if content.is_empty() {
        json!({"type": "delete", "start_line": edit.start_line, "end_line": edit.end_line})
    } else {
        json!({"type": "replace", "start_line": edit.start_line, "end_line": edit.end_line, "content": content})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_fences_with_prose_are_read() {
        let edits = parse_edits("Here:\n```json\n[{\"start_line\": 2, \"end_line\": 3, \"replacement\": \"x\\n\"}]\n```").unwrap();
        assert_eq!((edits[0].start_line, edits[0].end_line), (2, 3));
        assert!(parse_edits("no idea").is_err());
        assert!(parse_edits("[]").is_err());
        assert!(
            parse_edits("[{\"start\": 1}]")
                .unwrap_err()
                .contains("missing field")
        );
    }

    #[test]
    fn edits_become_ops() {
        let op = |s, e, r: &str| {
            to_op(&LineEdit {
                start_line: s,
                end_line: e,
                replacement: r.to_owned(),
            })
        };
        assert_eq!(
            op(4, 3, "a\nb\n"),
            json!({"type": "insert", "after_line": 3, "content": ["a", "b"]})
        );
        assert_eq!(
            op(2, 5, ""),
            json!({"type": "delete", "start_line": 2, "end_line": 5})
        );
        assert_eq!(
            op(2, 2, "x"),
            json!({"type": "replace", "start_line": 2, "end_line": 2, "content": ["x"]})
        );
        assert_eq!(
            op(2, 2, "\n"),
            json!({"type": "replace", "start_line": 2, "end_line": 2, "content": [""]})
        );
    }
}
