//! `cast text2agent` and `cast optimize` against a scripted model: a renamed, re-prompted agent
//! from each template that validates; a first attempt that fails validation and is repaired;
//! an optimization guided by a real traceback. Skips where python3 is missing.

use std::path::Path;
use std::process::Command;

use cast_test_support::{Reply, ScriptedServer, skip_test};
use serde_json::{Value, json};

use crate::support::{cast_with_model, json_lines};

fn python_available() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn template_text(template: &str, file: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates")
        .join(template)
        .join(file);
    std::fs::read_to_string(path).unwrap()
}

/// SEARCH/REPLACE blocks that rename every line mentioning the template's class or package
/// (each such line is unique in the templates) and re-prompt the agent.
fn rename_blocks(
    template: &str,
    old_class: &str,
    new_class: &str,
    new_pkg: &str,
    prompt_line: &str,
) -> String {
    let module = template_text(template, &format!("{template}.py"));
    let mut blocks = String::new();
    for line in module.lines() {
        let new = if line.starts_with("SYSTEM_PROMPT = \"\"\"") {
            format!("SYSTEM_PROMPT = \"\"\"{prompt_line}")
        } else if line.contains(old_class) || line.contains(template) {
            line.replace(old_class, new_class)
                .replace(template, new_pkg)
        } else {
            continue;
        };
        blocks.push_str(&format!(
            "------- SEARCH\n{line}\n=======\n{new}\n+++++++ REPLACE\n"
        ));
    }
    blocks
}

fn report(stdout: &[u8]) -> Value {
    json_lines(stdout)
        .into_iter()
        .find(|e| e["event"] == "report")
        .expect("a report event")
}

