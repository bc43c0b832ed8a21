//! The command sandbox end to end: `cast tool run_command` and `cast run --test-cmd` (against
//! the scripted model server) in each mode, on this machine's kernel. They need Linux with
//! Landlock ABI 3+ and python3, and say SKIPPED without them (a failure under CI's
//! CAST_REQUIRE_TOOLS=1).

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::path::{Path, PathBuf};

use cast_test_support::{Reply, ScriptedServer, skip_test};
use serde_json::{Value, json};

use crate::support::{cast, cast_with_model, json_lines};

/// A workspace (with `.git/`, `.cast/` and a Python file), a folder outside it, and a TCP
/// listener and a UDP socket on 127.0.0.1 that commands try to reach.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    tcp: TcpListener,
    udp: UdpSocket,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        let outside = dir.path().join("outside");
        for d in [&root.join(".git"), &root.join(".cast"), &outside] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join("app.py"), "RATE = 1\n").unwrap();
        std::fs::write(outside.join("secret.txt"), "the outside secret\n").unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        udp.set_nonblocking(true).unwrap();
        World {
            root: root.canonicalize().unwrap(),
            outside: outside.canonicalize().unwrap(),
            _dir: dir,
            tcp,
            udp,
        }
    }

    /// What each check runs. The last three go through `sh -c 'python3 -c …'`: a shell and
    /// a child process started by the command.
    fn checks(&self) -> Vec<(&'static str, String)> {
        let out = self.outside.display();
        let tcp = self.tcp.local_addr().unwrap().port();
        let udp = self.udp.local_addr().unwrap().port();
        // Python's quotes are written `'` here and become `\"` inside `sh -c '…'`.
        let py = |code: String| format!("sh -c 'python3 -c \"{}\"'", code.replace('\'', "\\\""));
        vec![
            ("write-root", "echo made > made.txt".to_owned()),
            (
                "write-tmpdir",
                "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"".to_owned(),
            ),
            ("write-outside", format!("echo x > {out}/made.txt")),
            ("write-git", "echo x > .git/made".to_owned()),
            ("write-cast", "echo x > .cast/made".to_owned()),
            ("read-outside", format!("cat {out}/secret.txt")),
            (
                "python-write-outside",
                py(format!("open('{out}/py.txt', 'w').write('x')")),
            ),
            (
                "python-tcp",
                py(format!(
                    "import socket; socket.create_connection(('127.0.0.1', {tcp}), timeout=5).close()"
                )),
            ),
            (
                "python-udp",
                py(format!(
                    "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'ping', ('127.0.0.1', {udp}))"
                )),
            ),
        ]
    }

    /// What actually happened outside the command, for each check that leaves a trace.
    fn effect(&self, name: &str) -> Option<bool> {
        let exists = |p: PathBuf| p.exists();
        Some(match name {
            "write-root" => exists(self.root.join("made.txt")),
            "write-outside" => exists(self.outside.join("made.txt")),
            "write-git" => exists(self.root.join(".git/made")),
            "write-cast" => exists(self.root.join(".cast/made")),
            "python-write-outside" => exists(self.outside.join("py.txt")),
            "python-tcp" => match self.tcp.accept() {
                Ok(_) => true,
                Err(e) if e.kind() == ErrorKind::WouldBlock => false,
                Err(e) => panic!("{e}"),
            },
            "python-udp" => {
                let mut buf = [0u8; 16];
                match self.udp.recv(&mut buf) {
                    Ok(n) => &buf[..n] == b"ping",
                    Err(e) if e.kind() == ErrorKind::WouldBlock => false,
                    Err(e) => panic!("{e}"),
                }
            }
            _ => return None,
        })
    }
}

/// Why these tests cannot run here, if they cannot: no python3, or a kernel that cannot confine.
fn cannot_run() -> Option<String> {
    let python = std::process::Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status();
    if !python.is_ok_and(|s| s.success()) {
        return Some("python3 is not installed".to_owned());
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, v) = run_command(dir.path(), "workspace-write", "true");
    (v["status"] != "ok").then(|| format!("this system cannot confine commands: {}", v["text"]))
}

macro_rules! require_sandbox {
    () => {
        if let Some(reason) = cannot_run() {
            skip_test(&reason);
            return;
        }
    };
}

/// Which checks succeed in each mode.
fn allowed(mode: &str, check: &str) -> bool {
    match mode {
        "danger-full-access" => true,
        "workspace-write" => matches!(check, "write-root" | "write-tmpdir" | "read-outside"),
        "read-only" => matches!(check, "write-tmpdir" | "read-outside"),
        other => panic!("{other}"),
    }
}

