//! The agent's own overhead per step: everything but waiting for the model.
//!
//! Method: a scripted OpenAI-compatible server on 127.0.0.1 answers instantly with a
//! `read_file` call, STEPS times, then `finish`. The agent records where each run's wall time
//! went ([`cast_agent::Timings`]): waiting for the model (the HTTP round trip to the local server
//! and parsing its answer), running tools, and the rest — the agent's own work (building each
//! request from the growing history, events, history entries, repeat detection). Reported per
//! step, as the median of RUNS runs. The history grows every step, so later steps cost more;
//! the figure is the average over the whole run.
//!
//! Run: `cargo bench -p cast-agent --bench step_overhead` (STEPS=50, RUNS=5 by default; set
//! `CAST_BENCH_STEPS` / `CAST_BENCH_RUNS` to change them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use cast_agent::llm::{Http, Llm, OpenAi, Provider, RetryPolicy};
use cast_agent::{Agent, AgentConfig, Timings};
use cast_test_support::{Reply, ScriptedServer};
use cast_tools::{Registry, RegistryOptions, ToolContext};
use serde_json::json;

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn one_run(steps: usize) -> Timings {
    let dir = tempfile::tempdir().unwrap();
    let file: String = (1..=200).map(|i| format!("line_{i} = {i}\n")).collect();
    std::fs::write(dir.path().join("app.py"), file).unwrap();
    let mut script: Vec<Reply> = (0..steps)
        .map(|i| {
            Reply::openai_call(
                &format!("c{i}"),
                "Reading.",
                "read_file",
                json!({"target_file": "app.py", "explanation": "x", "start_line": i % 150 + 1, "end_line": i % 150 + 40}),
            )
        })
        .collect();
    script.push(Reply::openai_call(
        "end",
        "Done.",
        "finish",
        json!({"response": "ok"}),
    ));
    let server = ScriptedServer::start(script);
    let agent = Agent {
        llm: Llm {
            provider: Provider::OpenAi(OpenAi {
                base_url: server.base_url(),
                api_key: None,
                model: "scripted".into(),
                stream: false,
            }),
            http: Http::new(Duration::from_secs(10), RetryPolicy::default()).unwrap(),
            text_protocol: false,
        },
        registry: Arc::new(Registry::standard(RegistryOptions::default())),
        ctx: Arc::new(ToolContext::new(dir.path()).unwrap()),
        config: AgentConfig {
            max_steps: steps + 1,
            repeat_limit: usize::MAX,
            ..AgentConfig::default()
        },
        system: "bench".into(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let mut messages = Vec::new();
        agent.run("read", &mut messages, &mut |_| {}).await
    });
    assert_eq!(outcome.steps, steps + 1, "{:?}", outcome.stop);
    outcome.timings
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let steps = env_or("CAST_BENCH_STEPS", 50);
    let runs = env_or("CAST_BENCH_RUNS", 5);
    let per_step = |d: Duration| d.as_secs_f64() * 1e6 / (steps + 1) as f64;
    let all: Vec<Timings> = (0..runs).map(|_| one_run(steps)).collect();
    let col =
        |f: &dyn Fn(&Timings) -> Duration| median(all.iter().map(|t| per_step(f(t))).collect());
    println!(
        "agent step overhead: {steps} read_file steps + finish, median of {runs} runs, µs per step"
    );
    println!("  total            {:>9.1}", col(&|t| t.total));
    println!(
        "  model wait       {:>9.1}   (HTTP round trip to 127.0.0.1 + parsing)",
        col(&|t| t.model)
    );
    println!(
        "  tools            {:>9.1}   (read_file of 40 lines)",
        col(&|t| t.tools)
    );
    println!(
        "  agent overhead   {:>9.1}   (everything else)",
        col(&|t| t.agent())
    );
    println!(
        "  all but model    {:>9.1}",
        col(&|t| t.total.saturating_sub(t.model))
    );
}
