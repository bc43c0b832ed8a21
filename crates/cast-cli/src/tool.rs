//! `cast tool`: run one tool call, exactly as the agent or an MCP client would.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use cast_tools::{Registry, RegistryOptions, ToolContext, ToolError};
use serde_json::{Value, json};

use crate::output::warn;
use crate::{Exit, Out};

/// Run one tool call and print its result as one JSON object:
/// `{"tool", "status": "ok"|"refused"|"error", "text", "data", "truncated"}`.
///
/// The arguments are validated against the tool's schema (see `cast tools`). Exit status: 0
/// when the tool did what was asked, 1 when it refused (an edit that does not apply, a path
/// outside the workspace), 2 for an unknown tool or invalid arguments.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast tool grep_search --args '{\"query\": \"def main\", \"explanation\": \"find the entry point\"}'\n  cast tool read_file --root ~/src/app --args '{\"target_file\": \"app.py\", \"explanation\": \"read it\"}'\n  echo '{\"response\": \"done\"}' | cast tool finish --args -"
)]
pub struct Args {
    /// The tool's name (see `cast tools`).
    name: String,
    /// The arguments: a JSON object, `-` to read it from stdin, or `@FILE` to read it from a file.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    args: String,
    /// The workspace root; every path is resolved inside it.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// Allow `run_command`.
    #[arg(long)]
    allow_commands: bool,
    #[command(flatten)]
    guard: crate::sandbox::GuardArgs,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let raw = match args.args.as_str() {
        "-" => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the arguments from stdin")?;
            text
        }
        a if a.starts_with('@') => std::fs::read_to_string(&a[1..])
            .with_context(|| format!("cannot read the arguments from {}", &a[1..]))?,
        a => a.to_owned(),
    };
    let value: Value = serde_json::from_str(&raw).map_err(|e| {
        anyhow::anyhow!(
            "--args is not valid JSON ({e}); give a JSON object such as '{{\"query\": \"x\"}}'"
        )
    })?;
    let mut ctx = ToolContext::new(&args.root)?;
    args.guard.apply_to(&mut ctx)?;
    let registry = Registry::standard(RegistryOptions {
        commands: args.allow_commands,
    });
    match registry.call(&ctx, &args.name, value) {
        Ok(output) => {
            out.json(&json!({
                "tool": args.name,
                "status": output.status,
                "text": output.text,
                "data": output.data,
                "truncated": output.truncated,
            }))?;
            Ok(match output.status {
                cast_tools::Status::Ok => Exit::Success,
                cast_tools::Status::Refused => Exit::NothingOrRefused,
            })
        }
        Err(err) => {
            let status = if err.is_refusal() { "refused" } else { "error" };
            out.json(&json!({"tool": args.name, "status": status, "text": err.to_string()}))?;
            warn(&err);
            match err {
                e if e.is_refusal() => Ok(Exit::NothingOrRefused),
                ToolError::UnknownTool { .. } | ToolError::InvalidArguments { .. } => {
                    Ok(Exit::BadUsage)
                }
                other => Err(other.into()),
            }
        }
    }
}