fn sandbox_env(cmd: &mut assert_cmd::Command) -> &mut assert_cmd::Command {
    cmd.env_remove("CAST_SANDBOX")
        .env_remove("CAST_SANDBOX_SIMULATE")
}

fn run_command(root: &Path, mode: &str, command: &str) -> (i32, Value) {
    let out = sandbox_env(&mut cast())
        .args([
            "tool",
            "run_command",
            "--allow-commands",
            "--sandbox",
            mode,
            "--root",
        ])
        .arg(root)
        .arg("--args")
        .arg(json!({ "command": command }).to_string())
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), value)
}

#[test]
fn run_command_is_confined_in_each_mode() {
    require_sandbox!();
    for mode in ["workspace-write", "read-only", "danger-full-access"] {
        let world = World::new();
        for (check, command) in world.checks() {
            let (code, v) = run_command(&world.root, mode, &command);
            assert_eq!(
                (code, v["status"].as_str()),
                (0, Some("ok")),
                "{mode} {check}: {v}"
            );
            let text = v["text"].as_str().unwrap();
            let succeeded = v["data"]["exit_code"] == 0;
            let expected = allowed(mode, check);
            assert_eq!(succeeded, expected, "{mode} {check}:\n{text}");
            if let Some(happened) = world.effect(check) {
                assert_eq!(
                    happened, expected,
                    "{mode} {check}: effect on disk/network\n{text}"
                );
            }
            assert_eq!(v["data"]["sandbox"], mode);
            if !expected {
                // The OS's own words, then one line naming the sandbox and its mode.
                assert!(
                    [
                        "Permission denied",
                        "Operation not permitted",
                        "Read-only file system"
                    ]
                    .iter()
                    .any(|w| text.contains(w)),
                    "{mode} {check}:\n{text}"
                );
                let note = format!("[sandbox {mode}: ");
                assert_eq!(text.matches(&note).count(), 1, "{mode} {check}:\n{text}");
            }
            if check == "read-outside" {
                assert!(text.contains("the outside secret"), "{text}");
            }
        }
    }
}

/// The test command of a run: every check, one `OK name` / `DENIED name` line each, then a
/// failure, so that the output goes back to the model.
fn test_script(world: &World) -> String {
    let mut script = String::new();
    for (check, command) in world.checks() {
        let quoted = command.replace('\'', r"'\''");
        script.push_str(&format!(
            "if sh -c '{quoted}' >/dev/null 2>&1; then echo 'OK {check}'; else echo 'DENIED {check}'; fi\n"
        ));
    }
    script.push_str("echo x > .git/last-word; exit 1\n");
    script
}

fn run_with_test_cmd(world: &World, mode: &str) -> (i32, Vec<Value>, String) {
    std::fs::write(world.outside.join("checks.sh"), test_script(world)).unwrap();
    let home = tempfile::tempdir().unwrap();
    let edit = json!({"target_file": "app.py", "diff": "------- SEARCH\nRATE = 1\n=======\nRATE = 2\n+++++++ REPLACE\n"});
    let server = ScriptedServer::start(vec![
        Reply::openai_call("c1", "Change the rate.", "search_replace", edit),
        Reply::openai_call("c2", "Done.", "finish", json!({"response": "rate is 2"})),
        Reply::openai_call("c3", "Again.", "finish", json!({"response": "rate is 2"})),
        Reply::openai_call("c4", "Again.", "finish", json!({"response": "rate is 2"})),
    ]);
    let out = sandbox_env(&mut cast_with_model(&server, home.path()))
        .args(["run", "--json", "--no-stream", "--sandbox", mode, "--root"])
        .arg(&world.root)
        .arg("--test-cmd")
        .arg(format!("sh {}/checks.sh", world.outside.display()))
        .arg("make the rate 2")
        .output()
        .unwrap();
    // The first test run's output is the result of the first `finish`, in the next request.
    let requests = server.requests();
    let feedback = requests
        .get(2)
        .and_then(|r| r.body["messages"].as_array().cloned())
        .and_then(|m| m.last().cloned())
        .and_then(|m| m["content"].as_str().map(str::to_owned))
        .unwrap_or_default();
    (
        out.status.code().unwrap(),
        json_lines(&out.stdout),
        feedback,
    )
}