fn selfcheck(out_dir: &Path) -> (bool, String) {
    let pkg = out_dir.file_name().unwrap().to_str().unwrap();
    let out = Command::new("python3")
        .args(["-m", &format!("{pkg}.selfcheck")])
        .current_dir(out_dir.parent().unwrap())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn text2agent_renames_and_reprompts_each_template_into_a_valid_agent() {
    if !python_available() {
        skip_test("python3 is not installed");
        return;
    }
    for (template, old_class, new_pkg, new_class, prompt_line) in [
        (
            "gaia_agent",
            "GaiaAgent",
            "travel_agent",
            "TravelAgent",
            "You are a travel planner: you find flights and hotels that fit the traveller's dates and budget.",
        ),
        (
            "ppt_agent",
            "PptAgent",
            "pitch_agent",
            "PitchAgent",
            "You write investor pitch decks: problem, solution, market, traction, team, ask.",
        ),
    ] {
        let home = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let out_dir = work.path().join(new_pkg);
        let server = ScriptedServer::start(vec![
            Reply::openai_call(
                "s1",
                "See the agent's outline.",
                "get_skeleton",
                json!({"target_file": format!("{new_pkg}.py")}),
            ),
            Reply::openai_call(
                "s2",
                "Rename it and give it its prompt.",
                "search_replace",
                json!({
                    "target_file": format!("{new_pkg}.py"),
                    "diff": rename_blocks(template, old_class, new_class, new_pkg, prompt_line),
                }),
            ),
            Reply::openai_call(
                "s3",
                "Done.",
                "finish",
                json!({"response": format!("{new_class} is ready.")}),
            ),
        ]);
        let out = cast_with_model(&server, home.path())
            .args([
                "text2agent",
                "--json",
                "--no-stream",
                "--template",
                template,
                "--prompt",
                prompt_line,
                "--out",
            ])
            .arg(&out_dir)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{template}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = report(&out.stdout);
        assert_eq!(report["validated"], true, "{template}: {report}");
        assert!(
            report["diff"]
                .as_str()
                .unwrap()
                .contains(&format!("+class {new_class}"))
        );
        // The new package: renamed module, new class and prompt, no trace of the old names.
        let module = std::fs::read_to_string(out_dir.join(format!("{new_pkg}.py"))).unwrap();
        assert!(!out_dir.join(format!("{template}.py")).exists());
        assert!(module.contains(&format!("class {new_class}")) && module.contains(prompt_line));
        assert!(
            !module.contains(old_class),
            "{template}: the old class name is left"
        );
        assert!(
            selfcheck(&out_dir).0,
            "{template}: {}",
            selfcheck(&out_dir).1
        );
        // The model was given the L1 map of the copied template in its prompt.
        let first = &server.requests()[0].body;
        let system = first["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains("mcp_config") && system.contains(&format!("{new_pkg}.py")),
            "{system}"
        );
        let tools: Vec<&str> = first["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert!(
            !tools.contains(&"run_command") && tools.contains(&"get_skeleton"),
            "{tools:?}"
        );
    }
}

#[test]
fn text2agent_repairs_a_first_attempt_that_fails_validation() {
    if !python_available() {
        skip_test("python3 is not installed");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out_dir = work.path().join("quiz_agent");
    let unused_server =
        "    \"quiz-db\": {\"command\": \"uvx\", \"args\": [\"quiz-db-mcp\"], \"env\": {}},";
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "r1",
            "Rename and re-prompt.",
            "search_replace",
            json!({
                "target_file": "quiz_agent.py",
                "diff": rename_blocks("ppt_agent", "PptAgent", "QuizAgent", "quiz_agent", "You write quizzes for a class: questions, four choices, the answer and why."),
            }),
        ),
        Reply::openai_call(
            "r2",
            "Add a question bank server.",
            "search_replace",
            json!({
                "target_file": "mcp_config.py",
                "diff": format!("------- SEARCH\nmcp_config = {{\n=======\nmcp_config = {{\n{unused_server}\n+++++++ REPLACE\n"),
            }),
        ),
        Reply::openai_call(
            "r3",
            "Done.",
            "finish",
            json!({"response": "QuizAgent is ready."}),
        ),
        Reply::openai_call(
            "r4",
            "No tool uses quiz-db; remove it.",
            "search_replace",
            json!({
                "target_file": "mcp_config.py",
                "diff": format!("------- SEARCH\n{unused_server}\n=======\n+++++++ REPLACE\n"),
            }),
        ),
        Reply::openai_call(
            "r5",
            "Fixed.",
            "finish",
            json!({"response": "QuizAgent is ready and valid."}),
        ),
    ]);
    let out = cast_with_model(&server, home.path())
        .args([
            "text2agent",
            "--json",
            "--no-stream",
            "--template",
            "ppt_agent",
            "--prompt",
            "a quiz writer",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = json_lines(&out.stdout);
    let tests: Vec<bool> = events
        .iter()
        .filter(|e| e["event"] == "tests")
        .map(|e| e["passed"].as_bool().unwrap())
        .collect();
    assert_eq!(tests, [false, true], "validation failed once, then passed");
    // The model saw the self-check's complaint as the result of its first finish.
    let requests = server.requests();
    let failure = requests[3].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "tool")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        failure.contains("mcp_config defines 'quiz-db' but no tool uses it"),
        "{failure}"
    );
    assert_eq!(report(&out.stdout)["validated"], true);
    assert!(selfcheck(&out_dir).0);
}

#[test]
fn text2agent_refuses_a_bad_output_folder_and_writes_nothing() {
    let work = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![]);
    let taken = work.path().join("taken_agent");
    std::fs::create_dir(&taken).unwrap();
    std::fs::write(taken.join("keep.txt"), "mine").unwrap();
    for (out, says) in [
        (taken.clone(), "not empty"),
        (work.path().join("bad-name"), "Python identifier"),
    ] {
        let run = cast_with_model(&server, home.path())
            .args([
                "text2agent",
                "--template",
                "gaia_agent",
                "--prompt",
                "x",
                "--out",
            ])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&run.stderr).contains(says));
    }
    assert_eq!(std::fs::read_dir(&taken).unwrap().count(), 1);
    assert!(!work.path().join("bad-name").exists());
    assert!(server.requests().is_empty());
}

