//! `cast run` against a scripted OpenAI-compatible server on 127.0.0.1: the events it prints
//! (JSON lines and the human form), the files it changes, and its exit status.

use cast_test_support::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::{cast, cast_with_model, json_lines, project};

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
    let out = cast_with_model(&server, home.path())
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
    let out = cast_with_model(&server, home.path())
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
    let out = cast_with_model(&server, home.path())
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

/// The session id `cast run` reports on stderr.
fn session_id(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let line = text
        .lines()
        .find(|l| l.contains("--resume "))
        .unwrap_or_else(|| panic!("no session line in: {text}"));
    line.split("--resume ")
        .nth(1)
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn a_resumed_session_remembers_its_conversation_and_the_files_it_read() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "a1",
            "Read it.",
            "read_file",
            json!({"target_file": "shop/pricing.py", "explanation": "x"}),
        ),
        Reply::openai_call(
            "a2",
            "Done.",
            "finish",
            json!({"response": "It applies SAVE10."}),
        ),
        Reply::openai_call(
            "b1",
            "I remember it.",
            "finish",
            json!({"response": "As I read before: SAVE10."}),
        ),
    ]);
    let first = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--root"])
        .arg(dir.path())
        .arg("What discount codes exist?")
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0));
    let id = session_id(&first.stderr);
    // The file changes between the two runs: the resumed run is told so.
    let pricing = dir.path().join("shop/pricing.py");
    let text = std::fs::read_to_string(&pricing).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&pricing, text.replace("SAVE10", "SAVE15")).unwrap();
    let second = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--resume", &id[..8], "--root"])
        .arg(dir.path())
        .arg("And which one did you see?")
        .output()
        .unwrap();
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    assert_eq!(session_id(&second.stderr), id, "the same session continues");
    let requests = server.requests();
    let messages = requests[2].body["messages"].as_array().unwrap();
    let all = serde_json::to_string(messages).unwrap();
    assert!(
        all.contains("What discount codes exist?"),
        "the first task is carried"
    );
    assert!(
        all.contains("It applies SAVE10."),
        "the first answer is carried"
    );
    let last_user = messages.iter().rev().find(|m| m["role"] == "user").unwrap()["content"]
        .as_str()
        .unwrap();
    assert!(
        last_user.contains("shop/pricing.py") && last_user.contains("changed"),
        "{last_user}"
    );
    assert!(
        last_user.ends_with("And which one did you see?"),
        "{last_user}"
    );
    // The session lists the file it read; `cast sessions` and `cast trace` show it.
    let listed = cast()
        .args(["sessions", "--json", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    let sessions = json_lines(&listed.stdout);
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["tasks"], 2);
    let saved: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join(format!(".cast/sessions/{id}.json"))).unwrap(),
    )
    .unwrap();
    assert!(
        saved["files_read"].get("shop/pricing.py").is_some(),
        "{saved}"
    );
    let trace = cast()
        .args(["trace", &id, "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    let trace = String::from_utf8(trace.stdout).unwrap();
    assert!(
        trace.contains("read_file — Read it.") && trace.contains("model: prompt ~"),
        "{trace}"
    );
    assert_eq!(
        trace.matches("start ·").count(),
        2,
        "both runs are in the trace: {trace}"
    );
}

#[test]
fn a_cached_answer_is_reused_until_a_file_it_read_changes() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "a1",
            "Read it.",
            "read_file",
            json!({"target_file": "shop/pricing.py", "explanation": "x"}),
        ),
        Reply::openai_call(
            "a2",
            "Done.",
            "finish",
            json!({"response": "The code is SAVE10."}),
        ),
        Reply::openai_call(
            "c1",
            "Read it again.",
            "read_file",
            json!({"target_file": "shop/pricing.py", "explanation": "x"}),
        ),
        Reply::openai_call(
            "c2",
            "Done.",
            "finish",
            json!({"response": "The code is SAVE15."}),
        ),
    ]);
    let ask = || {
        cast_with_model(&server, home.path())
            .args(["run", "--read-only", "--no-stream", "--root"])
            .arg(dir.path())
            .arg("Which discount code exists?")
            .output()
            .unwrap()
    };
    let first = ask();
    assert_eq!(first.status.code(), Some(0));
    assert_eq!(server.requests().len(), 2);
    let second = ask();
    assert_eq!(second.status.code(), Some(0));
    assert_eq!(server.requests().len(), 2, "a cache hit asks no model");
    assert_eq!(
        String::from_utf8_lossy(&second.stdout).trim(),
        "The code is SAVE10."
    );
    assert!(String::from_utf8_lossy(&second.stderr).contains("cache"));
    let pricing = dir.path().join("shop/pricing.py");
    let text = std::fs::read_to_string(&pricing).unwrap();
    std::fs::write(&pricing, text.replace("SAVE10", "SAVE15")).unwrap();
    let third = ask();
    assert_eq!(third.status.code(), Some(0));
    assert_eq!(
        server.requests().len(),
        4,
        "the changed file invalidated the cache"
    );
    assert!(String::from_utf8_lossy(&third.stdout).contains("The code is SAVE15."));
}

