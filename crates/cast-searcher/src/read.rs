//! `read`: a file's lines, numbered, whole or a range, with a guard against huge files.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::SearchError;
use crate::text::{line_text, trim_line_end};

/// At most this many lines are returned by one read.
pub const DEFAULT_READ_MAX_LINES: usize = 2000;
/// At most this many bytes of text (about 25,000 tokens) are returned by one read.
pub const DEFAULT_READ_MAX_BYTES: usize = 100_000;
/// Lines longer than this are cut with a marker.
pub const DEFAULT_READ_MAX_LINE_BYTES: usize = 2000;

/// Which lines to [`read`], and the size guard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReadOptions {
    /// The first line to show, 1-based (default: 1).
    pub start_line: Option<u64>,
    /// The last line to show, inclusive (default: the end of the file).
    pub end_line: Option<u64>,
    /// The guard: show at most this many lines (0: no limit) ...
    pub max_lines: usize,
    /// ... and at most this many bytes of text (0: no limit); at least one line is shown.
    pub max_bytes: usize,
    /// Cut lines longer than this many bytes, with a marker (0: never cut).
    pub max_line_bytes: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            start_line: None,
            end_line: None,
            max_lines: DEFAULT_READ_MAX_LINES,
            max_bytes: DEFAULT_READ_MAX_BYTES,
            max_line_bytes: DEFAULT_READ_MAX_LINE_BYTES,
        }
    }
}

/// One line of a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadLine {
    /// 1-based.
    pub line: u64,
    /// Without the line ending; invalid UTF-8 shown as U+FFFD.
    pub text: String,
    /// The text was cut.
    #[serde(skip_serializing_if = "is_false")]
    pub cut: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// What [`read`] returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadResult {
    /// The lines shown, in order.
    pub lines: Vec<ReadLine>,
    /// How many lines the file has.
    pub total_lines: u64,
    /// The file's size in bytes.
    pub size: u64,
    /// Set when the size guard stopped before the lines asked for: the line to read on from.
    pub next_start: Option<u64>,
    /// The file is not valid UTF-8; undecodable bytes are shown as U+FFFD.
    pub lossy_utf8: bool,
}

impl ReadResult {
    /// The first and last line shown, or `None` if no line is.
    pub fn shown(&self) -> Option<(u64, u64)> {
        Some((self.lines.first()?.line, self.lines.last()?.line))
    }

    /// Whether every line of the file is shown.
    pub fn is_whole_file(&self) -> bool {
        self.lines.len() as u64 == self.total_lines
    }

    /// A note on what is shown when it is not the whole file (`None` when it is).
    pub fn note(&self) -> Option<String> {
        if self.total_lines == 0 {
            return Some("(empty file)".to_owned());
        }
        let (first, last) = self.shown()?;
        // Plain numbers: a model passes them back as arguments.
        let mut note = format!("(lines {first}-{last} of {} shown", self.total_lines);
        if let Some(next) = self.next_start {
            note.push_str(&format!(
                "; the rest was held back by the size guard: read on from line {next}"
            ));
        }
        note.push(')');
        if self.is_whole_file() && self.next_start.is_none() {
            return None;
        }
        Some(note)
    }
}

/// The text a model reads: `N | text` per line, numbers right-aligned, then a note when not the
/// whole file is shown (and how to read on) or when the file is not valid UTF-8.
impl fmt::Display for ReadResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.lines.last().map_or(1, |l| l.line.to_string().len());
        for line in &self.lines {
            writeln!(f, "{:>width$} | {}", line.line, line.text)?;
        }
        if self.lossy_utf8 {
            writeln!(
                f,
                "(not valid UTF-8: undecodable bytes are shown as \u{fffd})"
            )?;
        }
        if let Some(note) = self.note() {
            writeln!(f, "{note}")?;
        }
        Ok(())
    }
}

