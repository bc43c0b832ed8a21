//! `run_command`: a shell command in the workspace root, with a timeout and captured output.
//! It exists only in registries built with commands enabled. [`run_shell`] is the one place
//! every command run for the model is spawned (this tool, the agent's test command, the skills'
//! validation), so the command sandbox of [`ToolContext::sandbox`] applies to all of them.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use cast_sandbox::Sandbox;

use crate::render::head_tail;
use crate::{ToolContext, ToolError, ToolOutput, TypedTool};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunCommandParams {
    /// The command line, run by `sh -c` in the workspace root, e.g. `pytest -q tests/test_cart.py`.
    pub command: String,
    /// Seconds before the command (and everything it started) is killed. Default 60.
    pub timeout_s: Option<u64>,
}

/// What a command did.
#[derive(Debug, Clone, Serialize)]
pub struct CommandResult {
    pub command: String,
    /// `None` when the command was killed (timeout or signal).
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    pub seconds: f64,
    pub stdout: String,
    pub stderr: String,
    /// The sandbox mode the command ran in.
    pub sandbox: String,
    /// One line saying that the sandbox may have denied something the output reports as
    /// denied, and what the mode allows; `None` when nothing looks denied or there is no sandbox.
    pub sandbox_note: Option<String>,
}

/// Keep at most this much of each stream in memory (the end is kept: failures are reported last).
const KEEP_BYTES: usize = 1 << 20;

/// Runs shell commands in the workspace.
#[derive(Debug, Default)]
pub struct RunCommand;

impl TypedTool for RunCommand {
    type Params = RunCommandParams;
    const NAME: &'static str = super::RUN_COMMAND;
    const DESCRIPTION: &'static str = "Run a shell command in the workspace root (for example the tests) and get its exit code and output. The command is killed after timeout_s seconds (default 60). Output is cut to its beginning and end when long.";

    fn run(&self, ctx: &ToolContext, params: RunCommandParams) -> Result<ToolOutput, ToolError> {
        let limit = params
            .timeout_s
            .unwrap_or(60)
            .clamp(1, ctx.max_command_seconds.max(1));
        let result = run_shell(
            &ctx.sandbox,
            ctx.workspace.root(),
            &params.command,
            Duration::from_secs(limit),
        )?;
        let status = match (result.timed_out, result.exit_code) {
            (true, _) => format!("killed after the {limit} s timeout"),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "killed by a signal".to_owned(),
        };
        let budget = ctx.max_output_bytes.saturating_sub(512);
        let (out_budget, err_budget) = if result.stderr.is_empty() {
            (budget, 0)
        } else if result.stdout.is_empty() {
            (0, budget)
        } else {
            (budget / 2, budget / 2)
        };
        let mut text = format!(
            "$ {}\n[{status}, {:.1} s]\n",
            result.command, result.seconds
        );
        if !result.stdout.is_empty() {
            text.push_str("--- stdout ---\n");
            text.push_str(&head_tail(
                &result.stdout,
                out_budget / 4,
                out_budget * 3 / 4,
            ));
            text.push('\n');
        }
        if !result.stderr.is_empty() {
            text.push_str("--- stderr ---\n");
            text.push_str(&head_tail(
                &result.stderr,
                err_budget / 4,
                err_budget * 3 / 4,
            ));
            text.push('\n');
        }
        if let Some(note) = &result.sandbox_note {
            text.push_str(note);
            text.push('\n');
        }
        Ok(ToolOutput::ok(text, result))
    }
}

