//! `cast map`: L1, the logic map of a code base.

use std::path::PathBuf;

use anyhow::Context;
use cast_analyzer::trace::parse_trace;
use cast_analyzer::{LogicMap, MapOptions, Queries, Scope};
use cast_server::{Answer, Question};

use crate::{Exit, Out};

/// Show the logic map of a code base (L1): its tree, key symbols ranked by PageRank over the
/// call graph, the imports between modules and each module's one-line description, fitted to
/// a token budget (estimated as bytes / 4).
///
/// With --trace, a Python traceback, a pytest log or a JSON-lines execution log is mapped onto
/// the code: only files that ran are shown, functions that ran are marked with their call
/// counts ([ran N×]) and errors are shown at their line ([ERROR: …]). The JSON-lines format is
/// described in docs/analyzer.md.
///
/// With --focus TASK, the map is personalised for a task: the files and symbols `cast find`
/// ranks highest for it come first, then the rest by PageRank, within the same budget.
///
/// With --in, only part of the tree is mapped (`--in src/http --in '!src/http/tests'`), from
/// the index of PATH: its files, ranked and focused among themselves.
///
/// The index (PATH/.cast/index.sqlite) is built or refreshed first (with --no-refresh, only
/// built when there is none); when `cast serve` runs for the tree, it answers instead, from
/// its open index (without --trace; see `cast serve --help`; a tree mapped or searched again
/// within two minutes gets one, started in the background, unless --no-server or
/// CAST_NO_SERVER=1).
/// With --json, one JSON object per shown file (its symbols inside), then a summary object.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast map                          # this folder, about 2,000 tokens\n  cast map ~/src/app --budget 8000  # a bigger map\n  pytest 2>&1 | tee log; cast map --trace log\n  cast map --focus \"the pager leaks its temp file\""
)]
pub struct Args {
    /// The root of the code base.
    #[arg(value_name = "PATH", default_value = ".")]
    path: PathBuf,
    /// Tokens the map may use.
    #[arg(long, value_name = "TOKENS", default_value_t = 2000)]
    budget: usize,
    /// A traceback, pytest log or JSON-lines execution log to map onto the code.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// A task in words: the files and symbols it is about come first (ranked as `cast find`
    /// ranks them), then the rest by PageRank. It may start with a dash (`--focus "- fix
    /// nested blueprints"`).
    #[arg(long, value_name = "TASK", allow_hyphen_values = true)]
    focus: Option<String>,
    /// Map only these files, with the index of PATH: a folder or file (`src/http`, relative to
    /// PATH) or a glob (`*.rs`, `/docs/**`), as `cast find --in` reads them; after `!`, leave
    /// them out (`!tests`). Repeat to name several.
    #[arg(long = "in", value_name = "PATH|GLOB")]
    within: Vec<String>,
    #[command(flatten)]
    index: crate::index::IndexArgs,
    #[command(flatten)]
    server: crate::serve::ServerArgs,
    /// One JSON object per file, then a summary.
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct Summary<'a> {
    summary: bool,
    root: &'a str,
    files_total: usize,
    symbols_total: usize,
    shown_files: usize,
    omitted_files: usize,
    omitted_symbols: usize,
    budget: usize,
    tokens: usize,
    trace_unmatched: &'a [String],
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let trace = match &args.trace {
        Some(path) => {
            let text = std::fs::read(path)
                .with_context(|| format!("cannot read the trace {}", path.display()))?;
            let text = String::from_utf8_lossy(&text);
            Some(parse_trace(&text).map_err(|e| anyhow::anyhow!("trace {}: {e}", path.display()))?)
        }
        None => None,
    };
    let within = crate::within::scope_patterns(&args.path, &args.within)?;
    let options = MapOptions {
        budget: args.budget,
        trace,
        focus: args.focus,
        root_name: None,
        scope: Scope::new(&within).context("--in")?,
    };
    // A `cast serve` of this tree answers from its open index (the same map, sooner), its
    // header naming the root as given here. Not with a trace (it can be large; a traced map is
    // one-off), --db (a server answers from the tree's own index) or --no-server.
    let allowed = options.trace.is_none() && args.index.db.is_none() && args.server.allowed();
    let asked = allowed.then(|| {
        Question::Map(MapOptions {
            root_name: Some(args.path.display().to_string()),
            ..options.clone()
        })
    });
    let map = crate::serve::answer(
        &args.path,
        asked,
        |answer| match answer {
            Answer::Mapped(map) => Some(map),
            _ => None,
        },
        || crate::index::query(&args.path, args.index, |index| Ok(index.map(&options)?)),
    )?;
    let exit = write(&map.value, args.json, out)?;
    if let Some(note) = empty_scope_note(&map.value) {
        crate::output::warn(note);
    }
    map.done();
    Ok(exit)
}

/// What `cast map` says on stderr when its --in names no indexed file (the map is then empty).
fn empty_scope_note(map: &LogicMap) -> Option<String> {
    (!map.scope.is_empty() && map.files_total == 0).then(|| {
        format!(
            "no indexed source file is in the scope ({}); check the --in paths (relative to PATH)",
            map.scope.join(", ")
        )
    })
}

/// Writes the map as `cast map` prints it.
fn write(map: &LogicMap, json: bool, out: &mut Out) -> std::io::Result<Exit> {
    if json {
        for f in &map.files {
            out.json(f)?;
        }
        out.json(&Summary {
            summary: true,
            root: &map.root,
            files_total: map.files_total,
            symbols_total: map.symbols_total,
            shown_files: map.files.len(),
            omitted_files: map.omitted_files,
            omitted_symbols: map.omitted_symbols,
            budget: map.budget,
            tokens: map.tokens,
            trace_unmatched: &map.trace_unmatched,
        })?;
    } else {
        out.line(map.render().trim_end())?;
    }
    Ok(Exit::Success)
}