#[test]
fn optimize_follows_a_real_traceback_to_the_failing_function_and_fixes_it() {
    if !python_available() {
        skip_test("python3 is not installed");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let pkg = work.path().join("gaia_agent");
    std::fs::create_dir(&pkg).unwrap();
    for file in [
        "README.md",
        "__init__.py",
        "gaia_agent.py",
        "mcp_config.py",
        "selfcheck.py",
    ] {
        let mut text = template_text("gaia_agent", file);
        if file == "gaia_agent.py" {
            text = text.replace(
                "return self.call_mcp(tool[\"server\"], name, args)",
                "return self.call_mcp(tool[\"srv\"], name, args)",
            );
        }
        std::fs::write(pkg.join(file), text).unwrap();
    }
    // A real failing run: the agent dispatches an MCP tool.
    let run = Command::new("python3")
        .args(["-c", "from gaia_agent.gaia_agent import GaiaAgent\nagent = GaiaAgent(llm=lambda m, t: None, call_mcp=lambda s, t, a: 'ok')\nagent._dispatch('web_search', {'query': 'x'})"])
        .current_dir(work.path())
        .output()
        .unwrap();
    let trace = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(trace.contains("KeyError: 'srv'"), "{trace}");
    let trace_file = work.path().join("run.log");
    std::fs::write(&trace_file, &trace).unwrap();

    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "o1",
            "The trace fails in _dispatch; read it.",
            "show_symbol",
            json!({"symbol": "GaiaAgent._dispatch"}),
        ),
        Reply::openai_call(
            "o2",
            "The tool's key is `server`, not `srv`.",
            "search_replace",
            json!({
                "target_file": "gaia_agent.py",
                "diff": "------- SEARCH\n        return self.call_mcp(tool[\"srv\"], name, args)\n=======\n        return self.call_mcp(tool[\"server\"], name, args)\n+++++++ REPLACE\n",
            }),
        ),
        Reply::openai_call(
            "o3",
            "Done.",
            "finish",
            json!({"response": "_dispatch read the MCP server under the wrong key (srv); it is `server`."}),
        ),
    ]);
    let out = cast_with_model(&server, home.path())
        .args([
            "optimize",
            "--json",
            "--no-stream",
            "--feedback",
            "web search never works",
        ])
        .arg(&pkg)
        .arg("--trace")
        .arg(&trace_file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The task carried the heat map, pointing at the failing function.
    let task = server.requests()[0].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        task.contains("web search never works")
            && task.contains("_dispatch")
            && task.contains("KeyError"),
        "{task}"
    );
    let shown = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        shown.contains("tool[\"srv\"]"),
        "show_symbol returned the function: {shown}"
    );
    let report = report(&out.stdout);
    assert_eq!(report["validated"], true, "{report}");
    assert!(
        report["diff"]
            .as_str()
            .unwrap()
            .contains("+        return self.call_mcp(tool[\"server\"], name, args)")
    );
    assert_eq!(report["changed_files"], json!(["gaia_agent.py"]));
    assert_eq!(
        std::fs::read_to_string(pkg.join("gaia_agent.py")).unwrap(),
        template_text("gaia_agent", "gaia_agent.py")
    );
}

