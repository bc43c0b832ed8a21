//! Refusals: typed reasons an edit was not applied, rendered as advice a model can act on.
//!
//! Every number in a refusal is 1-based: block 1 is the first block of an edit, line 1 the
//! first line of the file (as the file is now, before the edit).

use std::fmt::{self, Display, Write as _};
use std::path::PathBuf;

use serde::Serialize;

use crate::Format;
use crate::tier::Tier;

/// An inclusive range of 1-based line numbers. `end < start` marks an empty range placed
/// before line `start` (a pure insertion point).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    /// First line.
    pub start: usize,
    /// Last line (inclusive).
    pub end: usize,
}

impl LineRange {
    /// The lines `first..first + count` of a 0-based index, as a 1-based inclusive range.
    pub(crate) fn from_index(first: usize, count: usize) -> LineRange {
        LineRange {
            start: first + 1,
            end: first + count,
        }
    }
}

impl Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.end <= self.start {
            write!(f, "line {}", self.start)
        } else {
            write!(f, "lines {}-{}", self.start, self.end)
        }
    }
}

/// A place in the file that resembles what an edit looked for.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Where it is.
    pub lines: LineRange,
    /// How similar it is, 0.0 to 1.0 (1 − edit distance / length, over the lines).
    pub similarity: f64,
    /// The file's lines there, as they are.
    pub text: Vec<String>,
    /// The lines that differ: (line in the edit's text, line number in the file, file line).
    pub differing: Vec<DifferingLine>,
}

/// One line of a [`Candidate`] that differs from what the edit wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DifferingLine {
    /// The line as the edit wrote it.
    pub wrote: String,
    /// The 1-based line number in the file.
    pub line: usize,
    /// The line as the file has it.
    pub file: String,
}

/// Why an edit (or one file of a change set) was refused. The file is untouched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refusal {
    /// The file concerned, when the edit named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// The reason, with the details (boxed: refusals travel in `Result`s).
    #[serde(flatten)]
    pub reason: Box<Reason>,
}

