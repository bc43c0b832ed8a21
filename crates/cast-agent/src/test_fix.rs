//! The test-fix loop: when the model calls `finish` after changing files, the test command runs;
//! a failure becomes the result of that `finish` call — the output and the analyzer's map of the
//! code the failure ran through — so the model fixes the code and tries again, up to a limit.

use std::time::Duration;

use cast_tools::ToolContext;

/// One test run.
#[derive(Debug, Clone)]
pub(crate) struct TestRun {
    /// 1 for the first run of this agent run.
    pub attempt: usize,
    pub passed: bool,
    /// What the model is told: a pass, or the failure with its output and trace map.
    pub feedback: String,
}

/// What a failed run means for the `finish` call that triggered it.
#[derive(Debug, Clone)]
pub(crate) enum Verdict {
    /// The tests pass: `finish` stands.
    Passed,
    /// The tests fail: `finish` is refused with this text; the model may try again.
    Retry(String),
    /// The tests still fail at the last allowed attempt: `finish` is refused with the first text
    /// and the run stops for the reason in the second.
    GiveUp(String, String),
}

/// The loop's state over one agent run.
#[derive(Debug)]
pub(crate) struct TestFixLoop {
    command: String,
    attempts: usize,
    runs: usize,
}

impl TestFixLoop {
    pub(crate) fn new(command: &str, attempts: usize) -> Self {
        TestFixLoop {
            command: command.to_owned(),
            attempts: attempts.max(1),
            runs: 0,
        }
    }

    /// Runs the tests once and judges the result.
    pub(crate) async fn check(&mut self, ctx: &ToolContext) -> (TestRun, Verdict) {
        self.runs += 1;
        let run = run_tests(ctx, &self.command, self.runs).await;
        let verdict = if run.passed {
            Verdict::Passed
        } else if self.runs >= self.attempts {
            Verdict::GiveUp(
                run.feedback.clone(),
                format!(
                    "`{}` still fails after {} attempts",
                    self.command, self.runs
                ),
            )
        } else {
            Verdict::Retry(format!(
                "{}\nFix the code (attempt {} of {}), then call finish again.",
                run.feedback,
                self.runs + 1,
                self.attempts
            ))
        };
        (run, verdict)
    }
}

/// Runs the test command; on failure the feedback holds its output and the code the failure
/// ran through (the analyzer's trace map).
async fn run_tests(ctx: &ToolContext, cmd: &str, attempt: usize) -> TestRun {
    let failed = |feedback: String| TestRun {
        attempt,
        passed: false,
        feedback,
    };
    let root = ctx.workspace.root().to_path_buf();
    let command = cmd.to_owned();
    let limit = Duration::from_secs(ctx.max_command_seconds.max(1));
    let result =
        tokio::task::spawn_blocking(move || cast_tools::tools::run_shell(&root, &command, limit))
            .await;
    let result = match result {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return failed(format!("The test command `{cmd}` could not start: {e}")),
        Err(e) => return failed(format!("The test command `{cmd}` crashed: {e}")),
    };
    if result.exit_code == Some(0) {
        return TestRun {
            attempt,
            passed: true,
            feedback: format!("`{cmd}` passed"),
        };
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
    let ctx = ctx.clone();
    let map = tokio::task::spawn_blocking(move || cast_tools::tools::trace_map(&ctx, &output, 800))
        .await
        .ok()
        .flatten();
    if let Some(map) = map {
        feedback.push_str("\nWhere the failure ran (the trace mapped onto the code):\n");
        feedback.push_str(&map);
    }
    failed(feedback)
}
