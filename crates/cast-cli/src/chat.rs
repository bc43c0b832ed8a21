//! `cast chat`: an interactive agent session in the terminal.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Arc;

use cast_tools::cast_coder::Coder;

use crate::run::{ModelArgs, TerminalApprover, print_event};
use crate::{Exit, Out};
use cast_agent::agent::{Agent, AgentConfig, Event};
use cast_agent::approval::{ApprovalMode, Approver};
use cast_agent::memory::{PersistentMemory, Session};

/// Talk with the coding agent in the terminal, approving each change.
///
/// Each line is a task or a question; answers stream as they come, and every change is shown
/// for approval first (`--approval ask`, the default here).
///
/// Commands: /help, /diff (changes made in this chat, and pending ones), /approve N and
/// /reject N (pending changes), /undo (the last change set), /pref [KEY VALUE] (preferences
/// remembered across sessions, e.g. `/pref test_cmd pytest -q`), /exit. Ctrl-C cancels the
/// current step and keeps the session; Ctrl-D or /exit leaves.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast chat --root ~/src/app\n  OPENAI_BASE_URL=http://localhost:11434/v1 CAST_MODEL=qwen2.5-coder:14b cast chat\n  cast chat --resume 20261123      # continue a session"
)]
pub struct Args {
    /// The workspace root; the agent cannot read or write outside it.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// `ask` (show each change and apply it on yes), `auto` or `read-only`.
    #[arg(long, value_name = "MODE", default_value = "ask")]
    approval: ApprovalMode,
    /// Offer `run_command` (each command is approved first in ask mode, and runs confined by
    /// --sandbox).
    #[arg(long)]
    allow_commands: bool,
    #[command(flatten)]
    guard: crate::sandbox::GuardArgs,
    /// Run this command before finishing when files changed (`auto`: find the project's; see
    /// `cast run --help`); default: the `test_cmd` preference.
    #[arg(long, value_name = "CMD")]
    test_cmd: Option<String>,
    /// Continue a session (an id or a unique prefix).
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Model turns per request before it is stopped.
    #[arg(long, value_name = "N", default_value_t = 30)]
    max_steps: usize,
}

const HELP: &str = "Type a task or a question. Commands:
  /diff          the changes made in this chat, and the pending ones
  /approve N     apply pending change N        /reject N   drop it
  /undo          undo the last change set      /pref [KEY VALUE]  show or set a preference
  /help          this text                     /exit       leave (or Ctrl-D)
Ctrl-C cancels the current step; the session is kept.";

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let read_only = args.approval == ApprovalMode::ReadOnly;
    let Some(builder) = crate::run::agent_builder(&args.root, &args.model)? else {
        return Ok(Exit::BadUsage);
    };
    let root = builder.root().to_path_buf();
    let (session, memory) = crate::run::open_session(&root, args.resume.as_deref())?;
    let test_cmd =
        crate::run::test_cmd_or_remembered(args.test_cmd.clone(), memory.as_ref(), &root);
    let config = AgentConfig {
        max_steps: args.max_steps.max(1),
        approver: (args.approval == ApprovalMode::Ask)
            .then(|| Arc::new(TerminalApprover) as Arc<dyn Approver>),
        test_cmd,
        stream_text: true,
        ..AgentConfig::default()
    };
    let agent = builder
        .sandbox(crate::sandbox::resolve(&args.guard.sandbox, &root)?)
        .allow_commands(args.allow_commands)
        .refuse_syntax_errors(args.guard.refuse_syntax_errors)
        .read_only(read_only)
        .config(config)
        .preferences(crate::run::preferences(memory.as_ref()))
        .build();
    let mut chat = Chat {
        runtime: crate::run::runtime()?,
        trace: crate::trace::TraceWriter::create(&root, &session.id),
        diffs: Vec::new(),
        agent,
        root,
        session,
        memory,
    };
    out.line(&format!(
        "cast chat · {} · {} · sandbox {} · session {}\n/help for commands, Ctrl-D to leave.",
        chat.agent.llm.describe(),
        chat.root.display(),
        chat.agent.ctx.sandbox.mode,
        chat.session.id
    ))?;
    let stdin = std::io::stdin();
    loop {
        out.text("\nyou> ")?;
        out.flush()?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            out.line("")?;
            break;
        }
        let line = line.trim();
        let (command, rest) = line.split_once(' ').unwrap_or((line, ""));
        match command {
            "" => continue,
            "/exit" | "/quit" => break,
            c if c.starts_with('/') => chat.command(out, c, rest)?,
            _ => chat.ask(out, line)?,
        }
    }
    let Chat { session, root, .. } = &mut chat;
    if let Err(e) = session.save(root) {
        crate::output::warn(format_args!("the session could not be saved: {e}"));
    }
    crate::output::warn(format_args!(
        "session {} (continue with cast chat --resume {})",
        session.id, session.id
    ));
    Ok(Exit::Success)
}

/// A chat's state between lines: the agent, its session, and the changes made so far.
struct Chat {
    agent: Agent,
    runtime: tokio::runtime::Runtime,
    root: PathBuf,
    session: Session,
    memory: Option<PersistentMemory>,
    trace: crate::trace::TraceWriter,
    /// (path, diff) of every change applied in this chat, for /diff.
    diffs: Vec<(String, String)>,
}

