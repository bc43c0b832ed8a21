//! HTTP with timeouts and retries: 429 and 5xx answers and connection failures are retried with
//! exponential backoff (honouring `Retry-After`); other failures become clear [`LlmError`]s.

use std::time::Duration;

use reqwest::header::HeaderMap;
use serde_json::Value;

use super::{LlmError, Progress};

/// How hard to try.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts in all (1 = no retry).
    pub attempts: u32,
    /// Wait before the first retry; doubled each time.
    pub first_backoff: Duration,
    /// No single wait is longer than this (a `Retry-After` above it is cut).
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 4,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
        }
    }
}

/// A configured HTTP client.
#[derive(Debug, Clone)]
pub struct Http {
    client: reqwest::Client,
    pub retry: RetryPolicy,
    /// Whole-request limit (a streamed answer must finish within it too).
    pub timeout: Duration,
}

impl Http {
    pub fn new(timeout: Duration, retry: RetryPolicy) -> Result<Self, LlmError> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .timeout(timeout)
            .user_agent(concat!("cast/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Unreachable {
                url: String::new(),
                detail: format!("cannot set up the HTTP client: {e}"),
            })?;
        Ok(Http {
            client,
            retry,
            timeout,
        })
    }

    /// POSTs JSON and returns the successful response (status 2xx), retrying transient failures
    /// (each retry is reported to `on_progress` before the wait). `model` is used to explain a
    /// 404.
    pub async fn post_json(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
        model: &str,
        on_progress: &mut (dyn FnMut(Progress<'_>) + Send),
    ) -> Result<reqwest::Response, LlmError> {
        let mut backoff = self.retry.first_backoff;
        let attempts = self.retry.attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let sent = self
                .client
                .post(url)
                .headers(headers.clone())
                .json(body)
                .send()
                .await;
            let error = match sent {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    let detail = error_detail(response).await;
                    let error = classify(url, model, status, detail, attempt);
                    if error.is_transient()
                        && attempt < attempts
                        && let Some(wait) = retry_after
                    {
                        backoff = wait.min(self.retry.max_backoff);
                    }
                    error
                }
                Err(err) if err.is_timeout() => LlmError::Timeout {
                    url: url.to_owned(),
                    timeout: self.timeout,
                },
                Err(err) => LlmError::Unreachable {
                    url: url.to_owned(),
                    detail: root_cause(&err),
                },
            };
            if !error.is_transient() || attempt >= attempts {
                return Err(error);
            }
            on_progress(Progress::Retry {
                attempt,
                attempts,
                wait: backoff,
                error: &error,
            });
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(self.retry.max_backoff);
        }
    }
}

fn classify(url: &str, model: &str, status: u16, detail: String, attempts: u32) -> LlmError {
    match status {
        401 | 403 => LlmError::Unauthorized {
            url: url.to_owned(),
            status,
            detail,
        },
        404 if detail.to_ascii_lowercase().contains("model") => LlmError::UnknownModel {
            url: url.to_owned(),
            model: model.to_owned(),
            status,
            detail,
        },
        404 => LlmError::Http {
            url: url.to_owned(),
            status,
            attempts,
            detail: format!(
                "{detail} (check the base URL: OpenAI-compatible servers usually end in /v1)"
            ),
        },
        _ => LlmError::Http {
            url: url.to_owned(),
            status,
            attempts,
            detail,
        },
    }
}

/// The provider's error message (`{"error": {"message": …}}` in both OpenAI's and Anthropic's
/// APIs), or the start of the body.
async fn error_detail(response: reqwest::Response) -> String {
    let text = response.text().await.unwrap_or_default();
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        let message = value
            .pointer("/error/message")
            .or_else(|| value.get("error"))
            .or_else(|| value.get("message"));
        if let Some(Value::String(message)) = message {
            return message.clone();
        }
    }
    let text = text.trim();
    if text.is_empty() {
        "no details".to_owned()
    } else {
        cast_tools::render::clip(text, 300)
    }
}

fn root_cause(err: &reqwest::Error) -> String {
    let mut source: &dyn std::error::Error = err;
    while let Some(next) = source.source() {
        source = next;
    }
    source.to_string()
}

/// Reads a non-streamed answer as JSON and hands it to the provider's `parse`; an unreadable
/// body or a shape `parse` rejects is a [`LlmError::BadResponse`] naming the endpoint.
pub async fn read_json<T>(
    url: &str,
    response: reqwest::Response,
    parse: impl FnOnce(&Value) -> Result<T, String>,
) -> Result<T, LlmError> {
    let bad = |detail: String| LlmError::BadResponse {
        url: url.to_owned(),
        detail,
    };
    let text = response.text().await.map_err(|e| bad(e.to_string()))?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "not JSON ({e}): {}",
            cast_tools::render::clip(&text, 200)
        ))
    })?;
    parse(&value).map_err(bad)
}
