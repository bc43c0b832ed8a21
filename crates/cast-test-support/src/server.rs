//! A scripted OpenAI-compatible (or Anthropic) HTTP server on 127.0.0.1, for testing agents
//! without a network or a real model: it answers each request with the next scripted reply and
//! records every request it received.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde_json::{Value, json};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A JSON body with a status code.
    Json { status: u16, body: Value },
    /// Server-sent events: each value as `data: {json}`, then `data: [DONE]`.
    Sse(Vec<Value>),
    /// A raw body with a status code (for broken answers).
    Raw { status: u16, body: String },
    /// Wait, then answer with the inner reply (for timeouts).
    Delay(Duration, Box<Reply>),
}

impl Reply {
    /// An OpenAI chat completion with text only.
    pub fn openai_text(content: &str) -> Reply {
        Reply::Json {
            status: 200,
            body: json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0,
                "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10}}),
        }
    }

    /// An OpenAI chat completion with one tool call (and a sentence of reasoning).
    pub fn openai_call(id: &str, reason: &str, name: &str, args: Value) -> Reply {
        Reply::openai_raw_call(id, reason, name, &args.to_string())
    }

    /// A tool call whose arguments are given as raw text (possibly broken JSON).
    pub fn openai_raw_call(id: &str, reason: &str, name: &str, arguments: &str) -> Reply {
        Reply::Json {
            status: 200,
            body: json!({"id": "x", "object": "chat.completion", "choices": [{"index": 0,
                "message": {"role": "assistant", "content": reason, "tool_calls": [{"id": id,
                    "type": "function", "function": {"name": name, "arguments": arguments}}]},
                "finish_reason": "tool_calls"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10}}),
        }
    }

    /// The same tool call, streamed in chunks as OpenAI streams it.
    pub fn openai_stream_call(id: &str, reason: &str, name: &str, args: Value) -> Reply {
        let args = args.to_string();
        let (a, b) = args.split_at(args.len() / 2);
        Reply::Sse(vec![
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": reason}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": name, "arguments": a}}]}}]}),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": b}}]}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10}}),
        ])
    }

    /// A plain answer streamed in the given pieces.
    pub fn openai_stream_text(pieces: &[&str]) -> Reply {
        let mut events: Vec<Value> = pieces
            .iter()
            .map(|p| json!({"choices": [{"index": 0, "delta": {"content": p}}]}))
            .collect();
        events.push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}));
        events
            .push(json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10}}));
        Reply::Sse(events)
    }

    /// An Anthropic message with one tool use.
    pub fn anthropic_call(id: &str, reason: &str, name: &str, input: Value) -> Reply {
        Reply::Json {
            status: 200,
            body: json!({"id": "m", "type": "message", "role": "assistant", "content": [
                {"type": "text", "text": reason}, {"type": "tool_use", "id": id, "name": name, "input": input}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 100, "output_tokens": 10}}),
        }
    }

    /// An Anthropic message with text only.
    pub fn anthropic_text(text: &str) -> Reply {
        Reply::Json {
            status: 200,
            body: json!({"id": "m", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 100, "output_tokens": 10}}),
        }
    }

    /// A text-protocol answer (an OpenAI completion whose text holds a tagged call).
    pub fn text_call(reason: &str, name: &str, args: Value) -> Reply {
        Reply::openai_text(&format!(
            "{reason}\n<tool_call>\n{}\n</tool_call>",
            json!({"name": name, "arguments": args})
        ))
    }

    /// An HTTP error with an OpenAI-style error body.
    pub fn error(status: u16, message: &str) -> Reply {
        Reply::Json {
            status,
            body: json!({"error": {"message": message, "type": "error"}}),
        }
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Null` when it was not JSON).
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The server. It stops when dropped.
pub struct ScriptedServer {
    port: u16,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<Mutex<bool>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for ScriptedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedServer")
            .field("port", &self.port)
            .finish()
    }
}

impl ScriptedServer {
    /// Starts on a free port of 127.0.0.1. Replies are used in order; when they run out, every
    /// further request gets HTTP 500 "script exhausted".
    ///
    /// # Panics
    /// When no local port can be bound (a test-environment failure).
    #[allow(clippy::expect_used)]
    pub fn start(replies: Vec<Reply>) -> ScriptedServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(Mutex::new(false));
        let script = Arc::new(Mutex::new(
            replies
                .into_iter()
                .collect::<std::collections::VecDeque<_>>(),
        ));
        let (reqs, stopping) = (Arc::clone(&requests), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.lock().map(|s| *s).unwrap_or(true) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (reqs, script) = (Arc::clone(&reqs), Arc::clone(&script));
                std::thread::spawn(move || serve(stream, &reqs, &script));
            }
        });
        ScriptedServer {
            port,
            requests,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT/v1`, an OpenAI-style base URL.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// `http://127.0.0.1:PORT`, an Anthropic-style base URL.
    pub fn root_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        if let Ok(mut stop) = self.stop.lock() {
            *stop = true;
        }
        let _ = TcpStream::connect(("127.0.0.1", self.port)); // wake the accept loop
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    stream: TcpStream,
    requests: &Mutex<Vec<Recorded>>,
    script: &Mutex<std::collections::VecDeque<Reply>>,
) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return; // the wake-up connection
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let path = parts.next().unwrap_or("").to_owned();
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 {
            break;
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            if k.eq_ignore_ascii_case("content-length") {
                length = v.trim().parse().unwrap_or(0);
            }
            headers.push((k.trim().to_owned(), v.trim().to_owned()));
        }
    }
    let mut body = vec![0u8; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    if let Ok(mut r) = requests.lock() {
        r.push(Recorded {
            method,
            path,
            headers,
            body,
        });
    }
    let reply = script
        .lock()
        .ok()
        .and_then(|mut s| s.pop_front())
        .unwrap_or_else(|| Reply::error(500, "script exhausted"));
    respond(stream, reply);
}

fn respond(mut stream: TcpStream, reply: Reply) {
    match reply {
        Reply::Delay(wait, inner) => {
            std::thread::sleep(wait);
            respond(stream, *inner);
        }
        Reply::Json { status, body } => {
            write_body(&mut stream, status, "application/json", &body.to_string())
        }
        Reply::Raw { status, body } => write_body(&mut stream, status, "text/plain", &body),
        Reply::Sse(events) => {
            let mut body = String::new();
            for event in events {
                body.push_str(&format!("data: {event}\n\n"));
            }
            body.push_str("data: [DONE]\n\n");
            write_body(&mut stream, 200, "text/event-stream", &body);
        }
    }
}

fn write_body(stream: &mut TcpStream, status: u16, kind: &str, body: &str) {
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        if status < 400 { "OK" } else { "Error" },
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}
