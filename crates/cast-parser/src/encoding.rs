//! PEP 263 source encodings: the `# -*- coding: NAME -*-` line a Python file may carry in its
//! first two lines, and decoding and encoding a file in it.
//!
//! Only ASCII-compatible single- and multi-byte encodings are taken (as Python requires of a
//! declared encoding); UTF-8 and encodings CAST does not know are not a [`SourceEncoding`], so
//! such files are read as UTF-8 as before. Latin-1 is decoded byte for byte (Python's codec), not
//! as windows-1252, which is what the WHATWG label `latin1` means to `encoding_rs`.

use encoding_rs::Encoding;

/// A declared encoding other than UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceEncoding {
    /// ISO-8859-1: byte `b` is `char::from(b)`.
    Latin1,
    /// Any other ASCII-compatible encoding `encoding_rs` knows (cp1252, iso-8859-15,
    /// shift_jis, euc-jp, gbk, koi8-r, …).
    Other(&'static Encoding),
}

impl SourceEncoding {
    /// The encoding the first two lines of `bytes` declare (PEP 263), if it is one CAST can
    /// read and write and not UTF-8. The second line counts only when the first is a comment or
    /// blank, as in Python's tokenizer.
    pub fn declared(bytes: &[u8]) -> Option<SourceEncoding> {
        let mut lines = bytes.split(|&b| b == b'\n').take(2);
        let first = lines.next()?;
        let name = match declared_name(first) {
            Some(name) => Some(name),
            None if is_comment_or_blank(first) => lines.next().and_then(declared_name),
            None => None,
        }?;
        SourceEncoding::for_name(&name)
    }

    /// The encoding for a Python codec name (`latin-1`, `iso8859_15`, `cp1252`, `euc_jp`, …).
    pub fn for_name(name: &str) -> Option<SourceEncoding> {
        let name = name.trim().to_ascii_lowercase();
        let dashed = name.replace('_', "-");
        if matches!(
            dashed.as_str(),
            "latin-1"
                | "latin1"
                | "latin"
                | "l1"
                | "iso-8859-1"
                | "iso8859-1"
                | "8859"
                | "cp819"
                | "iso-ir-100"
        ) {
            return Some(SourceEncoding::Latin1);
        }
        if dashed.starts_with("utf-8") || dashed == "utf8" {
            return None;
        }
        let encoding = Encoding::for_label(name.as_bytes())
            .or_else(|| Encoding::for_label(dashed.as_bytes()))
            .or_else(|| {
                // Python writes iso8859_15, WHATWG iso-8859-15.
                let iso = dashed.strip_prefix("iso8859-")?;
                Encoding::for_label(format!("iso-8859-{iso}").as_bytes())
            })?;
        // UTF-16 and the replacement encoding are not ASCII-compatible; UTF-8 is the default.
        if encoding == encoding_rs::UTF_8 || encoding.output_encoding() != encoding {
            return None;
        }
        Some(SourceEncoding::Other(encoding))
    }

    /// The encoding's name, as a person would write it.
    pub fn name(self) -> &'static str {
        match self {
            SourceEncoding::Latin1 => "latin-1",
            SourceEncoding::Other(e) => e.name(),
        }
    }

    /// The text of `bytes`; `None` when they are not valid in this encoding.
    pub fn decode(self, bytes: &[u8]) -> Option<String> {
        match self {
            SourceEncoding::Latin1 => Some(bytes.iter().map(|&b| char::from(b)).collect()),
            SourceEncoding::Other(e) => e
                .decode_without_bom_handling_and_without_replacement(bytes)
                .map(|text| text.into_owned()),
        }
    }

    /// The bytes of `text`, or the first character this encoding cannot hold.
    pub fn encode(self, text: &str) -> Result<Vec<u8>, char> {
        match self {
            SourceEncoding::Latin1 => text
                .chars()
                .map(|c| u8::try_from(u32::from(c)).map_err(|_| c))
                .collect(),
            SourceEncoding::Other(e) => {
                let (bytes, _, unmappable) = e.encode(text);
                if !unmappable {
                    return Ok(bytes.into_owned());
                }
                let mut buf = [0u8; 4];
                Err(text
                    .chars()
                    .find(|c| e.encode(c.encode_utf8(&mut buf)).2)
                    .unwrap_or(char::REPLACEMENT_CHARACTER))
            }
        }
    }
}

