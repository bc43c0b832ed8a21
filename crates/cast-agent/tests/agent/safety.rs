//! Approvals, the test-fix loop and context trimming, against the scripted server.

use std::sync::{Arc, Mutex};

use cast_agent::memory::ContextBudget;
use cast_agent::{ApprovalRequest, Approver, Decision, Event, Stop};
use cast_tools::{Registry, RegistryOptions, ToolContext};
use serde_json::{Value, json};

use crate::{Api, PRICING, ScriptedServer, agent, run, shop, tool_results};
use cast_test_support::{Reply, skip_test};

const TEST_FILE: &str = "import unittest\n\nfrom shop.pricing import apply_discount\n\n\nclass DiscountTest(unittest.TestCase):\n    def test_save10_takes_ten_percent(self):\n        self.assertAlmostEqual(apply_discount(100, \"SAVE10\"), 90)\n\n\nif __name__ == \"__main__\":\n    unittest.main()\n";

/// The shop project with a package marker and a unit test of the discount.
fn shop_with_tests() -> tempfile::TempDir {
    let dir = shop();
    std::fs::write(dir.path().join("shop/__init__.py"), "").unwrap();
    std::fs::write(dir.path().join("test_pricing.py"), TEST_FILE).unwrap();
    dir
}

fn discount_edit(from: &str, to: &str) -> Value {
    json!({
        "target_file": "shop/pricing.py",
        "diff": format!("------- SEARCH\n        return amount * {from}\n=======\n        return amount * {to}\n+++++++ REPLACE\n")
    })
}

fn finish() -> Value {
    json!({"response": "done"})
}

fn python_available() -> bool {
    std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn tests_events(events: &[Event]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Tests { passed, .. } => Some(*passed),
            _ => None,
        })
        .collect()
}

#[test]
fn an_edit_that_breaks_the_tests_is_fixed_on_the_second_attempt() {
    if !python_available() {
        skip_test("python3 is not installed");
        return;
    }
    let dir = shop_with_tests();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "c1",
            "Make SAVE10 generous.",
            "search_replace",
            discount_edit("0.9", "0.8"),
        ),
        Reply::openai_call("c2", "Done.", "finish", finish()),
        Reply::openai_call(
            "c3",
            "The test expects 10%; restore it.",
            "search_replace",
            discount_edit("0.8", "0.9"),
        ),
        Reply::openai_call("c4", "Done now.", "finish", finish()),
    ]);
    let mut agent = agent(&server, dir.path(), Api::OpenAi { stream: false }, 10);
    agent.config.test_cmd = Some("python3 -m unittest -q test_pricing".into());
    let (outcome, events) = run(&agent, "make SAVE10 generous");
    assert_eq!(outcome.stop, Stop::Finished, "{outcome:?}");
    assert_eq!(tests_events(&events), [false, true]);
    let statuses: Vec<&str> = outcome.history.iter().map(|h| h.status.as_str()).collect();
    assert_eq!(statuses, ["ok", "refused", "ok", "ok"]);
    // The model got the failure, with the test output, as the result of its finish call.
    let results = tool_results(&server.requests()[2].body);
    assert_eq!(results[1].0, "c2");
    assert!(
        results[1].1.contains("python3 -m unittest") && results[1].1.contains("AssertionError"),
        "{}",
        results[1].1
    );
    assert!(results[1].1.contains("attempt 2 of 3"), "{}", results[1].1);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap(),
        PRICING
    );
}

#[test]
fn the_fix_loop_gives_up_after_three_failures_and_everything_stays_undoable() {
    if !python_available() {
        skip_test("python3 is not installed");
        return;
    }
    let dir = shop_with_tests();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "c1",
            "Change.",
            "search_replace",
            discount_edit("0.9", "0.8"),
        ),
        Reply::openai_call("c2", "Done.", "finish", finish()),
        Reply::openai_call(
            "c3",
            "Try again.",
            "search_replace",
            discount_edit("0.8", "0.7"),
        ),
        Reply::openai_call("c4", "Done.", "finish", finish()),
        Reply::openai_call(
            "c5",
            "Once more.",
            "search_replace",
            discount_edit("0.7", "0.6"),
        ),
        Reply::openai_call("c6", "Done.", "finish", finish()),
        Reply::openai_call("c7", "Never reached.", "finish", finish()),
    ]);
    let mut agent = agent(&server, dir.path(), Api::OpenAi { stream: false }, 20);
    agent.config.test_cmd = Some("python3 -m unittest -q test_pricing".into());
    let (outcome, events) = run(&agent, "change the discount");
    assert!(
        matches!(outcome.stop, Stop::TestsFailing(_)),
        "{:?}",
        outcome.stop
    );
    assert_eq!(tests_events(&events), [false, false, false]);
    assert_eq!(server.requests().len(), 6, "no model turn after giving up");
    assert!(
        outcome.response.contains("undo journal"),
        "{}",
        outcome.response
    );
    assert!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py"))
            .unwrap()
            .contains("amount * 0.6")
    );
    // Every change is still undoable, newest first.
    let ctx = ToolContext::new(dir.path()).unwrap();
    let registry = Registry::standard(RegistryOptions::default());
    let undone = registry
        .call(&ctx, "undo_edit", json!({"steps": 3}))
        .unwrap();
    assert_eq!(undone.data["undone"], 3, "{}", undone.text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap(),
        PRICING
    );
}

/// Answers from a script and remembers what it was shown.
#[derive(Debug)]
struct ScriptedApprover {
    answers: Mutex<Vec<Decision>>,
    seen: Mutex<Vec<ApprovalRequest>>,
}

impl Approver for ScriptedApprover {
    fn decide(&self, request: &ApprovalRequest) -> Decision {
        self.seen.lock().unwrap().push(request.clone());
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            Decision::Approve
        } else {
            answers.remove(0)
        }
    }
}