/// Issue 17, item 12: `cast optimize DIR` required `--trace`; feedback alone (or a reward)
/// drives it too, with the package's map focused on what the feedback is about.
#[test]
fn regression_optimize_runs_from_feedback_and_a_reward_without_a_trace() {
    if !python_available() {
        skip_test("python3 is not installed");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let pkg = work.path().join("gaia_agent");
    std::fs::create_dir(&pkg).unwrap();
    for file in [
        "README.md",
        "__init__.py",
        "gaia_agent.py",
        "mcp_config.py",
        "selfcheck.py",
    ] {
        let mut text = template_text("gaia_agent", file);
        if file == "gaia_agent.py" {
            text = text.replace(
                "return self.call_mcp(tool[\"server\"], name, args)",
                "return self.call_mcp(tool[\"srv\"], name, args)",
            );
        }
        std::fs::write(pkg.join(file), text).unwrap();
    }
    // Nothing to go on is bad usage, and no model is asked.
    let idle = ScriptedServer::start(vec![]);
    let out = cast_with_model(&idle, home.path())
        .args(["optimize", "--no-stream"])
        .arg(&pkg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--feedback"));
    assert!(idle.requests().is_empty());

    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "o1",
            "Tools are dispatched in _dispatch; fix the key.",
            "search_replace",
            json!({
                "target_file": "gaia_agent.py",
                "diff": "------- SEARCH\n        return self.call_mcp(tool[\"srv\"], name, args)\n=======\n        return self.call_mcp(tool[\"server\"], name, args)\n+++++++ REPLACE\n",
            }),
        ),
        Reply::openai_call(
            "o2",
            "Done.",
            "finish",
            json!({"response": "_dispatch read the MCP server under the wrong key."}),
        ),
    ]);
    let out = cast_with_model(&server, home.path())
        .args([
            "optimize",
            "--json",
            "--no-stream",
            "--feedback",
            "the MCP tool dispatch never reaches the server",
            "--reward",
            "0.25",
        ])
        .arg(&pkg)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let task = server.requests()[0].body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        task.contains("the MCP tool dispatch never reaches the server")
            && task.contains("Reward of the run: 0.25")
            && task.contains("There is no trace of the run")
            && task.contains("gaia_agent.py"),
        "{task}"
    );
    assert_eq!(report(&out.stdout)["validated"], true);
}

/// Issue 17, item 12: `cast map --trace` refused CAST's own session traces
/// (`.cast/traces/ID.jsonl`); the files the session's tools read and edited are what ran.
#[test]
fn regression_map_accepts_a_cast_session_trace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shop")).unwrap();
    std::fs::write(
        dir.path().join("shop/pricing.py"),
        "def price(x):\n    return x\n\n\ndef discount(amount, code):\n    if code == \"SAVE10\":\n        return amount * 0.9\n    return amount\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("shop/other.py"),
        "def other():\n    return 1\n",
    )
    .unwrap();
    let trace = [
        json!({"event": "start", "task": "Accept WELCOME", "root": "/x", "ts": "t"}),
        json!({"event": "tool_call", "id": "c1", "step": 1, "tool": "read_file", "params": {"target_file": "shop/pricing.py", "start_line": 5}}),
        json!({"event": "tool_result", "id": "c1", "step": 1, "tool": "read_file", "status": "ok", "summary": "read"}),
        json!({"event": "tool_call", "id": "c2", "step": 2, "tool": "search_replace", "params": {"target_file": "shop/pricing.py", "diff": "…"}}),
        json!({"event": "tool_result", "id": "c2", "step": 2, "tool": "search_replace", "status": "refused", "summary": "The SEARCH text is not in the file"}),
        json!({"event": "edit", "path": "shop/pricing.py", "step": 3, "diff": "--- a/shop/pricing.py\n+++ b/shop/pricing.py\n@@ -5,4 +5,4 @@\n def discount(amount, code):\n-    if code == \"SAVE10\":\n+    if code in (\"SAVE10\", \"WELCOME\"):\n         return amount * 0.9\n"}),
        json!({"event": "final", "response": "done", "steps": 3}),
    ]
    .iter()
    .map(|v| v.to_string() + "\n")
    .collect::<String>();
    std::fs::create_dir_all(dir.path().join(".cast/traces")).unwrap();
    let trace_file = dir.path().join(".cast/traces/20261123-000000-abcd.jsonl");
    std::fs::write(&trace_file, trace).unwrap();
    let out = crate::support::cast()
        .current_dir(dir.path())
        .args(["map", "--trace"])
        .arg(&trace_file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("1 of 2 files ran"), "{text}");
    assert!(text.contains("pricing.py [ran"), "{text}");
    assert!(
        text.contains("def discount(amount, code)  [ran 2×]"),
        "{text}"
    );
    assert!(
        text.contains("The SEARCH text is not in the file"),
        "{text}"
    );
    assert!(!text.contains("other.py [ran"), "{text}");
}
