//! `cast index`: build or refresh the index of a code base (`ROOT/.cast/index.sqlite`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use cast_analyzer::cast_parser::{DEFAULT_MAX_FILESIZE, WalkOptions};
use cast_analyzer::{Index, IndexOptions, IndexReport, MemoryBudget, Progress, Refresh};

use crate::output::stderr_is_terminal;
use crate::{Exit, Out};

/// Build or refresh the index of a code base: symbols, references, the call and import graphs,
/// and their PageRank, stored in ROOT/.cast/index.sqlite (the folder ignores itself in git).
///
/// Only what changed since the last run is re-parsed (files are compared by size and mtime,
/// then by content hash); deleted files are dropped. Every other analysis command (map, show,
/// find) refreshes the index itself, so running this first is optional: it is for building a
/// large index ahead of time, with a progress bar. This command always walks the tree; the
/// others check the files without walking while no folder and no ignore file changed since
/// the last walk.
///
/// Prints one summary line (with --json, one JSON object with every count and the time). It
/// counts the files by role: source, test, stub (`.pyi`, `.d.ts`), example (examples, docs,
/// benchmarks), installed (site-packages, node_modules, vendored copies) and generated
/// (minified bundles, protobuf output, files whose first lines say they are generated).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast index                        # index the current folder\n  cast index ~/src/project --json   # counts and seconds as JSON\n  cast index . --db /tmp/idx.sqlite # keep the database elsewhere"
)]
pub struct Args {
    /// The root of the code base.
    #[arg(value_name = "PATH", default_value = ".")]
    path: PathBuf,
    /// The database file (default: PATH/.cast/index.sqlite).
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    /// Skip files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_FILESIZE)]
    max_filesize: u64,
    /// What the build may buffer, in MiB: a quarter for SQLite's page cache while files are
    /// written (a sixteenth while references are resolved), the rest for parse results waiting
    /// to be written (and, in a new index, for its table threads) and references being
    /// resolved. It also caps the threads that parse and resolve at one per 64 MiB (4 at the
    /// default; each holds the file it parses and its allocator's pages, 5–7 MiB), so the peak
    /// does not grow with the cores: a larger budget builds faster on a machine of many cores.
    /// What grows with the tree (the names resolution looks up, ranking's edges) comes on top:
    /// on two cores 256 MiB builds the stdlib with site-packages (141 MB of source) in about
    /// 180-200 MB, three copies of it in about 250-270 MB. Default: $CAST_INDEX_MEMORY, else
    /// 256; at least 32.
    #[arg(long, value_name = "MIB")]
    memory: Option<u64>,
    #[command(flatten)]
    walk: crate::walk_args::WalkArgs,
}

/// A progress reporter drawing an indicatif bar on stderr, only for a person at a terminal.
pub fn progress_bar() -> impl FnMut(Progress) {
    let bar = stderr_is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{spinner} {msg} {wide_bar} {pos}/{len} files ({eta})",
        ) {
            bar.set_style(style);
        }
        bar
    });
    move |p: Progress| {
        let Some(bar) = &bar else { return };
        match p {
            Progress::Walking => bar.set_message("listing"),
            Progress::Parsing { done, total } => {
                bar.set_message("parsing");
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
            Progress::Resolving { files } => {
                bar.set_message(format!("resolving references of {files} files"))
            }
            Progress::Ranking => {
                bar.set_message("ranking");
                bar.finish_and_clear();
            }
        }
    }
}

/// The index flags of the commands that answer from it (map, show, find).
#[derive(Debug, Clone, clap::Args)]
pub struct IndexArgs {
    /// The database file (default: .cast/index.sqlite in the indexed folder).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    /// Use the index as it is, without checking the files for changes: the check stats every
    /// file (and walks the tree when a folder or an ignore file changed) beside the query,
    /// which on a large tree costs CPU and some time, but edits since the last refresh are
    /// then not seen. An index is still built when there is none.
    #[arg(long)]
    pub no_refresh: bool,
}

