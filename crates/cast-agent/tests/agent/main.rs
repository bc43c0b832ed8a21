//! Whole agent runs against a scripted model server on 127.0.0.1.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use cast_agent::llm::{Anthropic, Http, Llm, OpenAi, Provider, RetryPolicy};
use cast_agent::{Agent, AgentConfig, Event, RunOutcome, Stop};
use cast_test_support::{Reply, ScriptedServer};
use cast_tools::{Registry, RegistryOptions, ToolContext};
use serde_json::{Value, json};

mod safety;

enum Api {
    OpenAi { stream: bool },
    Anthropic,
    Text,
}

fn http() -> Http {
    Http::new(
        Duration::from_secs(10),
        RetryPolicy {
            attempts: 3,
            first_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(50),
        },
    )
    .unwrap()
}

fn agent(server: &ScriptedServer, root: &std::path::Path, api: Api, max_steps: usize) -> Agent {
    let provider = match api {
        Api::OpenAi { stream } => Provider::OpenAi(OpenAi {
            base_url: server.base_url(),
            api_key: Some("test-key".into()),
            model: "scripted".into(),
            stream,
        }),
        Api::Text => Provider::OpenAi(OpenAi {
            base_url: server.base_url(),
            api_key: None,
            model: "scripted".into(),
            stream: false,
        }),
        Api::Anthropic => Provider::Anthropic(Anthropic {
            base_url: server.root_url(),
            api_key: Some("test-key".into()),
            model: "scripted".into(),
        }),
    };
    let llm = Llm {
        provider,
        http: http(),
        text_protocol: matches!(api, Api::Text),
    };
    let registry = Registry::standard(RegistryOptions { commands: true });
    let mut ctx = ToolContext::new(root).unwrap();
    // These tests are about the loop; commands run unconfined here because a test binary is
    // no sandbox helper. The sandbox is tested through `cast` in tests/e2e/sandbox.rs.
    ctx.sandbox = cast_tools::cast_sandbox::Sandbox::danger_full_access();
    Agent {
        llm,
        registry: Arc::new(registry),
        ctx: Arc::new(ctx),
        config: AgentConfig {
            max_steps,
            ..AgentConfig::default()
        },
        system: "You are a test agent.".into(),
    }
}

fn run(agent: &Agent, task: &str) -> (RunOutcome, Vec<Event>) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut events = Vec::new();
    let outcome = runtime.block_on(async {
        let mut messages = Vec::new();
        agent
            .run(task, &mut messages, &mut |e| events.push(e.clone()))
            .await
    });
    (outcome, events)
}

fn event_names(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// The tool results the model received in a request (OpenAI shape): (tool_call_id, content).
fn tool_results(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_command_then_finish_carries_history_and_ties_results_to_calls() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hi there\n").unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "call_1",
            "I check the file.",
            "run_command",
            json!({"command": "cat hello.txt"}),
        ),
        Reply::openai_call(
            "call_2",
            "Done.",
            "finish",
            json!({"response": "The file says hi there."}),
        ),
    ]);
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 10),
        "What does hello.txt say?",
    );
    assert_eq!(outcome.stop, Stop::Finished);
    assert_eq!(outcome.response, "The file says hi there.");
    assert_eq!(outcome.history.len(), 2);
    assert_eq!(outcome.history[0].tool, "run_command");
    assert_eq!(outcome.history[0].reason, "I check the file.");
    assert_eq!(
        outcome.history[0].params,
        json!({"command": "cat hello.txt"})
    );
    assert!(outcome.history[0].result.contains("hi there"));
    assert!(!outcome.history[0].timestamp.is_empty());
    assert_eq!(
        event_names(&events),
        [
            "start",
            "model",
            "thought",
            "tool_call",
            "tool_result",
            "model",
            "thought",
            "tool_call",
            "tool_result",
            "final"
        ]
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.path, "/v1/chat/completions");
    assert_eq!(first.header("authorization"), Some("Bearer test-key"));
    let tools: Vec<&str> = first.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    for name in [
        "read_file",
        "grep_search",
        "edit_file",
        "finish",
        "run_command",
    ] {
        assert!(tools.contains(&name), "{name} missing from {tools:?}");
    }
    let command = first.body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "run_command")
        .unwrap();
    assert_eq!(
        command["function"]["parameters"]["required"],
        json!(["command"])
    );
    assert_eq!(first.body["messages"][0]["role"], "system");
    assert_eq!(
        first.body["messages"][1]["content"],
        "What does hello.txt say?"
    );
    // the second request carries the whole history, the result tied to its call id
    let second = &requests[1].body;
    assert_eq!(second["messages"][2]["tool_calls"][0]["id"], "call_1");
    let results = tool_results(second);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].0, "call_1");
    assert!(results[0].1.contains("hi there"), "{}", results[0].1);
}