#[test]
fn the_test_command_of_a_run_is_confined_in_each_mode() {
    require_sandbox!();
    for mode in ["workspace-write", "read-only", "danger-full-access"] {
        let world = World::new();
        let (code, events, feedback) = run_with_test_cmd(&world, mode);
        assert_eq!(code, 1, "{mode}: the tests always fail\n{feedback}");
        assert_eq!(events[0]["event"], "start");
        assert_eq!(events[0]["sandbox"], mode, "the header names the mode");
        for (check, _) in world.checks() {
            let expected = allowed(mode, check);
            let line = format!("{} {check}", if expected { "OK" } else { "DENIED" });
            assert!(
                feedback.lines().any(|l| l == line),
                "{mode}: missing {line:?} in\n{feedback}"
            );
            if let Some(happened) = world.effect(check) {
                assert_eq!(happened, expected, "{mode} {check}\n{feedback}");
            }
        }
        // The script's last write into .git/ is reported by the shell and named by the note.
        if mode == "danger-full-access" {
            assert!(!feedback.contains("[sandbox"), "{feedback}");
        } else {
            assert!(
                feedback.contains(&format!("[sandbox {mode}: ")),
                "{feedback}"
            );
        }
        // The edit itself went through CAST's tools, which the sandbox does not confine.
        assert_eq!(
            std::fs::read_to_string(world.root.join("app.py")).unwrap(),
            "RATE = 2\n"
        );
    }
}

/// The message when the kernel cannot confine (a kernel without Landlock, simulated).
const NO_LANDLOCK: &str = "commands run confined by the sandbox (mode workspace-write), and this system cannot confine them: the kernel does not offer Landlock (simulated: CAST_SANDBOX_SIMULATE=no-landlock). Nothing was run. To run commands with no confinement at all, choose that knowingly: --sandbox danger-full-access, CAST_SANDBOX=danger-full-access, or `[sandbox] mode = \"danger-full-access\"` in ~/.config/cast/config.toml";

#[test]
fn without_landlock_commands_are_refused_with_how_to_choose_off() {
    let world = World::new();
    let out = sandbox_env(&mut cast())
        .env("CAST_SANDBOX_SIMULATE", "no-landlock")
        .args(["tool", "run_command", "--allow-commands", "--root"])
        .arg(&world.root)
        .args(["--args", r#"{"command": "echo ran > ran.txt"}"#])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (out.status.code(), v["status"].as_str()),
        (Some(1), Some("refused"))
    );
    assert_eq!(v["text"], NO_LANDLOCK);
    assert!(!world.root.join("ran.txt").exists());
    // `cast run --test-cmd` refuses before asking the model.
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![]);
    let out = sandbox_env(&mut cast_with_model(&server, home.path()))
        .env("CAST_SANDBOX_SIMULATE", "no-landlock")
        .args([
            "run",
            "--no-stream",
            "--test-cmd",
            "echo ran > ran.txt",
            "--root",
        ])
        .arg(&world.root)
        .arg("anything")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("the test command cannot run: {NO_LANDLOCK}")),
        "{stderr}"
    );
    assert!(server.requests().is_empty() && !world.root.join("ran.txt").exists());
    // Off, chosen knowingly, runs it.
    let (code, v) = run_command(&world.root, "danger-full-access", "echo ran > ran.txt");
    assert_eq!((code, v["data"]["exit_code"].as_i64()), (0, Some(0)));
}

#[test]
fn the_mode_comes_from_the_flag_then_the_environment_then_the_config() {
    require_sandbox!();
    let world = World::new();
    let mode_of = |cmd: &mut assert_cmd::Command, flags: &[&str]| -> Value {
        let out = cmd
            .args(["tool", "run_command", "--allow-commands", "--root"])
            .arg(&world.root)
            .args(["--args", r#"{"command": "true"}"#])
            .args(flags)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["data"]["sandbox"].clone()
    };
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join(".config/cast")).unwrap();
    std::fs::write(
        home.path().join(".config/cast/config.toml"),
        "[sandbox]\nmode = \"danger-full-access\"\n",
    )
    .unwrap();
    let with_home = || {
        let mut cmd = cast();
        sandbox_env(&mut cmd)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join(".config"));
        cmd
    };
    assert_eq!(mode_of(&mut with_home(), &[]), "danger-full-access");
    assert_eq!(
        mode_of(with_home().env("CAST_SANDBOX", "read-only"), &[]),
        "read-only"
    );
    assert_eq!(
        mode_of(
            with_home().env("CAST_SANDBOX", "read-only"),
            &["--sandbox", "workspace-write"]
        ),
        "workspace-write"
    );
    // The workspace's own config may tighten the sandbox but never turn it off.
    std::fs::write(
        world.root.join(".cast/config.toml"),
        "[sandbox]\nmode = \"read-only\"\n",
    )
    .unwrap();
    assert_eq!(mode_of(&mut with_home(), &[]), "read-only");
    std::fs::write(
        world.root.join(".cast/config.toml"),
        "[sandbox]\nmode = \"danger-full-access\"\n",
    )
    .unwrap();
    let out = with_home()
        .args(["tool", "run_command", "--allow-commands", "--root"])
        .arg(&world.root)
        .args(["--args", r#"{"command": "true"}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("may not turn the command sandbox off"));
}
