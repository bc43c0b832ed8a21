//! Provider-neutral chat types: what the agent sends and what a model answers.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    /// A tool's result, tied to the call by `tool_call_id`.
    Tool,
}

/// One tool call as the model wrote it. `arguments` is kept as the raw text the model produced,
/// so malformed JSON reaches the agent (and goes back to the model as an error) instead of being
/// lost in the provider layer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// One message of the conversation (the system prompt travels separately).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// Calls the assistant made in this message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool result: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For a tool result: the tool's name (the text protocol and Anthropic's API want it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For a tool result: the call failed or was refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

impl Message {
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: Role::User,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            tool_name: None,
            is_error: false,
        }
    }

    pub fn assistant(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Message {
            role: Role::Assistant,
            tool_calls,
            ..Message::user(content)
        }
    }

    pub fn tool_result(call: &ToolCall, content: impl Into<String>, is_error: bool) -> Self {
        Message {
            role: Role::Tool,
            tool_call_id: Some(call.id.clone()),
            tool_name: Some(call.name.clone()),
            is_error,
            ..Message::user(content)
        }
    }
}

/// A tool as a model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// One request to a model.
#[derive(Debug, Clone, Default)]
pub struct ChatRequest {
    pub system: String,
    pub messages: Vec<Message>,
    /// Tools the model may call; empty for a plain completion.
    pub tools: Vec<ToolDef>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
}

/// Tokens a request used, as the provider reported them (0 when it did not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A model's answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    /// Text the model wrote (for tool calls, usually its reasoning).
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// The provider's stop reason (`stop`, `tool_calls`, `end_turn`, `length`, …).
    pub finish_reason: Option<String>,
}

/// What happens while a request is being answered, for a front end to show.
#[derive(Debug)]
pub enum Progress<'a> {
    /// A piece of the answer's text (a streamed answer comes in many).
    Text(&'a str),
    /// A transient failure (the server unreachable or busy, a timeout, a 429 or 5xx): the
    /// request is sent again after `wait`.
    Retry {
        /// The attempt that failed (1 for the first).
        attempt: u32,
        /// Attempts allowed in all.
        attempts: u32,
        wait: std::time::Duration,
        error: &'a super::LlmError,
    },
}