/// The reasons for a [`Refusal`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// The edit text cannot be read as its format.
    Malformed {
        /// The edit's format.
        format: Format,
        /// What is wrong.
        message: String,
        /// The line of the edit text where it went wrong, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<usize>,
    },
    /// The target is binary, not UTF-8, too large, or a folder.
    NotText {
        /// What it is.
        detail: String,
    },
    /// The target does not exist and the edit cannot create it.
    NoSuchFile,
    /// A SEARCH block (or one `...`-separated piece of it) was not found.
    NoMatch {
        /// Which block (1-based) of how many.
        block: usize,
        /// How many blocks the edit has.
        blocks: usize,
        /// Which piece of a block split by `...` lines, when it has several.
        #[serde(skip_serializing_if = "Option::is_none")]
        piece: Option<usize>,
        /// The most similar place in the file.
        #[serde(skip_serializing_if = "Option::is_none")]
        closest: Option<Candidate>,
        /// Where the REPLACE text already stands in the file, if it does.
        #[serde(skip_serializing_if = "Option::is_none")]
        replace_present: Option<LineRange>,
        /// The block allowed only an exact match (`exact_match_only`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        exact_only: bool,
    },
    /// A SEARCH block matched several places at the first tier that found it.
    Ambiguous {
        /// Which block (1-based).
        block: usize,
        /// How many blocks the edit has.
        blocks: usize,
        /// The tier that found the matches.
        tier: Tier,
        /// Where it matched (at most the first 10).
        locations: Vec<LineRange>,
        /// How many places matched in all.
        count: usize,
    },
    /// Only near matches exist and two are too alike to choose between.
    FuzzyTie {
        /// Which block (1-based).
        block: usize,
        /// How many blocks the edit has.
        blocks: usize,
        /// The most similar place.
        best: Candidate,
        /// The next most similar place.
        runner_up: Candidate,
    },
    /// The only near match (similarity tier) defines another name than SEARCH does on some
    /// line (`def test_b` where SEARCH has `def test_a`): it is not taken as a near miss.
    NearMatchRenames {
        /// Which block (1-based).
        block: usize,
        /// How many blocks the edit has.
        blocks: usize,
        /// The near match.
        closest: Candidate,
        /// SEARCH's line.
        wrote: String,
        /// The file's line (1-based) and text there.
        line: usize,
        /// The file's line.
        file: String,
    },
    /// The block matched but its REPLACE text cannot be re-indented to the file's indentation.
    Reindent {
        /// Which block (1-based).
        block: usize,
        /// How many blocks the edit has.
        blocks: usize,
        /// Where it matched.
        lines: LineRange,
        /// What went wrong.
        message: String,
    },
    /// An op names lines the file does not have.
    OpOutOfRange {
        /// Which op (1-based, in the order given).
        op: usize,
        /// The file's line count.
        file_lines: usize,
        /// What is wrong.
        message: String,
    },
    /// Two ops touch the same lines.
    OpsOverlap {
        /// The first op (1-based).
        first: usize,
        /// The second op (1-based).
        second: usize,
        /// What overlaps.
        message: String,
    },
    /// An op's `old_content` does not match the lines it names (stale line numbers).
    OpStale {
        /// Which op (1-based).
        op: usize,
        /// The lines the op named.
        lines: LineRange,
        /// What the op expected there.
        expected: Vec<String>,
        /// What the file has there.
        found: Vec<String>,
        /// Where the expected lines are now, if they occur exactly once.
        #[serde(skip_serializing_if = "Option::is_none")]
        now_at: Option<LineRange>,
    },
    /// A diff-match-patch patch could not be placed.
    PatchFailed {
        /// Which patch (1-based).
        patch: usize,
        /// How many patches.
        patches: usize,
        /// The line the patch was made for (in the file it was made from).
        expected_line: usize,
        /// What went wrong.
        message: String,
        /// Where it could go, when several places fit.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        locations: Vec<LineRange>,
    },
    /// A lazy sketch's segment could not be placed unambiguously.
    LazyUnplaced {
        /// Which segment (1-based; segments are separated by `... existing code ...` markers).
        segment: usize,
        /// How many segments.
        segments: usize,
        /// The segment's first line in the sketch (1-based).
        sketch_line: usize,
        /// What went wrong.
        message: String,
        /// Candidate places, when several fit equally well.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        locations: Vec<LineRange>,
    },
    /// Merging the sketch would delete a large part of the file.
    LazyLargeDeletion {
        /// Lines that would disappear.
        deleted: usize,
        /// The file's line count.
        file_lines: usize,
        /// The largest run that would disappear.
        largest: LineRange,
    },
    /// The edit would leave a file that parses unparseable (the coder was told to refuse
    /// such edits).
    NewSyntaxError {
        /// The first error, and a re-indentation that would parse when one was found.
        #[serde(flatten)]
        error: crate::syntax_error::NewSyntaxError,
    },
    /// The new text holds a character the file's declared encoding (PEP 263) cannot hold.
    Unencodable {
        /// The declared encoding.
        encoding: String,
        /// The first character it cannot hold.
        character: char,
    },
    /// Several edits in one change set name the same file in ways that cannot be combined, or
    /// a path is unusable.
    BadChangeSet {
        /// What is wrong.
        message: String,
    },
}

impl Refusal {
    pub(crate) fn new(reason: Reason) -> Refusal {
        Refusal {
            path: None,
            reason: Box::new(reason),
        }
    }

    pub(crate) fn malformed(
        format: Format,
        message: impl Into<String>,
        line: Option<usize>,
    ) -> Refusal {
        Refusal::new(Reason::Malformed {
            format,
            message: message.into(),
            line,
        })
    }

    /// The same refusal, naming a file.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Refusal {
        self.path = Some(path.into());
        self
    }
}

fn block_name(block: usize, blocks: usize) -> String {
    if blocks > 1 {
        format!("SEARCH/REPLACE block {block} of {blocks}")
    } else {
        "the SEARCH/REPLACE block".to_owned()
    }
}

fn write_candidate(out: &mut String, c: &Candidate, wrote: &str) {
    let _ = writeln!(
        out,
        "The closest text is at {} ({:.0}% similar):",
        c.lines,
        c.similarity * 100.0
    );
    const SHOW: usize = 12;
    for (i, line) in c.text.iter().enumerate().take(SHOW) {
        let _ = writeln!(out, "{:>6} | {line}", c.lines.start + i);
    }
    if c.text.len() > SHOW {
        let _ = writeln!(out, "       | ... ({} more lines)", c.text.len() - SHOW);
    }
    for d in c.differing.iter().take(5) {
        let _ = writeln!(
            out,
            "{wrote} wrote {:?} where line {} has {:?}.",
            d.wrote, d.line, d.file
        );
    }
}