#[test]
fn streamed_answers_are_assembled() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_stream_call(
            "c1",
            "Running it.",
            "run_command",
            json!({"command": "echo streamed"}),
        ),
        Reply::openai_stream_call("c2", "Done.", "finish", json!({"response": "ok"})),
    ]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: true }, 10),
        "echo",
    );
    assert_eq!(outcome.stop, Stop::Finished);
    assert!(outcome.history[0].result.contains("streamed"));
    assert_eq!(server.requests()[0].body["stream"], true);
    assert_eq!(outcome.usage.input_tokens, 200);
}

#[test]
fn malformed_arguments_and_unknown_tools_go_back_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::openai_raw_call(
            "bad_json",
            "Trying.",
            "run_command",
            "{\"command\": \"echo hi\"",
        ),
        Reply::openai_call(
            "unknown",
            "Trying another.",
            "teleport",
            json!({"to": "mars"}),
        ),
        Reply::openai_call(
            "bad_field",
            "Trying again.",
            "run_command",
            json!({"cmd": "echo hi"}),
        ),
        Reply::openai_call("good", "Done.", "finish", json!({"response": "recovered"})),
    ]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 10),
        "go",
    );
    assert_eq!(outcome.stop, Stop::Finished);
    assert_eq!(outcome.response, "recovered");
    let statuses: Vec<_> = outcome.history.iter().map(|h| h.status.as_str()).collect();
    assert_eq!(statuses, ["error", "error", "error", "ok"]);
    let last = &server.requests()[3].body;
    let results = tool_results(last);
    assert_eq!(results[0].0, "bad_json");
    assert!(results[0].1.contains("not valid JSON"), "{}", results[0].1);
    assert!(
        results[1].1.contains("unknown tool \"teleport\"") && results[1].1.contains("run_command"),
        "{}",
        results[1].1
    );
    assert!(
        results[2].1.contains("unknown field `cmd`") && results[2].1.contains("JSON Schema"),
        "{}",
        results[2].1
    );
}

#[test]
fn a_server_error_is_retried_then_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![
        Reply::error(500, "overloaded"),
        Reply::error(429, "slow down"),
        Reply::openai_call(
            "c1",
            "Done.",
            "finish",
            json!({"response": "after retries"}),
        ),
    ]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 5),
        "go",
    );
    assert_eq!(outcome.stop, Stop::Finished);
    assert_eq!(outcome.response, "after retries");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn the_step_limit_ends_a_run_with_an_explanation() {
    let dir = tempfile::tempdir().unwrap();
    let replies = (0..5)
        .map(|i| {
            Reply::openai_call(
                &format!("c{i}"),
                "Again.",
                "run_command",
                json!({"command": format!("echo {i}")}),
            )
        })
        .collect();
    let server = ScriptedServer::start(replies);
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 3),
        "loop",
    );
    assert_eq!(outcome.stop, Stop::StepLimit(3));
    assert_eq!(outcome.steps, 3);
    assert_eq!(server.requests().len(), 3);
    assert!(
        outcome.response.contains("Stopped after 3 steps"),
        "{}",
        outcome.response
    );
    assert!(outcome.response.contains("No files were changed"));
    assert!(matches!(events.last(), Some(Event::Final { .. })));
}

#[test]
fn the_same_call_three_times_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let replies = (0..5)
        .map(|i| {
            Reply::openai_call(
                &format!("c{i}"),
                "Again.",
                "run_command",
                json!({"command": "echo same"}),
            )
        })
        .collect();
    let server = ScriptedServer::start(replies);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 10),
        "loop",
    );
    assert!(
        matches!(&outcome.stop, Stop::Repeated(what) if what.contains("run_command")),
        "{:?}",
        outcome.stop
    );
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn a_plain_text_answer_is_the_final_answer() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![Reply::openai_text("Nothing to change.")]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 5),
        "anything?",
    );
    assert_eq!(
        (outcome.stop, outcome.response.as_str()),
        (Stop::Finished, "Nothing to change.")
    );
}

