//! `cast mcp` driven by an independent client: the official MCP Python SDK.
//!
//! The client (tests/fixtures/mcp/client.py) needs the `mcp` package. `.ci/run` installs it
//! into `target/mcp-venv`; elsewhere set CAST_MCP_PYTHON to a Python that has it. Without one
//! the test skips with a note.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{copy_dir, fixtures, skip_test};

/// A Python interpreter that can `import mcp`, or `None`.
fn python_with_mcp() -> Option<PathBuf> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let candidates = [
        std::env::var_os("CAST_MCP_PYTHON").map(PathBuf::from),
        Some(workspace.join("target/mcp-venv/bin/python")),
        Some(PathBuf::from("python3")),
    ];
    candidates.into_iter().flatten().find(|python| {
        Command::new(python)
            .args(["-c", "import mcp"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

#[test]
fn the_python_sdk_lists_tools_and_calls_grep_read_and_search_replace() {
    let Some(python) = python_with_mcp() else {
        skip_test("no Python with the `mcp` package (run .ci/run, or set CAST_MCP_PYTHON)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    copy_dir(&fixtures().join("project"), &root);
    std::fs::write(dir.path().join("outside.txt"), "secret\n").unwrap();
    let before = std::fs::read_to_string(root.join("shop/pricing.py")).unwrap();

    let out = Command::new(&python)
        .arg(fixtures().join("mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_cast-under-test"))
        .arg(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();

    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for name in [
        "read_file",
        "grep_search",
        "search_replace",
        "analyze_repository",
        "finish",
    ] {
        assert!(tools.contains(&name), "{name} missing from {tools:?}");
    }
    assert!(
        !tools.contains(&"run_command"),
        "commands are off by default"
    );
    assert_eq!(seen["schemas"]["read_file"]["type"], "object");
    assert_eq!(
        seen["schemas"]["read_file"]["required"],
        serde_json::json!(["target_file", "explanation"])
    );

    assert_eq!(seen["grep"]["is_error"], false);
    let grep = seen["grep"]["text"].as_str().unwrap();
    assert!(grep.contains("shop/pricing.py"), "{grep}");
    assert!(grep.contains("12:def apply_discount"), "{grep}");

    assert_eq!(seen["read"]["is_error"], false);
    let read = seen["read"]["text"].as_str().unwrap();
    assert!(read.starts_with("12 | def apply_discount"), "{read}");
    assert!(read.contains("\n14 |     if code == \"SAVE10\":"), "{read}");

    assert_eq!(seen["edit"]["is_error"], false, "{}", seen["edit"]["text"]);
    let after = std::fs::read_to_string(root.join("shop/pricing.py")).unwrap();
    assert_eq!(
        after,
        before.replace(
            "if code == \"SAVE10\":",
            "if code in (\"SAVE10\", \"WELCOME\"):"
        )
    );
    assert!(
        seen["edit"]["text"]
            .as_str()
            .unwrap()
            .contains("+    if code in")
    );

    // A refused edit is an error result, says why, and leaves the file as it was.
    assert_eq!(seen["refused"]["is_error"], true);
    assert!(
        seen["refused"]["text"]
            .as_str()
            .unwrap()
            .contains("unchanged")
    );
    assert_eq!(
        std::fs::read_to_string(root.join("shop/pricing.py")).unwrap(),
        after
    );

    assert_eq!(seen["escape"]["is_error"], true);
    assert!(!seen["escape"]["text"].as_str().unwrap().contains("secret"));
    assert_eq!(seen["bad_args"]["is_error"], true);
    assert!(seen["bad_args"]["text"].as_str().unwrap().contains("path"));
}