/// Answers `query` from the index of `root` (built when there is none), with a progress bar at
/// a terminal. The answer is current with the files on disk unless `--no-refresh`, which uses
/// an existing index as it is; see [`Index::query_current`].
pub fn query<T>(
    root: &Path,
    args: IndexArgs,
    mut query: impl FnMut(&Index) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let options = IndexOptions {
        memory: memory_budget(None)?,
        db_path: args.db,
        refresh: if args.no_refresh {
            Refresh::IfMissing
        } else {
            Refresh::Always
        },
        ..IndexOptions::default()
    };
    let mut progress = progress_bar();
    // The query's own errors pass through as they are; a failure to open or refresh the index
    // says so.
    Index::query_current(root, &options, &mut progress, |index| {
        Ok::<_, cast_analyzer::AnalyzerError>(query(index))
    })
    .with_context(|| format!("cannot index {}", root.display()))?
}

/// The one-line summary of a build or refresh.
pub fn summary(report: &IndexReport, db: &Path) -> String {
    format!(
        "{} {} files ({} added, {} changed, {} deleted, {} touched, {} unchanged, {} skipped; {}): {} symbols, {} edges, {} file edges, {} commits of history in {:.2} s; {} ({:.1} MB)",
        if report.cold { "indexed" } else { "refreshed" },
        report.files,
        report.added,
        report.changed,
        report.deleted,
        report.touched,
        report.unchanged,
        report.skipped,
        by_role(report),
        report.symbols,
        report.edges,
        report.file_edges,
        report.commits,
        report.seconds,
        db.display(),
        report.db_bytes as f64 / 1e6
    )
}

/// The files by role, the roles no file has left out: `812 source, 240 test, 3 generated`.
fn by_role(report: &IndexReport) -> String {
    let counted: Vec<String> = report
        .roles
        .by_role()
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(role, n)| format!("{n} {}", role.as_str()))
        .collect();
    if counted.is_empty() {
        "no files".to_owned()
    } else {
        counted.join(", ")
    }
}

/// The name of the variable that sets the memory budget of every build (`cast index --memory`
/// overrides it).
pub const MEMORY_VAR: &str = "CAST_INDEX_MEMORY";

/// The memory budget of a build: `flag` (MiB), else `$CAST_INDEX_MEMORY`, else the default.
pub fn memory_budget(flag: Option<u64>) -> anyhow::Result<MemoryBudget> {
    let mebibytes = match flag {
        Some(m) => Some(m),
        None => match std::env::var(MEMORY_VAR) {
            Ok(text) if !text.trim().is_empty() => {
                Some(text.trim().parse::<u64>().map_err(|_| {
                    anyhow::anyhow!(
                        "{MEMORY_VAR}={text:?} is not a number of MiB (for example 256)"
                    )
                })?)
            }
            _ => None,
        },
    };
    Ok(mebibytes.map_or_else(MemoryBudget::default, MemoryBudget::mebibytes))
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let options = IndexOptions {
        memory: memory_budget(args.memory)?,
        db_path: args.db,
        walk: Some(WalkOptions {
            max_filesize: Some(args.max_filesize),
            ..args.walk.options()
        }),
        ..IndexOptions::default()
    };
    let mut progress = progress_bar();
    let index = Index::open_with(&args.path, &options, &mut progress)
        .with_context(|| format!("cannot index {}", args.path.display()))?;
    let report = index.report().cloned().unwrap_or_default();
    for w in report.warnings.iter().take(20) {
        crate::output::warn(w);
    }
    if report.warnings.len() > 20 {
        crate::output::warn(format_args!(
            "… and {} more warnings",
            report.warnings.len() - 20
        ));
    }
    if args.json {
        out.json(&report)?;
    } else {
        out.line(&summary(&report, index.db_path()))?;
    }
    Ok(Exit::Success)
}