#[test]
fn the_same_run_through_anthropic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hi there\n").unwrap();
    let server = ScriptedServer::start(vec![
        Reply::anthropic_call(
            "toolu_1",
            "I check the file.",
            "run_command",
            json!({"command": "cat hello.txt"}),
        ),
        Reply::anthropic_call(
            "toolu_2",
            "Done.",
            "finish",
            json!({"response": "It says hi there."}),
        ),
    ]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::Anthropic, 10),
        "What does hello.txt say?",
    );
    assert_eq!(outcome.stop, Stop::Finished);
    assert_eq!(outcome.response, "It says hi there.");
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some("test-key"));
    assert_eq!(requests[0].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(requests[0].body["system"], "You are a test agent.");
    let command = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "run_command")
        .unwrap();
    assert_eq!(command["input_schema"]["required"], json!(["command"]));
    let second = &requests[1].body["messages"];
    assert_eq!(second[1]["content"][1]["type"], "tool_use");
    assert_eq!(second[1]["content"][1]["id"], "toolu_1");
    assert_eq!(second[2]["content"][0]["type"], "tool_result");
    assert_eq!(second[2]["content"][0]["tool_use_id"], "toolu_1");
    assert!(
        second[2]["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("hi there")
    );
}

#[test]
fn the_same_run_through_the_text_protocol() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hello.txt"), "hi there\n").unwrap();
    let server = ScriptedServer::start(vec![
        Reply::text_call(
            "I check the file.",
            "run_command",
            json!({"command": "cat hello.txt"}),
        ),
        Reply::openai_text("Broken: <tool_call>{\"name\": \"finish\", </tool_call>"),
        Reply::text_call("Done.", "finish", json!({"response": "It says hi there."})),
    ]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::Text, 10),
        "What does hello.txt say?",
    );
    assert_eq!(outcome.stop, Stop::Finished);
    assert_eq!(outcome.response, "It says hi there.");
    assert_eq!(outcome.history[0].reason, "I check the file.");
    assert_eq!(outcome.history[1].status, "error");
    let requests = server.requests();
    assert!(
        requests[0].body.get("tools").is_none(),
        "no native tools in text mode"
    );
    let system = requests[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("<tool_call>") && system.contains("## run_command"));
    let messages = requests[1].body["messages"].as_array().unwrap();
    let result = messages.last().unwrap();
    assert_eq!(result["role"], "user");
    let text = result["content"].as_str().unwrap();
    assert!(
        text.starts_with("<tool_result tool=\"run_command\"") && text.contains("hi there"),
        "{text}"
    );
    let third = requests[2].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(third.contains("could not be read"), "{third}");
}

#[test]
fn an_unreachable_model_ends_the_run_with_a_clear_reason() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![]);
    let mut agent = agent(&server, dir.path(), Api::OpenAi { stream: false }, 5);
    // a port nothing listens on
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    agent.llm.provider = Provider::OpenAi(OpenAi {
        base_url: format!("http://127.0.0.1:{port}/v1"),
        api_key: None,
        model: "m".into(),
        stream: false,
    });
    let (outcome, _) = run(&agent, "go");
    let Stop::ModelError(message) = &outcome.stop else {
        panic!("{:?}", outcome.stop)
    };
    assert!(
        message.contains("cannot reach") && message.contains("Is the server running"),
        "{message}"
    );
}

#[test]
fn a_wrong_key_and_an_unknown_model_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let server = ScriptedServer::start(vec![Reply::error(401, "Incorrect API key provided")]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 5),
        "go",
    );
    let Stop::ModelError(message) = &outcome.stop else {
        panic!()
    };
    assert!(
        message.contains("refused the API key") && message.contains("OPENAI_API_KEY"),
        "{message}"
    );
    assert_eq!(server.requests().len(), 1, "a wrong key is not retried");

    let server = ScriptedServer::start(vec![Reply::error(404, "The model `gpt-9` does not exist")]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 5),
        "go",
    );
    let Stop::ModelError(message) = &outcome.stop else {
        panic!()
    };
    assert!(
        message.contains("is not known") && message.contains("--model"),
        "{message}"
    );
}