fn with_period(message: &str) -> String {
    let m = message.trim_end();
    if m.ends_with(['.', '!', '?']) {
        m.to_owned()
    } else {
        format!("{m}.")
    }
}

fn list(ranges: &[LineRange]) -> String {
    ranges
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        if let Some(path) = &self.path {
            let _ = write!(out, "{}: ", path.display());
        }
        out.push_str("edit refused, nothing was changed. ");
        self.reason.explain(&mut out);
        f.write_str(out.trim_end())
    }
}

impl Reason {
    /// What went wrong and what to do instead, written for whoever wrote the edit (usually a
    /// model): one function per reason, so each message reads on its own.
    fn explain(&self, out: &mut String) {
        match self {
            Reason::Malformed {
                format,
                message,
                line,
            } => {
                let _ = write!(out, "The {format} edit is malformed");
                if let Some(line) = line {
                    let _ = write!(out, " at line {line} of the edit");
                }
                let _ = write!(out, ": {message}");
            }
            Reason::NotText { detail } => {
                let _ = write!(
                    out,
                    "The target {detail}; only UTF-8 text files can be edited."
                );
            }
            Reason::NoSuchFile => out.push_str(
                "The file does not exist. To create it, use one SEARCH/REPLACE block with an \
                 empty SEARCH section and the whole file as REPLACE.",
            ),
            Reason::NoMatch {
                block,
                blocks,
                piece,
                closest,
                replace_present,
                exact_only,
            } => explain_no_match(
                out,
                &block_name(*block, *blocks),
                *piece,
                closest.as_ref(),
                replace_present.as_ref(),
                *exact_only,
            ),
            Reason::Ambiguous {
                block,
                blocks,
                tier,
                locations,
                count,
            } => explain_ambiguous(out, &block_name(*block, *blocks), *tier, locations, *count),
            Reason::FuzzyTie {
                block,
                blocks,
                best,
                runner_up,
            } => {
                let _ = write!(
                    out,
                    "The SEARCH text of {} is not in the file exactly. The most similar places \
                     are {} ({:.0}% similar) and {} ({:.0}% similar), too close to choose \
                     between. Copy the exact lines of the place you mean into SEARCH.",
                    block_name(*block, *blocks),
                    best.lines,
                    best.similarity * 100.0,
                    runner_up.lines,
                    runner_up.similarity * 100.0
                );
            }
            Reason::NearMatchRenames {
                block,
                blocks,
                closest,
                wrote,
                line,
                file,
            } => {
                let _ = write!(
                    out,
                    "The SEARCH text of {} is not in the file exactly. The most similar place, \
                     {} ({:.0}% similar), is a different definition: SEARCH has {:?} where line \
                     {line} has {:?}, and a near match never changes which definition is \
                     edited. Copy the exact lines of the place you mean into SEARCH.",
                    block_name(*block, *blocks),
                    closest.lines,
                    closest.similarity * 100.0,
                    wrote.trim(),
                    file.trim()
                );
            }
            Reason::Reindent {
                block,
                blocks,
                lines,
                message,
            } => {
                let _ = write!(
                    out,
                    "The SEARCH text of {} matches {lines} with different indentation, and \
                     {message}. Copy the lines with the file's indentation.",
                    block_name(*block, *blocks)
                );
            }
            Reason::OpOutOfRange {
                op,
                file_lines,
                message,
            } => {
                let _ = write!(
                    out,
                    "Op {op}: {message}; the file has {file_lines} lines. Line numbers are 1-based \
                     and refer to the file before any op is applied."
                );
            }
            Reason::OpsOverlap {
                first,
                second,
                message,
            } => {
                let _ = write!(
                    out,
                    "Ops {first} and {second} overlap ({message}). Each line may be touched by one \
                     op only; merge them into one replace."
                );
            }
            Reason::OpStale {
                op,
                lines,
                expected,
                found,
                now_at,
            } => {
                let _ = write!(
                    out,
                    "Op {op} expected {lines} to be {expected:?} but the file has {found:?}; the \
                     line numbers are stale."
                );
                if let Some(at) = now_at {
                    let _ = write!(out, " The expected lines are now at {at}.");
                }
                out.push_str(" Read the file again and retry with its current line numbers.");
            }
            Reason::PatchFailed {
                patch,
                patches,
                expected_line,
                message,
                locations,
            } => explain_unplaced(
                out,
                &format!("Patch {patch} of {patches} (made for line {expected_line})"),
                message,
                &if locations.is_empty() {
                    String::new()
                } else {
                    format!(" It fits at {}.", list(locations))
                },
                " Make the patch again from the file's current text, or use a SEARCH/REPLACE \
                 edit.",
            ),
            Reason::LazyUnplaced {
                segment,
                segments,
                sketch_line,
                message,
                locations,
            } => explain_unplaced(
                out,
                &format!(
                    "The lazy edit's part {segment} of {segments} (starting at line \
                     {sketch_line} of the sketch)"
                ),
                message,
                &if locations.is_empty() {
                    String::new()
                } else {
                    format!(" It fits equally well at {}.", list(locations))
                },
                " Start and end each part with two or three unchanged lines copied exactly \
                 from the file, or use a SEARCH/REPLACE edit.",
            ),
            Reason::LazyLargeDeletion {
                deleted,
                file_lines,
                largest,
            } => {
                let _ = write!(
                    out,
                    "Merging the sketch would delete {deleted} of the file's {file_lines} \
                     lines (the largest run is {largest}). If lines are to stay, mark them \
                     with a `... existing code ...` comment line; to delete code, use a \
                     SEARCH/REPLACE edit."
                );
            }
            Reason::NewSyntaxError { error } => {
                let _ = write!(
                    out,
                    "The file parses now but would not after this edit: {error}\nChange the \
                     edit so that the file still parses."
                );
            }
            Reason::Unencodable {
                encoding,
                character,
            } => {
                let _ = write!(
                    out,
                    "The file is written in {encoding} (its coding line says so), which cannot \
                     hold {character:?} (U+{:04X}) of the new text. Write the character as an \
                     escape in a string (\\u{:04x}), or change the coding line to utf-8 in the \
                     same edit.",
                    u32::from(*character),
                    u32::from(*character)
                );
            }
            Reason::BadChangeSet { message } => out.push_str(message),
        }
    }
}

