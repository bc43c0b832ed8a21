//! `cast ls`: a folder as a tree drawing with sizes and line counts.

use std::path::PathBuf;

use cast_searcher::{ListOptions, list_dir};

use crate::output::warn;
use crate::{Exit, Out};

/// Draw a folder as a tree, with each file's size and line count.
///
/// Entries are walked as ripgrep walks them (.gitignore, .ignore and .rgignore respected,
/// hidden entries skipped) and sorted by name. Folders below --depth show how many entries
/// they hold. With more than --max-entries entries, whole levels are listed first and
/// `… N more` marks what was left out.
///
/// With --json, one object a line: `path` (relative to PATH), `kind` (file, folder, symlink),
/// `depth`, and `size`, `lines`, `binary` (files), `entries`, `entries_not_listed` (folders),
/// `target` (symlinks).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast ls                 # this folder, two levels\n  cast ls src --depth 4\n  cast ls --json --depth 1 ."
)]
pub struct Args {
    /// The folder.
    #[arg(value_name = "PATH", default_value = ".")]
    path: PathBuf,
    /// Levels to list (1: the folder's own entries).
    #[arg(long, short = 'd', value_name = "N", default_value_t = cast_searcher::DEFAULT_LIST_DEPTH)]
    depth: usize,
    /// List at most N entries (0: no cap).
    #[arg(long, value_name = "N", default_value_t = cast_searcher::DEFAULT_LIST_MAX_ENTRIES)]
    max_entries: usize,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    walk: crate::walk_args::WalkArgs,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let options = ListOptions {
        depth: args.depth,
        max_entries: args.max_entries,
        walk: args.walk.options(),
        ..ListOptions::default()
    };
    let listing = list_dir(&args.path, &options)?;
    if args.json {
        for entry in &listing.entries {
            out.json(entry)?;
        }
        for err in &listing.errors {
            warn(format_args!("{}: {}", err.path, err.message));
        }
        if listing.capped {
            warn(format_args!(
                "{} of {} entries listed; --max-entries 0 lists all",
                listing.entries.len(),
                listing.total_entries
            ));
        }
    } else {
        out.line(listing.to_string().trim_end())?;
    }
    Ok(Exit::Success)
}
