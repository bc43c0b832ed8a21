//! `cast find`: relevance search over symbols and files.

use std::path::PathBuf;

use anyhow::Context;
use cast_analyzer::{FindMode, FindOptions, Found, Queries, Scope};
use cast_server::{Answer, Question};

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
/// a file is credited for how many of the query's words it holds (each once, whatever its
/// length),
/// and tests (with a Rust file's own `mod tests` and `#[test]` functions), examples, stubs and
/// installed third-party code (`site-packages/`, `node_modules/`) are demoted (less when the
/// query is about them or names the package). See docs/analyzer.md for every weight.
///
/// With --files: the best files, `PATH  — DOC  (matching symbols)  past commit: "SUBJECT"
/// [SCORE]` (the past commit when the history counted). Without: the best symbols,
/// `PATH:LINE KIND MODULE.QUALNAME  SIGNATURE  — DOC  [SCORE]`, then up to 5 files. With
/// --json, one object per hit (`kind` "symbol" or "file", `path`, `score`, and `scores` with
/// each component). The index is built or refreshed first (with --no-refresh, only built when
/// there is none); when `cast serve` runs for the tree, it answers instead, from its open
/// index (see `cast serve --help`; a tree searched again within two minutes gets one, started
/// in the background, unless --no-server or CAST_NO_SERVER=1). Exits 1 when nothing matches, saying so on stderr with how
/// many files and symbols were searched.
///
/// With --in, only the files named are searched, and every kind of evidence comes from them: a
/// folder or file (relative to --root, or an absolute path inside it), or a glob; `!` before one
/// leaves it out of the rest.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast find \"parse an HTTP date\" --root /usr/lib/python3.11\n  cast find quote_plus --top 3 --json\n  cast find \"retry a request\" --files --in src/http --in '!src/http/tests'"
)]
pub struct Args {
    /// What to look for: words, or an identifier. It may start with a dash (a task pasted
    /// from a list: `cast find --files "- fix nested blueprints"`).
    #[arg(value_name = "QUERY", allow_hyphen_values = true)]
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
    /// Search only these files: a folder or file (`src/http`, relative to --root) or a glob
    /// (`*.rs`, `tests/test_*.py`, `/docs/**`: `*` stays within a folder, `**` crosses folders,
    /// a glob matches at any depth unless it starts with `/`); after `!`, leave them out
    /// (`!tests`, `!*_pb2.py`). Repeat to name several.
    #[arg(long = "in", value_name = "PATH|GLOB")]
    within: Vec<String>,
    #[command(flatten)]
    index: crate::index::IndexArgs,
    #[command(flatten)]
    server: crate::serve::ServerArgs,
    /// One JSON object per hit, with each score.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let within = crate::within::scope_patterns(&args.root, &args.within)?;
    let options = FindOptions {
        query: args.query,
        top: args.top,
        mode: if args.files {
            FindMode::Files
        } else {
            FindMode::Symbols
        },
        scope: Scope::new(&within).context("--in")?,
    };
    // A `cast serve` of this tree answers from its open index (the same answer, sooner).
    // Not with --db (a server answers from the tree's own index), nor with --no-server.
    let allowed = args.index.db.is_none() && args.server.allowed();
    let found = crate::serve::answer(
        &args.root,
        allowed.then(|| Question::Find(options.clone())),
        |answer| match answer {
            Answer::Found(found) => Some(found),
            _ => None,
        },
        || crate::index::query(&args.root, args.index, |index| Ok(index.search(&options)?)),
    )?;
    let exit = write(&found.value, args.json, out)?;
    if let Some(note) = nothing_note(&found.value, &options.query) {
        crate::output::warn(note);
    }
    found.done();
    Ok(exit)
}

/// What `cast find` says on stderr when nothing matched (stdout stays empty, as for `grep`).
fn nothing_note(found: &Found, query: &str) -> Option<String> {
    let advice = if found.searched.files == 0 && !found.scope.is_empty() {
        "check the --in paths (relative to --root)"
    } else if found.searched.files == 0 {
        "is --root the folder of a code base?"
    } else {
        "try other words, or `cast grep` for exact text"
    };
    found
        .nothing_found(query)
        .map(|why| format!("{why}; {advice}"))
}

/// Writes what was found as `cast find` prints it; exit 1 when nothing was.
fn write(found: &Found, json: bool, out: &mut Out) -> std::io::Result<Exit> {
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
