//! `cast apply`: apply an edit to a file (or a model's reply to several files), or refuse it.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use cast_coder::{ChangeSet, Coder, CoderError, Edit, FileEdit, Format, find_root, names_file};

use crate::output::warn;
use crate::{Exit, Out};

/// Apply an edit to a file exactly, or refuse it and change nothing.
///
/// FORMAT is one of (told from the edit's text when --format is not given):
///   search-replace  `------- SEARCH` / `=======` / `+++++++ REPLACE` blocks (one or more)
///                   or the JSON form {"operation": {"type": "search_replace",
///                   "file_path": F, "search": S, "replace": R, "exact_match_only": B}}
///   op              a JSON array of {"type":"insert","after_line":N,"content":[...]},
///                   {"type":"replace","start_line":A,"end_line":B,"content":[...]},
///                   {"type":"delete","start_line":A,"end_line":B}; original line numbers;
///                   each may name its file with "file_path"
///   dmp             diff-match-patch patch text (patch_toText)
///   lazy            the new file with unchanged runs collapsed to `# ... existing code ...`
///
/// Every block, op or patch applies, or none does. A refused edit leaves the file byte for byte
/// unchanged, prints the reason on stderr (which block, the closest lines with their line
/// numbers and similarity, or where an ambiguous block matched) and exits 1.
///
/// An edit that names files (`<file-edit filePath="…">` sections of a model's reply, ops or
/// JSON operations with "file_path") edits those files, all or nothing, when TARGET is not
/// given (paths relative to the workspace root). With TARGET, every file the edit names must
/// be TARGET: an edit naming another file is refused, never applied to TARGET.
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
    after_help = "Examples:\n  cast apply --format search-replace --edit fix.txt src/app.py\n  cast apply --format op --edit ops.json --dry-run src/app.py\n  llm-reply | cast apply --edit -                              # <file-edit> reply\n  cast undo                                                    # revert the last apply"
)]
pub struct Args {
    /// The edit's format: search-replace, op, dmp or lazy (default: told from the edit).
    #[arg(long, short = 'f', value_name = "FORMAT", value_parser = parse_format)]
    format: Option<Format>,
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
    /// Search-replace only: a block applies only where its SEARCH matches exactly (no
    /// whitespace, blank-line or similarity tiers).
    #[arg(long)]
    exact_match_only: bool,
    /// Refuse an edit that leaves a file which parses unparseable (by default it is applied
    /// with a warning naming the line and the parser's message).
    #[arg(long)]
    refuse_syntax_errors: bool,
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
    let format = match args.format {
        Some(format) => format,
        None => Format::detect(&text).with_context(|| {
            format!(
                "cannot tell the format of the edit {}; give --format search-replace, op, dmp or \
                 lazy",
                args.edit.display()
            )
        })?,
    };
    if args.exact_match_only && format != Format::SearchReplace {
        bail!("--exact-match-only applies to search-replace edits, not {format} edits");
    }
    let cwd = std::env::current_dir().context("finding the current folder")?;
    let (root, mut edits) = match &args.target {
        Some(target) => {
            let target = cwd.join(target);
            let folder = target
                .parent()
                .map_or_else(|| cwd.clone(), Path::to_path_buf);
            let root = args.root.clone().unwrap_or_else(|| find_root(&folder));
            let shown = args
                .target
                .as_deref()
                .unwrap_or(&target)
                .display()
                .to_string();
            let parsed = Edit::parse_for(format, &text, &shown, |name| {
                names_file(&root, name, &target) || names_file(&cwd, name, &target)
            });
            let edit = match parsed {
                Ok(edit) => edit,
                Err(refusal) => {
                    return refused(&args, out, CoderError::from(refusal.with_path(&target)));
                }
            };
            // Named relative to the root, as every path CAST prints.
            let named = relative_to(&cwd.join(&root), &target).unwrap_or_else(|| target.clone());
            (root, vec![FileEdit::new(named, edit)])
        }
        None => {
            let root = args.root.clone().unwrap_or_else(|| find_root(&cwd));
            let names_files = |text: &str| {
                cast_coder::search_replace::has_file_edit_tags(text)
                    || text.contains("\"file_path\"")
                    || text.contains("\"filePath\"")
            };
            match Edit::parse_named(format, &text) {
                Ok(parts) if parts.iter().all(|p| p.path.is_none()) => bail!(
                    "no TARGET given: name the file to edit, or give an edit that names its \
                     files (<file-edit filePath=\"…\"> sections, \"file_path\" in ops)"
                ),
                Err(_) if !names_files(&text) => bail!(
                    "no TARGET given: name the file to edit, or give an edit that names its \
                     files (<file-edit filePath=\"…\"> sections, \"file_path\" in ops)"
                ),
                _ => {}
            }
            match FileEdit::parse_named(format, &text) {
                Ok(edits) => (root, edits),
                Err(refusal) => return refused(&args, out, refusal.into()),
            }
        }
    };
    if args.exact_match_only {
        for fe in &mut edits {
            fe.edit.set_exact_only();
        }
    }
    let mut coder = Coder::new(&root)
        .described_as(format!("cast apply --format {format}"))
        .refusing_syntax_errors(args.refuse_syntax_errors);
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

/// `path` relative to `root` when it lies inside it (compared by real location; a file that
/// does not exist yet by its folder's).
fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    let root = root.canonicalize().ok()?;
    let real = path
        .canonicalize()
        .ok()
        .or_else(|| Some(path.parent()?.canonicalize().ok()?.join(path.file_name()?)))?;
    let rel = real.strip_prefix(&root).ok()?;
    (!rel.as_os_str().is_empty()).then(|| rel.to_path_buf())
}

fn report(args: &Args, out: &mut Out, set: &ChangeSet) -> anyhow::Result<Exit> {
    for f in &set.files {
        if let Some(error) = &f.new_syntax_error {
            warn(format_args!(
                "warning: {} {} after this edit: {error}",
                f.path.display(),
                if args.dry_run {
                    "would not parse"
                } else {
                    "does not parse"
                }
            ));
        }
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