#[test]
fn cast_run_ask_applies_only_what_the_user_approves() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let edit = |from: &str, to: &str| json!({"target_file": "shop/pricing.py", "diff": format!("------- SEARCH\n{from}\n=======\n{to}\n+++++++ REPLACE\n")});
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "c1",
            "Lower the price.",
            "search_replace",
            edit(
                "PRICES = {\"apple\": Decimal(\"0.50\"), \"pear\": Decimal(\"0.75\")}",
                "PRICES = {\"apple\": Decimal(\"0.40\"), \"pear\": Decimal(\"0.75\")}",
            ),
        ),
        Reply::openai_call(
            "c2",
            "Add a comment instead.",
            "search_replace",
            edit(
                "\"\"\"Prices and discounts.\"\"\"",
                "\"\"\"Prices and discounts (in euros).\"\"\"",
            ),
        ),
        Reply::openai_call(
            "c3",
            "Done.",
            "finish",
            json!({"response": "documented the currency"}),
        ),
    ]);
    let out = cast_with_model(&server, home.path())
        .args([
            "run",
            "--approval",
            "ask",
            "--no-stream",
            "--json",
            "--root",
        ])
        .arg(dir.path())
        .arg("tidy pricing")
        .write_stdin("n prices are set by finance\ny\n")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("+PRICES = {\"apple\": Decimal(\"0.40\")"),
        "the diff was shown: {stderr}"
    );
    assert!(stderr.contains("1 change(s) were not approved"), "{stderr}");
    let text = std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap();
    assert!(
        text.contains("Decimal(\"0.50\")") && text.contains("(in euros)"),
        "{text}"
    );
    let results: Vec<Value> = json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["event"] == "tool_result")
        .collect();
    assert_eq!(results[0]["status"], "refused");
    assert!(tool_result_text(&server, 1, 0).contains("prices are set by finance"));
}

/// The text of the `index`-th tool result in the `request`-th request.
fn tool_result_text(server: &ScriptedServer, request: usize, index: usize) -> String {
    server.requests()[request].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .nth(index)
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn remembered_preferences_reach_the_prompt_and_the_test_command() {
    let dir = project();
    let home = tempfile::tempdir().unwrap();
    let memory = cast_agent::memory::PersistentMemory::open(dir.path()).unwrap();
    memory
        .set_pref("style", "type hints on every new function")
        .unwrap();
    memory.set_pref("test_cmd", "exit 1").unwrap();
    drop(memory);
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "p1",
            "Add a constant.",
            "search_replace",
            json!({"target_file": "shop/pricing.py", "diff": "------- SEARCH\nfrom decimal import Decimal\n=======\nfrom decimal import Decimal\n\nCURRENCY = \"EUR\"\n+++++++ REPLACE\n"}),
        ),
        Reply::openai_call("p2", "Done.", "finish", json!({"response": "added"})),
        Reply::openai_call(
            "p3",
            "Tests fail; try again.",
            "finish",
            json!({"response": "added, retried"}),
        ),
        Reply::openai_call(
            "p4",
            "Still.",
            "finish",
            json!({"response": "added, retried twice"}),
        ),
    ]);
    let out = cast_with_model(&server, home.path())
        .args(["run", "--no-stream", "--json", "--root"])
        .arg(dir.path())
        .arg("add a currency constant")
        .output()
        .unwrap();
    let system = server.requests()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("- style: type hints on every new function"),
        "{system}"
    );
    // The remembered test command ran (and, being `exit 1`, failed three times).
    let tests = json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["event"] == "tests")
        .count();
    assert_eq!(tests, 3);
    assert_eq!(out.status.code(), Some(1));
}
