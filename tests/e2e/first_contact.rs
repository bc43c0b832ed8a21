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

/// The scripted turns of a run that changes shop/pricing.py and finishes.
fn edit_and_finish() -> Vec<Reply> {
    vec![
        Reply::openai_call(
            "c1",
            "Change it.",
            "search_replace",
            json!({"target_file": "shop/pricing.py", "diff": "------- SEARCH\n    if code == \"SAVE10\":\n=======\n    if code in (\"SAVE10\", \"WELCOME\"):\n+++++++ REPLACE\n"}),
        ),
        Reply::openai_call(
            "c2",
            "Done.",
            "finish",
            json!({"response": "WELCOME works."}),
        ),
    ]
}

#[test]
fn test_cmd_auto_finds_the_projects_tests_and_runs_them() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        crate::support::skip_test("python3 is not installed");
        return;
    }
    let dir = project();
    std::fs::create_dir(dir.path().join("tests")).unwrap();
    std::fs::write(
        dir.path().join("tests/test_pricing.py"),
        "import unittest\nfrom decimal import Decimal\nfrom shop.pricing import apply_discount\n\n\nclass T(unittest.TestCase):\n    def test_welcome(self):\n        self.assertEqual(apply_discount(Decimal(10), 'WELCOME'), Decimal('9.0'))\n",
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(edit_and_finish());
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--test-cmd", "auto", "--root"])
        .arg(dir.path())
        .arg("Accept WELCOME.")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("--test-cmd auto: python3 -m"), "{stderr}");
    assert!(stdout.contains("tests (run 1): pass"), "{stdout}");
    assert!(stdout.contains("Tests: `python3 -m"), "{stdout}");
    assert!(stdout.contains("passed (run 1)"), "{stdout}");
}

#[test]
fn a_run_that_changed_files_without_tests_says_no_tests_ran() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(edit_and_finish());
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("Accept WELCOME.")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout
            .contains("Tests: none ran (no test command; give --test-cmd CMD, or --test-cmd auto)"),
        "{stdout}"
    );
    // With --test-cmd auto and nothing to find, the user is told as well.
    let server = ScriptedServer::start(edit_and_finish());
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--test-cmd", "auto", "--root"])
        .arg(dir.path())
        .arg("Accept WELCOME.")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no test command found"), "{stderr}");
}

#[test]
fn a_final_answer_without_finish_is_tested_like_finish() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let mut turns = edit_and_finish();
    turns.truncate(1); // the edit, then plain answers instead of `finish`
    turns.extend((0..3).map(|_| Reply::openai_text("It is done.")));
    let server = ScriptedServer::start(turns);
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--test-cmd", "false", "--root"])
        .arg(dir.path())
        .arg("Accept WELCOME.")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("tests (run 3): FAIL"), "{stdout}");
    assert!(
        stdout.contains("`false` still fails after 3 attempts"),
        "{stdout}"
    );
    let requests = server.requests();
    let told = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(told.contains("checked with `false`"), "{told}");
}

/// A run in ask mode whose one edit the user rejects: it is kept as pending in the session.
fn run_with_a_rejected_edit(dir: &std::path::Path, home: &std::path::Path) {
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "c1",
            "Lower the price.",
            "search_replace",
            json!({"target_file": "shop/pricing.py", "diff": "------- SEARCH\nPRICES = {\"apple\": Decimal(\"0.50\"), \"pear\": Decimal(\"0.75\")}\n=======\nPRICES = {\"apple\": Decimal(\"0.40\"), \"pear\": Decimal(\"0.75\")}\n+++++++ REPLACE\n"}),
        ),
        Reply::openai_call("c2", "Done.", "finish", json!({"response": "left as is"})),
    ]);
    let out = cast_with_model(&server, home)
        .args(["run", "--approval", "ask", "--no-stream", "--root"])
        .arg(dir)
        .arg("cheaper apples")
        .write_stdin("n ask finance first\n")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn pending_changes_can_be_listed_approved_and_rejected_without_a_chat() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let pricing = dir.path().join("shop/pricing.py");
    run_with_a_rejected_edit(dir.path(), home.path());
    assert!(std::fs::read_to_string(&pricing).unwrap().contains("0.50"));

    let listed = cast()
        .args(["pending", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.status.success(), "{text}");
    assert!(text.contains("1 pending"), "{text}");
    assert!(
        text.contains("1. search_replace — rejected: ask finance first"),
        "{text}"
    );
    assert!(
        text.contains("+PRICES = {\"apple\": Decimal(\"0.40\")"),
        "{text}"
    );

    let approved = cast()
        .args(["pending", "approve", "1", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stdout)
    );
    assert!(
        std::fs::read_to_string(&pricing)
            .unwrap()
            .contains("Decimal(\"0.40\")")
    );
    let none = cast()
        .args(["pending", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(none.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&none.stderr).contains("no pending changes"));

    // Rejecting drops a change and leaves the file alone; approving one that no longer
    // applies is refused and keeps it.
    cast()
        .args(["undo", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    run_with_a_rejected_edit(dir.path(), home.path());
    let rejected = cast()
        .args(["pending", "reject", "1", "--json", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(rejected.status.success());
    assert!(std::fs::read_to_string(&pricing).unwrap().contains("0.50"));
    run_with_a_rejected_edit(dir.path(), home.path());
    std::fs::write(&pricing, "PRICES = {}\n").unwrap();
    let stale = cast()
        .args(["pending", "approve", "1", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(stale.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&pricing).unwrap(), "PRICES = {}\n");
    let still = cast()
        .args(["pending", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&still.stdout).contains("1 pending"));
}
