//! The test-fix loop: when the model calls `finish` after changing files, the test command runs;
//! a failure becomes the result of that `finish` call — the output and the analyzer's map of the
//! code the failure ran through — so the model fixes the code and tries again, up to a limit.

use std::path::Path;
use std::time::Duration;

use cast_tools::ToolContext;
use serde::Serialize;

/// One test run.
#[derive(Debug, Clone)]
pub(crate) struct TestRun {
    /// 1 for the first run of this agent run.
    pub attempt: usize,
    pub passed: bool,
    /// The command ran but found no test to run (pytest's exit status 5, unittest's
    /// "Ran 0 tests"): nothing was checked. Not a failure the model could fix.
    pub no_tests: bool,
    /// What the model is told: a pass, or the failure with its output and trace map.
    pub feedback: String,
}

/// Whether a run's changes were tested, for its summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TestsSummary {
    /// No file changed, so there was nothing to test.
    NothingChanged,
    /// Files changed but no test command was given.
    NoCommand,
    /// Files changed and a test command was given, but the run ended before it ran (no
    /// `finish`, a stop).
    NotRun { command: String },
    /// The command ran and found no test.
    NoneCollected { command: String },
    /// The last run passed.
    Passed { command: String, runs: usize },
    /// The last run failed.
    Failing { command: String, runs: usize },
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
    last: Option<TestRun>,
}

impl TestFixLoop {
    pub(crate) fn new(command: &str, attempts: usize) -> Self {
        TestFixLoop {
            command: command.to_owned(),
            attempts: attempts.max(1),
            runs: 0,
            last: None,
        }
    }

    /// What the tests said about the run's changes.
    pub(crate) fn summary(&self) -> TestsSummary {
        let command = self.command.clone();
        match &self.last {
            None => TestsSummary::NotRun { command },
            Some(run) if run.no_tests => TestsSummary::NoneCollected { command },
            Some(run) if run.passed => TestsSummary::Passed {
                command,
                runs: self.runs,
            },
            Some(_) => TestsSummary::Failing {
                command,
                runs: self.runs,
            },
        }
    }

