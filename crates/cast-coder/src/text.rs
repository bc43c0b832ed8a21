//! A file's bytes as text lines, and back to the same byte conventions.
//!
//! Planning works on text with `\n` line ends and no BOM. [`Document`] remembers what the file
//! had — a UTF-8 BOM, CRLF or LF line ends, a final newline or not, an encoding declared by a
//! PEP 263 line (`# -*- coding: latin-1 -*-`) — and puts it back on the new text, so an edit
//! changes only the lines it means to change.

use cast_parser::SourceEncoding;
use serde::Serialize;

/// Files larger than this are refused (16 MiB).
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

const BOM: &str = "\u{feff}";

/// The line-end convention of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineEnding {
    /// Every line ends with `\n` (or the file has no line end at all).
    Lf,
    /// Every line ends with `\r\n`.
    Crlf,
    /// Both occur; lines are kept as they are (a `\r` stays part of its line) and new lines get
    /// `\n`.
    Mixed,
}

/// Why bytes cannot be edited as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotText {
    Binary,
    NotUtf8 {
        valid_up_to: usize,
    },
    /// Not valid in the encoding its PEP 263 line declares.
    NotInDeclared {
        encoding: &'static str,
    },
    TooLarge {
        bytes: usize,
    },
}

/// A text file decoded for planning: `text` uses `\n` line ends and has no BOM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The text with `\n` line ends (CRLF files are converted; mixed files are kept as is).
    pub text: String,
    /// Whether the file started with a UTF-8 byte order mark.
    pub bom: bool,
    /// The file's line ends.
    pub line_ending: LineEnding,
    /// The encoding its first lines declare (PEP 263), when not UTF-8: read and written in it.
    pub encoding: Option<SourceEncoding>,
}

impl Document {
    /// Decodes file bytes. Binary (a NUL byte), non-UTF-8 and oversized files are refused.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Document, NotText> {
        if bytes.len() > MAX_FILE_BYTES {
            return Err(NotText::TooLarge { bytes: bytes.len() });
        }
        if memchr::memchr(0, bytes).is_some() {
            return Err(NotText::Binary);
        }
        let encoding = SourceEncoding::declared(bytes);
        let declared_text;
        let text = match encoding {
            Some(encoding) => {
                declared_text = encoding.decode(bytes).ok_or(NotText::NotInDeclared {
                    encoding: encoding.name(),
                })?;
                declared_text.as_str()
            }
            None => std::str::from_utf8(bytes).map_err(|e| NotText::NotUtf8 {
                valid_up_to: e.valid_up_to(),
            })?,
        };
        let (bom, text) = match text.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
        let crlf = text.matches("\r\n").count();
        let line_ending = if crlf == 0 {
            LineEnding::Lf
        } else if crlf == newlines {
            LineEnding::Crlf
        } else {
            LineEnding::Mixed
        };
        let text = if line_ending == LineEnding::Crlf {
            text.replace("\r\n", "\n")
        } else {
            text.to_owned()
        };
        Ok(Document {
            text,
            bom,
            line_ending,
            encoding,
        })
    }

    /// A new file: LF, no BOM, empty.
    pub(crate) fn new_file() -> Document {
        Document {
            text: String::new(),
            bom: false,
            line_ending: LineEnding::Lf,
            encoding: None,
        }
    }

    /// Encodes new `\n` text with this file's BOM and line ends, in the encoding the new text's
    /// coding line declares (UTF-8 without one); the error is the first character that encoding
    /// cannot hold.
    pub(crate) fn encode(&self, text: &str) -> Result<Vec<u8>, char> {
        let mut out = String::with_capacity(text.len() + 16);
        if self.bom {
            out.push_str(BOM);
        }
        if self.line_ending == LineEnding::Crlf {
            out.push_str(&text.replace('\n', "\r\n"));
        } else {
            out.push_str(text);
        }
        // The new text's own coding line decides (an edit may change or remove it).
        match SourceEncoding::declared(out.as_bytes()) {
            Some(encoding) => encoding.encode(&out),
            None => Ok(out.into_bytes()),
        }
    }
}

/// Normalises an edit's own text: no BOM, `\n` line ends.
pub(crate) fn normalize_edit_text(text: &str) -> String {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    if text.contains('\r') {
        text.replace("\r\n", "\n")
    } else {
        text.to_owned()
    }
}

/// Text split into lines without their `\n`, and whether the last line had one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lines {
    pub lines: Vec<String>,
    pub final_newline: bool,
}

