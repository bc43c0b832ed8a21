//! The decision loop: the model picks one tool with a reason, CAST runs it and feeds the result
//! back, until the model calls `finish` (or a step limit or a repeated call stops the run).

use std::sync::Arc;
use std::time::SystemTime;

use cast_tools::{Registry, Status, ToolContext, ToolError, ToolOutput};
use serde::Serialize;
use serde_json::Value;

use crate::approval::{ApprovalRequest, Approver, Decision, PendingEdit};
use crate::llm::{ChatRequest, Llm, Message, ToolCall, ToolDef, Usage};

/// Limits of a run.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Model turns before the run is stopped.
    pub max_steps: usize,
    /// The same call (tool and arguments) this many times in a row stops the run.
    pub repeat_limit: usize,
    /// Tokens of the L1 map put in the system prompt.
    pub map_budget: usize,
    /// When `edit_file`'s lazy merge refuses, let the edit sub-agent place the edit by line
    /// numbers (one more model call).
    pub edit_subagent: bool,
    /// What the conversation may use; older tool results and steps are trimmed to fit.
    pub context: crate::memory::ContextBudget,
    /// In `ask` mode, who approves changes (`None`: changes apply without asking).
    pub approver: Option<Arc<dyn Approver>>,
    /// A command that must pass before the run may finish after changing files (e.g.
    /// `pytest -q`). A failure goes back to the model, mapped onto the code.
    pub test_cmd: Option<String>,
    /// Failed test runs before the agent gives up.
    pub fix_attempts: usize,
    /// Emit the model's text as it streams ([`Event::Delta`]), for an interactive front end.
    pub stream_text: bool,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            max_steps: 30,
            repeat_limit: 3,
            map_budget: 1500,
            edit_subagent: true,
            context: crate::memory::ContextBudget::default(),
            approver: None,
            test_cmd: None,
            fix_attempts: 3,
            stream_text: false,
        }
    }
}

/// One action the agent took: the seed's `{tool, reason, params, result, timestamp}`.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryEntry {
    pub step: usize,
    pub tool: String,
    pub reason: String,
    pub params: Value,
    /// `ok`, `refused` or `error`.
    pub status: &'static str,
    pub result: String,
    /// RFC 3339, UTC.
    pub timestamp: String,
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "detail")]
pub enum Stop {
    /// The model called `finish` (or answered without a tool call).
    Finished,
    /// The step limit was reached.
    StepLimit(usize),
    /// The model made the same call too many times in a row.
    Repeated(String),
    /// The model could not be reached or answered unreadably.
    ModelError(String),
    /// The tests still failed after the last allowed fix attempt.
    TestsFailing(String),
}

/// What happens during a run, for a printer (`cast run`) or a log.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Start {
        model: String,
        root: String,
        task: String,
        tools: Vec<String>,
        /// The command sandbox's mode (`read-only`, `workspace-write`, `danger-full-access`).
        sandbox: String,
    },
    /// The model answered: the estimated prompt size, the tokens the provider counted, and how
    /// long the answer took.
    Model {
        step: usize,
        prompt_tokens: usize,
        input_tokens: u64,
        output_tokens: u64,
        latency_ms: u64,
    },
    /// The model's words before its tool calls.
    Thought { step: usize, text: String },
    /// A piece of the model's text as it streams (only with `stream_text`).
    Delta { step: usize, text: String },
    ToolCall {
        step: usize,
        id: String,
        tool: String,
        reason: String,
        params: Value,
    },
    ToolResult {
        step: usize,
        id: String,
        tool: String,
        status: &'static str,
        summary: String,
        truncated: bool,
        latency_ms: u64,
    },
    /// The test command ran after the model tried to finish.
    Tests {
        step: usize,
        attempt: usize,
        passed: bool,
        summary: String,
    },
    /// A file changed (an applied edit or a deletion).
    Edit {
        step: usize,
        path: String,
        diff: String,
    },
    Final {
        response: String,
        stop: Stop,
        steps: usize,
        changed_files: Vec<String>,
        usage: Usage,
    },
}

