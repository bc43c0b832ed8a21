//! `cast text2agent` and `cast optimize`: the two skills, presets of the agent loop
//! (`cast_agent::skills`), with validation after every attempt and a report with the diff.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::json;

use crate::run::ModelArgs;
use crate::{Exit, Out};
use cast_agent::agent::{AgentConfig, Event, Stop};
use cast_agent::skills::{self, Skill, templates};

/// Build a new agent from a template and a request (the text2agent skill).
///
/// CAST copies the template into OUT (the new agent's package folder, named like a Python
/// package), then its agent renames and re-prompts it to
/// fit your request — class, AGENT_NAME, SYSTEM_PROMPT, TOOLS, mcp_config.py, README — reading
/// the template's map (L1) and skeletons (L2) first. The result is validated (Python compiles,
/// the package's self-check passes); failures go back to the model, at most 3 times.
///
/// Exit status: 0 when the agent validated, 1 when it did not, 2 on bad usage or no model.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast text2agent --template gaia_agent --prompt \"a travel planner that finds flights and hotels\" --out agents/travel_agent\n  cast text2agent --template ./my_template --prompt \"…\" --out legal_qa_agent --json"
)]
pub struct Text2AgentArgs {
    /// A built-in template (gaia_agent, ppt_agent) or a template folder (one *_agent.py,
    /// mcp_config.py, optionally selfcheck.py and README.md).
    #[arg(long, value_name = "NAME|DIR")]
    template: String,
    /// What the new agent should do.
    #[arg(long, value_name = "TEXT")]
    prompt: String,
    /// The new agent's package folder (must not exist or be empty; its name is the package name).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    #[command(flatten)]
    run: SkillRunArgs,
}

/// Improve an agent from how it ran (the optimize skill).
///
/// The trace (a Python traceback, a pytest log, the JSON-lines execution log, or a CAST session
/// trace `.cast/traces/ID.jsonl`) is mapped onto the agent's code as an L1 heat map (executed
/// files and functions, errors at their lines); without a trace, the feedback and/or the reward
/// drive the run and the map is focused on what the feedback talks about. The model reads the
/// code, fixes it, and the package is validated (at most 3 repair rounds). The report says what
/// changed and why, with the diff. At least one of --trace, --feedback and --reward is needed.
///
/// Exit status: 0 when the agent validated, 1 when it did not, 2 on bad usage or no model.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast optimize agents/travel_agent --trace run.log --feedback \"it never books the hotel\"\n  pytest agents/ 2>&1 | tee log.txt; cast optimize agents/travel_agent --trace log.txt\n  cast optimize agents/travel_agent --feedback \"answers are too long\" --reward 0.3"
)]
pub struct OptimizeArgs {
    /// The agent's package folder.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The execution trace: a traceback, a pytest log, JSON-lines call events, or a CAST
    /// session trace.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// What went wrong, or what should be better (free text).
    #[arg(long, value_name = "TEXT", default_value = "")]
    feedback: String,
    /// The score the run got (any scale; say the scale in --feedback, e.g. "0 to 1").
    #[arg(long, value_name = "NUMBER", allow_negative_numbers = true)]
    reward: Option<f64>,
    #[command(flatten)]
    run: SkillRunArgs,
}

/// The flags both skills share: the model, the step budget and the output form.
#[derive(Debug, clap::Args)]
struct SkillRunArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// Model turns before the run is stopped.
    #[arg(long, value_name = "N", default_value_t = 30)]
    max_steps: usize,
    /// One JSON event per line, then a `report` event.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    sandbox: crate::sandbox::SandboxArgs,
}

