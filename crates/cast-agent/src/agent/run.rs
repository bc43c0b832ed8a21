//! One run of the decision loop as explicit state: what the run has done so far, one model turn,
//! one tool call.

use std::time::Instant;

use cast_tools::TypedTool;
use cast_tools::cast_coder::search_replace::has_file_edit_tags;
use cast_tools::tools::{EditFile, FILE_EDITS, Finish, ReadFile};
use serde_json::{Value, json};

use super::{Agent, CallStatus, Event, HistoryEntry, RunOutcome, Stop, TestsSummary, Timings};
use crate::approval::PendingEdit;
use crate::clock::now;
use crate::llm::{ChatRequest, ChatResponse, Message, Progress, ToolCall, ToolDef, Usage};
use crate::runner::{CallOutcome, ToolRunner};
use crate::test_fix::{TestFixLoop, Verdict};

/// Everything a run accumulates, and where its events go.
pub(super) struct Run<'a> {
    agent: &'a Agent,
    runner: ToolRunner,
    tools: Vec<ToolDef>,
    sink: &'a mut (dyn FnMut(&Event) + Send),
    history: Vec<HistoryEntry>,
    changed: Vec<String>,
    files_read: Vec<String>,
    pending: Vec<PendingEdit>,
    usage: Usage,
    timings: Timings,
    started: Instant,
    repeats: RepeatGuard,
    tests: Option<TestFixLoop>,
    steps: usize,
    /// Set when the run is over; the step limit when nothing else stops it.
    stop: Option<Stop>,
    response: Option<String>,
}

impl<'a> Run<'a> {
    pub(super) fn start(
        agent: &'a Agent,
        task: &str,
        messages: &mut Vec<Message>,
        sink: &'a mut (dyn FnMut(&Event) + Send),
    ) -> Self {
        sink(&Event::Start {
            model: agent.llm.describe(),
            root: agent.ctx.workspace.root().display().to_string(),
            task: task.to_owned(),
            tools: agent
                .registry
                .names()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            sandbox: agent.ctx.sandbox.mode.to_string(),
        });
        messages.push(Message::user(task));
        Run {
            runner: agent.runner(),
            tools: agent.tool_defs(),
            tests: agent
                .config
                .test_cmd
                .as_deref()
                .map(|cmd| TestFixLoop::new(cmd, agent.config.fix_attempts)),
            agent,
            sink,
            history: Vec::new(),
            changed: Vec::new(),
            files_read: Vec::new(),
            pending: Vec::new(),
            usage: Usage::default(),
            timings: Timings::default(),
            started: Instant::now(),
            repeats: RepeatGuard::default(),
            steps: 0,
            stop: None,
            response: None,
        }
    }

    pub(super) fn is_over(&self) -> bool {
        self.stop.is_some()
    }

    /// One model turn and the calls it asks for.
    pub(super) async fn step(&mut self, step: usize, messages: &mut Vec<Message>) {
        self.steps = step;
        let answer = match self.ask_model(step, messages).await {
            Ok(answer) => answer,
            Err(err) => {
                self.stop = Some(Stop::ModelError(err));
                return;
            }
        };
        messages.push(Message::assistant(
            answer.content.clone(),
            answer.tool_calls.clone(),
        ));
        if answer.tool_calls.is_empty() {
            if has_file_edit_tags(&answer.content) {
                self.apply_file_edit_reply(step, &answer.content, messages)
                    .await;
                return;
            }
            // An answer without a tool call is the final answer — once the changes pass the
            // tests, as for `finish`.
            if !self.changed.is_empty()
                && let Some(failure) = self.test_changes(step).await
            {
                messages.push(Message::user(failure));
                return;
            }
            self.response = Some(answer.content);
            self.stop = Some(Stop::Finished);
            return;
        }
        for call in &answer.tool_calls {
            let (content, ok) = self.handle_call(step, call, &answer.content).await;
            messages.push(Message::tool_result(call, content, !ok));
            if matches!(self.stop, Some(Stop::Repeated(_) | Stop::TestsFailing(_))) {
                return;
            }
        }
    }

    /// A reply of `<file-edit filePath="…">` sections without a tool call (the design's reply
    /// format, which models use in the native protocol too): applied as one change set — all
    /// files or none, through approvals and the journal — and the result goes back to the model
    /// as the next user message, since there is no tool call to answer.
    async fn apply_file_edit_reply(
        &mut self,
        step: usize,
        reply: &str,
        messages: &mut Vec<Message>,
    ) {
        let call = ToolCall {
            id: format!("file_edit_{step}"),
            name: FILE_EDITS.to_owned(),
            arguments: json!({ "reply": reply }).to_string(),
        };
        let prose = reply.split("<file-edit").next().unwrap_or("");
        let prose = prose.replace("<chat>", "").replace("</chat>", "");
        let (content, ok) = self.handle_call(step, &call, &prose).await;
        let verdict = if ok {
            "were applied"
        } else {
            "were refused; no file was changed"
        };
        messages.push(Message::user(format!(
            "The <file-edit> sections of your reply {verdict}:\n{content}\nContinue the task, or call finish when it is done."
        )));
    }