/// The result of a run.
#[derive(Debug, Clone, Serialize)]
pub struct RunOutcome {
    pub response: String,
    pub stop: Stop,
    pub steps: usize,
    pub history: Vec<HistoryEntry>,
    pub changed_files: Vec<String>,
    pub usage: Usage,
    /// Where the run's time went.
    pub timings: Timings,
    /// Files the model read (read_file), for the session and the answer cache.
    pub files_read: Vec<String>,
    /// Changes the user rejected in `ask` mode.
    pub pending: Vec<PendingEdit>,
}

/// Wall time of a run, split into waiting for the model, running tools, and the rest (the
/// agent's own work: building requests, parsing answers, history, events).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Timings {
    pub total: std::time::Duration,
    pub model: std::time::Duration,
    pub tools: std::time::Duration,
}

impl Timings {
    /// Everything but waiting for the model and running tools.
    pub fn agent(&self) -> std::time::Duration {
        self.total.saturating_sub(self.model + self.tools)
    }
}

/// The agent: a model, a tool registry over one workspace, and a system prompt.
pub struct Agent {
    pub llm: Llm,
    pub registry: Arc<Registry>,
    pub ctx: Arc<ToolContext>,
    pub config: AgentConfig,
    pub system: String,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.llm.describe())
            .field("tools", &self.registry.names())
            .finish()
    }
}

/// What running one call gave.
#[derive(Debug, Clone)]
pub(crate) struct CallOutcome {
    pub status: &'static str,
    pub text: String,
    pub truncated: bool,
    pub data: Value,
}

impl CallOutcome {
    pub(crate) fn error(text: impl Into<String>) -> Self {
        CallOutcome {
            status: "error",
            text: text.into(),
            truncated: false,
            data: Value::Null,
        }
    }

    fn from_tool(result: Result<ToolOutput, ToolError>) -> Self {
        match result {
            Ok(out) => CallOutcome {
                status: match out.status {
                    Status::Ok => "ok",
                    Status::Refused => "refused",
                },
                text: out.text,
                truncated: out.truncated,
                data: out.data,
            },
            Err(err) if err.is_refusal() => CallOutcome {
                status: "refused",
                ..CallOutcome::error(err.to_string())
            },
            Err(err) => CallOutcome::error(err.to_string()),
        }
    }
}

/// The current time in RFC 3339 with milliseconds: the timestamp of history entries and traces.
pub fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// The first sentence of a text, for a one-line reason.
fn first_sentence(text: &str) -> String {
    let text = text.trim();
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            c == '\n' || (matches!(c, '.' | '!' | '?') && text[i + 1..].starts_with([' ', '\n']))
        })
        .map_or(text.len(), |(i, c)| if c == '\n' { i } else { i + 1 });
    cast_tools::render::clip(text[..end].trim(), 300)
}

/// A short summary of a result for event lines.
fn summary(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let lines = text.lines().count();
    let first = cast_tools::render::clip(first.trim(), 120);
    if lines > 1 {
        format!("{first} (+{} lines)", lines - 1)
    } else {
        first
    }
}

impl Agent {
    /// The tools as the model sees them.
    pub fn tool_defs(&self) -> Vec<ToolDef> {
        self.registry
            .specs()
            .into_iter()
            .map(|s| ToolDef {
                name: s.name.to_owned(),
                description: s.description.to_owned(),
                parameters: s.parameters,
            })
            .collect()
    }

