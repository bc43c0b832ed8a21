//! `cast skeleton`: L2, the skeletons of files.

use std::path::PathBuf;

use anyhow::bail;
use cast_analyzer::AnalyzerError;
use cast_analyzer::cast_parser::{ParseError, Registry, WalkOptions, relative, source_files};
use cast_analyzer::skeleton::skeleton_of_file;

use crate::output::warn;
use crate::{Exit, Out};

/// Show the skeleton of files (L2): imports, class and def signatures, decorators and the
/// first paragraph of each docstring, every line prefixed with its original line number
/// `(Line N)`, bodies elided. HTML gets an outline of its ids, blocks, scripts and headings.
///
/// Folders are walked like ripgrep walks them. Skeletons come from a fresh parse, so they need
/// no index. With several files, each starts with a `==> PATH <==` line. With --json, one
/// object per file: path, language, line_count, source_bytes, lines [{line, text}].
///
/// A file no parser handles is reported on one line and skipped. Exits 1 when no skeleton was
/// shown.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast skeleton app/models.py\n  cast skeleton --json src/ | jq .path"
)]
pub struct Args {
    /// Files or folders.
    #[arg(value_name = "FILE", required = true)]
    paths: Vec<PathBuf>,
    /// One JSON object per file.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let registry = Registry::default();
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for path in &args.paths {
        if !path.exists() {
            bail!("{}: no such file or folder", path.display());
        }
        if path.is_dir() {
            let (found, _) = source_files(path, &WalkOptions::default(), &registry);
            files.extend(
                found
                    .into_iter()
                    .map(|(p, _)| (p.clone(), p.to_string_lossy().into_owned())),
            );
        } else {
            let shown = path.to_string_lossy().into_owned();
            files.push((path.clone(), shown));
        }
    }
    let several = files.len() > 1;
    let mut shown = 0;
    for (path, name) in files {
        let name = if name.is_empty() {
            relative(&path, &path)
        } else {
            name
        };
        let sk = match skeleton_of_file(&path, &name, &registry) {
            Ok(sk) => sk,
            // An unsupported file is one line, and the exit code says nothing was shown.
            Err(
                err @ AnalyzerError::Parse {
                    source: ParseError::Unsupported { .. },
                    ..
                },
            ) => {
                warn(err);
                continue;
            }
            Err(err) if several => {
                warn(format_args!("skipped {err}"));
                continue;
            }
            Err(err) => return Err(err.into()),
        };
        shown += 1;
        if args.json {
            out.json(&sk)?;
        } else {
            if several {
                out.line(&format!("==> {} <==", sk.path))?;
            }
            let text = sk.render();
            if !text.is_empty() {
                out.line(text.trim_end_matches('\n'))?;
            }
        }
    }
    Ok(if shown == 0 {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}
