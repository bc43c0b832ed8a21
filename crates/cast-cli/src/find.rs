//! `cast find`: relevance search over symbols and files.

use std::path::PathBuf;

use crate::{Exit, Out};

/// Find the symbols and files most relevant to a natural-language or identifier query.
///
/// Each symbol is scored on four dimensions — its name (words and string similarity), its
/// signature, its docstring, and its body — blended with its PageRank; --json shows every
/// score. Files are scored on their path and description plus their best symbol. See
/// docs/analyzer.md for the formula.
///
/// Text: `PATH:LINE KIND MODULE.QUALNAME  SIGNATURE  — DOC  [SCORE]`, best first, then the best
/// files. With --json, one object per hit (`kind` is "symbol" or "file", `scores` holds each
/// dimension). The index is built or refreshed first when needed. Exits 1 when nothing matches.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast find \"parse an HTTP date\" --root /usr/lib/python3.11\n  cast find quote_plus --top 3 --json"
)]
pub struct Args {
    /// What to look for: words, or an identifier.
    #[arg(value_name = "QUERY")]
    query: String,
    /// The root of the code base.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// How many symbols to show (and up to 5 files).
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
    /// The database file (default: ROOT/.cast/index.sqlite).
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// One JSON object per hit, with each score.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let index = crate::index::open(&args.root, args.db)?;
    let found = index.find(&args.query, args.top.max(1))?;
    if args.json {
        for h in found.symbols.iter().chain(&found.files) {
            out.json(h)?;
        }
    } else if !found.symbols.is_empty() || !found.files.is_empty() {
        out.line(found.render().trim_end())?;
    }
    Ok(if found.symbols.is_empty() && found.files.is_empty() {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}
