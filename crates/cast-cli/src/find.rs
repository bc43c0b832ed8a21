//! `cast find`: relevance search over symbols and files.

use std::path::PathBuf;

use cast_analyzer::{FindMode, Found};

use crate::{Exit, Out};

/// Find the files and symbols a task or a question is about.
///
/// The query — words, identifiers, a whole issue or commit message — runs against the
/// full-text index built with the code index (BM25F over paths, names, signatures, docstrings
/// and file bodies; names are also cut into the words they run together, `getuser` → `user`,
/// when their file writes those words), then every symbol of the best files is ranked with its
/// own lines;
/// identifiers written in the query (`Session.send`, `parse_header`, `client.py`, or a query of
/// one word) are looked up exactly, personalised PageRank over the import and call graphs
/// credits what the best hits use (a file found by the graph alone comes after every file with
/// a word of the query), in a git repository the files changed by the past commits whose
/// messages best match the query get credit (and files that changed often lately a little),
/// and tests (with a Rust file's own `mod tests`), examples, stubs and installed third-party
/// code (`site-packages/`, `node_modules/`) are demoted (less when the query is about them or
/// names the package). See docs/analyzer.md for every weight.
///
/// With --files: the best files, `PATH  — DOC  (matching symbols)  past commit: "SUBJECT"
/// [SCORE]` (the past commit when the history counted). Without: the best symbols,
/// `PATH:LINE KIND MODULE.QUALNAME  SIGNATURE  — DOC  [SCORE]`, then up to 5 files. With
/// --json, one object per hit (`kind` "symbol" or "file", `path`, `score`, and `scores` with
/// each component). The index is built or refreshed first (with --no-refresh, only built when
/// there is none); when `cast serve` runs for the tree, it answers instead, from its open
/// index (see `cast serve --help`). Exits 1 when nothing matches, saying so on stderr with how
/// many files and symbols were searched.
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
    /// How many results to show (symbols, or files with --files).
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
    /// Rank files instead of symbols.
    #[arg(long)]
    files: bool,
    #[command(flatten)]
    index: crate::index::IndexArgs,
    /// One JSON object per hit, with each score.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    // A `cast serve` of this tree answers from its open index (the same answer, sooner).
    if args.index.db.is_none()
        && let Some(answered) = crate::serve::ask(
            &args.root,
            crate::serve::Asked::Find {
                query: args.query.clone(),
                top: args.top,
                files: args.files,
                json: args.json,
            },
        )
    {
        return answered.print(out);
    }
    let mode = if args.files {
        FindMode::Files
    } else {
        FindMode::Symbols
    };
    let found = crate::index::query(&args.root, args.index, |index| {
        Ok(index.find_with(&args.query, args.top.max(1), mode)?)
    })?;
    let exit = write(&found, args.json, out)?;
    if let Some(note) = nothing_note(&found, &args.query) {
        crate::output::warn(note);
    }
    Ok(exit)
}

/// What `cast find` says on stderr when nothing matched (stdout stays empty, as for `grep`).
pub(crate) fn nothing_note(found: &Found, query: &str) -> Option<String> {
    let advice = if found.searched.files == 0 {
        "is --root the folder of a code base?"
    } else {
        "try other words, or `cast grep` for exact text"
    };
    found
        .nothing_found(query)
        .map(|why| format!("{why}; {advice}"))
}

/// Writes what was found as `cast find` prints it; exit 1 when nothing was.
pub(crate) fn write(found: &Found, json: bool, out: &mut Out) -> std::io::Result<Exit> {
    if json {
        for h in found.symbols.iter().chain(&found.files) {
            out.json(h)?;
        }
    } else if !found.is_empty() {
        out.line(found.render().trim_end())?;
    }
    Ok(if found.is_empty() {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}