/// Runs `sh -c command` in the workspace `root`, confined by `sandbox`, killing its whole
/// process group after `timeout`. Every command CAST runs for a model goes through here.
///
/// A sandbox that cannot confine the command refuses ([`ToolError::CommandSandbox`]) and
/// nothing runs.
pub fn run_shell(
    sandbox: &Sandbox,
    root: &Path,
    command: &str,
    timeout: Duration,
) -> Result<CommandResult, ToolError> {
    let started = Instant::now();
    let mut confined = sandbox.command(root, "sh", ["-c", command])?;
    let scope = confined.scope;
    let result = wait_with_timeout(&mut confined.command, started, timeout).map_err(|e| {
        ToolError::Failed {
            tool: RunCommand::NAME.to_owned(),
            message: format!("cannot start `sh -c`: {e}"),
        }
    })?;
    let (exit_code, timed_out, stdout, stderr) = result;
    let sandbox_note =
        cast_sandbox::denial_note(sandbox.mode, scope, &format!("{stdout}\n{stderr}"));
    Ok(CommandResult {
        command: command.to_owned(),
        exit_code,
        timed_out,
        seconds: started.elapsed().as_secs_f64(),
        stdout,
        stderr,
        sandbox: sandbox.mode.to_string(),
        sandbox_note,
    })
}

/// Spawns `cmd` with captured output and waits for it, killing its process group after
/// `timeout`: `(exit code, timed out, stdout, stderr)`.
fn wait_with_timeout(
    cmd: &mut Command,
    started: Instant,
    timeout: Duration,
) -> std::io::Result<(Option<i32>, bool, String, String)> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0); // so a timeout kills what the command started, too
    }
    let mut child = cmd.spawn()?;
    let stdout = child
        .stdout
        .take()
        .map(|s| std::thread::spawn(move || drain(s)));
    let stderr = child
        .stderr
        .take()
        .map(|s| std::thread::spawn(move || drain(s)));
    // Wait on a thread, so the command's end is seen at once (no polling interval in every
    // command's time), and kill its process group if the timeout comes first.
    let pid = child.id();
    let (ended, wait) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = ended.send(());
        status
    });
    let left = timeout.saturating_sub(started.elapsed());
    let timed_out = matches!(
        wait.recv_timeout(left),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout)
    );
    if timed_out {
        kill_group(pid);
    }
    let status = waiter.join().ok().and_then(Result::ok);
    let join = |h: Option<std::thread::JoinHandle<String>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    let (stdout, stderr) = (join(stdout), join(stderr));
    let exit_code = if timed_out {
        None
    } else {
        status.and_then(|s| s.code())
    };
    Ok((exit_code, timed_out, stdout, stderr))
}

/// Kills the process group `pid` leads (`process_group(0)` made the command its leader), so
/// what the command started dies with it.
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// Reads a stream to its end, keeping the last [`KEEP_BYTES`] bytes.
fn drain(mut stream: impl Read) -> String {
    let mut kept: Vec<u8> = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 2 * KEEP_BYTES {
                    kept.drain(..kept.len() - KEEP_BYTES);
                }
            }
        }
    }
    if kept.len() > KEEP_BYTES {
        kept.drain(..kept.len() - KEEP_BYTES);
    }
    String::from_utf8_lossy(&kept).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_exit_code_and_both_streams() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_shell(
            &Sandbox::danger_full_access(),
            dir.path(),
            "echo out; echo err >&2; exit 3",
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!((r.exit_code, r.timed_out), (Some(3), false));
        assert_eq!((r.stdout.as_str(), r.stderr.as_str()), ("out\n", "err\n"));
    }

    #[test]
    fn runs_in_the_workspace_root() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
        let r = run_shell(
            &Sandbox::danger_full_access(),
            dir.path(),
            "cat marker.txt",
            Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(r.stdout, "here");
    }

    #[test]
    fn a_timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let r = run_shell(
            &Sandbox::danger_full_access(),
            dir.path(),
            "sleep 30 & sleep 30; echo never",
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(r.timed_out);
        assert_eq!(r.exit_code, None);
        assert!(r.seconds < 10.0);
        assert!(!r.stdout.contains("never"));
    }

    #[test]
    fn a_confined_mode_without_a_helper_runs_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let err = run_shell(
            &Sandbox::default(),
            dir.path(),
            "touch ran",
            Duration::from_secs(10),
        )
        .unwrap_err();
        assert!(err.is_refusal(), "{err}");
        assert!(!dir.path().join("ran").exists());
    }
}