    /// Runs the tests once and judges the result.
    pub(crate) async fn check(&mut self, ctx: &ToolContext) -> (TestRun, Verdict) {
        self.runs += 1;
        let run = run_tests(ctx, &self.command, self.runs).await;
        self.last = Some(run.clone());
        let verdict = if run.passed || run.no_tests {
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
        no_tests: false,
        feedback,
    };
    let shell_ctx = ctx.clone();
    let command = cmd.to_owned();
    let limit = Duration::from_secs(ctx.max_command_seconds.max(1));
    let result = tokio::task::spawn_blocking(move || {
        let ctx = shell_ctx;
        cast_tools::tools::run_shell(&ctx.sandbox, ctx.workspace.root(), &command, limit)
    })
    .await;
    let result = match result {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return failed(format!("The test command `{cmd}` was not run: {e}")),
        Err(e) => return failed(format!("The test command `{cmd}` crashed: {e}")),
    };
    if found_no_tests(cmd, result.exit_code, &result.stdout, &result.stderr) {
        return TestRun {
            attempt,
            passed: false,
            no_tests: true,
            feedback: format!("`{cmd}` found no tests to run; nothing was checked"),
        };
    }
    if result.exit_code == Some(0) {
        return TestRun {
            attempt,
            passed: true,
            no_tests: false,
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
    if let Some(note) = &result.sandbox_note {
        feedback.push_str(note);
        feedback.push('\n');
    }
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

/// Whether a test command ran no test: pytest exits with 5 when it collects none; unittest says
/// "Ran 0 tests" (and "NO TESTS RAN" from Python 3.12, with exit status 5).
fn found_no_tests(cmd: &str, exit_code: Option<i32>, stdout: &str, stderr: &str) -> bool {
    (cmd.contains("pytest") && exit_code == Some(5))
        || (cmd.contains("unittest")
            && [stdout, stderr]
                .iter()
                .any(|out| out.contains("Ran 0 tests") || out.contains("NO TESTS RAN")))
}

/// The project's test command, found from its files (for `--test-cmd auto`): `cargo test` for
/// a Cargo.toml, `go test ./...` for a go.mod, pytest (or unittest without pytest) where there
/// are Python tests, `npm test` for a package.json with a real `test` script — checked in that
/// order at the root. `None` when none applies.
pub fn detect_test_command(root: &Path) -> Option<String> {
    if root.join("Cargo.toml").is_file() {
        return Some("cargo test".to_owned());
    }
    if root.join("go.mod").is_file() {
        return Some("go test ./...".to_owned());
    }
    if let Some(folder) = python_tests(root) {
        let pytest = std::process::Command::new("python3")
            .args(["-m", "pytest", "--version"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        return Some(match (pytest, folder) {
            (true, _) => "python3 -m pytest -q".to_owned(),
            (false, ".") => "python3 -m unittest discover".to_owned(),
            // unittest only descends into packages: start in the tests' folder.
            (false, folder) => format!("python3 -m unittest discover -s {folder}"),
        });
    }
    if has_npm_test_script(root) {
        return Some("npm test".to_owned());
    }
    None
}

/// Where Python tests are: test files (`test_*.py`, `*_test.py`) in a `tests` or `test` folder
/// or at the root, or pytest configuration (a conftest.py, a `[tool.pytest…]`/`[pytest]`
/// section), which means the root.
fn python_tests(root: &Path) -> Option<&'static str> {
    let configured = ["pytest.ini", "conftest.py"]
        .iter()
        .any(|f| root.join(f).is_file())
        || ["pyproject.toml", "setup.cfg", "tox.ini"].iter().any(|f| {
            std::fs::read_to_string(root.join(f))
                .is_ok_and(|t| t.contains("[tool.pytest") || t.contains("[pytest]"))
        });
    let is_test_file = |name: &str| {
        name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
    };
    let folder_has_tests = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| is_test_file(&e.file_name().to_string_lossy()))
        })
    };
    ["tests", "test"]
        .into_iter()
        .find(|folder| folder_has_tests(&root.join(folder)))
        .or_else(|| (configured || folder_has_tests(root)).then_some("."))
}

/// A package.json whose `test` script is not npm's placeholder ("no test specified").
fn has_npm_test_script(root: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(root.join("package.json")) else {
        return false;
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        return false;
    };
    json.pointer("/scripts/test")
        .and_then(|t| t.as_str())
        .is_some_and(|t| !t.contains("no test specified"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn the_test_command_is_found_from_the_project_files() {
        let detect = |files: &[(&str, &str)]| detect_test_command(project(files).path());
        assert_eq!(
            detect(&[("Cargo.toml", "[package]\n")]).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            detect(&[("go.mod", "module x\n")]).as_deref(),
            Some("go test ./...")
        );
        assert_eq!(
            detect(&[("package.json", r#"{"scripts": {"test": "vitest run"}}"#)]).as_deref(),
            Some("npm test")
        );
        // npm's placeholder script is not a test suite.
        let placeholder = r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#;
        assert_eq!(detect(&[("package.json", placeholder)]), None);
        let python = detect(&[("tests/test_cart.py", "def test_a(): pass\n")]).unwrap();
        assert!(
            python.contains("pytest") || python.contains("unittest"),
            "{python}"
        );
        assert_eq!(detect(&[("app.py", "print(1)\n")]), None);
        assert_eq!(detect(&[]), None);
    }

    #[test]
    fn no_collected_tests_are_told_apart_from_a_failure() {
        assert!(found_no_tests("pytest -q", Some(5), "", ""));
        assert!(!found_no_tests("pytest -q", Some(1), "", ""));
        assert!(found_no_tests(
            "python3 -m unittest",
            Some(0),
            "",
            "Ran 0 tests in 0.000s\n\nOK"
        ));
        assert!(!found_no_tests("make test", Some(5), "", ""));
    }
}
