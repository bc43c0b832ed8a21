//! What a new user and a real model meet in the first hour (issue 17): each test is named after
//! what went wrong before.

use cast_test_support::{Reply, ScriptedServer};
use serde_json::json;

use crate::support::{cast, cast_with_model, project};

/// A `cast` command with no model settings at all: no model variables, HOME empty.
fn cast_without_model_settings(home: &std::path::Path) -> assert_cmd::Command {
    let mut cmd = cast();
    for var in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "CAST_PROVIDER",
        "CAST_MODEL",
        "CAST_PROTOCOL",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"));
    cmd
}

/// The design documents' reply: a `<chat>` part and SEARCH/REPLACE sections per file.
const FILE_EDIT_REPLY: &str = "<chat>I let WELCOME give the same discount as SAVE10.</chat>\n<file-edit filePath=\"shop/pricing.py\">\n------- SEARCH\n    if code == \"SAVE10\":\n=======\n    if code in (\"SAVE10\", \"WELCOME\"):\n+++++++ REPLACE\n</file-edit>\n";

#[test]
fn a_file_edit_reply_in_the_native_protocol_is_applied_not_dropped() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_text(FILE_EDIT_REPLY),
        Reply::openai_text("WELCOME now gives 10% off."),
    ]);
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("Accept the WELCOME code.")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let pricing = std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap();
    assert!(
        pricing.contains("if code in (\"SAVE10\", \"WELCOME\"):"),
        "the edit was not applied:\n{stdout}"
    );
    assert!(stdout.contains("Changed: shop/pricing.py"), "{stdout}");
    // The result went back to the model before it answered.
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stdout}");
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user", "{last}");
    let told = last["content"].as_str().unwrap();
    assert!(told.contains("shop/pricing.py"), "{told}");
    assert!(told.contains("applied"), "{told}");
}

#[test]
fn a_file_edit_reply_that_does_not_apply_is_refused_whole_with_the_reason() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let before = std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap();
    // Two files: the first block applies, the second does not; nothing may change.
    let reply = format!(
        "{FILE_EDIT_REPLY}<file-edit filePath=\"shop/cart.py\">\n------- SEARCH\nno such line\n=======\nx = 1\n+++++++ REPLACE\n</file-edit>\n"
    );
    let server = ScriptedServer::start(vec![
        Reply::openai_text(&reply),
        Reply::openai_text("I could not make the change."),
    ]);
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("Accept the WELCOME code.")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap(),
        before,
        "{stdout}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{stdout}");
    let last = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let told = last["content"].as_str().unwrap();
    assert!(told.contains("refused"), "{told}");
    assert!(told.contains("shop/cart.py"), "{told}");
}

#[test]
fn base_url_and_model_flags_alone_configure_an_openai_compatible_model() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![Reply::openai_text("Hello from the flags.")]);
    let out = cast_without_model_settings(home.path())
        .args(["run", "--no-stream", "--base-url"])
        .arg(server.base_url())
        .args(["--model", "scripted-model", "--root"])
        .arg(dir.path())
        .arg("Say hello.")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("Hello from the flags."), "{stdout}");
    assert_eq!(server.requests()[0].body["model"], json!("scripted-model"));
}

#[test]
fn a_model_error_is_printed_once_and_each_retry_as_it_happens() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let busy = || Reply::Json {
        status: 503,
        body: json!({"error": {"message": "overloaded"}}),
    };
    let server = ScriptedServer::start(vec![busy(), busy(), busy(), busy()]);
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("anything")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}");
    // Every retry is shown as it happens (4 attempts: 3 retries).
    for n in 1..=3 {
        assert!(
            stdout.contains(&format!("retry {n} of 3")),
            "retry {n} not shown:\n{stdout}"
        );
    }
    // The error itself once.
    assert_eq!(stdout.matches("answered HTTP 503").count(), 4, "{stdout}"); // 3 retries + the stop
    assert_eq!(stdout.matches("Stopped").count(), 1, "{stdout}");
    // In JSON, each retry is an event.
    let server = ScriptedServer::start(vec![busy(), busy(), busy(), busy()]);
    let out = cast_with_model(&server, home.path())
        .args(["run", "--json", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("anything")
        .output()
        .unwrap();
    let retries = crate::support::json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["event"] == "retry")
        .count();
    assert_eq!(retries, 3);
}