    /// Runs a task to the end. `messages` holds earlier turns (empty for a new session) and
    /// receives this run's turns. Events go to `sink` as they happen. A model or tool failure
    /// never panics: it ends the run with a [`Stop`] that says why.
    pub async fn run(
        &self,
        task: &str,
        messages: &mut Vec<Message>,
        sink: &mut (dyn FnMut(&Event) + Send),
    ) -> RunOutcome {
        sink(&Event::Start {
            model: self.llm.describe(),
            root: self.ctx.workspace.root().display().to_string(),
            task: task.to_owned(),
            tools: self
                .registry
                .names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            sandbox: self.ctx.sandbox.mode.to_string(),
        });
        messages.push(Message::user(task));
        let tools = self.tool_defs();
        let mut history: Vec<HistoryEntry> = Vec::new();
        let mut changed: Vec<String> = Vec::new();
        let mut usage = Usage::default();
        let mut recent: Vec<String> = Vec::new();
        let mut response = None;
        let mut stop = Stop::StepLimit(self.config.max_steps);
        let mut steps = 0;
        let started = std::time::Instant::now();
        let mut timings = Timings::default();
        let mut files_read: Vec<String> = Vec::new();
        let mut pending: Vec<PendingEdit> = Vec::new();
        let mut test_runs = 0;
        'steps: for step in 1..=self.config.max_steps {
            steps = step;
            crate::memory::context::trim(&self.system, messages, &self.config.context);
            let prompt_tokens = crate::memory::context::request_tokens(&self.system, messages);
            let request = ChatRequest {
                system: self.system.clone(),
                messages: messages.clone(),
                tools: tools.clone(),
                max_tokens: None,
                temperature: None,
            };
            let asked = std::time::Instant::now();
            let stream_text = self.config.stream_text;
            let answer = self
                .llm
                .chat(&request, &mut |text| {
                    if stream_text {
                        sink(&Event::Delta {
                            step,
                            text: text.to_owned(),
                        });
                    }
                })
                .await;
            timings.model += asked.elapsed();
            let answer = match answer {
                Ok(answer) => answer,
                Err(err) => {
                    stop = Stop::ModelError(err.to_string());
                    break;
                }
            };
            usage.input_tokens += answer.usage.input_tokens;
            usage.output_tokens += answer.usage.output_tokens;
            sink(&Event::Model {
                step,
                prompt_tokens,
                input_tokens: answer.usage.input_tokens,
                output_tokens: answer.usage.output_tokens,
                latency_ms: asked.elapsed().as_millis() as u64,
            });
            if !answer.content.trim().is_empty() {
                sink(&Event::Thought {
                    step,
                    text: answer.content.clone(),
                });
            }
            messages.push(Message::assistant(
                answer.content.clone(),
                answer.tool_calls.clone(),
            ));
            if answer.tool_calls.is_empty() {
                // An answer without a tool call is the final answer.
                response = Some(answer.content.clone());
                stop = Stop::Finished;
                break;
            }
            for call in &answer.tool_calls {
                let params: Result<Value, String> = if call.name.is_empty() {
                    Err(format!(
                        "your tool call could not be read: {}. Write one call as JSON: {{\"name\": \"TOOL\", \"arguments\": {{…}}}}",
                        cast_tools::render::clip(&call.arguments, 300)
                    ))
                } else {
                    match serde_json::from_str::<Value>(if call.arguments.trim().is_empty() {
                        "{}"
                    } else {
                        &call.arguments
                    }) {
                        Ok(v) => Ok(v),
                        Err(e) => Err(format!(
                            "the arguments of your {} call are not valid JSON ({e}): {}. Send a JSON object that matches the tool's schema.",
                            call.name,
                            cast_tools::render::clip(&call.arguments, 300)
                        )),
                    }
                };
                let shown_params = params
                    .clone()
                    .unwrap_or_else(|_| Value::String(call.arguments.clone()));
                let reason = match shown_params.get("explanation").and_then(Value::as_str) {
                    Some(explanation) if answer.content.trim().is_empty() => explanation.to_owned(),
                    _ => first_sentence(&answer.content),
                };
                sink(&Event::ToolCall {
                    step,
                    id: call.id.clone(),
                    tool: call.name.clone(),
                    reason: reason.clone(),
                    params: shown_params.clone(),
                });
                let key = format!("{}:{}", call.name, shown_params);
                recent.push(key.clone());
                let repeats = recent.iter().rev().take_while(|k| **k == key).count();
                let call_started = std::time::Instant::now();
                let outcome = match params {
                    Err(message) => CallOutcome::error(message),
                    Ok(_) if repeats >= self.config.repeat_limit => {
                        stop = Stop::Repeated(format!(
                            "{} was called {repeats} times in a row with the same arguments",
                            call.name
                        ));
                        CallOutcome::error("This identical call was already made; stopping.")
                    }
                    Ok(args) => {
                        let ran = std::time::Instant::now();
                        let outcome = self.execute(call, args).await;
                        timings.tools += ran.elapsed();
                        outcome
                    }
                };
                let latency_ms = call_started.elapsed().as_millis() as u64;
                if let Some(p) = outcome.data.get("pending")
                    && let Ok(mut p) = serde_json::from_value::<PendingEdit>(p.clone())
                {
                    p.id = pending.len() + 1;
                    pending.push(p);
                }
                if call.name == "read_file"
                    && outcome.status == "ok"
                    && let Some(path) = outcome.data.get("path").and_then(Value::as_str)
                    && !files_read.iter().any(|f| f == path)
                {
                    files_read.push(path.to_owned());
                }
                let mut outcome = outcome;
                if call.name == "finish"
                    && outcome.status == "ok"
                    && let Some(cmd) = &self.config.test_cmd
                    && !changed.is_empty()
                {
                    test_runs += 1;
                    let (passed, feedback) = self.run_tests(cmd, test_runs).await;
                    sink(&Event::Tests {
                        step,
                        attempt: test_runs,
                        passed,
                        summary: summary(&feedback),
                    });
                    if !passed {
                        if test_runs >= self.config.fix_attempts.max(1) {
                            stop = Stop::TestsFailing(format!(
                                "`{cmd}` still fails after {test_runs} attempts"
                            ));
                            outcome = CallOutcome {
                                status: "refused",
                                text: feedback,
                                truncated: false,
                                data: Value::Null,
                            };
                        } else {
                            outcome = CallOutcome {
                                status: "refused",
                                text: format!(
                                    "{feedback}\nFix the code (attempt {} of {}), then call finish again.",
                                    test_runs + 1,
                                    self.config.fix_attempts
                                ),
                                truncated: false,
                                data: Value::Null,
                            };
                        }
                    }
                }
                if let Some(diff) = outcome.data.get("diff").and_then(Value::as_str)
                    && outcome.status == "ok"
                {
                    for path in changed_paths(&outcome.data) {
                        sink(&Event::Edit {
                            step,
                            path: path.clone(),
                            diff: diff.to_owned(),
                        });
                        if !changed.contains(&path) {
                            changed.push(path);
                        }
                    }
                }
                sink(&Event::ToolResult {
                    step,
                    id: call.id.clone(),
                    tool: call.name.clone(),
                    status: outcome.status,
                    summary: summary(&outcome.text),
                    truncated: outcome.truncated,
                    latency_ms,
                });
                history.push(HistoryEntry {
                    step,
                    tool: call.name.clone(),
                    reason,
                    params: shown_params,
                    status: outcome.status,
                    result: outcome.text.clone(),
                    timestamp: now(),
                });
                // A file's content beyond the session limit is cut with a note on how to read on.
                let content = crate::memory::cut_file_text(
                    &outcome.text,
                    self.config.context.max_result_chars,
                    &format!("the {} result", call.name),
                );
                messages.push(Message::tool_result(call, content, outcome.status != "ok"));
                if call.name == "finish" && outcome.status == "ok" {
                    response = Some(outcome.text);
                    stop = Stop::Finished;
                }
                if matches!(stop, Stop::Repeated(_) | Stop::TestsFailing(_)) {
                    break 'steps;
                }
            }
            if stop == Stop::Finished {
                break;
            }
        }
        let response =
            response.unwrap_or_else(|| self.unfinished_summary(&stop, &history, &changed));
        sink(&Event::Final {
            response: response.clone(),
            stop: stop.clone(),
            steps,
            changed_files: changed.clone(),
            usage,
        });
        RunOutcome {
            response,
            stop,
            steps,
            history,
            changed_files: changed,
            usage,
            timings: Timings {
                total: started.elapsed(),
                ..timings
            },
            files_read,
            pending,
        }
    }

    /// Runs one tool call; a refused `edit_file` goes to the edit sub-agent.
    pub(crate) async fn execute(&self, call: &ToolCall, args: Value) -> CallOutcome {
        let edit_args = (call.name == "edit_file").then(|| args.clone());
        let outcome = self.execute_tool(call, args).await;
        if let Some(args) = edit_args
            && outcome.status == "refused"
            && self.config.edit_subagent
            && let Some(placed) = crate::edit_agent::place(self, &args, &outcome).await
        {
            return placed;
        }
        outcome
    }

    /// Runs a tool by name with arguments (for the sub-agent's own calls), through approval.
    pub(crate) async fn call_tool(&self, name: &str, args: Value) -> CallOutcome {
        let call = ToolCall {
            id: String::new(),
            name: name.to_owned(),
            arguments: String::new(),
        };
        self.execute_tool(&call, args).await
    }

    /// Whether a call changes something and so needs approval in `ask` mode.
    fn changes_things(&self, name: &str) -> bool {
        name != "finish" && self.registry.get(name).is_none_or(|t| !t.read_only())
    }

    /// In `ask` mode: previews the call (an edit's dry-run diff, a command line), asks the
    /// approver, and returns the refusal to give the model when the user says no.
    async fn ask_approval(&self, call: &ToolCall, args: &Value) -> Option<CallOutcome> {
        let approver = self.config.approver.clone()?;
        if !self.changes_things(&call.name) {
            return None;
        }
        let preview = match call.name.as_str() {
            "run_command" => format!(
                "$ {}",
                args.get("command").and_then(Value::as_str).unwrap_or("")
            ),
            "undo_edit" => format!(
                "undo the last {} change set(s)",
                args.get("steps").and_then(Value::as_u64).unwrap_or(1)
            ),
            _ => {
                let mut dry = (*self.ctx).clone();
                dry.edit_mode = cast_tools::EditMode::DryRun;
                let preview = self.run_in(Arc::new(dry), call, args.clone()).await;
                if preview.status != "ok" {
                    return Some(preview); // refused anyway: nothing to ask
                }
                preview
                    .data
                    .get("diff")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or(preview.text)
            }
        };
        let request = ApprovalRequest {
            tool: call.name.clone(),
            params: args.clone(),
            preview,
        };
        let asked = request.clone();
        let decision = tokio::task::spawn_blocking(move || approver.decide(&asked))
            .await
            .unwrap_or(Decision::Reject {
                reason: "the approval prompt failed".to_owned(),
            });
        match decision {
            Decision::Approve => None,
            Decision::Reject { reason } => {
                let why = if reason.trim().is_empty() {
                    String::new()
                } else {
                    format!(" Their reason: {}", reason.trim())
                };
                let pending = PendingEdit {
                    id: 0,
                    tool: request.tool,
                    params: request.params,
                    preview: request.preview,
                    reason: reason.clone(),
                };
                Some(CallOutcome {
                    status: "refused",
                    text: format!(
                        "The user did not approve this {} call; nothing was changed and it is kept as a pending change.{why} Do not repeat it unchanged: take the reason into account or ask.",
                        call.name
                    ),
                    truncated: false,
                    data: serde_json::json!({"pending": pending}),
                })
            }
        }
    }

    /// Applies a change the user approved after all (a [`PendingEdit`]), without asking again.
    pub async fn apply_pending(&self, pending: &PendingEdit) -> (bool, String) {
        let call = ToolCall {
            id: String::new(),
            name: pending.tool.clone(),
            arguments: String::new(),
        };
        let outcome = self
            .run_in(Arc::clone(&self.ctx), &call, pending.params.clone())
            .await;
        (outcome.status == "ok", outcome.text)
    }

    /// Runs the test command; on failure the feedback holds its output and the code the
    /// failure ran through (the analyzer's trace map).
    async fn run_tests(&self, cmd: &str, attempt: usize) -> (bool, String) {
        let ctx = Arc::clone(&self.ctx);
        let command = cmd.to_owned();
        let limit = std::time::Duration::from_secs(self.ctx.max_command_seconds.max(1));
        let result = tokio::task::spawn_blocking(move || {
            cast_tools::tools::run_shell(&ctx.sandbox, ctx.workspace.root(), &command, limit)
        })
        .await;
        let result = match result {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                return (false, format!("The test command `{cmd}` was not run: {e}"));
            }
            Err(e) => return (false, format!("The test command `{cmd}` crashed: {e}")),
        };
        if result.exit_code == Some(0) {
            return (true, format!("`{cmd}` passed"));
        }
        let output = format!("{}\n{}", result.stdout, result.stderr);
        let tail = cast_tools::render::head_tail(output.trim(), 600, 5000);
        let mut feedback = format!(
            "Your changes were checked with `{cmd}` (run {attempt}) and it failed ({}):\n{tail}\n",
            match (result.timed_out, result.exit_code) {
                (true, _) => "timed out".to_owned(),
                (false, Some(code)) => format!("exit {code}"),
                (false, None) => "killed".to_owned(),
            }
        );
        if let Some(note) = &result.sandbox_note {
            feedback.push_str(note);
            feedback.push('\n');
        }
        let map_call = ToolCall {
            id: String::new(),
            name: "analyze_repository".to_owned(),
            arguments: String::new(),
        };
        let map = self
            .run_in(
                Arc::clone(&self.ctx),
                &map_call,
                serde_json::json!({"trace": output, "budget": 800}),
            )
            .await;
        if map.status == "ok" && map.data.get("traced") == Some(&Value::Bool(true)) {
            feedback.push_str("\nWhere the failure ran (the trace mapped onto the code):\n");
            feedback.push_str(&map.text);
        }
        (false, feedback)
    }

    /// Runs one tool call (after approval in `ask` mode).
    async fn execute_tool(&self, call: &ToolCall, args: Value) -> CallOutcome {
        if let Some(refused) = self.ask_approval(call, &args).await {
            return refused;
        }
        self.run_in(Arc::clone(&self.ctx), call, args).await
    }

    /// Runs one tool call on a blocking thread (tools read and write files).
    async fn run_in(&self, ctx: Arc<ToolContext>, call: &ToolCall, args: Value) -> CallOutcome {
        let registry = Arc::clone(&self.registry);
        let name = call.name.clone();
        let work = move || {
            if name == crate::llm::text::FILE_EDITS {
                // The text protocol's <file-edit> answer: the whole reply is the edit.
                let reply = args
                    .get("reply")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                cast_tools::tools::apply_file_edits(&ctx, reply)
            } else {
                registry.call(&ctx, &name, args)
            }
        };
        match tokio::task::spawn_blocking(work).await {
            Ok(result) => CallOutcome::from_tool(result),
            Err(join) => CallOutcome::error(format!("the tool crashed: {join}")),
        }
    }

    fn unfinished_summary(
        &self,
        stop: &Stop,
        history: &[HistoryEntry],
        changed: &[String],
    ) -> String {
        let why = match stop {
            Stop::StepLimit(n) => format!(
                "Stopped after {n} steps without finishing (raise --max-steps to allow more)."
            ),
            Stop::Repeated(what) => format!("Stopped because the model repeated itself: {what}."),
            Stop::ModelError(err) => format!("Stopped because the model could not be asked: {err}"),
            Stop::TestsFailing(why) => {
                format!("Stopped: {why}; every change is still in the undo journal.")
            }
            Stop::Finished => "Finished.".to_owned(),
        };
        let mut text = why;
        if !history.is_empty() {
            text.push_str("\nLast actions:");
            for h in history.iter().rev().take(5).rev() {
                text.push_str(&format!(
                    "\n- {} ({}): {}",
                    h.tool,
                    h.status,
                    summary(&h.result)
                ));
            }
        }
        text.push_str(&if changed.is_empty() {
            "\nNo files were changed.".to_owned()
        } else {
            format!("\nChanged (undo with `cast undo`): {}", changed.join(", "))
        });
        text
    }
}

/// The files an edit result names (`path`, or `files[].path`).
fn changed_paths(data: &Value) -> Vec<String> {
    if let Some(files) = data.get("files").and_then(Value::as_array) {
        return files
            .iter()
            .filter_map(|f| f.get("path").and_then(Value::as_str).map(str::to_owned))
            .collect();
    }
    data.get("path")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_first_sentences() {
        assert_eq!(
            first_sentence("I need the file. Then I edit it."),
            "I need the file."
        );
        assert_eq!(first_sentence("Look at main.py\nmore"), "Look at main.py");
        assert_eq!(first_sentence("Version 1.2 is used"), "Version 1.2 is used");
        assert_eq!(first_sentence(""), "");
    }

    #[test]
    fn summaries_are_one_line() {
        assert_eq!(summary("a\nb\nc"), "a (+2 lines)");
        assert_eq!(summary("\n\nonly"), "only (+2 lines)");
    }
}
