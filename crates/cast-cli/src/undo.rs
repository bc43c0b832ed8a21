//! `cast undo`: revert the last change sets written by `cast apply` (or the agent's edits).

use std::path::PathBuf;

use anyhow::Context;
use cast_coder::{Coder, CoderError, JournalEntry, find_root};
use serde::Serialize;

use crate::output::warn;
use crate::{Exit, Out};

/// Revert the last change sets from the undo journal (ROOT/.cast/undo/).
///
/// A change set is everything one `cast apply` (or one agent edit) wrote, possibly several
/// files; it is reverted as a whole: files it changed get their old bytes back, files it created
/// are deleted. When a file was changed again after the change set wrote it, undo refuses
/// (exit 1) and changes nothing in that change set, unless --force.
///
/// ROOT is --root, else the nearest folder at or above the current one that holds .git or
/// .cast, else the current folder.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast undo              # revert the last change set\n  cast undo --steps 3    # the last three\n  cast undo --list       # what can be undone, newest first"
)]
pub struct Args {
    /// List the change sets that can be undone, newest first, and change nothing.
    #[arg(long, short = 'l')]
    list: bool,
    /// How many change sets to revert, newest first.
    #[arg(long, short = 's', value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    steps: u32,
    /// Revert even when a file was changed after the change set wrote it.
    #[arg(long)]
    force: bool,
    /// The workspace root.
    #[arg(long, value_name = "ROOT")]
    root: Option<PathBuf>,
    /// Print one JSON object per change set.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Row<'a> {
    id: u64,
    time: u64,
    description: &'a str,
    files: Vec<String>,
}

fn row(e: &JournalEntry) -> Row<'_> {
    Row {
        id: e.id,
        time: e.time,
        description: &e.description,
        files: e
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect(),
    }
}

fn print(out: &mut Out, json: bool, prefix: &str, entries: &[JournalEntry]) -> anyhow::Result<()> {
    for e in entries {
        if json {
            out.json(&row(e))?;
        } else {
            out.line(&format!(
                "{prefix}{}  {}  {}  {}",
                e.id,
                e.time,
                e.description,
                row(e).files.join(" ")
            ))?;
        }
    }
    Ok(())
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let cwd = std::env::current_dir().context("finding the current folder")?;
    let root = args.root.clone().unwrap_or_else(|| find_root(&cwd));
    let coder = Coder::new(&root);
    if args.list {
        let entries = coder.history()?;
        print(out, args.json, "", &entries)?;
        return Ok(if entries.is_empty() {
            Exit::NothingOrRefused
        } else {
            Exit::Success
        });
    }
    match coder.undo(args.steps as usize, args.force) {
        Ok(undone) => {
            print(out, args.json, "undone ", &undone)?;
            Ok(Exit::Success)
        }
        Err(err @ CoderError::Undo(_)) => {
            warn(&err);
            Ok(Exit::NothingOrRefused)
        }
        Err(err) => Err(err.into()),
    }
}
