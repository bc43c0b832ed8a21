//! OpenAI-compatible chat completions (`POST {base}/chat/completions`) with native tool calls,
//! streamed (server-sent events) or not. This covers OpenAI, Ollama, vLLM, llama.cpp's server,
//! LM Studio, OpenRouter and most hosted models.

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};
use serde_json::{Value, json};

use super::http::Http;
use super::{ChatRequest, ChatResponse, LlmError, Message, Progress, Role, ToolCall, Usage};

/// An OpenAI-compatible endpoint.
#[derive(Debug, Clone)]
pub struct OpenAi {
    /// Base URL, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    /// Ask for a streamed answer (server-sent events).
    pub stream: bool,
}

impl OpenAi {
    fn url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    pub fn body(&self, request: &ChatRequest) -> Value {
        let mut messages = vec![json!({"role": "system", "content": request.system})];
        messages.extend(request.messages.iter().map(message_json));
        let mut body = json!({"model": self.model, "messages": messages, "stream": self.stream});
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.parameters}})
                })
                .collect();
        }
        if let Some(max) = request.max_tokens {
            body["max_tokens"] = json!(max);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        if self.stream {
            body["stream_options"] = json!({"include_usage": true});
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
        if let Some(key) = self.api_key.as_deref().filter(|k| !k.is_empty())
            && let Ok(value) = HeaderValue::from_str(&format!("Bearer {key}"))
        {
            headers.insert(AUTHORIZATION, value);
        }
        let response = http
            .post_json(&url, headers, &self.body(request), &self.model, on_progress)
            .await?;
        if self.stream {
            read_stream(&url, response, on_progress).await
        } else {
            let parsed = super::http::read_json(&url, response, parse_completion).await?;
            if !parsed.content.is_empty() {
                on_progress(Progress::Text(&parsed.content));
            }
            Ok(parsed)
        }
    }
}

fn message_json(m: &Message) -> Value {
    match m.role {
        Role::User => json!({"role": "user", "content": m.content}),
        Role::Assistant => {
            let mut v = json!({"role": "assistant", "content": m.content});
            if !m.tool_calls.is_empty() {
                v["tool_calls"] = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                                    "function": {"name": c.name, "arguments": c.arguments}})
                    })
                    .collect();
            }
            v
        }
        Role::Tool => json!({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content}),
    }
}

/// Reads a non-streamed completion.
pub fn parse_completion(value: &Value) -> Result<ChatResponse, String> {
    let choice = value.pointer("/choices/0").ok_or_else(|| {
        format!(
            "no `choices` in {}",
            cast_tools::render::clip(&value.to_string(), 300)
        )
    })?;
    let message = &choice["message"];
    let content = message["content"].as_str().unwrap_or("").to_owned();
    let mut tool_calls = Vec::new();
    if let Some(calls) = message["tool_calls"].as_array() {
        for (i, call) in calls.iter().enumerate() {
            tool_calls.push(ToolCall {
                id: call["id"]
                    .as_str()
                    .map_or_else(|| format!("call_{i}"), str::to_owned),
                name: call
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                arguments: match call.pointer("/function/arguments") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(), // some servers send an object
                    None => String::new(),
                },
            });
        }
    }
    Ok(ChatResponse {
        content,
        tool_calls,
        usage: usage(&value["usage"]),
        finish_reason: choice["finish_reason"].as_str().map(str::to_owned),
    })
}

fn usage(u: &Value) -> Usage {
    Usage {
        input_tokens: u["prompt_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["completion_tokens"].as_u64().unwrap_or(0),
    }
}

/// Reads server-sent events: `data: {chunk}` lines until `data: [DONE]`, accumulating text and
/// tool calls (whose arguments arrive in pieces, keyed by index).
async fn read_stream(
    url: &str,
    mut response: reqwest::Response,
    on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
) -> Result<ChatResponse, LlmError> {
    let mut out = ChatResponse::default();
    let mut calls: Vec<ToolCall> = Vec::new();
    let mut pending = Vec::<u8>::new();
    let mut done = false;
    while !done {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => {
                return Err(LlmError::BadResponse {
                    url: url.to_owned(),
                    detail: format!("the stream broke off: {e}"),
                });
            }
        };
        pending.extend_from_slice(&chunk);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let Some(data) = line.trim_end().strip_prefix("data:") else {
                continue;
            };
            let data = data.trim();
            if data == "[DONE]" {
                done = true;
                break;
            }
            let Ok(event) = serde_json::from_str::<Value>(data) else {
                return Err(LlmError::BadResponse {
                    url: url.to_owned(),
                    detail: format!(
                        "a stream event is not JSON: {}",
                        cast_tools::render::clip(data, 200)
                    ),
                });
            };
            if event["usage"].is_object() {
                out.usage = usage(&event["usage"]);
            }
            let Some(choice) = event.pointer("/choices/0") else {
                continue;
            };
            let delta = &choice["delta"];
            if let Some(text) = delta["content"].as_str()
                && !text.is_empty()
            {
                on_progress(Progress::Text(text));
                out.content.push_str(text);
            }
            if let Some(parts) = delta["tool_calls"].as_array() {
                for part in parts {
                    let index = part["index"].as_u64().unwrap_or(calls.len() as u64) as usize;
                    while calls.len() <= index {
                        calls.push(ToolCall {
                            id: String::new(),
                            name: String::new(),
                            arguments: String::new(),
                        });
                    }
                    let call = &mut calls[index];
                    if let Some(id) = part["id"].as_str() {
                        call.id = id.to_owned();
                    }
                    if let Some(name) = part.pointer("/function/name").and_then(Value::as_str) {
                        call.name.push_str(name);
                    }
                    if let Some(args) = part.pointer("/function/arguments").and_then(Value::as_str)
                    {
                        call.arguments.push_str(args);
                    }
                }
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                out.finish_reason = Some(reason.to_owned());
            }
        }
    }
    for (i, call) in calls.iter_mut().enumerate() {
        if call.id.is_empty() {
            call.id = format!("call_{i}");
        }
    }
    out.tool_calls = calls.into_iter().filter(|c| !c.name.is_empty()).collect();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_with_tool_calls_is_read() {
        let value = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"target_file\": \"a.py\"}"}}
        ]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 10, "completion_tokens": 3}});
        let r = parse_completion(&value).unwrap();
        assert_eq!(r.tool_calls[0].name, "read_file");
        assert_eq!(r.tool_calls[0].arguments, "{\"target_file\": \"a.py\"}");
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 10,
                output_tokens: 3
            }
        );
    }

    #[test]
    fn body_carries_tools_and_tool_results() {
        let provider = OpenAi {
            base_url: "http://x/v1".into(),
            api_key: None,
            model: "m".into(),
            stream: false,
        };
        let call = ToolCall {
            id: "c1".into(),
            name: "finish".into(),
            arguments: "{}".into(),
        };
        let request = ChatRequest {
            system: "sys".into(),
            messages: vec![
                Message::user("task"),
                Message::assistant("", vec![call.clone()]),
                Message::tool_result(&call, "done", false),
            ],
            tools: vec![super::super::ToolDef {
                name: "finish".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            ..Default::default()
        };
        let body = provider.body(&request);
        assert_eq!(body["messages"][0]["role"], "system");
        assert_eq!(body["messages"][2]["tool_calls"][0]["id"], "c1");
        assert_eq!(body["messages"][3]["tool_call_id"], "c1");
        assert_eq!(body["tools"][0]["function"]["name"], "finish");
    }
}