#[test]
fn a_denied_approval_changes_nothing_and_is_kept_pending() {
    let dir = shop();
    let server = ScriptedServer::start(vec![
        Reply::openai_call(
            "c1",
            "Cut the discount.",
            "search_replace",
            discount_edit("0.9", "0.95"),
        ),
        Reply::openai_call(
            "c2",
            "Then only document it.",
            "search_replace",
            json!({
                "target_file": "shop/pricing.py",
                "diff": "------- SEARCH\n    \"\"\"Take 10% off with the code SAVE10.\"\"\"\n=======\n    \"\"\"Take 10% off with the code SAVE10 (case-sensitive).\"\"\"\n+++++++ REPLACE\n"
            }),
        ),
        Reply::openai_call("c3", "Done.", "finish", finish()),
    ]);
    let approver = Arc::new(ScriptedApprover {
        answers: Mutex::new(vec![
            Decision::Reject {
                reason: "marketing promised 10%".into(),
            },
            Decision::Approve,
        ]),
        seen: Mutex::new(Vec::new()),
    });
    let mut agent = agent(&server, dir.path(), Api::OpenAi { stream: false }, 10);
    agent.config.approver = Some(approver.clone());
    let (outcome, _) = run(&agent, "reduce the discount");
    assert_eq!(outcome.stop, Stop::Finished);
    let statuses: Vec<&str> = outcome.history.iter().map(|h| h.status.as_str()).collect();
    assert_eq!(statuses, ["refused", "ok", "ok"]);
    let seen = approver.seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "finish needs no approval");
    assert!(
        seen[0].preview.contains("+        return amount * 0.95"),
        "the diff was shown: {}",
        seen[0].preview
    );
    // The rejected edit is pending, not applied, and its reason reached the model.
    assert_eq!(outcome.pending.len(), 1);
    assert_eq!(outcome.pending[0].reason, "marketing promised 10%");
    let text = std::fs::read_to_string(dir.path().join("shop/pricing.py")).unwrap();
    assert!(
        text.contains("amount * 0.9\n") && text.contains("(case-sensitive)"),
        "{text}"
    );
    let results = tool_results(&server.requests()[1].body);
    assert!(
        results[0].1.contains("did not approve") && results[0].1.contains("marketing promised 10%"),
        "{}",
        results[0].1
    );
    // Only the approved edit is in the journal; the pending one can still be applied later.
    let history = cast_tools::cast_coder::Coder::new(dir.path())
        .history()
        .unwrap();
    assert_eq!(history.len(), 1);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (applied, _) = runtime.block_on(agent.apply_pending(&outcome.pending[0]));
    assert!(applied);
    assert!(
        std::fs::read_to_string(dir.path().join("shop/pricing.py"))
            .unwrap()
            .contains("amount * 0.95")
    );
}

#[test]
fn a_long_session_is_trimmed_to_the_context_budget() {
    let dir = shop();
    let big: String = (1..=150)
        .map(|i| format!("VALUE_{i:03} = \"{}\"\n", "x".repeat(40)))
        .collect();
    std::fs::write(dir.path().join("big.py"), big).unwrap();
    let mut script: Vec<Reply> = (0..14)
        .map(|i| {
            Reply::openai_call(
                &format!("r{i}"),
                "Reading more.",
                "read_file",
                json!({"target_file": "big.py", "explanation": "x", "start_line": i * 10 + 1, "end_line": i * 10 + 60}),
            )
        })
        .collect();
    script.push(Reply::openai_call("end", "Done.", "finish", finish()));
    let server = ScriptedServer::start(script);
    let mut agent = agent(&server, dir.path(), Api::OpenAi { stream: false }, 20);
    let budget = 4000;
    agent.config.context = ContextBudget {
        max_tokens: budget,
        keep_steps: 3,
        max_result_chars: 50_000,
    };
    let (outcome, events) = run(&agent, "read big.py");
    assert_eq!(outcome.stop, Stop::Finished);
    let requests = server.requests();
    let mut largest = 0;
    for r in &requests {
        let system = r.body["messages"][0]["content"].as_str().unwrap();
        let messages: usize = r.body["messages"].as_array().unwrap()[1..]
            .iter()
            .map(|m| {
                let content = m["content"].as_str().unwrap_or("").len().div_ceil(4);
                let calls: usize = m["tool_calls"].as_array().map_or(0, |c| {
                    c.iter()
                        .map(|c| {
                            c["function"]["arguments"]
                                .as_str()
                                .unwrap_or("")
                                .len()
                                .div_ceil(4)
                                + 8
                        })
                        .sum()
                });
                content + calls + 4
            })
            .sum();
        let tokens = system.len().div_ceil(4) + messages;
        largest = largest.max(tokens);
        assert!(
            tokens <= budget,
            "a request of ~{tokens} tokens exceeds the budget of {budget}"
        );
        // The task is always kept.
        assert_eq!(r.body["messages"][1]["content"], "read big.py");
    }
    // Without trimming the last request would have been far over the budget.
    let untrimmed: usize = outcome.history.iter().map(|h| h.result.len() / 4).sum();
    assert!(
        untrimmed > 2 * budget,
        "the test must overflow the budget: {untrimmed}"
    );
    let last = serde_json::to_string(&requests.last().unwrap().body).unwrap();
    assert!(
        last.contains("dropped to fit the context budget"),
        "trimming left a note"
    );
    let prompt_sizes: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Model { prompt_tokens, .. } => Some(*prompt_tokens),
            _ => None,
        })
        .collect();
    assert!(
        prompt_sizes.iter().all(|&t| t <= budget),
        "{prompt_sizes:?} (largest request seen: {largest})"
    );
}
