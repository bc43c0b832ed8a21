//! The text protocol, for models without native tool calls: the tools are described in the
//! system prompt, the model answers with a tagged call or with `<file-edit>` SEARCH/REPLACE
//! blocks, and results come back as tagged user messages.
//!
//! A call: `<tool_call>{"name": "read_file", "arguments": {"target_file": "a.py"}}</tool_call>`.
//! A result: `<tool_result tool="read_file" call="text_1">…</tool_result>`.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Value, json};

use super::{ChatRequest, ChatResponse, Message, Role, ToolCall};

/// The pseudo-tool a reply of `<file-edit>` blocks becomes; the agent applies the whole reply
/// (every file, all or nothing) through the coder.
pub use cast_tools::tools::FILE_EDITS;

/// Rewrites a request for a model without tool support.
pub fn encode(request: &ChatRequest) -> ChatRequest {
    let mut system = request.system.clone();
    if !request.tools.is_empty() {
        system.push_str("\n\n# Calling tools\n\nYou call a tool by writing one sentence saying why, then exactly one block:\n\n<tool_call>\n{\"name\": \"TOOL_NAME\", \"arguments\": {…}}\n</tool_call>\n\nThen stop and wait: the result comes back as <tool_result tool=\"TOOL_NAME\">…</tool_result>. The arguments must be a JSON object matching the tool's schema. To change files you may instead answer with SEARCH/REPLACE blocks inside <file-edit filePath=\"path\">…</file-edit> tags (several files at once are applied all or nothing). When the task is done, call `finish`.\n\n# Tools\n");
        for tool in &request.tools {
            system.push_str(&format!(
                "\n## {}\n{}\nArguments (JSON Schema): {}\n",
                tool.name, tool.description, tool.parameters
            ));
        }
    }
    let messages = request
        .messages
        .iter()
        .map(|m| match m.role {
            Role::User => m.clone(),
            Role::Assistant => {
                let mut content = m.content.clone();
                for call in &m.tool_calls {
                    if call.name == FILE_EDITS {
                        continue; // the edit blocks are in the content already
                    }
                    let args = serde_json::from_str::<Value>(&call.arguments)
                        .unwrap_or(Value::String(call.arguments.clone()));
                    content.push_str(&format!(
                        "\n<tool_call>\n{}\n</tool_call>",
                        json!({"name": call.name, "arguments": args})
                    ));
                }
                Message::assistant(content.trim().to_owned(), Vec::new())
            }
            Role::Tool => Message::user(format!(
                "<tool_result tool=\"{}\" call=\"{}\"{}>\n{}\n</tool_result>",
                m.tool_name.as_deref().unwrap_or(""),
                m.tool_call_id.as_deref().unwrap_or(""),
                if m.is_error { " error=\"true\"" } else { "" },
                m.content
            )),
        })
        .collect();
    ChatRequest {
        system,
        messages,
        tools: Vec::new(),
        max_tokens: request.max_tokens,
        temperature: request.temperature,
    }
}

static CALL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)<tool_call>\s*(.*?)\s*</tool_call>").ok());
static FENCE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)^```(?:json)?\s*(.*?)\s*```$").ok());

