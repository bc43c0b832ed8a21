//! `cast pending`: the changes a user did not approve in `cast run --approval ask` (or
//! `cast chat`), kept in the session — listed, applied after all, or dropped, without a model.

use std::path::PathBuf;

use cast_agent::approval::PendingEdit;
use cast_agent::memory::Session;
use cast_tools::{Registry, RegistryOptions, ToolContext};

use crate::{Exit, Out};

/// List, approve or reject the changes kept as pending in a session.
///
/// In `--approval ask` mode, a change the user says no to is not lost: it stays in the session
/// as pending. `cast pending` lists them (every session that has some, newest first);
/// `cast pending approve N` applies change N now — through the same checks and undo journal as
/// any edit, refused if the file changed so that it no longer applies — and `cast pending
/// reject N` drops it. Without --session, approve and reject act on the newest session that has
/// pending changes.
///
/// Exit status: 0 done, 1 nothing pending or the change was refused, 2 bad usage.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast pending                      # what is waiting, in every session\n  cast pending approve 1            # apply change 1 of the newest session with pending changes\n  cast pending reject 2 --session 20261123-1015"
)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    /// The workspace root.
    #[arg(long, value_name = "PATH", default_value = ".", global = true)]
    root: PathBuf,
    /// The session (an id or a unique prefix; `cast sessions` lists them).
    #[arg(long, value_name = "ID", global = true)]
    session: Option<String>,
    /// Allow approving a pending `run_command` (it runs the command).
    #[arg(long, global = true)]
    allow_commands: bool,
    /// One JSON object per pending change (or per result).
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List the pending changes (the default).
    List,
    /// Apply pending change N after all, and forget it.
    Approve {
        /// The change's number, as `cast pending` lists it.
        n: usize,
    },
    /// Drop pending change N.
    Reject {
        /// The change's number, as `cast pending` lists it.
        n: usize,
    },
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let ctx = ToolContext::new(&args.root)?;
    let root = ctx.workspace.root().to_path_buf();
    match args.action.as_ref().unwrap_or(&Action::List) {
        Action::List => list(&args, &root, out),
        Action::Approve { n } => decide(&args, &ctx, *n, true, out),
        Action::Reject { n } => decide(&args, &ctx, *n, false, out),
    }
}

/// The sessions to show: the one named, or every one with pending changes (newest first).
fn sessions(args: &Args, root: &std::path::Path) -> anyhow::Result<Vec<Session>> {
    if let Some(id) = &args.session {
        return Ok(vec![Session::load(root, id)?]);
    }
    Session::list(root)
        .into_iter()
        .filter(|s| s.pending > 0)
        .map(|s| Session::load(root, &s.id).map_err(Into::into))
        .collect()
}

fn list(args: &Args, root: &std::path::Path, out: &mut Out) -> anyhow::Result<Exit> {
    let sessions = sessions(args, root)?;
    if sessions.iter().all(|s| s.pending.is_empty()) {
        crate::output::warn("no pending changes");
        return Ok(Exit::NothingOrRefused);
    }
    for session in &sessions {
        if !args.json {
            out.line(&format!(
                "session {} ({} pending)",
                session.id,
                session.pending.len()
            ))?;
        }
        for (i, p) in session.pending.iter().enumerate() {
            if args.json {
                out.json(&serde_json::json!({
                    "session": session.id,
                    "n": i + 1,
                    "tool": p.tool,
                    "params": p.params,
                    "reason": p.reason,
                    "preview": p.preview,
                }))?;
            } else {
                out.line(&describe(i + 1, p))?;
            }
        }
    }
    Ok(Exit::Success)
}

fn describe(n: usize, p: &PendingEdit) -> String {
    let reason = if p.reason.trim().is_empty() {
        String::new()
    } else {
        format!(" — rejected: {}", p.reason.trim())
    };
    let preview: String = p
        .preview
        .trim_end()
        .lines()
        .map(|l| format!("\n     {l}"))
        .collect();
    format!("  {n}. {}{reason}{preview}", p.tool)
}

fn decide(
    args: &Args,
    ctx: &ToolContext,
    n: usize,
    approve: bool,
    out: &mut Out,
) -> anyhow::Result<Exit> {
    let root = ctx.workspace.root();
    let Some(mut session) = sessions(args, root)?
        .into_iter()
        .find(|s| !s.pending.is_empty())
    else {
        crate::output::warn("no pending changes");
        return Ok(Exit::NothingOrRefused);
    };
    if !(1..=session.pending.len()).contains(&n) {
        crate::output::warn(format_args!(
            "session {} has pending changes 1 to {}; `cast pending` lists them",
            session.id,
            session.pending.len()
        ));
        return Ok(Exit::BadUsage);
    }
    let pending = session.pending[n - 1].clone();
    let (exit, text) = if approve {
        let registry = Registry::standard(RegistryOptions {
            commands: args.allow_commands,
        });
        match cast_agent::apply_pending(&registry, ctx, &pending) {
            Ok(text) => (Exit::Success, text),
            Err(reason) => (Exit::NothingOrRefused, reason),
        }
    } else {
        (Exit::Success, format!("dropped pending change {n}"))
    };
    if exit == Exit::Success {
        session.pending.remove(n - 1);
        session.save(root)?;
    }
    if args.json {
        out.json(&serde_json::json!({
            "session": session.id,
            "n": n,
            "tool": pending.tool,
            "action": if approve { "approve" } else { "reject" },
            "status": if exit == Exit::Success { "ok" } else { "refused" },
            "text": text,
        }))?;
    } else {
        out.line(text.trim_end())?;
    }
    Ok(exit)
}
