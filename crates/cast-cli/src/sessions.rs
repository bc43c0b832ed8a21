//! `cast sessions`: the agent's sessions in a workspace, newest first.

use std::path::PathBuf;

use cast_agent::memory::Session;

use crate::{Exit, Out};

/// List the sessions `cast run` recorded (continue one with `cast run --resume ID`; see its
/// steps with `cast trace ID`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workspace root.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// One JSON object per session.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let sessions = Session::list(&args.root);
    if sessions.is_empty() {
        crate::output::warn("no sessions yet: `cast run TASK` starts one");
        return Ok(Exit::NothingOrRefused);
    }
    for s in &sessions {
        if args.json {
            out.json(s)?;
        } else {
            out.line(&format!(
                "{}  {}  {} task(s), {} step(s), {}  {}",
                s.id,
                s.updated,
                s.tasks,
                s.steps,
                s.last_stop.as_deref().unwrap_or("-"),
                cast_tools::render::clip(&s.first_task, 60)
            ))?;
        }
    }
    Ok(Exit::Success)
}