pub fn text2agent(args: Text2AgentArgs, out: &mut Out) -> anyhow::Result<Exit> {
    let package = args
        .out
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_owned();
    if !skills::is_identifier(&package) {
        bail!(
            "--out {}: the folder name is the package name and must be a Python identifier (letters, digits, _), e.g. travel_agent",
            args.out.display()
        );
    }
    if args.out.exists()
        && std::fs::read_dir(&args.out)
            .with_context(|| format!("cannot read {}", args.out.display()))?
            .next()
            .is_some()
    {
        bail!(
            "--out {} exists and is not empty; choose a new folder (nothing was written)",
            args.out.display()
        );
    }
    let files = template_files(&args.template)?;
    let template_module = files
        .iter()
        .map(|(p, _)| p.as_str())
        .filter(|p| !p.contains('/') && p.ends_with("_agent.py"))
        .collect::<Vec<_>>();
    let [template_module] = template_module[..] else {
        bail!(
            "template {}: expected exactly one *_agent.py module, found {template_module:?}",
            args.template
        );
    };
    if !files.iter().any(|(p, _)| p == "mcp_config.py") {
        bail!("template {}: no mcp_config.py", args.template);
    }
    let module = if package.ends_with("_agent") {
        package.clone()
    } else {
        format!("{package}_agent")
    };
    let template_name = template_module.trim_end_matches(".py").to_owned();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    for (rel, text) in &files {
        let rel = if rel == template_module {
            format!("{module}.py")
        } else {
            rel.clone()
        };
        let path = args.out.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    let root = args.out.canonicalize()?;
    let validation = skills::validation_command(&root);
    let task =
        skills::text2agent::task(&args.prompt, &package, &module, &template_name, &validation);
    run_skill(&skills::text2agent::SKILL, &root, &task, &args.run, out)
}

pub fn optimize(args: OptimizeArgs, out: &mut Out) -> anyhow::Result<Exit> {
    if !args.dir.is_dir() {
        bail!(
            "{}: no such folder; give the agent's package folder",
            args.dir.display()
        );
    }
    if args.trace.is_none() && args.feedback.trim().is_empty() && args.reward.is_none() {
        bail!(
            "nothing to optimize from: give --trace FILE (how the agent ran), --feedback TEXT \
             (what should be better) and/or --reward NUMBER"
        );
    }
    if args.reward.is_some_and(|r| !r.is_finite()) {
        bail!("--reward must be a finite number");
    }
    let root = args.dir.canonicalize()?;
    let ctx = cast_tools::ToolContext::new(&root)?;
    let registry = cast_tools::Registry::standard(cast_tools::RegistryOptions::default());
    let evidence = match &args.trace {
        Some(path) => {
            let trace = std::fs::read(path)
                .with_context(|| format!("cannot read the trace {}", path.display()))?;
            let mut trace = String::from_utf8_lossy(&trace).into_owned();
            if trace.trim().is_empty() {
                bail!("the trace {} is empty", path.display());
            }
            if !trace.contains('\n') {
                trace.push('\n'); // one line is still trace text, not a path
            }
            let heat = registry
                .call(
                    &ctx,
                    "analyze_repository",
                    json!({"trace": trace, "budget": 1500}),
                )
                .map(|o| o.text)
                .unwrap_or_else(|e| {
                    format!(
                        "(the trace could not be mapped: {e})\n{}",
                        cast_tools::render::clip(&trace, 4000)
                    )
                });
            skills::optimize::Evidence::Trace(heat)
        }
        None => {
            let mut params = json!({"budget": 1500});
            if !args.feedback.trim().is_empty() {
                params["focus"] = json!(args.feedback.trim());
            }
            let map = registry
                .call(&ctx, "analyze_repository", params)
                .map(|o| o.text)
                .map_err(|e| anyhow::anyhow!("cannot map {}: {e}", root.display()))?;
            skills::optimize::Evidence::Map(map)
        }
    };
    let validation = skills::validation_command(&root);
    let task = skills::optimize::task(&args.feedback, args.reward, &evidence, &validation);
    run_skill(&skills::optimize::SKILL, &root, &task, &args.run, out)
}

/// A template's files: a built-in one by name, or a folder's (`__pycache__` and hidden files
/// skipped).
fn template_files(template: &str) -> anyhow::Result<Vec<(String, String)>> {
    if let Some(t) = templates::builtin(template) {
        return Ok(t
            .files
            .iter()
            .map(|(p, s)| ((*p).to_owned(), (*s).to_owned()))
            .collect());
    }
    let dir = Path::new(template);
    if !dir.is_dir() {
        let names: Vec<&str> = templates::TEMPLATES.iter().map(|t| t.name).collect();
        bail!("no template {template:?}: use one of {names:?} or a template folder");
    }
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in
            std::fs::read_dir(&d).with_context(|| format!("cannot read {}", d.display()))?
        {
            let path = entry?.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with('.') || name == "__pycache__" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let text = std::fs::read_to_string(&path)
                    .with_context(|| format!("template file {} is not text", path.display()))?;
                let rel = path
                    .strip_prefix(dir)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((rel, text));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Runs a skill on a package folder: its tools and prompt, validation after every attempt,
/// then a final validation and the report.
fn run_skill(
    skill: &Skill,
    root: &Path,
    task: &str,
    run: &SkillRunArgs,
    out: &mut Out,
) -> anyhow::Result<Exit> {
    let json = run.json;
    let Some(builder) = crate::run::agent_builder(root, &run.model)? else {
        return Ok(Exit::BadUsage);
    };
    let config = AgentConfig {
        max_steps: run.max_steps.max(1),
        test_cmd: Some(skills::validation_command(root)),
        ..AgentConfig::default()
    };
    let sandbox = crate::sandbox::resolve(&run.sandbox, root)?;
    if let Err(err) = sandbox.check() {
        // The validation could never run: refuse before the model is asked.
        crate::output::warn(format_args!("the validation cannot run: {err}"));
        return Ok(Exit::NothingOrRefused);
    }
    let agent = builder
        .sandbox(sandbox.clone())
        .skill(skill)
        .config(config)
        .build();
    let runtime = crate::run::runtime()?;
    let mut printer = crate::run::EventPrinter::new(json);
    let mut diffs: Vec<(String, String)> = Vec::new();
    let outcome = runtime.block_on(async {
        let mut messages = Vec::new();
        agent
            .run(task, &mut messages, &mut |event| {
                if let Event::Edit { path, diff, .. } = event {
                    diffs.push((path.clone(), diff.clone()));
                }
                printer.print(out, event);
            })
            .await
    });
    printer.finish()?;
    let (validated, output) = skills::validate(&sandbox, root);
    let diff: String = diffs
        .iter()
        .map(|(_, d)| d.as_str())
        .collect::<Vec<_>>()
        .join("");
    if json {
        out.json(&json!({
            "event": "report",
            "skill": skill.name,
            "root": root.display().to_string(),
            "validated": validated,
            "validation": output,
            "stop": outcome.stop,
            "changed_files": outcome.changed_files,
            "diff": diff,
            "response": outcome.response,
        }))?;
    } else {
        out.line(&format!(
            "\n## {} report — {}",
            skill.name,
            if validated {
                "validated"
            } else {
                "NOT validated"
            }
        ))?;
        if !validated {
            out.line(output.trim_end())?;
        }
        out.line(&format!(
            "\n## The changes ({} edits)\n{}",
            diffs.len(),
            diff.trim_end()
        ))?;
    }
    Ok(if validated && outcome.stop == Stop::Finished {
        Exit::Success
    } else {
        Exit::NothingOrRefused
    })
}
