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
    /// Build or refresh the index of a code base with a progress bar: runs a release build of
    /// `cast index` (built first).
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
        Task::Index { path, db } => index(&root, &path, db),
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

/// `cargo xtask index`: a release build of `cast` (built first: `cargo xtask` itself runs in the
/// dev profile, which would index several times slower), then `cast index PATH [--db FILE]`,
/// which draws the progress bar on stderr at a terminal and prints the one-line summary.
fn index(
    root: &std::path::Path,
    path: &std::path::Path,
    db: Option<PathBuf>,
) -> anyhow::Result<()> {
    cargo(root, &["build", "--release", "--quiet", "--bin", "cast"])?;
    let mut cmd = Command::new(root.join("target/release/cast"));
    cmd.arg("index").arg(path);
    if let Some(db) = db {
        cmd.arg("--db").arg(db);
    }
    status(&mut cmd)
}

fn workspace_root() -> anyhow::Result<PathBuf> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .map(PathBuf::from)
        .context("xtask is not inside the workspace")
}

fn cargo(root: &std::path::Path, args: &[&str]) -> anyhow::Result<()> {
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