/// Reads the lines of `path` from `start_line` to `end_line` (1-based, inclusive; both
/// optional), at most `max_lines` lines and `max_bytes` bytes of text.
///
/// The whole file is scanned once to count its lines, without holding more than the lines shown
/// in memory. Errors: a missing file, a folder, a binary file (a NUL byte), an unreadable file, a
/// range that is empty or starts past the end.
pub fn read(path: &Path, options: &ReadOptions) -> Result<ReadResult, SearchError> {
    let meta = std::fs::metadata(path).map_err(|e| SearchError::io(path, e))?;
    if meta.is_dir() {
        return Err(SearchError::IsAFolder {
            path: path.to_path_buf(),
        });
    }
    let start = options.start_line.unwrap_or(1).max(1);
    let end = options.end_line.unwrap_or(u64::MAX);
    if end < start {
        return Err(SearchError::BadRange {
            path: path.to_path_buf(),
            message: format!("end_line {end} is before start_line {start}; ask for start <= end"),
        });
    }
    let file = File::open(path).map_err(|e| SearchError::io(path, e))?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut lines = LineCollector {
        start,
        end,
        options,
        number: 1,
        current: Vec::new(),
        current_len: 0,
        shown_bytes: 0,
        lines: Vec::new(),
        next_start: None,
        lossy: false,
    };
    let mut offset = 0u64;
    loop {
        let chunk = reader.fill_buf().map_err(|e| SearchError::io(path, e))?;
        if chunk.is_empty() {
            break;
        }
        if let Some(i) = memchr::memchr(0, chunk) {
            return Err(SearchError::Binary {
                path: path.to_path_buf(),
                offset: offset + i as u64,
            });
        }
        let mut from = 0;
        for nl in memchr::memchr_iter(b'\n', chunk) {
            lines.extend(&chunk[from..=nl]);
            lines.finish_line(true);
            from = nl + 1;
        }
        lines.extend(&chunk[from..]);
        let len = chunk.len();
        offset += len as u64;
        reader.consume(len);
    }
    if lines.current_len > 0 {
        lines.finish_line(false);
    }
    let total_lines = lines.number - 1;
    if start > total_lines.max(1) {
        return Err(SearchError::BadRange {
            path: path.to_path_buf(),
            message: format!(
                "start_line {start} is past the end: the file has {total_lines} lines"
            ),
        });
    }
    Ok(ReadResult {
        lines: lines.lines,
        total_lines,
        size: offset,
        next_start: lines.next_start,
        lossy_utf8: lines.lossy,
    })
}

/// Collects the lines in range, streaming, keeping only what is shown.
struct LineCollector<'a> {
    start: u64,
    end: u64,
    options: &'a ReadOptions,
    /// The number of the line being read.
    number: u64,
    /// Its first bytes (only for a shown line, and only as many as may be shown).
    current: Vec<u8>,
    /// Its full length in bytes.
    current_len: u64,
    shown_bytes: usize,
    lines: Vec<ReadLine>,
    next_start: Option<u64>,
    lossy: bool,
}

impl LineCollector<'_> {
    fn wanted(&self) -> bool {
        self.next_start.is_none() && (self.start..=self.end).contains(&self.number)
    }

    fn extend(&mut self, bytes: &[u8]) {
        self.current_len += bytes.len() as u64;
        if !self.wanted() {
            return;
        }
        let limit = match self.options.max_line_bytes {
            0 => usize::MAX,
            // Room for the cut marker's count and a character split at the limit.
            n => n + 8,
        };
        let room = limit.saturating_sub(self.current.len());
        self.current
            .extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// Ends the line being read; `ended` says it had a line ending (not the end of the file).
    fn finish_line(&mut self, ended: bool) {
        if self.wanted() {
            let full = self.current_len as usize;
            let kept = trim_line_end(&self.current);
            let truncated = self.current.len() < full;
            let (text, cut) = if truncated {
                // Cut while reading: say how much of the whole line was left out.
                let max = self.options.max_line_bytes.min(kept.len());
                let shown = String::from_utf8_lossy(&kept[..max]);
                let mut end = shown.len().min(max);
                while !shown.is_char_boundary(end) {
                    end -= 1;
                }
                let rest = full.saturating_sub(end + usize::from(ended));
                (
                    format!("{} …[line cut: {rest} more bytes]", &shown[..end]),
                    true,
                )
            } else {
                let (text, cut) = line_text(kept, self.options.max_line_bytes);
                (text.into_owned(), cut)
            };
            self.lossy |= match std::str::from_utf8(kept) {
                Ok(_) => false,
                // A character split by the cut is not an error in the file.
                Err(e) => e.error_len().is_some() || !truncated,
            };
            let over_lines =
                self.options.max_lines > 0 && self.lines.len() >= self.options.max_lines;
            let over_bytes = self.options.max_bytes > 0
                && !self.lines.is_empty()
                && self.shown_bytes + text.len() > self.options.max_bytes;
            if over_lines || over_bytes {
                self.next_start = Some(self.number);
            } else {
                self.shown_bytes += text.len() + 1;
                self.lines.push(ReadLine {
                    line: self.number,
                    text,
                    cut,
                });
            }
        }
        self.current.clear();
        self.current_len = 0;
        self.number += 1;
    }
}
