//! `cast symbols`: list the symbols of files and folders.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::bail;
use cast_parser::{
    DEFAULT_MAX_FILESIZE, ParseError, Registry, Symbol, SymbolKind, SyntaxError, WalkOptions,
    relative, source_paths,
};
use cast_workspace::ordered::for_each_in_order;
use serde::Serialize;

use crate::output::{stderr_is_terminal, warn};
use crate::{Exit, Out};

/// List the symbols in files or folders: Python classes, functions and methods (as Python's
/// `ast` sees them); Rust, Go, JavaScript, TypeScript, Java, C, C++, C#, Ruby and PHP
/// functions, methods, types, traits, interfaces, impls, modules, macros and constants; HTML ids, template blocks, scripts,
/// styles and headings.
///
/// Folders are walked as ripgrep walks them: .gitignore and .ignore are respected and hidden
/// files are skipped (see --no-ignore and --hidden). Files are parsed on the cores (at most 4
/// unless -j says more) and printed as they are parsed, in the order below (a file's symbols
/// wait only for the files before it, so memory stays bounded whatever the tree's size). A file
/// with syntax errors still lists what the parser recovered, with a warning.
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
    /// Number of parser threads (default: all cores, at most 4). Each holds the syntax tree of
    /// the file it parses and its allocator's pages, 3–4 MB on the stdlib: 4 keep a run under
    /// 64 MB whatever the machine, more go faster on a large tree and cost that much each.
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

/// Parser threads by default, at most: the peak grows by 3–4 MB a thread (on the stdlib with
/// site-packages: 44 MB with 2, 48 with 4, 62 with 6, 66 with 8, 95 with 16; 31 with one).
const DEFAULT_MAX_THREADS: usize = 4;

/// Parsed results waiting to be printed, at most, beyond the one printed next: what bounds the
/// memory of a run whatever the tree's size (each holds one file's printed rows).
const WINDOW: usize = 256;

/// What one file gives the listing, made on a parser thread: its rows already formatted, so
/// that the printing thread only writes bytes.
enum Listed {
    Skipped(ParseError),
    Parsed {
        syntax_error: Option<SyntaxError>,
        lossy_utf8: bool,
        rows: usize,
        bytes: Vec<u8>,
    },
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let threads = match args.threads {
        Some(threads) => threads.max(1),
        None => std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(DEFAULT_MAX_THREADS),
    };
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
    // Every root's files in one list, so that the parser threads share them all (files named
    // one by one on the command line parse in parallel too). Sorted by relative path within a
    // root, roots in the order given; each file's rows are sorted by (start_line, qualname),
    // so a root's listing is in (path, start_line, qualname) order as each file is handed on.
    let mut found: Vec<(usize, Box<Path>)> = Vec::new();
    for (index, root) in args.paths.iter().enumerate() {
        let (paths, walk_errors) = source_paths(root, &options, &registry);
        for outcome in walk_errors {
            if let Err(err) = &outcome.result {
                skipped += 1;
                report_skip(&outcome.rel, err);
            }
        }
        found.extend(paths.into_iter().map(|rel| (index, rel)));
    }
    // Asked once per root, not once per file on the parser threads.
    let roots_are_files: Vec<bool> = args.paths.iter().map(|root| root.is_file()).collect();
    // Made on the parser threads: the file's text as the listing names it, and its rows.
    let list = |(index, rel): &(usize, Box<Path>)| -> (String, Listed) {
        let root = &args.paths[*index];
        let root_text = root.to_string_lossy();
        // A file is shown by its path relative to the root, or, among several roots, joined
        // to its root (a root that is a file by the root itself).
        let root_is_file = roots_are_files[*index];
        let path = if root_is_file {
            root.clone()
        } else {
            root.join(rel)
        };
        let rel = relative(root, &path);
        let shown = if args.json {
            String::new()
        } else if several_roots && root_is_file {
            root_text.clone().into_owned()
        } else if several_roots {
            path.to_string_lossy().into_owned()
        } else {
            rel.clone()
        };
        let listed = list_file(&registry, &args, &path, &rel, &shown, &root_text);
        (rel, listed)
    };
    for_each_in_order(
        &found,
        threads,
        WINDOW,
        list,
        |_, (rel, listed)| match listed {
            Listed::Skipped(err) => {
                skipped += 1;
                report_skip(&rel, &err);
                Ok(())
            }
            Listed::Parsed {
                syntax_error,
                lossy_utf8,
                rows,
                bytes,
            } => {
                files += 1;
                if let Some(error) = syntax_error {
                    warn(format_args!(
                        "{}:{}: syntax error: {}; this file does not parse, its symbols are best effort",
                        rel, error.line, error.message
                    ));
                }
                if lossy_utf8 {
                    warn(format_args!("{rel}: not valid UTF-8; decoded lossily"));
                }
                symbols += rows;
                out.bytes(&bytes)
            }
        },
    )?;
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

/// Parses one file and formats its rows (those of the kinds asked for), sorted by
/// (start_line, qualname): `rel` is its path in JSON, `shown` in text.
fn list_file(
    registry: &Registry,
    args: &Args,
    path: &Path,
    rel: &str,
    shown: &str,
    root_text: &str,
) -> Listed {
    let parsed = match registry.parse_file_symbols(path, args.max_filesize) {
        Ok(parsed) => parsed,
        Err(err) => return Listed::Skipped(err),
    };
    let mut rows: Vec<&Symbol> = parsed
        .symbols
        .iter()
        .filter(|s| args.kind.is_empty() || args.kind.contains(&s.kind))
        .collect();
    rows.sort_by(|a, b| (a.start_line, &a.qualname).cmp(&(b.start_line, &b.qualname)));
    let mut bytes = Vec::new();
    for s in &rows {
        if args.json {
            let row = Row {
                path: rel,
                kind: s.kind,
                name: &s.name,
                qualname: &s.qualname,
                start_line: s.start_line,
                end_line: s.end_line,
                language: parsed.language,
                signature: &s.signature,
                decorated_line: s.decorated_line,
                doc: s.docstring.as_deref().and_then(|d| d.lines().next()),
                root: root_text,
            };
            // Neither writing into a Vec nor serialising these fields can fail.
            let _ = serde_json::to_writer(&mut bytes, &row);
            bytes.push(b'\n');
        } else {
            let _ = writeln!(
                bytes,
                "{}:{}-{} {} {}  {}",
                shown, s.start_line, s.end_line, s.kind, s.qualname, s.signature
            );
        }
    }
    Listed::Parsed {
        syntax_error: parsed.syntax_error,
        lossy_utf8: parsed.lossy_utf8,
        rows: rows.len(),
        bytes,
    }
}

fn report_skip(rel: &str, err: &ParseError) {
    match err {
        ParseError::Unsupported { .. } => warn(format_args!("{rel}: {err}")),
        _ => warn(format_args!("skipped {rel}: {err}")),
    }
}
