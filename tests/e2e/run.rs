//! `cast run` against a scripted OpenAI-compatible server on 127.0.0.1: the events it prints
//! (JSON lines and the human form), the files it changes, and its exit status.

use std::path::Path;

use cast_agent::testing::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::{cast, json_lines, project};

/// `cast run` with the model settings taken from the environment only.
fn cast_run(server: &ScriptedServer, home: &Path) -> assert_cmd::Command {
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

fn turns() -> Vec<Reply> {
    vec![
        Reply::openai_call(
            "c1",
            "I look around.",
            "list_dir",
            json!({"relative_workspace_path": "shop", "explanation": "orient"}),
        ),
        Reply::openai_call(
            "c2",
            "Find the discount.",
            "grep_search",
            json!({"query": "SAVE10", "include_pattern": "*.py", "explanation": "find it"}),
        ),
        Reply::openai_call(
            "c3",
            "Read it.",
            "read_file",
            json!({"target_file": "shop/pricing.py", "explanation": "see", "start_line": 12, "end_line": 16}),
        ),
        Reply::openai_call(
            "c4",
            "Change it.",
            "search_replace",
            json!({"target_file": "shop/pricing.py", "diff": "------- SEARCH\n    if coupon_is_valid(code):\n=======\n    if code in (\"SAVE10\", \"WELCOME\"):\n+++++++ REPLACE\n"}),
        ),
        Reply::openai_call(
            "c5",
            "Copy the line exactly.",
            "search_replace",
            json!({"target_file": "shop/pricing.py", "diff": "------- SEARCH\n    if code == \"SAVE10\":\n=======\n    if code in (\"SAVE10\", \"WELCOME\"):\n+++++++ REPLACE\n"}),
        ),
        Reply::openai_call(
            "c6",
            "Done.",
            "finish",
            json!({"response": "WELCOME now gives 10% off."}),
        ),
    ]
}

#[test]
fn cast_run_json_prints_every_step_and_edits_the_file() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(turns());
    let out = cast_run(&server, home.path())
        .args(["run", "--json", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("Accept the WELCOME code.")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = json_lines(&out.stdout);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"start"));
    assert_eq!(kinds.last(), Some(&"final"));
    let calls: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "tool_call")
        .map(|e| e["tool"].as_str().unwrap())
        .collect();
    assert_eq!(
        calls,
        [
            "list_dir",
            "grep_search",
            "read_file",
            "search_replace",
            "search_replace",
            "finish"
        ]
    );
    let statuses: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "tool_result")
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["ok", "ok", "ok", "refused", "ok", "ok"]);
    let edit: &Value = events.iter().find(|e| e["event"] == "edit").unwrap();
    assert_eq!(edit["path"], "shop/pricing.py");
    assert!(
        edit["diff"]
            .as_str()
            .unwrap()
            .contains("+    if code in (\"SAVE10\", \"WELCOME\"):")
    );
    let last = events.last().unwrap();
    assert_eq!(last["response"], "WELCOME now gives 10% off.");
    assert_eq!(last["changed_files"], json!(["shop/pricing.py"]));
    assert!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py"))
            .unwrap()
            .contains("if code in (\"SAVE10\", \"WELCOME\"):")
    );

    // The model saw the map of the workspace in its system prompt, and the tools.
    let first = &server.requests()[0].body;
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("apply_discount"),
        "the L1 map is in the prompt"
    );
    assert!(first["tools"].as_array().unwrap().len() >= 16);

    // The edit is journaled: `cast undo` takes it back.
    cast()
        .args(["undo", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    assert!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py"))
            .unwrap()
            .contains("if code == \"SAVE10\":")
    );
}

#[test]
fn cast_run_prints_steps_edits_and_the_answer_for_people() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(turns());
    let out = cast_run(&server, home.path())
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("Accept the WELCOME code.")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("[1] list_dir — I look around."), "{text}");
    assert!(text.contains("[4] search_replace — Change it."), "{text}");
    assert!(text.contains("refused"), "{text}");
    assert!(text.contains("edited shop/pricing.py"), "{text}");
    assert!(text.contains("Changed: shop/pricing.py"), "{text}");
    assert!(
        text.trim_end().ends_with("WELCOME now gives 10% off."),
        "{text}"
    );
}

#[test]
fn cast_run_read_only_offers_no_edit_tools_and_stops_at_the_step_limit() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "a",
            "Look.",
            "list_dir",
            json!({"relative_workspace_path": ".", "explanation": "x"}),
        ),
        Reply::openai_call(
            "b",
            "Look again.",
            "glob_search",
            json!({"pattern": "**/*.py"}),
        ),
    ]);
    let out = cast_run(&server, home.path())
        .args([
            "run",
            "--read-only",
            "--max-steps",
            "2",
            "--no-stream",
            "--json",
            "--root",
        ])
        .arg(dir.path())
        .arg("Look around.")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "stopped, not finished");
    let tools: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    for edit in ["edit_file", "search_replace", "delete_file", "apply_ops"] {
        assert!(
            !tools.iter().any(|t| t == edit),
            "{edit} offered in read-only mode"
        );
    }
    let last = json_lines(&out.stdout).pop().unwrap();
    assert!(
        last["response"]
            .as_str()
            .unwrap()
            .contains("Stopped after 2 steps"),
        "{last}"
    );
}

#[test]
fn cast_run_without_a_model_says_what_to_set() {
    let home = tempfile::tempdir().unwrap();
    let out = cast()
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", std::env::var_os("PATH").unwrap())
        .args(["run", "--root"])
        .arg(home.path())
        .arg("anything")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("OPENAI_API_KEY") && err.contains("ANTHROPIC_API_KEY"),
        "{err}"
    );
}

#[test]
fn cast_run_with_a_dead_endpoint_fails_clearly_and_changes_nothing() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let before = std::fs::read(dir.path().join("shop/pricing.py")).unwrap();
    // A port nobody listens on: bind one, then drop it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = cast()
        .env("HOME", home.path())
        .env_remove("OPENAI_API_KEY")
        .env("OPENAI_BASE_URL", format!("http://127.0.0.1:{port}/v1"))
        .env("CAST_MODEL", "m")
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("anything")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains(&format!("127.0.0.1:{port}")), "{all}");
    assert_eq!(
        std::fs::read(dir.path().join("shop/pricing.py")).unwrap(),
        before
    );
}
