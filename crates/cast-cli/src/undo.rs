//! `cast undo`: revert the last change sets written by `cast apply` (or the agent's edits).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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
    /// Seconds since the Unix epoch.
    time: u64,
    /// The same time as a person reads it (UTC).
    when: String,
    description: &'a str,
    files: Vec<String>,
}

fn row(e: &JournalEntry) -> Row<'_> {
    Row {
        id: e.id,
        time: e.time,
        when: stamp(e.time),
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
                "{prefix}{}  {} ({})  {}  {}",
                e.id,
                stamp(e.time),
                age(e.time, SystemTime::now()),
                e.description,
                row(e).files.join(" ")
            ))?;
        }
    }
    Ok(())
}

/// `2025-11-23 19:04:12 UTC` for seconds since the Unix epoch.
fn stamp(epoch: u64) -> String {
    let time = UNIX_EPOCH + Duration::from_secs(epoch);
    humantime::format_rfc3339_seconds(time)
        .to_string()
        .replacen('T', " ", 1)
        .replace('Z', " UTC")
}

/// How long before `now` a time was, roughly: `just now`, `5 min ago`, `3 h ago`, `2 days ago`.
fn age(epoch: u64, now: SystemTime) -> String {
    let then = UNIX_EPOCH + Duration::from_secs(epoch);
    let secs = now.duration_since(then).map_or(0, |d| d.as_secs());
    match secs {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86_400 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86_400),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_dates_and_ages() {
        assert_eq!(stamp(1_700_000_000), "2023-11-14 22:13:20 UTC");
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(age(1_700_000_000 - 5, now), "just now");
        assert_eq!(age(1_700_000_000 - 300, now), "5 min ago");
        assert_eq!(age(1_700_000_000 - 7200, now), "2 h ago");
        assert_eq!(age(1_700_000_000 - 3 * 86_400, now), "3 days ago");
        assert_eq!(age(1_700_000_000 + 60, now), "just now");
    }
}