impl Chat {
    /// A slash command.
    fn command(&mut self, out: &mut Out, command: &str, rest: &str) -> anyhow::Result<()> {
        let session = &mut self.session;
        match command {
            "/help" => out.line(HELP)?,
            "/undo" => match Coder::new(&self.root).undo(1, false) {
                Ok(entries) => {
                    for e in entries {
                        let files: Vec<String> = e
                            .files
                            .iter()
                            .map(|f| f.path.display().to_string())
                            .collect();
                        out.line(&format!(
                            "undid #{} ({}): {}",
                            e.id,
                            e.description,
                            files.join(", ")
                        ))?;
                    }
                }
                Err(e) => out.line(&format!("nothing undone: {e}"))?,
            },
            "/diff" => {
                if self.diffs.is_empty() && session.pending.is_empty() {
                    out.line("no changes in this chat yet")?;
                }
                for (path, diff) in &self.diffs {
                    out.line(&format!("--- applied: {path}\n{}", diff.trim_end()))?;
                }
                for (i, p) in session.pending.iter().enumerate() {
                    out.line(&format!(
                        "--- pending {} ({}; rejected: {}):\n{}",
                        i + 1,
                        p.tool,
                        p.reason,
                        p.preview.trim_end()
                    ))?;
                }
            }
            "/approve" | "/reject" => {
                let Some(index) = rest
                    .trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=session.pending.len()).contains(n))
                else {
                    out.line(&format!(
                        "give the number of a pending change (1 to {}); /diff lists them",
                        session.pending.len()
                    ))?;
                    return Ok(());
                };
                let pending = session.pending.remove(index - 1);
                if command == "/reject" {
                    out.line(&format!("dropped pending change {index}"))?;
                } else {
                    let (applied, text) = self.runtime.block_on(self.agent.apply_pending(&pending));
                    out.line(&text)?;
                    if !applied {
                        session.pending.insert(index - 1, pending);
                    }
                }
            }
            "/pref" => match (&self.memory, rest.split_once(' ')) {
                (None, _) => out.line("preferences are unavailable (no memory database)")?,
                (Some(m), Some((key, value))) => {
                    m.set_pref(key.trim(), value.trim())?;
                    out.line(&format!("{} = {}", key.trim(), value.trim()))?;
                }
                (Some(m), None) => {
                    for (k, v) in m.prefs()? {
                        out.line(&format!("{k} = {v}"))?;
                    }
                }
            },
            c => out.line(&format!("unknown command {c}; /help lists them"))?,
        }
        Ok(())
    }

    /// A task or question: one agent run, streamed; Ctrl-C cancels it and keeps the session.
    fn ask(&mut self, out: &mut Out, line: &str) -> anyhow::Result<()> {
        let Chat {
            agent,
            runtime,
            root,
            session,
            trace,
            diffs,
            ..
        } = self;
        let mut task = line.to_owned();
        if let Some(note) = session.refresh_note(root, agent.config.context.max_result_chars) {
            task = format!("{note}\n\n{task}");
        }
        let before = session.messages.len();
        let mut printed: std::io::Result<()> = Ok(());
        let mut streamed = false;
        let mut streamed_text = String::new();
        let mut last_streamed = String::new();
        let mut sink = |event: &Event| {
            trace.write(event);
            if let Event::Edit { path, diff, .. } = event {
                diffs.push((path.clone(), diff.clone()));
            }
            if printed.is_err() {
                return;
            }
            printed = match event {
                Event::Delta { text, .. } => {
                    streamed = true;
                    streamed_text.push_str(text);
                    out.text(text).and_then(|_| out.flush())
                }
                Event::Start { .. } => Ok(()),
                // The answer streamed already; end its line.
                Event::Thought { .. } if streamed => {
                    streamed = false;
                    out.line("")
                }
                Event::Thought { text, .. } => out.line(text),
                Event::Model { .. } => {
                    last_streamed = std::mem::take(&mut streamed_text);
                    Ok(())
                }
                // Do not print a streamed answer a second time.
                Event::Final { response, .. } if response.trim() == last_streamed.trim() => {
                    let mut shown = event.clone();
                    if let Event::Final { response, .. } = &mut shown {
                        response.clear();
                    }
                    print_event(out, &shown).and_then(|_| out.flush())
                }
                other => print_event(out, other).and_then(|_| out.flush()),
            };
        };
        let outcome = runtime.block_on(async {
            let run = agent.run(&task, &mut session.messages, &mut sink);
            tokio::select! {
                outcome = run => Some(outcome),
                _ = tokio::signal::ctrl_c() => None,
            }
        });
        printed?;
        match outcome {
            Some(outcome) => outcome.record_in(session, root, line),
            None => {
                // The step was cancelled: forget its half-finished turn, keep the rest.
                session.messages.truncate(before);
                out.line("\n(cancelled; the session is kept)")?;
            }
        }
        if let Err(e) = session.save(root) {
            crate::output::warn(format_args!("the session could not be saved: {e}"));
        }
        Ok(())
    }
}