impl Lines {
    pub fn split(text: &str) -> Lines {
        if text.is_empty() {
            return Lines {
                lines: Vec::new(),
                final_newline: false,
            };
        }
        let final_newline = text.ends_with('\n');
        let body = if final_newline {
            &text[..text.len() - 1]
        } else {
            text
        };
        Lines {
            lines: body.split('\n').map(str::to_owned).collect(),
            final_newline,
        }
    }

    pub fn join(&self) -> String {
        join_lines(&self.lines, self.final_newline)
    }
}

/// Joins lines with `\n`, adding a final one when asked (never to an empty file).
pub(crate) fn join_lines<S: AsRef<str>>(lines: &[S], final_newline: bool) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.as_ref().len() + 1).sum());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line.as_ref());
    }
    if final_newline && !lines.is_empty() {
        out.push('\n');
    }
    out
}

/// Splits an edit fragment (SEARCH, REPLACE, op content) into lines: a final `\n` does not make
/// an extra empty line.
pub(crate) fn fragment_lines(text: &str) -> Vec<String> {
    Lines::split(text).lines
}

/// The leading whitespace of a line.
pub(crate) fn indent_of(line: &str) -> &str {
    let trimmed = line.trim_start();
    &line[..line.len() - trimmed.len()]
}

/// Whether a line holds only whitespace.
pub(crate) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_and_bom_round_trip() {
        let bytes = "\u{feff}a\r\nb\r\n".as_bytes();
        let doc = Document::decode(bytes).unwrap();
        assert_eq!(doc.text, "a\nb\n");
        assert!(doc.bom);
        assert_eq!(doc.line_ending, LineEnding::Crlf);
        assert_eq!(
            doc.encode("a\nc\n").unwrap(),
            "\u{feff}a\r\nc\r\n".as_bytes()
        );
    }

    #[test]
    fn mixed_line_ends_are_kept() {
        let doc = Document::decode(b"a\r\nb\n").unwrap();
        assert_eq!(doc.line_ending, LineEnding::Mixed);
        assert_eq!(doc.text, "a\r\nb\n");
        assert_eq!(doc.encode(&doc.text).unwrap(), b"a\r\nb\n");
    }

    /// Issue 17, item 5: a file with a PEP 263 coding line was refused as "not UTF-8" (and
    /// read lossily by the parser); it is read and written in its declared encoding.
    #[test]
    fn regression_a_declared_encoding_is_read_and_written_back() {
        let bytes = b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\r\nx = 1\r\n";
        let doc = Document::decode(bytes).unwrap();
        assert_eq!(doc.encoding, Some(SourceEncoding::Latin1));
        assert_eq!(
            doc.text,
            "# -*- coding: latin-1 -*-\nname = 'café'\r\nx = 1\r\n"
        );
        let new = doc.text.replace("x = 1", "x = 'd\u{e9}j\u{e0}'");
        assert_eq!(
            doc.encode(&new).unwrap(),
            b"# -*- coding: latin-1 -*-\nname = 'caf\xe9'\r\nx = 'd\xe9j\xe0'\r\n"
        );
        // A character latin-1 cannot hold is refused, unless the edit changes the coding line.
        assert_eq!(doc.encode(&doc.text.replace("x = 1", "x = '€'")), Err('€'));
        let utf8 = doc
            .text
            .replace("latin-1", "utf-8")
            .replace("x = 1", "x = '€'");
        assert_eq!(doc.encode(&utf8).unwrap(), utf8.as_bytes());
        // Bytes that are not valid in the declared encoding are refused, not guessed at.
        assert_eq!(
            Document::decode(b"# coding: shift_jis\nx = '\x82'\n"),
            Err(NotText::NotInDeclared {
                encoding: "Shift_JIS"
            })
        );
    }

    #[test]
    fn binary_and_invalid_utf8_are_refused() {
        assert_eq!(Document::decode(b"a\0b"), Err(NotText::Binary));
        assert_eq!(
            Document::decode(b"ab\xffc"),
            Err(NotText::NotUtf8 { valid_up_to: 2 })
        );
    }

    #[test]
    fn lines_keep_the_final_newline_flag() {
        for text in ["", "a", "a\n", "a\n\nb", "\n", "\n\n"] {
            assert_eq!(Lines::split(text).join(), text, "{text:?}");
        }
        assert_eq!(Lines::split("a\nb\n").lines, ["a", "b"]);
    }
}