    /// Trims the conversation to the budget, asks the model, and reports the answer.
    async fn ask_model(
        &mut self,
        step: usize,
        messages: &mut Vec<Message>,
    ) -> Result<ChatResponse, String> {
        let agent = self.agent;
        crate::memory::context::trim(&agent.system, messages, &agent.config.context);
        let prompt_tokens = crate::memory::context::request_tokens(&agent.system, messages);
        let request = ChatRequest {
            system: agent.system.clone(),
            messages: messages.clone(),
            tools: self.tools.clone(),
            max_tokens: None,
            temperature: None,
        };
        let asked = Instant::now();
        let stream_text = agent.config.stream_text;
        let sink = &mut *self.sink;
        let answer = agent
            .llm
            .chat(&request, &mut |progress| match progress {
                Progress::Text(text) if stream_text => sink(&Event::Delta {
                    step,
                    text: text.to_owned(),
                }),
                Progress::Text(_) => {}
                Progress::Retry {
                    attempt,
                    attempts,
                    wait,
                    error,
                } => sink(&Event::Retry {
                    step,
                    attempt,
                    attempts,
                    wait_ms: wait.as_millis() as u64,
                    reason: error.to_string(),
                }),
            })
            .await;
        self.timings.model += asked.elapsed();
        let answer = answer.map_err(|err| err.to_string())?;
        self.usage.input_tokens += answer.usage.input_tokens;
        self.usage.output_tokens += answer.usage.output_tokens;
        (self.sink)(&Event::Model {
            step,
            prompt_tokens,
            input_tokens: answer.usage.input_tokens,
            output_tokens: answer.usage.output_tokens,
            latency_ms: asked.elapsed().as_millis() as u64,
        });
        if !answer.content.trim().is_empty() {
            (self.sink)(&Event::Thought {
                step,
                text: answer.content.clone(),
            });
        }
        Ok(answer)
    }

