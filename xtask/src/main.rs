//! `cargo xtask <task>`: development chores for a source checkout of CAST.
//!
//! Tasks are thin wrappers over what the `cast` command and the libraries already do, so a
//! source checkout and an installed `cast` behave the same.

use std::path::PathBuf;
use std::process::{Command, ExitCode};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "Development chores for CAST")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Compare `cast symbols` with Python's `ast` and ctags on a tree, and time all three.
    ///
    /// Runs bench/symbols.py with a release build of `cast` (built first).
    BenchSymbols {
        /// The tree to parse (default: this machine's Python standard library).
        path: Option<PathBuf>,
    },
    /// Build or refresh the index of a code base (what `cast index` does), with a progress bar.
    ///
    /// Ends with one summary line: files, symbols, edges, seconds.
    Index {
        /// The root of the code base.
        path: PathBuf,
        /// The database file (default: PATH/.cast/index.sqlite).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
    },
    /// Measure the analyzer on a tree (default: the Python standard library): cold index vs
    /// ctags, refreshes, database size, skeleton size, and `cast find` quality.
    ///
    /// Runs bench/analyzer.py with a release build of `cast` (built first).
    BenchAnalyzer {
        /// Arguments passed on to bench/analyzer.py.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    let root = workspace_root()?;
    match cli.task {
        Task::BenchSymbols { path } => {
            cargo(&root, &["build", "--release", "--bin", "cast"])?;
            let mut cmd = Command::new("python3");
            cmd.current_dir(&root)
                .arg("bench/symbols.py")
                .arg("--cast")
                .arg(root.join("target/release/cast"));
            if let Some(path) = path {
                cmd.arg(path);
            }
            status(&mut cmd)
        }
        Task::Index { path, db } => index(&path, db),
        Task::BenchAnalyzer { args } => {
            cargo(&root, &["build", "--release", "--bin", "cast"])?;
            let mut cmd = Command::new("python3");
            cmd.current_dir(&root)
                .arg("bench/analyzer.py")
                .arg("--cast")
                .arg(root.join("target/release/cast"))
                .args(args);
            status(&mut cmd)
        }
    }
}

/// `cargo xtask index`: the library's build-or-refresh, a progress bar on stderr (only at a
/// terminal), and a one-line summary.
fn index(path: &std::path::Path, db: Option<PathBuf>) -> anyhow::Result<()> {
    use cast_analyzer::{Index, IndexOptions, Progress};
    use std::io::IsTerminal;
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{msg} {wide_bar} {pos}/{len} files ({eta})")
        {
            bar.set_style(style);
        }
        bar
    });
    let mut progress = |p: Progress| {
        let Some(bar) = &bar else { return };
        match p {
            Progress::Walking => bar.set_message("listing"),
            Progress::Parsing { done, total } => {
                bar.set_message("parsing");
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            }
            Progress::Resolving { files } => bar.set_message(format!("resolving {files} files")),
            Progress::Ranking => bar.finish_and_clear(),
        }
    };
    let options = IndexOptions {
        db_path: db,
        ..IndexOptions::default()
    };
    let index = Index::open_with(path, &options, &mut progress)
        .with_context(|| format!("cannot index {}", path.display()))?;
    let r = index.report().cloned().unwrap_or_default();
    println!(
        "{} files ({} added, {} changed, {} deleted, {} touched, {} skipped), {} symbols, {} edges, {} file edges in {:.2} s; {} ({:.1} MB)",
        r.files,
        r.added,
        r.changed,
        r.deleted,
        r.touched,
        r.skipped,
        r.symbols,
        r.edges,
        r.file_edges,
        r.seconds,
        index.db_path().display(),
        r.db_bytes as f64 / 1e6
    );
    Ok(())
}

fn workspace_root() -> anyhow::Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(PathBuf::from)
        .context("xtask is not inside the workspace")
}

fn cargo(root: &PathBuf, args: &[&str]) -> anyhow::Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    status(Command::new(cargo).current_dir(root).args(args))
}

fn status(cmd: &mut Command) -> anyhow::Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{:?} failed with {status}", cmd.get_program());
    }
    Ok(())
}
