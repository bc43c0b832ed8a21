//! `cast symbols`: list the symbols of files and folders.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use cast_parser::{
    DEFAULT_MAX_FILESIZE, ParseError, Registry, SymbolKind, WalkOptions, parse_tree,
};
use serde::Serialize;

use crate::output::{stderr_is_terminal, warn};
use crate::{Exit, Out};

/// List the symbols in files or folders: Python classes, functions and methods (as Python's
/// `ast` sees them); Rust, Go, JavaScript, TypeScript and Java functions, methods, types,
/// traits, interfaces, impls, modules and constants; HTML ids, template blocks, scripts,
/// styles and headings.
///
/// Folders are walked as ripgrep walks them: .gitignore and .ignore are respected and hidden
/// files are skipped (see --no-ignore and --hidden). Files are parsed on all cores. A file with
/// syntax errors still lists what the parser recovered, with a warning.
///
/// Text output: `PATH:START-END KIND QUALNAME  SIGNATURE`, one symbol a line. With --json, one
/// object a line with the fields `path` (relative to the PATH given), `kind`, `name`,
/// `qualname`, `start_line`, `end_line` — exactly as `py_symbols.py` (Python's `ast`) prints
/// them, in the same order (path, start_line, qualname) — plus `language`, `signature`,
/// `decorated_line`, `doc` (the docstring's first line) and `root`.
///
/// A file named that no parser handles is reported on one line (inside a folder such files are
/// left out). Exits 1 when no symbol was found.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast symbols crates/            # every symbol under a folder\n  cast symbols --json app.py      # one JSON object per symbol\n  cast symbols --kind class src/  # classes only"
)]
pub struct Args {
    /// Files or folders to parse.
    #[arg(value_name = "PATH", default_value = ".")]
    paths: Vec<PathBuf>,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
    /// Only symbols of these kinds (class, function, method, struct, enum, trait, interface,
    /// impl, type, module, constant, variable, macro, element, script, style, heading, block).
    #[arg(long, value_name = "KIND", value_parser = parse_kind)]
    kind: Vec<SymbolKind>,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILESIZE)]
    max_filesize: u64,
    /// Number of parser threads (default: all cores).
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    walk: crate::walk_args::WalkArgs,
}

fn parse_kind(s: &str) -> Result<SymbolKind, String> {
    SymbolKind::from_name(s).ok_or_else(|| {
        let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("unknown kind {s:?}; expected one of: {}", all.join(", "))
    })
}

#[derive(Serialize)]
struct Row<'a> {
    path: &'a str,
    kind: SymbolKind,
    name: &'a str,
    qualname: &'a str,
    start_line: u32,
    end_line: u32,
    language: &'static str,
    signature: &'a str,
    decorated_line: u32,
    doc: Option<&'a str>,
    root: &'a str,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    if let Some(threads) = args.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build_global()
            .context("cannot start the parser threads")?;
    }
    for path in &args.paths {
        if !path.exists() {
            bail!("{}: no such file or folder", path.display());
        }
    }
    let registry = Registry::default();
    let options = WalkOptions {
        max_filesize: Some(args.max_filesize),
        ..args.walk.options()
    };
    let started = Instant::now();
    let (mut files, mut symbols, mut skipped) = (0usize, 0usize, 0usize);
    let several_roots = args.paths.len() > 1;
    for root in &args.paths {
        let root_text = root.to_string_lossy();
        let outcomes = parse_tree(root, &options, &registry);
        let mut rows = Vec::new();
        for outcome in &outcomes {
            let parsed = match &outcome.result {
                Ok(parsed) => parsed,
                Err(err) => {
                    skipped += 1;
                    report_skip(&outcome.rel, err);
                    continue;
                }
            };
            files += 1;
            if let Some(error) = &parsed.syntax_error {
                warn(format_args!(
                    "{}:{}: syntax error: {}; this file does not parse, its symbols are best effort",
                    outcome.rel, error.line, error.message
                ));
            }
            if parsed.lossy_utf8 {
                warn(format_args!(
                    "{}: not valid UTF-8; decoded lossily",
                    outcome.rel
                ));
            }
            for s in &parsed.symbols {
                if !args.kind.is_empty() && !args.kind.contains(&s.kind) {
                    continue;
                }
                rows.push(Row {
                    path: &outcome.rel,
                    kind: s.kind,
                    name: &s.name,
                    qualname: &s.qualname,
                    start_line: s.start_line,
                    end_line: s.end_line,
                    language: parsed.language,
                    signature: &s.signature,
                    decorated_line: s.decorated_line,
                    doc: s.docstring.as_deref().and_then(|d| d.lines().next()),
                    root: &root_text,
                });
            }
        }
        rows.sort_by(|a, b| {
            (a.path, a.start_line, a.qualname).cmp(&(b.path, b.start_line, b.qualname))
        });
        symbols += rows.len();
        for row in &rows {
            if args.json {
                out.json(row)?;
            } else {
                let shown = if several_roots && root.is_file() {
                    root.to_string_lossy().into_owned()
                } else if several_roots {
                    root.join(row.path).to_string_lossy().into_owned()
                } else {
                    row.path.to_owned()
                };
                out.line(&format!(
                    "{}:{}-{} {} {}  {}",
                    shown, row.start_line, row.end_line, row.kind, row.qualname, row.signature
                ))?;
            }
        }
    }
    if stderr_is_terminal() {
        warn(format_args!(
            "{symbols} symbols in {files} files ({skipped} skipped) in {:.2} s",
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(if symbols == 0 {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}

fn report_skip(rel: &str, err: &ParseError) {
    match err {
        ParseError::Unsupported { .. } => warn(format_args!("{rel}: {err}")),
        _ => warn(format_args!("skipped {rel}: {err}")),
    }
}