/// Reads tool calls out of a text answer. Tagged calls become calls (a call whose JSON is broken
/// keeps its raw text, so the agent can tell the model); `<file-edit>` blocks become one
/// [`FILE_EDITS`] call carrying the whole answer; the remaining text is the model's reasoning.
pub fn decode(mut response: ChatResponse, first_id: usize) -> ChatResponse {
    let text = std::mem::take(&mut response.content);
    let mut calls = Vec::new();
    let mut prose = text.clone();
    if let Some(re) = CALL.as_ref() {
        for (i, caps) in re.captures_iter(&text).enumerate() {
            let body = caps.get(1).map_or("", |m| m.as_str());
            let body = FENCE
                .as_ref()
                .and_then(|f| f.captures(body))
                .and_then(|c| c.get(1))
                .map_or(body, |m| m.as_str());
            let id = format!("text_{}", first_id + i);
            let call = match serde_json::from_str::<Value>(body) {
                Ok(v) => ToolCall {
                    id,
                    name: v["name"].as_str().unwrap_or("").to_owned(),
                    arguments: match v.get("arguments").or_else(|| v.get("parameters")) {
                        Some(args) => args.to_string(),
                        None => "{}".to_owned(),
                    },
                },
                Err(_) => ToolCall {
                    id,
                    name: String::new(),
                    arguments: body.to_owned(),
                },
            };
            calls.push(call);
        }
        prose = re.replace_all(&text, "").into_owned();
    }
    if text.contains("<file-edit") && calls.is_empty() {
        calls.push(ToolCall {
            id: format!("text_{first_id}"),
            name: FILE_EDITS.to_owned(),
            arguments: json!({ "reply": text }).to_string(),
        });
        prose = text.split("<file-edit").next().unwrap_or("").to_owned();
    }
    response.content = if calls.is_empty() {
        text
    } else {
        prose.trim().to_owned()
    };
    response.tool_calls.extend(calls);
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolDef;

    #[test]
    fn tagged_calls_are_read_with_their_reason() {
        let r = decode(
            ChatResponse {
                content: "I need the file.\n<tool_call>\n```json\n{\"name\": \"read_file\", \"arguments\": {\"target_file\": \"a.py\"}}\n```\n</tool_call>".into(),
                ..Default::default()
            },
            3,
        );
        assert_eq!(r.content, "I need the file.");
        assert_eq!(r.tool_calls[0].id, "text_3");
        assert_eq!(r.tool_calls[0].name, "read_file");
        assert_eq!(r.tool_calls[0].arguments, "{\"target_file\":\"a.py\"}");
    }

    #[test]
    fn broken_json_is_kept_for_the_agent_to_report() {
        let r = decode(
            ChatResponse {
                content: "<tool_call>{\"name\": \"x\", </tool_call>".into(),
                ..Default::default()
            },
            1,
        );
        assert_eq!(r.tool_calls[0].name, "");
        assert_eq!(r.tool_calls[0].arguments, "{\"name\": \"x\",");
    }

    #[test]
    fn file_edit_replies_become_one_call() {
        let reply = "Fixing it.\n<file-edit filePath=\"a.py\">\n------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE\n</file-edit>";
        let r = decode(
            ChatResponse {
                content: reply.into(),
                ..Default::default()
            },
            1,
        );
        assert_eq!(r.tool_calls[0].name, FILE_EDITS);
        let args: Value = serde_json::from_str(&r.tool_calls[0].arguments).unwrap();
        assert_eq!(args["reply"], reply);
        assert_eq!(r.content, "Fixing it.");
    }

    #[test]
    fn a_plain_answer_stays_text() {
        let r = decode(
            ChatResponse {
                content: "All done.".into(),
                ..Default::default()
            },
            1,
        );
        assert!(r.tool_calls.is_empty());
        assert_eq!(r.content, "All done.");
    }

    #[test]
    fn encoding_describes_tools_and_tags_history() {
        let call = ToolCall {
            id: "text_1".into(),
            name: "list_dir".into(),
            arguments: "{\"relative_workspace_path\":\".\"}".into(),
        };
        let request = ChatRequest {
            system: "Role.".into(),
            messages: vec![
                Message::user("task"),
                Message::assistant("Look.", vec![call.clone()]),
                Message::tool_result(&call, "a.py", false),
            ],
            tools: vec![ToolDef {
                name: "list_dir".into(),
                description: "List.".into(),
                parameters: json!({"type": "object"}),
            }],
            ..Default::default()
        };
        let encoded = encode(&request);
        assert!(encoded.tools.is_empty());
        assert!(encoded.system.contains("## list_dir") && encoded.system.contains("<tool_call>"));
        assert!(encoded.messages[1].content.contains(
            "<tool_call>\n{\"arguments\":{\"relative_workspace_path\":\".\"},\"name\":\"list_dir\"}"
        ));
        assert_eq!(encoded.messages[2].role, Role::User);
        assert!(
            encoded.messages[2]
                .content
                .starts_with("<tool_result tool=\"list_dir\" call=\"text_1\">")
        );
    }
}
