//! The helper binary confining real commands on this kernel. They need Linux with Landlock ABI
//! 3+ and python3, and say SKIPPED without them (a failure under CI's CAST_REQUIRE_TOOLS=1).

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::net::{TcpListener, UdpSocket};
use std::path::Path;

use cast_sandbox::{Helper, Sandbox, SandboxMode, Simulate, WriteScope};
use cast_test_support::skip_test;

/// Why these tests cannot run here, if they cannot.
fn cannot_run() -> Option<String> {
    let python = std::process::Command::new("python3")
        .arg("-c")
        .arg("pass")
        .status();
    if !python.is_ok_and(|s| s.success()) {
        return Some("python3 is not installed".to_owned());
    }
    sandbox(SandboxMode::WorkspaceWrite)
        .check()
        .err()
        .map(|e| format!("this system cannot confine commands: {e}"))
}

macro_rules! require_sandbox {
    () => {
        if let Some(reason) = cannot_run() {
            skip_test(&reason);
            return;
        }
    };
}

fn sandbox(mode: SandboxMode) -> Sandbox {
    Sandbox::new(
        mode,
        Some(Helper::new(env!("CARGO_BIN_EXE_cast-sandbox-helper"))),
    )
}

/// Runs `sh -c script` in `root`; `(exit code, stdout + stderr)`.
fn sh(sandbox: &Sandbox, root: &Path, script: &str) -> (i32, String) {
    let mut confined = sandbox.command(root, "sh", ["-c", script]).unwrap();
    let out = confined.command.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// A workspace with `.git/`, `.cast/`, a subfolder and a file, beside a folder outside it.
struct Layout {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    for d in [
        &root,
        &outside,
        &root.join(".git"),
        &root.join(".cast"),
        &root.join("src"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(root.join("README"), "readme\n").unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "outside\n").unwrap();
    Layout {
        root: root.canonicalize().unwrap(),
        outside: outside.canonicalize().unwrap(),
        _dir: dir,
    }
}

/// `OK name` or `DENIED name` for each attempt, one per line.
const ATTEMPTS: &str = r#"
try() { name=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "OK $name"; else echo "DENIED $name"; fi; }
try root-new       sh -c 'echo x > new.txt'
try root-existing  sh -c 'echo x >> README'
try subfolder      sh -c 'echo x > src/new.py'
try tmpdir         sh -c 'echo x > "$TMPDIR/t"'
try outside        sh -c 'echo x > "$OUTSIDE/new.txt"'
try git            sh -c 'echo x > .git/hooks-new'
try git-remove     rm .git/HEAD
try cast           sh -c 'echo x > .cast/x'
try read-outside   cat "$OUTSIDE/secret.txt"
try python-child   sh -c 'python3 -c "open(\"$OUTSIDE/py.txt\", \"w\")"'
"#;

fn attempts(sandbox: &Sandbox, l: &Layout) -> String {
    let script = format!("OUTSIDE='{}'\n{ATTEMPTS}", l.outside.display());
    sh(sandbox, &l.root, &script).1
}

fn assert_lines(text: &str, expected: &[&str]) {
    for line in expected {
        assert!(
            text.lines().any(|l| l == *line),
            "missing {line:?} in:\n{text}"
        );
    }
}

#[test]
fn workspace_write_writes_the_workspace_and_tmpdir_only() {
    require_sandbox!();
    let l = layout();
    let sandbox = sandbox(SandboxMode::WorkspaceWrite);
    assert_eq!(sandbox.check().unwrap(), Some(WriteScope::Workspace));
    let text = attempts(&sandbox, &l);
    assert_lines(
        &text,
        &[
            "OK root-new",
            "OK root-existing",
            "OK subfolder",
            "OK tmpdir",
            "DENIED outside",
            "DENIED git",
            "DENIED git-remove",
            "DENIED cast",
            "OK read-outside",
            "DENIED python-child",
        ],
    );
    assert!(!l.outside.join("new.txt").exists() && !l.outside.join("py.txt").exists());
    assert!(l.root.join(".git/HEAD").exists() && !l.root.join(".git/hooks-new").exists());
    assert!(!l.root.join(".cast/x").exists());
}

#[test]
fn a_missing_cast_folder_is_made_so_that_it_is_protected() {
    require_sandbox!();
    let l = layout();
    std::fs::remove_dir(l.root.join(".cast")).unwrap();
    let (code, text) = sh(
        &sandbox(SandboxMode::WorkspaceWrite),
        &l.root,
        "echo x > .cast/x",
    );
    assert_ne!(code, 0);
    assert!(text.contains("Read-only file system"), "{text}");
    assert!(l.root.join(".cast").is_dir() && !l.root.join(".cast/x").exists());
}

#[test]
fn without_user_namespaces_the_root_entries_are_granted_one_by_one() {
    require_sandbox!();
    let l = layout();
    std::os::unix::fs::symlink(&l.outside, l.root.join("link-out")).unwrap();
    let mut sandbox = sandbox(SandboxMode::WorkspaceWrite);
    sandbox.simulate = Some(Simulate::NoUserNamespaces);
    assert_eq!(sandbox.check().unwrap(), Some(WriteScope::WorkspaceFolders));
    let text = attempts(&sandbox, &l);
    assert_lines(
        &text,
        &[
            "DENIED root-new",
            "OK root-existing",
            "OK subfolder",
            "OK tmpdir",
            "DENIED outside",
            "DENIED git",
            "DENIED git-remove",
            "DENIED cast",
            "OK read-outside",
        ],
    );
    // A link among the root's entries is not granted: its target is outside.
    let (code, _) = sh(&sandbox, &l.root, "echo x > link-out/via-link.txt");
    assert_ne!(code, 0);
    assert!(!l.outside.join("via-link.txt").exists());
}

#[test]
fn read_only_writes_nothing_but_tmpdir() {
    require_sandbox!();
    let l = layout();
    let text = attempts(&sandbox(SandboxMode::ReadOnly), &l);
    assert_lines(
        &text,
        &[
            "DENIED root-new",
            "DENIED root-existing",
            "DENIED subfolder",
            "OK tmpdir",
            "DENIED outside",
            "OK read-outside",
        ],
    );
    assert_eq!(
        std::fs::read_to_string(l.root.join("README")).unwrap(),
        "readme\n"
    );
}

#[test]
fn danger_full_access_confines_nothing() {
    require_sandbox!();
    let l = layout();
    let text = attempts(&sandbox(SandboxMode::DangerFullAccess), &l);
    assert_lines(
        &text,
        &["OK outside", "OK git", "OK cast", "OK python-child"],
    );
}

const NETWORK: &str = r#"
import socket, sys
port = int(sys.argv[1])
def attempt(name, f):
    try:
        f(); print("OK", name)
    except OSError as e:
        print("DENIED", name, e)
def tcp():
    s = socket.create_connection(("127.0.0.1", port), timeout=5); s.close()
def udp():
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", port))
def tcp6():
    socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close()
def unix():
    a, b = socket.socketpair(socket.AF_UNIX); a.sendall(b"x"); assert b.recv(1) == b"x"
attempt("tcp", tcp); attempt("udp", udp); attempt("tcp6", tcp6); attempt("unix", unix)
"#;

#[test]
fn no_network_but_unix_sockets_and_cast_itself_stays_free() {
    require_sandbox!();
    let l = layout();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::fs::write(l.root.join("net.py"), NETWORK).unwrap();
    let (_, text) = sh(
        &sandbox(SandboxMode::WorkspaceWrite),
        &l.root,
        &format!("sh -c 'python3 net.py {port}'"),
    );
    assert!(
        text.contains("DENIED tcp [Errno 1] Operation not permitted"),
        "{text}"
    );
    assert_lines(&text, &["OK unix"]);
    assert!(
        text.contains("DENIED udp") && text.contains("DENIED tcp6"),
        "{text}"
    );
    let (_, text) = sh(
        &sandbox(SandboxMode::DangerFullAccess),
        &l.root,
        &format!("python3 net.py {port}"),
    );
    assert_lines(&text, &["OK tcp", "OK udp", "OK unix"]);
    // The process that spawned the confined commands is not confined.
    UdpSocket::bind("127.0.0.1:0").unwrap();
    std::fs::write(l.outside.join("from-the-parent.txt"), "x").unwrap();
}

#[test]
fn the_private_temporary_folder_is_removed_with_the_command() {
    require_sandbox!();
    let l = layout();
    let confined = sandbox(SandboxMode::WorkspaceWrite)
        .command(&l.root, "true", [""; 0])
        .unwrap();
    let temp = confined.temp_dir().unwrap().to_path_buf();
    assert!(temp.is_dir());
    drop(confined);
    assert!(!temp.exists());
}