// ---- Whole runs with the real tools: explore, edit, recover from a refused edit. ----

/// One scripted model turn: call id, the model's reasoning, the tool and its arguments.
type Turn = (&'static str, &'static str, &'static str, Value);

fn scripted(api: &Api, turns: Vec<Turn>) -> Vec<Reply> {
    turns
        .into_iter()
        .map(|(id, reason, name, args)| match api {
            Api::OpenAi { stream: false } => Reply::openai_call(id, reason, name, args),
            Api::OpenAi { stream: true } => Reply::openai_stream_call(id, reason, name, args),
            Api::Anthropic => Reply::anthropic_call(id, reason, name, args),
            Api::Text => Reply::text_call(reason, name, args),
        })
        .collect()
}

const PRICING: &str = "\"\"\"Prices and discounts.\"\"\"\nPRICES = {\"apple\": 0.5, \"pear\": 0.75}\n\n\ndef price_of(sku):\n    \"\"\"The unit price of a product.\"\"\"\n    return PRICES[sku]\n\n\ndef apply_discount(amount, code):\n    \"\"\"Take 10% off with the code SAVE10.\"\"\"\n    if code == \"SAVE10\":\n        return amount * 0.9\n    return amount\n";

fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("shop")).unwrap();
    std::fs::write(dir.path().join("shop/pricing.py"), PRICING).unwrap();
    std::fs::write(
        dir.path().join("shop/cart.py"),
        "from .pricing import price_of\n\n\ndef total(items):\n    return sum(price_of(s) * q for s, q in items)\n",
    )
    .unwrap();
    dir
}

fn explore_and_edit_turns() -> Vec<Turn> {
    vec![
        (
            "c1",
            "I look at the project.",
            "list_dir",
            json!({"relative_workspace_path": ".", "explanation": "orient"}),
        ),
        (
            "c2",
            "Where are discounts?",
            "grep_search",
            json!({"query": "def apply_\\w+", "explanation": "find discounts"}),
        ),
        (
            "c3",
            "Read it.",
            "read_file",
            json!({"target_file": "shop/pricing.py", "explanation": "see the code", "start_line": 10, "end_line": 14}),
        ),
        (
            "c4",
            "Add WELCOME with a lazy edit.",
            "edit_file",
            json!({
                "target_file": "shop/pricing.py",
                "instructions": "I accept the WELCOME code too",
                "code_edit": "# ... existing code ...\n    \"\"\"Take 10% off with the code SAVE10.\"\"\"\n    if code in (\"SAVE10\", \"WELCOME\"):\n        return amount * 0.9\n    return amount\n"
            }),
        ),
        (
            "c5",
            "Now make unknown products cost 0.",
            "search_replace",
            json!({
                "target_file": "shop/pricing.py",
                "diff": "------- SEARCH\n    return PRICES[sku_name]\n=======\n    return PRICES.get(sku, 0)\n+++++++ REPLACE\n"
            }),
        ),
        (
            "c6",
            "My SEARCH was wrong; copy the line as it is.",
            "search_replace",
            json!({
                "target_file": "shop/pricing.py",
                "diff": "------- SEARCH\n    return PRICES[sku]\n=======\n    return PRICES.get(sku, 0)\n+++++++ REPLACE\n"
            }),
        ),
        (
            "c7",
            "Done.",
            "finish",
            json!({"response": "WELCOME is accepted and unknown products cost 0."}),
        ),
    ]
}

const EXPECTED_PRICING: &str = "\"\"\"Prices and discounts.\"\"\"\nPRICES = {\"apple\": 0.5, \"pear\": 0.75}\n\n\ndef price_of(sku):\n    \"\"\"The unit price of a product.\"\"\"\n    return PRICES.get(sku, 0)\n\n\ndef apply_discount(amount, code):\n    \"\"\"Take 10% off with the code SAVE10.\"\"\"\n    if code in (\"SAVE10\", \"WELCOME\"):\n        return amount * 0.9\n    return amount\n";

