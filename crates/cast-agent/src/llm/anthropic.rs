//! Anthropic's messages API (`POST {base}/v1/messages`) with tool use.

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::http::Http;
use super::{ChatRequest, ChatResponse, LlmError, Progress, Role, ToolCall, Usage};

/// An Anthropic endpoint.
#[derive(Debug, Clone)]
pub struct Anthropic {
    /// Base URL without the `/v1` path, e.g. `https://api.anthropic.com`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
}

/// The API requires `max_tokens`; this is used when the request does not set it.
const DEFAULT_MAX_TOKENS: u32 = 8192;

impl Anthropic {
    fn url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        let base = base.strip_suffix("/v1").unwrap_or(base);
        format!("{base}/v1/messages")
    }

    pub fn body(&self, request: &ChatRequest) -> Value {
        // Anthropic wants user and assistant turns to alternate: consecutive messages of one side
        // (tool results, then a user note) are merged into one turn of several blocks.
        let mut turns: Vec<(&'static str, Vec<Value>)> = Vec::new();
        for m in &request.messages {
            let (side, blocks) = match m.role {
                Role::User => ("user", vec![json!({"type": "text", "text": m.content})]),
                Role::Tool => (
                    "user",
                    vec![json!({"type": "tool_result", "tool_use_id": m.tool_call_id,
                                "content": m.content, "is_error": m.is_error})],
                ),
                Role::Assistant => {
                    let mut blocks = Vec::new();
                    if !m.content.trim().is_empty() {
                        blocks.push(json!({"type": "text", "text": m.content}));
                    }
                    for call in &m.tool_calls {
                        let input = match serde_json::from_str::<Value>(&call.arguments) {
                            Ok(v @ Value::Object(_)) => v,
                            _ => json!({}),
                        };
                        blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input}));
                    }
                    if blocks.is_empty() {
                        blocks.push(json!({"type": "text", "text": "…"}));
                    }
                    ("assistant", blocks)
                }
            };
            match turns.last_mut() {
                Some((last, existing)) if *last == side => existing.extend(blocks),
                _ => turns.push((side, blocks)),
            }
        }
        let messages: Vec<Value> = turns
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content}))
            .collect();
        let mut body = json!({
            "model": self.model,
            "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            "system": request.system,
            "messages": messages,
        });
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
                .collect();
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        body
    }

    pub async fn chat(
        &self,
        http: &Http,
        request: &ChatRequest,
        on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
    ) -> Result<ChatResponse, LlmError> {
        let url = self.url();
        let mut headers = HeaderMap::new();
        headers.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty())
            && let Ok(value) = HeaderValue::from_str(key)
        {
            headers.insert("x-api-key", value);
        }
        let response = http
            .post_json(&url, headers, &self.body(request), &self.model, on_progress)
            .await?;
        let parsed = super::http::read_json(&url, response, parse_message).await?;
        if !parsed.content.is_empty() {
            on_progress(Progress::Text(&parsed.content));
        }
        Ok(parsed)
    }
}

/// Reads a messages API response.
pub fn parse_message(value: &Value) -> Result<ChatResponse, String> {
    let blocks = value["content"].as_array().ok_or_else(|| {
        format!(
            "no `content` in {}",
            cast_tools::render::clip(&value.to_string(), 300)
        )
    })?;
    let mut out = ChatResponse::default();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => out.content.push_str(block["text"].as_str().unwrap_or("")),
            Some("tool_use") => out.tool_calls.push(ToolCall {
                id: block["id"].as_str().unwrap_or("").to_owned(),
                name: block["name"].as_str().unwrap_or("").to_owned(),
                arguments: block["input"].to_string(),
            }),
            _ => {}
        }
    }
    out.usage = Usage {
        input_tokens: value
            .pointer("/usage/input_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        output_tokens: value
            .pointer("/usage/output_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    };
    out.finish_reason = value["stop_reason"].as_str().map(str::to_owned);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, ToolDef};

    #[test]
    fn tool_results_and_notes_merge_into_one_user_turn() {
        let a = Anthropic {
            base_url: "https://api.anthropic.com/v1".into(),
            api_key: None,
            model: "m".into(),
        };
        assert_eq!(a.url(), "https://api.anthropic.com/v1/messages");
        let c1 = ToolCall {
            id: "t1".into(),
            name: "read_file".into(),
            arguments: "{\"target_file\":\"a\"}".into(),
        };
        let c2 = ToolCall {
            id: "t2".into(),
            name: "grep_search".into(),
            arguments: "not json".into(),
        };
        let request = ChatRequest {
            system: "sys".into(),
            messages: vec![
                Message::user("task"),
                Message::assistant("Reading.", vec![c1.clone(), c2.clone()]),
                Message::tool_result(&c1, "contents", false),
                Message::tool_result(&c2, "bad args", true),
                Message::user("tests failed"),
            ],
            tools: vec![ToolDef {
                name: "read_file".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            ..Default::default()
        };
        let body = a.body(&request);
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["content"][1]["input"]["target_file"], "a");
        assert_eq!(messages[1]["content"][2]["input"], json!({}));
        assert_eq!(messages[2]["content"][0]["tool_use_id"], "t1");
        assert_eq!(messages[2]["content"][1]["is_error"], true);
        assert_eq!(messages[2]["content"][2]["text"], "tests failed");
        assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    }

    #[test]
    fn tool_use_blocks_become_calls() {
        let value = json!({"content": [{"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "t1", "name": "list_dir", "input": {"relative_workspace_path": "."}}],
            "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 7}});
        let r = parse_message(&value).unwrap();
        assert_eq!(r.content, "Let me look.");
        assert_eq!(
            r.tool_calls[0].arguments,
            "{\"relative_workspace_path\":\".\"}"
        );
        assert_eq!(r.finish_reason.as_deref(), Some("tool_use"));
    }
}
