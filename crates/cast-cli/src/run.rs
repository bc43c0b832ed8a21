//! `cast run`: run the agent on one task, non-interactively.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use cast_agent::{AgentBuilder, BuildError};

use cast_agent::agent::{AgentConfig, Event, Stop, TestsSummary};
use cast_agent::approval::{ApprovalMode, ApprovalRequest, Approver, Decision};
use cast_agent::config::ModelFlags;
use cast_agent::memory::{PersistentMemory, Session};

use crate::{Exit, Out};

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
/// Commands run for the model (run_command with --allow-commands, --test-cmd and its fix
/// loop) are confined by the command sandbox (--sandbox, CAST_SANDBOX, `[sandbox] mode` in a
/// config file). In `workspace-write`, the default, a command may read the whole file system
/// but write only inside the workspace root (never into its .git/ or .cast/) and a private
/// temporary folder ($TMPDIR), and may not open network sockets (Unix sockets are fine); child
/// processes inherit this. `read-only` allows writes only in $TMPDIR. On Linux this is
/// Landlock (kernel 6.2+), seccomp and a private mount namespace; where the system cannot
/// confine commands they are refused, never run unconfined: `danger-full-access` turns the
/// sandbox off and must be chosen knowingly (not from the workspace's own config file). See
/// docs/tools.md.
///
/// Exit status: 0 when the agent finished, 1 when it was stopped (step limit, repeated call)
/// or its test command cannot be confined, 2 when no model is configured or the model could
/// not be reached.
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
    #[command(flatten)]
    model: ModelArgs,
    /// Model turns before the run is stopped.
    #[arg(long, value_name = "N", default_value_t = 30)]
    max_steps: usize,
    /// Forbid writes: the edit tools are not offered (same as --approval read-only).
    #[arg(long)]
    read_only: bool,
    /// How edits apply: `auto` (apply and journal), `ask` (show each diff or command and apply
    /// it only on yes; a no, with its reason, goes back to the model and is kept as pending) or
    /// `read-only`.
    #[arg(long, value_name = "MODE", default_value = "auto")]
    approval: ApprovalMode,
    /// Run this command (e.g. "pytest -q") before finishing when files changed; a failure goes
    /// back to the model, mapped onto the code, for up to 3 fix attempts. `auto` finds the
    /// project's command: `cargo test` (Cargo.toml), `go test ./...` (go.mod), pytest or
    /// unittest (Python tests), `npm test` (package.json's test script). Default: the
    /// remembered `test_cmd` preference.
    #[arg(long, value_name = "CMD")]
    test_cmd: Option<String>,
    /// Continue a session (an id or a unique prefix, see `cast sessions`): its conversation and
    /// the files it read come back.
    #[arg(long, value_name = "ID")]
    resume: Option<String>,
    /// Do not answer from the cache of earlier answers (used only when no file changed since).
    #[arg(long)]
    no_cache: bool,
    /// Offer `run_command` (the model can run shell commands in the workspace, confined by
    /// --sandbox).
    #[arg(long)]
    allow_commands: bool,
    #[command(flatten)]
    guard: crate::sandbox::GuardArgs,
    /// Print one JSON event per line (start, thought, tool_call, tool_result, edit, final).
    #[arg(long)]
    json: bool,
}

/// Which model to use; shared by `cast run` and `cast chat`.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelArgs {
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
}

impl ModelArgs {
    /// The flags as the agent's configuration takes them.
    pub(crate) fn flags(&self) -> ModelFlags {
        ModelFlags {
            provider: self.provider.clone(),
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            protocol: self.protocol.clone(),
            no_stream: self.no_stream,
        }
    }
}

/// The builder of an agent over `root` with the model of the flags, or `None` when no model is
/// configured (what to set has been printed).
pub(crate) fn agent_builder(
    root: &std::path::Path,
    model: &ModelArgs,
) -> anyhow::Result<Option<AgentBuilder>> {
    match AgentBuilder::new(root, &model.flags()) {
        Ok(builder) => Ok(Some(builder)),
        Err(BuildError::Model(err)) => {
            crate::output::warn(&err);
            Ok(None)
        }
        Err(err) => Err(err.into()),
    }
}

/// The async runtime agents run on.
pub(crate) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// The session to continue (`--resume ID`) or a new one, and the persistent memory. Memory is
/// a help, not a requirement: when it cannot be opened, a warning says so and the run goes on.
pub(crate) fn open_session(
    root: &std::path::Path,
    resume: Option<&str>,
) -> anyhow::Result<(Session, Option<PersistentMemory>)> {
    let session = match resume {
        Some(id) => Session::load(root, id)?,
        None => Session::new(),
    };
    let memory = PersistentMemory::open(root)
        .map_err(|e| crate::output::warn(format_args!("memory unavailable: {e}")))
        .ok();
    Ok((session, memory))
}

