//! `cast grep`: lines matching a regex or a text, as ripgrep finds them.

use std::path::PathBuf;

use cast_searcher::{GrepOptions, WalkOptions, grep};

use crate::output::warn;
use crate::{Exit, Out};

/// Search files for lines matching a regex (or, with -F, an exact text), as ripgrep does.
///
/// Folders are walked as ripgrep walks them: .gitignore, .ignore and .rgignore are respected,
/// hidden files and binary files (a NUL byte) are skipped; the regex syntax is ripgrep's. Results
/// come in path order, then line order. By default the first 50 matching lines are shown (the
/// agent's cap) and the search stops there; --max-results 0 shows all.
///
/// Text output: `PATH:LINE:TEXT` for a match, `PATH-LINE-TEXT` for a context line, `--` between
/// separate groups. With --json, one object a line: `path` (relative to PATH, forward slashes),
/// `line` (1-based), `text` (without the line ending; lines over 500 bytes are cut with a
/// marker), plus `"context": true` on context lines and `"cut": true` on cut lines. A note on
/// stderr says when the cap stopped the search.
///
/// Exits 1 when nothing matched.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  cast grep 'def \\w+_test' src/          # a regex\n  cast grep -F 'os.path.join(' .           # exact text\n  cast grep -i todo --include '*.py'        # ignore case, Python files only\n  cast grep --exclude 'tests/**' -C 2 main  # two lines of context, no tests\n  cast grep --json --max-results 0 import   # every match, as JSON lines"
)]
pub struct Args {
    /// The regex (ripgrep's syntax), or the exact text with -F.
    #[arg(value_name = "PATTERN")]
    pattern: String,
    /// The folder or file to search.
    #[arg(value_name = "PATH", default_value = ".")]
    path: PathBuf,
    /// Take PATTERN as exact text, not a regex.
    #[arg(long, short = 'F')]
    fixed_strings: bool,
    /// Ignore case.
    #[arg(long, short = 'i')]
    ignore_case: bool,
    /// Only files matching this glob (as ripgrep's -g; `*.py` matches at any depth). Repeatable.
    #[arg(long, value_name = "GLOB")]
    include: Vec<String>,
    /// Skip files and folders matching this glob (as ripgrep's -g '!GLOB'). Repeatable.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Show at most N matching lines, the first in path order (0: no cap).
    #[arg(long, value_name = "N", default_value_t = cast_searcher::DEFAULT_GREP_MAX_RESULTS)]
    max_results: usize,
    /// Show N lines of context before and after each match.
    #[arg(long, short = 'C', value_name = "N", default_value_t = 0)]
    context: usize,
    /// Print one JSON object per line.
    #[arg(long)]
    json: bool,
    /// Number of search threads (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    threads: Option<usize>,
    #[command(flatten)]
    walk: crate::walk_args::WalkArgs,
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let options = GrepOptions {
        fixed_strings: args.fixed_strings,
        case_sensitive: !args.ignore_case,
        include: args.include,
        exclude: args.exclude,
        max_results: args.max_results,
        context: args.context,
        walk: WalkOptions {
            threads: args.threads.unwrap_or(0),
            ..args.walk.options()
        },
        ..GrepOptions::default()
    };
    let found = grep(&args.path, &args.pattern, &options)?;
    let mut previous: Option<(&str, u64)> = None;
    let mut text = String::new();
    for line in found.lines() {
        if args.json {
            out.json(&line)?;
            continue;
        }
        if options.context > 0
            && previous.is_some_and(|(path, n)| path != line.path || line.line > n + 1)
        {
            out.line("--")?;
        }
        previous = Some((line.path, line.line));
        text.clear();
        text.push_str(line.path);
        let sep = if line.context { '-' } else { ':' };
        text.push(sep);
        text.push_str(itoa(line.line, &mut [0u8; 20]));
        text.push(sep);
        text.push_str(&line.text);
        out.line(&text)?;
    }
    for err in &found.errors {
        warn(format_args!("{}: {}", err.path, err.message));
    }
    if found.capped {
        warn(format_args!(
            "showing the first {} matching lines (in path order, {} files searched); \
             --max-results 0 shows all",
            found.max_results, found.files_searched
        ));
    }
    Ok(if found.match_count() == 0 {
        Exit::NothingOrRefused
    } else {
        Exit::Success
    })
}

/// Formats a line number without allocating.
fn itoa(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("0")
}
