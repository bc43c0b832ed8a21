//! Language-model access over HTTP: OpenAI-compatible chat completions (streamed or not) and
//! Anthropic's messages API, both with native tool calls, plus a text protocol for models
//! without them. Timeouts, retries with backoff on 429 and 5xx, and errors that say what to fix.

mod anthropic;
mod error;
mod http;
mod openai;
pub mod text;
mod types;

pub use anthropic::Anthropic;
pub use error::LlmError;
pub use http::{Http, RetryPolicy};
pub use openai::OpenAi;
pub use types::{ChatRequest, ChatResponse, Message, Progress, Role, ToolCall, ToolDef, Usage};

/// Which API a model speaks.
#[derive(Debug, Clone)]
pub enum Provider {
    OpenAi(OpenAi),
    Anthropic(Anthropic),
}

/// A model to talk to.
#[derive(Debug, Clone)]
pub struct Llm {
    pub provider: Provider,
    pub http: Http,
    /// Describe tools in the prompt and read tagged calls from text, instead of native tool calls.
    pub text_protocol: bool,
}

impl Llm {
    /// Sends one request. `on_progress` sees the answer's text as it arrives (streamed
    /// providers send many pieces) and every retry before it is made.
    pub async fn chat(
        &self,
        request: &ChatRequest,
        on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
    ) -> Result<ChatResponse, LlmError> {
        if self.text_protocol {
            let encoded = text::encode(request);
            let first_id = request
                .messages
                .iter()
                .map(|m| m.tool_calls.len())
                .sum::<usize>()
                + 1;
            let response = self.send(&encoded, on_progress).await?;
            Ok(text::decode(response, first_id))
        } else {
            self.send(request, on_progress).await
        }
    }

    async fn send(
        &self,
        request: &ChatRequest,
        on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
    ) -> Result<ChatResponse, LlmError> {
        match &self.provider {
            Provider::OpenAi(p) => p.chat(&self.http, request, on_progress).await,
            Provider::Anthropic(p) => p.chat(&self.http, request, on_progress).await,
        }
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        match &self.provider {
            Provider::OpenAi(p) => &p.model,
            Provider::Anthropic(p) => &p.model,
        }
    }

    /// One line for logs: provider, model, endpoint, protocol.
    pub fn describe(&self) -> String {
        let (kind, model, url) = match &self.provider {
            Provider::OpenAi(p) => ("openai-compatible", &p.model, &p.base_url),
            Provider::Anthropic(p) => ("anthropic", &p.model, &p.base_url),
        };
        let protocol = if self.text_protocol {
            "text protocol"
        } else {
            "native tools"
        };
        format!("{model} ({kind} at {url}, {protocol})")
    }
}