    /// Runs one call the model made and records it everywhere: events, history, the files
    /// changed and read, pending changes, the test-fix loop. Returns what to tell the model (cut
    /// to the session's limit) and whether the call succeeded.
    async fn handle_call(&mut self, step: usize, call: &ToolCall, thought: &str) -> (String, bool) {
        let params = call_arguments(call);
        let shown_params = params
            .clone()
            .unwrap_or_else(|_| Value::String(call.arguments.clone()));
        let reason = match shown_params.get("explanation").and_then(Value::as_str) {
            Some(explanation) if thought.trim().is_empty() => explanation.to_owned(),
            _ => first_sentence(thought),
        };
        (self.sink)(&Event::ToolCall {
            step,
            id: call.id.clone(),
            tool: call.name.clone(),
            reason: reason.clone(),
            params: shown_params.clone(),
        });
        let repeats = self.repeats.record(&call.name, &shown_params);
        let call_started = Instant::now();
        let mut outcome = match params {
            Err(message) => CallOutcome::error(message),
            Ok(_) if repeats >= self.agent.config.repeat_limit => {
                self.stop = Some(Stop::Repeated(format!(
                    "{} was called {repeats} times in a row with the same arguments",
                    call.name
                )));
                CallOutcome::error("This identical call was already made; stopping.")
            }
            Ok(args) => {
                let ran = Instant::now();
                let outcome = self.agent.execute(&self.runner, &call.name, args).await;
                self.timings.tools += ran.elapsed();
                outcome
            }
        };
        let latency_ms = call_started.elapsed().as_millis() as u64;
        if let Some(mut pending) = outcome.pending.take() {
            pending.id = self.pending.len() + 1;
            self.pending.push(pending);
        }
        if call.name == ReadFile::NAME
            && outcome.is_ok()
            && let Some(read) = &outcome.read
            && !self.files_read.contains(&read.path)
        {
            self.files_read.push(read.path.clone());
        }
        if call.name == Finish::NAME
            && outcome.is_ok()
            && !self.changed.is_empty()
            && let Some(failure) = self.test_changes(step).await
        {
            outcome = CallOutcome::refused(failure);
        }
        if outcome.is_ok()
            && let Some(change) = &outcome.change
            && !change.dry_run
        {
            for path in &change.paths {
                (self.sink)(&Event::Edit {
                    step,
                    path: path.clone(),
                    diff: change.diff.clone(),
                });
                if !self.changed.contains(path) {
                    self.changed.push(path.clone());
                }
            }
        }
        (self.sink)(&Event::ToolResult {
            step,
            id: call.id.clone(),
            tool: call.name.clone(),
            status: outcome.status,
            summary: summary(&outcome.text),
            truncated: outcome.truncated,
            latency_ms,
        });
        self.history.push(HistoryEntry {
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
            self.agent.config.context.max_result_chars,
            &format!("the {} result", call.name),
        );
        let ok = outcome.is_ok();
        if call.name == Finish::NAME && ok {
            self.response = Some(outcome.text);
            self.stop = Some(Stop::Finished);
        }
        (content, ok)
    }

    /// The test-fix loop, when the model says it is done after changing files: `Some(what to
    /// tell the model)` when the tests fail (at the last allowed attempt the run also stops),
    /// `None` when they pass, find no tests, or no test command is set.
    async fn test_changes(&mut self, step: usize) -> Option<String> {
        let tests = self.tests.as_mut()?;
        let (run, verdict) = tests.check(&self.agent.ctx).await;
        (self.sink)(&Event::Tests {
            step,
            attempt: run.attempt,
            passed: run.passed,
            summary: summary(&run.feedback),
        });
        match verdict {
            Verdict::Passed => None,
            Verdict::Retry(text) => Some(text),
            Verdict::GiveUp(text, why) => {
                self.stop = Some(Stop::TestsFailing(why));
                Some(text)
            }
        }
    }

    /// Ends the run: the final event and the outcome.
    pub(super) fn finish(self) -> RunOutcome {
        let stop = self
            .stop
            .unwrap_or(Stop::StepLimit(self.agent.config.max_steps));
        let response = self
            .response
            .unwrap_or_else(|| unfinished_summary(&stop, &self.history, &self.changed));
        let tests = match &self.tests {
            _ if self.changed.is_empty() => TestsSummary::NothingChanged,
            None => TestsSummary::NoCommand,
            Some(tests) => tests.summary(),
        };
        (self.sink)(&Event::Final {
            response: response.clone(),
            stop: stop.clone(),
            steps: self.steps,
            changed_files: self.changed.clone(),
            tests: tests.clone(),
            usage: self.usage,
        });
        RunOutcome {
            response,
            stop,
            steps: self.steps,
            history: self.history,
            changed_files: self.changed,
            usage: self.usage,
            timings: Timings {
                total: self.started.elapsed(),
                ..self.timings
            },
            files_read: self.files_read,
            pending: self.pending,
            tests,
        }
    }
}

impl Agent {
    /// Runs one tool call; a refused `edit_file` goes to the edit sub-agent.
    async fn execute(&self, runner: &ToolRunner, name: &str, args: Value) -> CallOutcome {
        let edit_args = (name == EditFile::NAME).then(|| args.clone());
        let outcome = runner.call(name, args).await;
        if let Some(args) = edit_args
            && outcome.status == CallStatus::Refused
            && self.config.edit_subagent
            && let Some(placed) = crate::edit_agent::place(&self.llm, runner, &args, &outcome).await
        {
            return placed;
        }
        outcome
    }
}

/// The arguments of a call as JSON, or what to tell the model when they cannot be read.
fn call_arguments(call: &ToolCall) -> Result<Value, String> {
    if call.name.is_empty() {
        return Err(format!(
            "your tool call could not be read: {}. Write one call as JSON: {{\"name\": \"TOOL\", \"arguments\": {{…}}}}",
            cast_tools::render::clip(&call.arguments, 300)
        ));
    }
    let text = if call.arguments.trim().is_empty() {
        "{}"
    } else {
        &call.arguments
    };
    serde_json::from_str::<Value>(text).map_err(|e| {
        format!(
            "the arguments of your {} call are not valid JSON ({e}): {}. Send a JSON object that matches the tool's schema.",
            call.name,
            cast_tools::render::clip(&call.arguments, 300)
        )
    })
}

/// Counts identical calls (tool and arguments) made in a row.
#[derive(Debug, Default)]
struct RepeatGuard {
    last: Option<String>,
    count: usize,
}

impl RepeatGuard {
    /// Records a call; returns how many times in a row it has now been made.
    fn record(&mut self, tool: &str, params: &Value) -> usize {
        let key = format!("{tool}:{params}");
        if self.last.as_deref() == Some(key.as_str()) {
            self.count += 1;
        } else {
            self.last = Some(key);
            self.count = 1;
        }
        self.count
    }
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
pub(crate) fn summary(text: &str) -> String {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let lines = text.lines().count();
    let first = cast_tools::render::clip(first.trim(), 120);
    if lines > 1 {
        format!("{first} (+{} lines)", lines - 1)
    } else {
        first
    }
}

/// The response of a run that did not finish: why, the last actions, what changed.
fn unfinished_summary(stop: &Stop, history: &[HistoryEntry], changed: &[String]) -> String {
    let why = match stop {
        Stop::StepLimit(n) => {
            format!("Stopped after {n} steps without finishing (raise --max-steps to allow more).")
        }
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

    #[test]
    fn repeats_count_identical_calls_in_a_row_only() {
        let mut guard = RepeatGuard::default();
        let a = serde_json::json!({"x": 1});
        let b = serde_json::json!({"x": 2});
        assert_eq!(guard.record("read_file", &a), 1);
        assert_eq!(guard.record("read_file", &a), 2);
        assert_eq!(guard.record("read_file", &b), 1);
        assert_eq!(guard.record("read_file", &a), 1);
        assert_eq!(guard.record("grep_search", &a), 1);
    }
}
