//! Shared helpers: the binary under test, fixtures, and the machine's Python.

use std::path::{Path, PathBuf};
use std::process::Command;

pub use cast_test_support::skip_test;

/// A `cast` command ready to run. It neither asks nor starts a `cast serve` (CAST_NO_SERVER):
/// a test that runs `cast find` twice would otherwise start one in the background, and which of
/// its later commands that server answers would depend on timing. tests/e2e/serve.rs lets the
/// commands ask and start servers.
pub fn cast() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_cast-under-test"));
    cmd.env("CAST_NO_SERVER", "1");
    cmd
}

/// The fixtures folder, `tests/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The Python interpreter and its standard library folder, or `None` when python3 is not
/// usable — the calling test has then been marked skipped ([`skip_test`]) and returns.
pub fn python_stdlib() -> Option<(String, PathBuf)> {
    let python = "python3".to_owned();
    let stdlib = Command::new(&python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        .filter(|stdlib| stdlib.is_dir());
    if stdlib.is_none() {
        skip_test("python3 with its standard library is not installed");
    }
    stdlib.map(|stdlib| (python, stdlib))
}

/// Parses JSON lines.
pub fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

/// Copies a folder tree (files and folders only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A fresh copy of `tests/fixtures/project` in a temporary folder.
pub fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("project"), dir.path());
    dir
}

/// A `cast` command whose model is the scripted server (settings from the environment only;
/// HOME is `home`, so no user configuration is read).
pub fn cast_with_model(
    server: &cast_test_support::ScriptedServer,
    home: &Path,
) -> assert_cmd::Command {
    let mut cmd = cast();
    for var in [
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "CAST_PROVIDER",
        "CAST_PROTOCOL",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("OPENAI_BASE_URL", server.base_url())
        .env("CAST_MODEL", "scripted");
    cmd
}