/// The user's remembered preferences (`/pref` in `cast chat`), for the prompt's rules.
pub(crate) fn preferences(memory: Option<&PersistentMemory>) -> Vec<(String, String)> {
    memory.and_then(|m| m.prefs().ok()).unwrap_or_default()
}

/// `--test-cmd` when given, else the remembered `test_cmd` preference; `auto` is the command
/// found from the project's files (a warning says when none is found).
pub(crate) fn test_cmd_or_remembered(
    given: Option<String>,
    memory: Option<&PersistentMemory>,
    root: &std::path::Path,
) -> Option<String> {
    let cmd = given.or_else(|| memory.and_then(|m| m.pref("test_cmd").ok().flatten()))?;
    if cmd.trim() != "auto" {
        return Some(cmd);
    }
    let found = cast_agent::detect_test_command(root);
    match &found {
        Some(cmd) => crate::output::warn(format_args!("--test-cmd auto: {cmd}")),
        None => crate::output::warn(
            "--test-cmd auto: no test command found (no Cargo.toml, go.mod, Python tests or npm test script); changes will not be tested",
        ),
    }
    found
}

/// Prints a run's events as they come, as text or as JSON lines. The first write error stops
/// the printing (the run goes on) and is returned by [`EventPrinter::finish`].
pub(crate) struct EventPrinter {
    json: bool,
    result: std::io::Result<()>,
}

impl EventPrinter {
    pub(crate) fn new(json: bool) -> Self {
        EventPrinter {
            json,
            result: Ok(()),
        }
    }

    pub(crate) fn print(&mut self, out: &mut Out, event: &Event) {
        if self.result.is_ok() {
            self.result = if self.json {
                out.json(event)
            } else {
                print_event(out, event)
            };
        }
    }

    pub(crate) fn finish(self) -> std::io::Result<()> {
        self.result
    }
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let read_only = args.read_only || args.approval == ApprovalMode::ReadOnly;
    let Some(builder) = agent_builder(&args.root, &args.model)? else {
        return Ok(Exit::BadUsage);
    };
    let root = builder.root().to_path_buf();
    let (mut session, memory) = open_session(&root, args.resume.as_deref())?;
    let cacheable = read_only && args.resume.is_none() && !args.no_cache;
    if cacheable
        && let Some(answer) = memory
            .as_ref()
            .and_then(|m| m.cached_answer(&args.task).ok().flatten())
    {
        crate::output::warn(
            "answered from the cache: the files this answer read are unchanged (--no-cache asks the model)",
        );
        if args.json {
            out.json(&serde_json::json!({"event": "final", "response": answer, "cached": true}))?;
        } else {
            out.line(&answer)?;
        }
        return Ok(Exit::Success);
    }
    let config = AgentConfig {
        max_steps: args.max_steps.max(1),
        approver: (args.approval == ApprovalMode::Ask)
            .then(|| Arc::new(TerminalApprover) as Arc<dyn Approver>),
        test_cmd: test_cmd_or_remembered(args.test_cmd.clone(), memory.as_ref(), &root),
        ..AgentConfig::default()
    };
    let sandbox = crate::sandbox::resolve(&args.guard.sandbox, &root)?;
    if config.test_cmd.is_some()
        && let Err(err) = sandbox.check()
    {
        // Refused before the model is asked: the run could never pass its tests.
        crate::output::warn(format_args!("the test command cannot run: {err}"));
        return Ok(Exit::NothingOrRefused);
    }
    let agent = builder
        .sandbox(sandbox)
        .allow_commands(args.allow_commands)
        .refuse_syntax_errors(args.guard.refuse_syntax_errors)
        .read_only(read_only)
        .config(config)
        .preferences(preferences(memory.as_ref()))
        .task(&args.task)
        .build();
    let runtime = runtime()?;
    let mut printer = EventPrinter::new(args.json);
    let mut task = args.task.clone();
    if let Some(note) = session.refresh_note(
        &root,
        cast_agent::memory::ContextBudget::default().max_result_chars,
    ) {
        task = format!("{note}\n\n{task}");
    }
    let mut trace = crate::trace::TraceWriter::create(&root, &session.id);
    let mut messages = std::mem::take(&mut session.messages);
    let outcome = runtime.block_on(async {
        agent
            .run(&task, &mut messages, &mut |event| {
                trace.write(event);
                printer.print(out, event);
            })
            .await
    });
    printer.finish()?;
    session.messages = messages;
    outcome.record_in(&mut session, &root, &args.task);
    if let Err(e) = session.save(&root) {
        crate::output::warn(format_args!("the session could not be saved: {e}"));
    }
    if let Some(memory) = &memory {
        let _ = memory.log(
            &session.id,
            "run",
            &format!("{:?}: {}", outcome.stop, args.task),
        );
        if cacheable && outcome.stop == Stop::Finished && outcome.changed_files.is_empty() {
            let _ = memory.cache_answer(&args.task, &outcome.response, &outcome.files_read);
        }
    }
    if !outcome.pending.is_empty() {
        crate::output::warn(format_args!(
            "{} change(s) were not approved and are kept as pending in session {}",
            outcome.pending.len(),
            session.id
        ));
    }
    crate::output::warn(format_args!(
        "session {} (continue with --resume {}; steps in `cast trace {}`)",
        session.id, session.id, session.id
    ));
    Ok(match outcome.stop {
        Stop::Finished => Exit::Success,
        Stop::StepLimit(_) | Stop::Repeated(_) | Stop::TestsFailing(_) => Exit::NothingOrRefused,
        Stop::ModelError(_) => Exit::BadUsage,
    })
}

