//! `cast apply`: apply an edit to a file (or a model's reply to several files), or refuse it.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use cast_coder::{ChangeSet, Coder, CoderError, Edit, FileEdit, Format, find_root};

use crate::output::warn;
use crate::{Exit, Out};

/// Apply an edit to a file exactly, or refuse it and change nothing.
///
/// FORMAT is one of:
///   search-replace  `------- SEARCH` / `=======` / `+++++++ REPLACE` blocks (one or more)
///   op              a JSON array of {"type":"insert","after_line":N,"content":[...]},
///                   {"type":"replace","start_line":A,"end_line":B,"content":[...]},
///                   {"type":"delete","start_line":A,"end_line":B}; original line numbers
///   dmp             diff-match-patch patch text (patch_toText)
///   lazy            the new file with unchanged runs collapsed to `# ... existing code ...`
///
/// Every block, op or patch applies, or none does. A refused edit leaves the file byte for byte
/// unchanged, prints the reason on stderr (which block, the closest lines with their line
/// numbers and similarity, or where an ambiguous block matched) and exits 1.
///
/// Without TARGET, a search-replace EDIT is a model's reply with `<file-edit filePath="…">`
/// sections: every file named (relative to the workspace root) is edited, all or nothing.
///
/// Before writing, the old bytes go to the undo journal in ROOT/.cast/undo/ (see `cast undo`).
/// ROOT is --root, else the nearest folder above TARGET (for a reply: above the current
/// folder) that holds .git or .cast, else TARGET's folder (the current folder).
///
/// Output: one line per file (`PATH: applied, lines A-B …`); with --dry-run the unified diff;
/// with --json one object per file (path, created, changed, diff, hunks, blocks), or one
/// {"refused": …} object.
#[derive(Debug, clap::Args)]
#[command(
    verbatim_doc_comment,
    after_help = "Examples:\n  cast apply --format search-replace --edit fix.txt src/app.py\n  cast apply --format op --edit ops.json --dry-run src/app.py\n  llm-reply | cast apply --format search-replace --edit -      # <file-edit> reply\n  cast undo                                                    # revert the last apply"
)]
pub struct Args {
    /// The edit's format: search-replace, op, dmp or lazy.
    #[arg(long, short = 'f', value_name = "FORMAT", value_parser = parse_format)]
    format: Format,
    /// The file holding the edit; `-` reads standard input.
    #[arg(long, short = 'e', value_name = "EDIT_FILE")]
    edit: PathBuf,
    /// Show the unified diff and write nothing.
    #[arg(long, short = 'n')]
    dry_run: bool,
    /// The workspace root, where the undo journal lives (ROOT/.cast/undo/).
    #[arg(long, value_name = "ROOT")]
    root: Option<PathBuf>,
    /// Do not record the change in the undo journal.
    #[arg(long)]
    no_undo: bool,
    /// Print one JSON object per file (or the refusal as JSON).
    #[arg(long)]
    json: bool,
    /// The file to edit. Omit it for a reply with `<file-edit filePath="…">` sections.
    #[arg(value_name = "TARGET")]
    target: Option<PathBuf>,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

fn read_edit(path: &Path) -> anyhow::Result<String> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .context("reading the edit from standard input")?;
        buf
    } else {
        std::fs::read(path).with_context(|| format!("reading the edit {}", path.display()))?
    };
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("the edit {} is not UTF-8 text", path.display()))
}

pub fn run(args: Args, out: &mut Out) -> anyhow::Result<Exit> {
    let text = read_edit(&args.edit)?;
    let cwd = std::env::current_dir().context("finding the current folder")?;
    let (root, edits) = match &args.target {
        Some(target) => {
            let target = cwd.join(target);
            let folder = target
                .parent()
                .map_or_else(|| cwd.clone(), Path::to_path_buf);
            let root = args.root.clone().unwrap_or_else(|| find_root(&folder));
            let edit = match Edit::parse(args.format, &text) {
                Ok(edit) => edit,
                Err(refusal) => {
                    return refused(&args, out, CoderError::from(refusal.with_path(&target)));
                }
            };
            (root, vec![FileEdit::new(target, edit)])
        }
        None => {
            if args.format != Format::SearchReplace
                || !cast_coder::search_replace::has_file_edit_tags(&text)
            {
                bail!(
                    "no TARGET given: name the file to edit, or give a search-replace reply with \
                     <file-edit filePath=\"…\"> sections"
                );
            }
            let root = args.root.clone().unwrap_or_else(|| find_root(&cwd));
            match FileEdit::from_reply(&text) {
                Ok(edits) => (root, edits),
                Err(refusal) => return refused(&args, out, refusal.into()),
            }
        }
    };
    let mut coder = Coder::new(&root).described_as(format!("cast apply --format {}", args.format));
    if args.no_undo {
        coder = coder.without_journal();
    }
    let result = if args.dry_run {
        coder.preview(&edits)
    } else {
        coder.apply(&edits)
    };
    match result {
        Ok(set) => report(&args, out, &set),
        Err(err @ CoderError::Refused(_)) => refused(&args, out, err),
        Err(err) => Err(err.into()),
    }
}

fn report(args: &Args, out: &mut Out, set: &ChangeSet) -> anyhow::Result<Exit> {
    for f in &set.files {
        if args.json {
            out.json(f)?;
            continue;
        }
        if args.dry_run {
            if f.changed {
                out.line(f.diff.trim_end_matches('\n'))?;
            } else {
                out.line(&format!("{}: no change", f.path.display()))?;
            }
            continue;
        }
        let mut line = format!(
            "{}: {}",
            f.path.display(),
            match (f.changed, f.created) {
                (false, _) => "no change",
                (true, true) => "created",
                (true, false) => "applied",
            }
        );
        let ranges: Vec<String> = f
            .hunks
            .iter()
            .map(|h| match h.new_lines {
                0 => format!("deleted after line {}", h.new_start - 1),
                1 => format!("line {}", h.new_start),
                n => format!("lines {}-{}", h.new_start, h.new_start + n - 1),
            })
            .collect();
        if !ranges.is_empty() {
            line.push_str(", ");
            line.push_str(&ranges.join(", "));
        }
        let loose: Vec<String> = f
            .blocks
            .iter()
            .filter(|b| b.tier != cast_coder::Tier::Exact || b.line_numbers_stripped)
            .map(|b| {
                let mut s = format!("block {} matched {}", b.block, b.tier.describe());
                if let Some(sim) = b.similarity {
                    s.push_str(&format!(" ({:.0}% similar)", sim * 100.0));
                }
                s
            })
            .collect();
        if !loose.is_empty() {
            line.push_str(&format!(" ({})", loose.join("; ")));
        }
        out.line(&line)?;
    }
    Ok(Exit::Success)
}

fn refused(args: &Args, out: &mut Out, err: CoderError) -> anyhow::Result<Exit> {
    if args.json
        && let Some(refusal) = err.refusal()
    {
        out.json(&serde_json::json!({ "refused": refusal, "message": refusal.to_string() }))?;
    }
    warn(&err);
    Ok(Exit::NothingOrRefused)
}
