//! `cast glob`: files whose path matches a glob.

use std::path::PathBuf;

use cast_searcher::{GlobOptions, glob};

use crate::output::warn;
use crate::{Exit, Out};

/// List files whose path matches a glob, in path order.
///
/// `*` matches within a folder, `**` across folders, `{a,b}` either, `[abc]` one of. A pattern
/// matches at any depth (`*.py`, `tests/*.py`) unless it starts with `/`, which anchors it at
/// PATH (`/src/**/*.rs`). Folders are walked as ripgrep walks them (.gitignore respected, hidden
/// files skipped). By default the first 10 files are shown and the walk stops there.
///
/// Text output: one path a line, relative to PATH. With --json, one `{"path"}` object a line.
///
/// Exits 1 when no file matched.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast glob '*.py'                  # Python files anywhere (the first 10)\n  cast glob --max-results 0 '**/test_*.py' src/\n  cast glob '/docs/*.md' --json"
)]
pub struct Args {
    /// The glob.
    #[arg(value_name = "PATTERN")]
    pattern: String,
    /// The folder to search.
    #[arg(value_name = "PATH", default_value = ".")]
    path: PathBuf,
    /// Show at most N files, the first in path order (0: no cap).
    #[arg(long, value_name = "N", default_value_t = cast_searcher::DEFAULT_FILE_MAX_RESULTS)]
    max_results: usize,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    walk: crate::walk_args::WalkArgs,
}

#[derive(serde::Serialize)]
struct Row<'a> {
    path: &'a str,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let options = GlobOptions {
        max_results: args.max_results,
        walk: args.walk.options(),
    };
    let found = glob(&args.path, &args.pattern, &options)?;
    for path in &found.paths {
        if args.json {
            out.json(&Row { path })?;
        } else {
            out.line(path)?;
        }
    }
    for err in &found.errors {
        warn(format_args!("{}: {}", err.path, err.message));
    }
    if found.capped {
        warn(format_args!(
            "showing the first {} files in path order; --max-results 0 shows all",
            found.max_results
        ));
    }
    Ok(if found.paths.is_empty() {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}
