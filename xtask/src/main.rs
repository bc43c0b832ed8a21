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
    }
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
