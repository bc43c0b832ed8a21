use std::time::Duration;

/// Why a model could not be asked. Each message says what to check.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error(
        "cannot reach {url}: {detail}. Is the server running and the URL right? (a local Ollama listens on http://localhost:11434/v1 after `ollama serve`)"
    )]
    Unreachable { url: String, detail: String },
    #[error("{url} did not answer within {timeout:?}")]
    Timeout { url: String, timeout: Duration },
    #[error(
        "{url} refused the API key (HTTP {status}): {detail}. Check OPENAI_API_KEY / ANTHROPIC_API_KEY or `api_key` in .cast/config.toml"
    )]
    Unauthorized {
        url: String,
        status: u16,
        detail: String,
    },
    #[error(
        "the model {model:?} is not known to {url} (HTTP {status}): {detail}. Check --model / CAST_MODEL"
    )]
    UnknownModel {
        url: String,
        model: String,
        status: u16,
        detail: String,
    },
    #[error("{url} answered HTTP {status} after {attempts} attempt(s): {detail}")]
    Http {
        url: String,
        status: u16,
        attempts: u32,
        detail: String,
    },
    #[error("{url} sent a response CAST cannot read: {detail}")]
    BadResponse { url: String, detail: String },
}

impl LlmError {
    /// Whether trying again later might help.
    pub fn is_transient(&self) -> bool {
        match self {
            LlmError::Unreachable { .. } | LlmError::Timeout { .. } => true,
            LlmError::Http { status, .. } => *status == 429 || *status >= 500,
            _ => false,
        }
    }
}