/// A SEARCH text found nowhere: whether REPLACE is already there, the closest text, and how
/// to copy the lines.
fn explain_no_match(
    out: &mut String,
    block: &str,
    piece: Option<usize>,
    closest: Option<&Candidate>,
    replace_present: Option<&LineRange>,
    exact_only: bool,
) {
    let _ = write!(out, "The SEARCH text of {block}");
    if let Some(piece) = piece {
        let _ = write!(out, " (its part {piece} between `...` lines)");
    }
    if exact_only {
        out.push_str(
            " was not found in the file exactly (exact_match_only is set, so no looser match \
             is tried).\n",
        );
    } else {
        out.push_str(" was not found in the file.\n");
    }
    if let Some(at) = replace_present {
        let _ = writeln!(
            out,
            "Its REPLACE text is already present at {at}: the edit may have been applied \
             already. Read the file again before editing it."
        );
    }
    if let Some(c) = closest {
        write_candidate(out, c, "SEARCH");
    }
    out.push_str(
        "SEARCH must copy the file's current lines exactly (indentation and blank lines \
         included). Read the file again and retry with the exact lines.",
    );
}

/// A SEARCH text found in several places, and how to make it unique.
fn explain_ambiguous(
    out: &mut String,
    block: &str,
    tier: Tier,
    locations: &[LineRange],
    count: usize,
) {
    let _ = write!(
        out,
        "The SEARCH text of {block} matches {count} places ({}{}){}. Add a few unchanged lines \
         before or after it to SEARCH (and REPLACE) so that it matches exactly one place.",
        list(locations),
        if count > locations.len() { ", ..." } else { "" },
        if tier == Tier::Exact {
            String::new()
        } else {
            format!(" when compared {}", tier.describe())
        },
    );
}

/// A patch or a lazy sketch's part that cannot be placed: `what`, why, where it would fit,
/// and what to do instead.
fn explain_unplaced(out: &mut String, what: &str, message: &str, fits: &str, instead: &str) {
    let _ = write!(
        out,
        "{what} cannot be placed: {}{fits}{instead}",
        with_period(message)
    );
}

impl std::error::Error for Refusal {}