/// The checks every provider's run must pass: the files, the history, the events.
fn check_explore_and_edit(dir: &std::path::Path, outcome: &RunOutcome, events: &[Event]) {
    assert_eq!(outcome.stop, Stop::Finished, "{outcome:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("shop/pricing.py")).unwrap(),
        EXPECTED_PRICING
    );
    let tools: Vec<&str> = outcome.history.iter().map(|h| h.tool.as_str()).collect();
    assert_eq!(
        tools,
        [
            "list_dir",
            "grep_search",
            "read_file",
            "edit_file",
            "search_replace",
            "search_replace",
            "finish"
        ]
    );
    let statuses: Vec<&str> = outcome.history.iter().map(|h| h.status.as_str()).collect();
    assert_eq!(statuses, ["ok", "ok", "ok", "ok", "refused", "ok", "ok"]);
    assert!(
        outcome.history[0].result.contains("pricing.py"),
        "{}",
        outcome.history[0].result
    );
    assert!(
        outcome.history[1].result.contains("10:def apply_discount"),
        "{}",
        outcome.history[1].result
    );
    assert!(
        outcome.history[2]
            .result
            .contains("12 |     if code == \"SAVE10\":"),
        "{}",
        outcome.history[2].result
    );
    // The refusal tells the model what it needs: the file is unchanged and the closest line.
    let refusal = &outcome.history[4].result;
    assert!(
        refusal.contains("unchanged") && refusal.contains("return PRICES[sku]"),
        "{refusal}"
    );
    assert_eq!(outcome.changed_files, ["shop/pricing.py"]);
    let edits: Vec<Value> = events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .filter(|e| e["event"] == "edit")
        .collect();
    assert_eq!(edits.len(), 2, "one edit event per applied edit");
    assert!(
        edits[0]["diff"]
            .as_str()
            .unwrap()
            .contains("+    if code in (\"SAVE10\", \"WELCOME\"):"),
        "{:?}",
        edits[0]
    );
}

#[test]
fn explore_edit_and_recover_through_openai() {
    let dir = shop();
    let server = ScriptedServer::start(scripted(
        &Api::OpenAi { stream: false },
        explore_and_edit_turns(),
    ));
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 20),
        "Accept the WELCOME code and price unknown products at 0.",
    );
    check_explore_and_edit(dir.path(), &outcome, &events);
    let requests = server.requests();
    assert_eq!(requests.len(), 7);
    // Every request offers the tools; each result is tied to its call id; history grows.
    for (i, r) in requests.iter().enumerate() {
        assert!(r.body["tools"].as_array().unwrap().len() >= 16);
        let results = tool_results(&r.body);
        assert_eq!(results.len(), i);
        for (j, (id, _)) in results.iter().enumerate() {
            assert_eq!(id, &format!("c{}", j + 1));
        }
    }
    let last = tool_results(&requests[6].body);
    assert!(
        last[4].1.contains("unchanged"),
        "the refusal reached the model: {}",
        last[4].1
    );
}

#[test]
fn explore_edit_and_recover_through_openai_streaming() {
    let dir = shop();
    let server = ScriptedServer::start(scripted(
        &Api::OpenAi { stream: true },
        explore_and_edit_turns(),
    ));
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: true }, 20),
        "Accept the WELCOME code and price unknown products at 0.",
    );
    check_explore_and_edit(dir.path(), &outcome, &events);
}

#[test]
fn explore_edit_and_recover_through_anthropic() {
    let dir = shop();
    let server = ScriptedServer::start(scripted(&Api::Anthropic, explore_and_edit_turns()));
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::Anthropic, 20),
        "Accept the WELCOME code and price unknown products at 0.",
    );
    check_explore_and_edit(dir.path(), &outcome, &events);
    let last = &server.requests()[6].body["messages"];
    let results: Vec<&Value> = last
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|c| c["type"] == "tool_result")
        .collect();
    assert_eq!(results.len(), 6);
    assert_eq!(results[4]["tool_use_id"], "c5");
}

#[test]
fn explore_edit_and_recover_through_the_text_protocol() {
    let dir = shop();
    let server = ScriptedServer::start(scripted(&Api::Text, explore_and_edit_turns()));
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::Text, 20),
        "Accept the WELCOME code and price unknown products at 0.",
    );
    check_explore_and_edit(dir.path(), &outcome, &events);
}

