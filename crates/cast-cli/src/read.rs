//! `cast read`: a file's lines, numbered.

use std::path::PathBuf;

use cast_searcher::{ReadOptions, read};

use crate::output::warn;
use crate::{Exit, Out};

/// Print a file's lines, numbered: the whole file, or the lines from --start to --end.
///
/// Text output: `N | text` per line, numbers right-aligned. A size guard shows at most 2000
/// lines and 100 KB at a time and says on stderr how to read the rest (`--start N`); lines over
/// 2000 bytes are cut with a marker. Binary files (a NUL byte) are refused; invalid UTF-8 is
/// shown as U+FFFD. With --json, one `{"line","text"}` object a line.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast read src/app.py                  # the whole file (up to the guard)\n  cast read src/app.py --start 120 --end 160\n  cast read big.log --start 2001        # read on where the guard stopped"
)]
pub struct Args {
    /// The file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The first line to show (1-based).
    #[arg(long, value_name = "N")]
    start: Option<u64>,
    /// The last line to show (inclusive).
    #[arg(long, value_name = "M")]
    end: Option<u64>,
    /// Show at most N lines at a time (0: no limit).
    #[arg(long, value_name = "N", default_value_t = cast_searcher::DEFAULT_READ_MAX_LINES)]
    max_lines: usize,
    /// Show at most this many bytes of text at a time (0: no limit).
    #[arg(long, value_name = "BYTES", default_value_t = cast_searcher::DEFAULT_READ_MAX_BYTES)]
    max_bytes: usize,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let options = ReadOptions {
        start_line: args.start,
        end_line: args.end,
        max_lines: args.max_lines,
        max_bytes: args.max_bytes,
        ..ReadOptions::default()
    };
    let result = read(&args.file, &options)?;
    if args.json {
        for line in &result.lines {
            out.json(line)?;
        }
    } else {
        let width = result.lines.last().map_or(1, |l| l.line.to_string().len());
        for line in &result.lines {
            out.line(&format!("{:>width$} | {}", line.line, line.text))?;
        }
    }
    if result.lossy_utf8 {
        warn("not valid UTF-8: undecodable bytes are shown as U+FFFD");
    }
    if let Some(next) = result.next_start {
        let (first, last) = result.shown().unwrap_or((0, 0));
        let end = args.end.map(|e| format!(" --end {e}")).unwrap_or_default();
        warn(format_args!(
            "showing lines {first}-{last} of {}; the size guard held back the rest: \
             read on with `cast read {} --start {next}{end}`",
            result.total_lines,
            args.file.display()
        ));
    }
    Ok(Exit::Success)
}