/// Asks on the terminal: the diff (or command) on stderr, an answer line on stdin — `y` to
/// apply, anything else to reject (the words after `n` are the reason given to the model).
#[derive(Debug)]
pub(crate) struct TerminalApprover;

impl Approver for TerminalApprover {
    fn decide(&self, request: &ApprovalRequest) -> Decision {
        eprintln!(
            "\n{} wants to change something:\n{}",
            request.tool,
            request.preview.trim_end()
        );
        eprint!("Apply? [y/N, or n REASON] ");
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(n) if n > 0 => {
                let answer = line.trim();
                if answer.eq_ignore_ascii_case("y") || answer.eq_ignore_ascii_case("yes") {
                    Decision::Approve
                } else {
                    let reason = answer
                        .strip_prefix(['n', 'N'])
                        .map(|r| r.trim_start_matches(['o', 'O']).trim())
                        .unwrap_or(answer);
                    Decision::Reject {
                        reason: reason.to_owned(),
                    }
                }
            }
            _ => Decision::Reject {
                reason: "no answer (stdin closed)".to_owned(),
            },
        }
    }
}

pub(crate) fn print_event(out: &mut Out, event: &Event) -> std::io::Result<()> {
    match event {
        Event::Start {
            model,
            root,
            sandbox,
            ..
        } => out.line(&format!("cast · {model} · {root} · sandbox {sandbox}")),
        Event::Thought { .. } | Event::Model { .. } | Event::Delta { .. } => Ok(()),
        Event::Retry {
            attempt,
            attempts,
            wait_ms,
            reason,
            ..
        } => out.line(&format!(
            "    model not answering ({reason}); retry {} of {} in {:.1} s",
            attempt,
            attempts - 1,
            *wait_ms as f64 / 1000.0
        )),
        Event::Tests {
            attempt,
            passed,
            summary,
            ..
        } => out.line(&format!(
            "    tests (run {attempt}): {}",
            if *passed {
                "pass".to_owned()
            } else {
                format!("FAIL — {summary}")
            }
        )),
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
            stop: Stop::Finished,
            steps,
            changed_files,
            tests,
            ..
        } => {
            out.line(&format!("\nFinished in {steps} step(s)."))?;
            if !changed_files.is_empty() {
                out.line(&format!("Changed: {}", changed_files.join(", ")))?;
            }
            if let Some(tests) = tests_line(tests) {
                out.line(&tests)?;
            }
            if response.is_empty() {
                return Ok(());
            }
            out.line(&format!("\n{response}"))
        }
        // A run that did not finish answers with why it stopped, its last actions and what
        // changed: print that once, not a summary line saying the same first.
        Event::Final { response, .. } => out.line(&format!("\n{response}")),
    }
}

/// What a finished run's summary says about testing its changes (`None` when nothing changed).
fn tests_line(tests: &TestsSummary) -> Option<String> {
    Some(match tests {
        TestsSummary::NothingChanged => return None,
        TestsSummary::NoCommand => {
            "Tests: none ran (no test command; give --test-cmd CMD, or --test-cmd auto)".to_owned()
        }
        TestsSummary::NotRun { command } => format!("Tests: `{command}` did not run"),
        TestsSummary::NoneCollected { command } => {
            format!("Tests: none ran (`{command}` found no tests; nothing was checked)")
        }
        TestsSummary::Passed { command, runs } => format!("Tests: `{command}` passed (run {runs})"),
        TestsSummary::Failing { command, runs } => {
            format!("Tests: `{command}` failing after {runs} run(s)")
        }
    })
}
