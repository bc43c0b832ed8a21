//! `cast trace SESSION`: a session's steps, readably; and the writer `cast run` uses to record
//! them in `ROOT/.cast/traces/SESSION.jsonl`.

use cast_workspace::StateDir;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use cast_agent::agent::Event;
use cast_agent::memory::Session;

use crate::output::warn;
use crate::{Exit, Out};

/// Appends every event of a run, one JSON line each with a timestamp.
pub struct TraceWriter {
    file: Option<std::fs::File>,
}

fn trace_path(root: &Path, session: &str) -> PathBuf {
    StateDir::of(root)
        .join("traces")
        .join(format!("{session}.jsonl"))
}

impl TraceWriter {
    /// Opens (or creates) the session's trace; a trace that cannot be written is reported once
    /// and the run goes on without it.
    pub fn create(root: &Path, session: &str) -> TraceWriter {
        let path = trace_path(root, session);
        let file = StateDir::of(root)
            .ensure_subdir("traces")
            .map_err(std::io::Error::other)
            .and_then(|_| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
            });
        match file {
            Ok(f) => TraceWriter { file: Some(f) },
            Err(e) => {
                warn(format_args!("no trace: {}: {e}", path.display()));
                TraceWriter { file: None }
            }
        }
    }

    pub fn write(&mut self, event: &Event) {
        let Some(file) = &mut self.file else { return };
        let mut line = serde_json::to_value(event).unwrap_or(Value::Null);
        if let Value::Object(map) = &mut line {
            map.insert("ts".into(), Value::String(cast_agent::agent::now()));
        }
        if writeln!(file, "{line}").is_err() {
            self.file = None;
        }
    }
}

/// Print a session's trace: each model turn (prompt size, tokens, latency), each tool call
/// (tool, parameters, result, latency), edits and the end.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast trace 20261123        # a unique prefix of the id is enough\n  cast trace --json 20261123-101500-ab12 | jq ."
)]
pub struct Args {
    /// The session id (or a unique prefix; `cast sessions` lists them).
    session: String,
    /// The workspace root.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// Print the recorded JSON lines as they are.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let session = Session::load(&args.root, &args.session)?;
    let path = trace_path(&args.root, &session.id);
    let file = std::fs::File::open(&path)
        .with_context(|| format!("no trace for session {} at {}", session.id, path.display()))?;
    for line in std::io::BufReader::new(file).lines() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if args.json {
            out.line(&line)?;
            continue;
        }
        let Ok(e) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let s = |k: &str| e[k].as_str().unwrap_or("").to_owned();
        let n = |k: &str| e[k].as_u64().unwrap_or(0);
        let text = match e["event"].as_str().unwrap_or("") {
            "start" => format!("{}  start · {} · {}", s("ts"), s("model"), s("task")),
            "model" => format!(
                "  [{}] model: prompt ~{} tokens, {} in / {} out, {} ms",
                n("step"),
                n("prompt_tokens"),
                n("input_tokens"),
                n("output_tokens"),
                n("latency_ms")
            ),
            "tool_call" => format!(
                "  [{}] {} — {}\n        {}",
                n("step"),
                s("tool"),
                s("reason"),
                cast_tools::render::clip(&e["params"].to_string(), 200)
            ),
            "tool_result" => format!(
                "        {} ({} ms): {}",
                s("status"),
                n("latency_ms"),
                s("summary")
            ),
            "edit" => format!("        edited {}", s("path")),
            "tests" => format!(
                "        tests run {}: {}",
                n("attempt"),
                if e["passed"] == true {
                    "pass".to_owned()
                } else {
                    format!("fail — {}", s("summary"))
                }
            ),
            "final" => format!(
                "  end: {} after {} step(s); changed: {}",
                e["stop"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| e["stop"].to_string()),
                n("steps"),
                e["changed_files"]
                    .as_array()
                    .map(|a| a
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default()
            ),
            _ => continue,
        };
        out.line(&text)?;
    }
    Ok(Exit::Success)
}