fn is_comment_or_blank(line: &[u8]) -> bool {
    let rest = line.trim_ascii_start();
    rest.is_empty() || rest[0] == b'#'
}

/// The NAME of `coding[:=] NAME` in a comment line (PEP 263's regular expression
/// `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`).
fn declared_name(line: &[u8]) -> Option<String> {
    let start = line
        .iter()
        .position(|&b| !matches!(b, b' ' | b'\t' | b'\x0c'))?;
    if line[start] != b'#' {
        return None;
    }
    let comment = &line[start..];
    let mut from = 0;
    while let Some(at) = find(&comment[from..], b"coding") {
        let after = from + at + b"coding".len();
        if matches!(comment.get(after), Some(b':' | b'=')) {
            let name: Vec<u8> = comment[after + 1..]
                .iter()
                .skip_while(|&&b| b == b' ' || b == b'\t')
                .take_while(|&&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
                .copied()
                .collect();
            if !name.is_empty() {
                return String::from_utf8(name).ok();
            }
        }
        from = after;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declaration_is_read_from_the_first_two_lines() {
        let latin = Some(SourceEncoding::Latin1);
        assert_eq!(
            SourceEncoding::declared(b"# -*- coding: latin-1 -*-\n"),
            latin
        );
        assert_eq!(
            SourceEncoding::declared(b"#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n"),
            latin
        );
        assert_eq!(
            SourceEncoding::declared(b"\n# coding=latin_1\nx = 1\n"),
            latin
        );
        // Not on the third line, not after code, not outside a comment.
        assert_eq!(SourceEncoding::declared(b"#\n#\n# coding: latin-1\n"), None);
        assert_eq!(
            SourceEncoding::declared(b"x = 1\n# coding: latin-1\n"),
            None
        );
        assert_eq!(SourceEncoding::declared(b"s = 'coding: latin-1'\n"), None);
        // UTF-8 and unknown names are not a declared encoding CAST acts on.
        assert_eq!(SourceEncoding::declared(b"# coding: utf-8\n"), None);
        assert_eq!(SourceEncoding::declared(b"# coding: no-such-codec\n"), None);
        assert_eq!(
            SourceEncoding::declared(b"# -*- coding: iso8859_15 -*-\n").map(SourceEncoding::name),
            Some("ISO-8859-15")
        );
        assert_eq!(
            SourceEncoding::declared(b"# coding: euc_jp\n").map(SourceEncoding::name),
            Some("EUC-JP")
        );
        assert_eq!(SourceEncoding::for_name("utf-16"), None);
    }

    #[test]
    fn latin1_round_trips_every_byte_and_refuses_what_it_cannot_hold() {
        let bytes: Vec<u8> = (1..=255).collect();
        let text = SourceEncoding::Latin1.decode(&bytes).unwrap();
        assert_eq!(text.chars().nth(0xe9 - 1), Some('é'));
        assert_eq!(text.chars().nth(0x80 - 1), Some('\u{80}')); // Python's latin-1, not cp1252's €
        assert_eq!(SourceEncoding::Latin1.encode(&text).unwrap(), bytes);
        assert_eq!(SourceEncoding::Latin1.encode("café €"), Err('€'));
    }

    #[test]
    fn other_encodings_decode_strictly_and_name_the_first_unencodable_character() {
        let koi8 = SourceEncoding::for_name("koi8_r").unwrap();
        let text = koi8.decode(&[0xf0, 0xd2, 0xc9]).unwrap();
        assert_eq!(text, "При");
        assert_eq!(koi8.encode(&text).unwrap(), vec![0xf0, 0xd2, 0xc9]);
        assert_eq!(koi8.encode("Прé"), Err('é'));
        let sjis = SourceEncoding::for_name("shift_jis").unwrap();
        assert_eq!(sjis.decode(&[0x82]), None); // a lead byte with no trail byte
    }
}
