//! `cast files`: fuzzy file-name search, ranked like an editor's quick-open.

use std::path::PathBuf;

use cast_searcher::{FindFilesOptions, find_files};

use crate::output::warn;
use crate::{Exit, Out};

/// Find files by a fuzzy name, the best matches first, as an editor's quick-open ranks them.
///
/// The query's characters must appear in the path in order (`crtpy` finds `shop/cart.py`);
/// matches at the start of a name or word, consecutive characters and matches in the file name
/// rank higher; an exact file name or stem ranks first. Case is ignored unless the query has a
/// capital letter; words separated by spaces must all match, in any order. Folders are walked as
/// ripgrep walks them (.gitignore respected, hidden files skipped). Ties go to the shorter path.
///
/// Text output: one path a line, relative to PATH. With --json, one `{"path","score"}` object a
/// line.
///
/// Exits 1 when no file matched.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast files cart               # shop/cart.py first\n  cast files 'test cart' src/   # paths with both words\n  cast files --max-results 0 --json views"
)]
pub struct Args {
    /// The fuzzy query.
    #[arg(value_name = "QUERY")]
    query: String,
    /// The folder to search.
    #[arg(value_name = "PATH", default_value = ".")]
    path: PathBuf,
    /// Show at most N files, the best first (0: all that match).
    #[arg(long, value_name = "N", default_value_t = cast_searcher::DEFAULT_FILE_MAX_RESULTS)]
    max_results: usize,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    walk: crate::walk_args::WalkArgs,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let options = FindFilesOptions {
        max_results: args.max_results,
        walk: args.walk.options(),
    };
    let found = find_files(&args.path, &args.query, &options)?;
    for file in &found.files {
        if args.json {
            out.json(file)?;
        } else {
            out.line(&file.path)?;
        }
    }
    for err in &found.errors {
        warn(format_args!("{}: {}", err.path, err.message));
    }
    if found.capped {
        warn(format_args!(
            "showing the best {} of {} matching files; --max-results 0 shows all",
            found.files.len(),
            found.matched
        ));
    }
    Ok(if found.files.is_empty() {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}
