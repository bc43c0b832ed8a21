//! `cast run`: run the agent on one task, non-interactively.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use cast_tools::{EditMode, Registry, RegistryOptions, ToolContext};

use crate::agent::{Agent, AgentConfig, Event, Stop};
use crate::config::{self, ModelFlags};

use super::{Exit, Out};

/// Run the coding agent on one task and print each step as it happens.
///
/// The agent reads the workspace with CAST's tools, edits files (every edit is journaled:
/// `cast undo` reverts it), and ends with a summary of what it did and what changed.
///
/// The model comes from (highest first) the flags, the environment (OPENAI_API_KEY,
/// OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, CAST_PROVIDER, CAST_MODEL,
/// CAST_PROTOCOL), ROOT/.cast/config.toml and ~/.config/cast/config.toml ([model] provider,
/// name, base_url, api_key, protocol, stream, timeout_s, retries).
///
/// Exit status: 0 when the agent finished, 1 when it was stopped (step limit, repeated call),
/// 2 when no model is configured or the model could not be reached.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  OPENAI_API_KEY=sk-… cast run \"add a --verbose flag to cli.py\"\n  OPENAI_BASE_URL=http://localhost:11434/v1 CAST_MODEL=qwen2.5-coder:14b cast run --root ~/src/app \"why does test_login fail?\"\n  cast run --json --read-only \"explain how caching works\" > events.jsonl"
)]
pub struct Args {
    /// What to do, in plain words.
    task: String,
    /// The workspace root; the agent cannot read or write outside it.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// The model name (overrides CAST_MODEL).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// `openai` (any OpenAI-compatible server) or `anthropic` (overrides CAST_PROVIDER).
    #[arg(long, value_name = "NAME")]
    provider: Option<String>,
    /// The endpoint (overrides OPENAI_BASE_URL / ANTHROPIC_BASE_URL).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// `native` tool calls, or `text` for models without them (tools described in the prompt).
    #[arg(long, value_name = "NAME")]
    protocol: Option<String>,
    /// Do not ask for streamed answers.
    #[arg(long)]
    no_stream: bool,
    /// Model turns before the run is stopped.
    #[arg(long, value_name = "N", default_value_t = 30)]
    max_steps: usize,
    /// Forbid writes: the edit tools are not offered.
    #[arg(long)]
    read_only: bool,
    /// Offer `run_command` (the model can run any shell command in the workspace).
    #[arg(long)]
    allow_commands: bool,
    /// Print one JSON event per line (start, thought, tool_call, tool_result, edit, final).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let mut ctx = ToolContext::new(&args.root)?;
    let files = config::config_files(ctx.workspace.root())?;
    let flags = ModelFlags {
        provider: args.provider.clone(),
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        protocol: args.protocol.clone(),
        no_stream: args.no_stream,
    };
    let llm = match config::resolve(&flags, &|k| std::env::var(k).ok(), &files) {
        Ok(llm) => llm,
        Err(err) => {
            super::output::warn(&err);
            return Ok(Exit::BadUsage);
        }
    };
    let mut registry = Registry::standard(RegistryOptions {
        commands: args.allow_commands,
    });
    if args.read_only {
        ctx.edit_mode = EditMode::ReadOnly;
        for name in registry.names() {
            if registry.get(name).is_some_and(|t| !t.read_only()) {
                registry.remove(name);
            }
        }
    }
    let config = AgentConfig {
        max_steps: args.max_steps.max(1),
        ..AgentConfig::default()
    };
    let system = crate::prompt::standard(&registry, &ctx, config.map_budget).render();
    let agent = Agent {
        llm,
        registry: Arc::new(registry),
        ctx: Arc::new(ctx),
        config,
        system,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let mut printed: std::io::Result<()> = Ok(());
    let json = args.json;
    let outcome = runtime.block_on(async {
        let mut messages = Vec::new();
        agent
            .run(&args.task, &mut messages, &mut |event| {
                if printed.is_ok() {
                    printed = if json {
                        out.json(event)
                    } else {
                        print_event(out, event)
                    };
                }
            })
            .await
    });
    printed?;
    Ok(match outcome.stop {
        Stop::Finished => Exit::Success,
        Stop::StepLimit(_) | Stop::Repeated(_) => Exit::NothingOrRefused,
        Stop::ModelError(_) => Exit::BadUsage,
    })
}

fn print_event(out: &mut Out, event: &Event) -> std::io::Result<()> {
    match event {
        Event::Start { model, root, .. } => out.line(&format!("cast · {model} · {root}")),
        Event::Thought { .. } => Ok(()),
        Event::ToolCall {
            step,
            tool,
            reason,
            params,
            ..
        } => {
            let params = cast_tools::render::clip(&params.to_string(), 160);
            out.line(&format!("[{step}] {tool} — {reason}\n    {params}"))
        }
        Event::ToolResult {
            status, summary, ..
        } => out.line(&format!("    {status}: {summary}")),
        Event::Edit { path, diff, .. } => {
            out.line(&format!("    edited {path}:"))?;
            for line in diff.lines() {
                out.line(&format!("    {line}"))?;
            }
            Ok(())
        }
        Event::Final {
            response,
            stop,
            steps,
            changed_files,
            ..
        } => {
            let how = match stop {
                Stop::Finished => format!("Finished in {steps} step(s)."),
                Stop::StepLimit(n) => format!("Stopped at the {n}-step limit."),
                Stop::Repeated(what) => format!("Stopped: {what}."),
                Stop::ModelError(err) => format!("Stopped: {err}"),
            };
            out.line(&format!("\n{how}"))?;
            if !changed_files.is_empty() {
                out.line(&format!("Changed: {}", changed_files.join(", ")))?;
            }
            out.line(&format!("\n{response}"))
        }
    }
}