#[test]
fn file_edit_replies_in_the_text_protocol_edit_several_files() {
    let dir = shop();
    let reply = "I change both files.\n<file-edit filePath=\"shop/pricing.py\">\n------- SEARCH\n    return PRICES[sku]\n=======\n    return PRICES.get(sku, 0)\n+++++++ REPLACE\n</file-edit>\n<file-edit filePath=\"shop/cart.py\">\n------- SEARCH\ndef total(items):\n=======\ndef total(items):\n    \"\"\"The price of all items.\"\"\"\n+++++++ REPLACE\n</file-edit>\n";
    let server = ScriptedServer::start(vec![
        Reply::openai_text(reply),
        Reply::text_call("Done.", "finish", json!({"response": "both edited"})),
    ]);
    let (outcome, _) = run(&agent(&server, dir.path(), Api::Text, 5), "edit");
    assert_eq!(outcome.stop, Stop::Finished, "{outcome:?}");
    assert_eq!(outcome.history[0].tool, "file_edits");
    assert_eq!(
        outcome.history[0].status, "ok",
        "{}",
        outcome.history[0].result
    );
    assert!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py"))
            .unwrap()
            .contains("PRICES.get(sku, 0)")
    );
    assert!(
        std::fs::read_to_string(dir.path().join("shop/cart.py"))
            .unwrap()
            .contains("The price of all items")
    );
}

#[test]
fn a_sketch_the_merge_refuses_is_placed_by_the_edit_sub_agent() {
    let dir = shop();
    let sketch = "# ... existing code ...\ndef price_of(sku, default=0):\n    return PRICES.get(sku, default)\n# ... existing code ...\n";
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "e1",
            "Give price_of a default.",
            "edit_file",
            json!({"target_file": "shop/pricing.py", "instructions": "I give price_of a default", "code_edit": sketch}),
        ),
        // The sub-agent's own request: the model answers with line edits.
        Reply::openai_text(
            "```json\n[{\"start_line\": 5, \"end_line\": 7, \"replacement\": \"def price_of(sku, default=0):\\n    \\\"\\\"\\\"The unit price of a product.\\\"\\\"\\\"\\n    return PRICES.get(sku, default)\\n\"}]\n```",
        ),
        Reply::openai_call(
            "e2",
            "Done.",
            "finish",
            json!({"response": "price_of has a default"}),
        ),
    ]);
    let (outcome, events) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 5),
        "Give price_of a default.",
    );
    assert_eq!(outcome.stop, Stop::Finished, "{outcome:?}");
    let entry = &outcome.history[0];
    assert_eq!(
        (entry.tool.as_str(), entry.status.as_str()),
        ("edit_file", "ok"),
        "{}",
        entry.result
    );
    assert!(
        entry.result.contains("edit sub-agent placed it"),
        "{}",
        entry.result
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap(),
        PRICING.replace(
            "def price_of(sku):\n    \"\"\"The unit price of a product.\"\"\"\n    return PRICES[sku]\n",
            "def price_of(sku, default=0):\n    \"\"\"The unit price of a product.\"\"\"\n    return PRICES.get(sku, default)\n"
        )
    );
    assert!(
        events
            .iter()
            .any(|e| serde_json::to_value(e).unwrap()["event"] == "edit")
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let sub = &requests[1].body;
    assert!(sub.get("tools").is_none() || sub["tools"].as_array().unwrap().is_empty());
    let asked = sub["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap();
    assert!(
        asked.contains("7 |     return PRICES[sku]") && asked.contains("I give price_of a default"),
        "{asked}"
    );
    // The main model saw one result for its call, tied to its id.
    assert_eq!(tool_results(&requests[2].body)[0].0, "e1");
}

#[test]
fn an_unusable_sub_agent_answer_keeps_the_refusal_and_the_file() {
    let dir = shop();
    let sketch =
        "# ... existing code ...\nthis context is nowhere\nx = 1\n# ... existing code ...\n";
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "e1",
            "Edit.",
            "edit_file",
            json!({"target_file": "shop/pricing.py", "instructions": "x", "code_edit": sketch}),
        ),
        Reply::openai_text("I am not sure where this goes."),
        Reply::openai_call("e2", "Done.", "finish", json!({"response": "gave up"})),
    ]);
    let (outcome, _) = run(
        &agent(&server, dir.path(), Api::OpenAi { stream: false }, 5),
        "edit",
    );
    assert_eq!(outcome.history[0].status, "refused");
    assert!(
        outcome.history[0]
            .result
            .contains("sub-agent's answer could not be used"),
        "{}",
        outcome.history[0].result
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap(),
        PRICING
    );
}
