//! Turning raw line bytes into text a model can read: decoded, without the line ending, and cut
//! with a marker when it is very long.

use std::borrow::Cow;

/// The longest line shown whole by default, in bytes; longer lines are cut with a marker.
pub const DEFAULT_MAX_LINE_BYTES: usize = 500;

/// Strips one trailing `\n` or `\r\n`.
pub(crate) fn trim_line_end(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

/// Decodes a line (invalid UTF-8 becomes U+FFFD) and cuts it after `max` bytes (0: never) at a
/// character boundary, with a marker saying how much was left out. Returns the text and whether
/// it was cut. Borrows when nothing had to change.
pub fn line_text(bytes: &[u8], max: usize) -> (Cow<'_, str>, bool) {
    // `from_utf8` is the fast check; the lossy decoder only runs for invalid text.
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    if max == 0 || text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = format!(
        "{} …[line cut: {} more bytes]",
        &text[..end],
        text.len() - end
    );
    (Cow::Owned(cut), true)
}

/// A byte count for people: `812 B`, `4.2 KB`, `17.0 MB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1000 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < UNITS.len() {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Writes `n` with thousands separators: `12,345`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ends_are_trimmed() {
        assert_eq!(trim_line_end(b"a\r\n"), b"a");
        assert_eq!(trim_line_end(b"a\n"), b"a");
        assert_eq!(trim_line_end(b"a"), b"a");
        assert_eq!(trim_line_end(b"\n"), b"");
    }

    #[test]
    fn long_lines_are_cut_at_a_character_boundary_with_a_marker() {
        let (text, cut) = line_text("ééééé".as_bytes(), 3);
        assert!(cut);
        assert_eq!(text, "é …[line cut: 8 more bytes]");
        let (text, cut) = line_text(b"short", 3000);
        assert!(!cut && matches!(text, Cow::Borrowed("short")));
        assert_eq!(line_text(b"no limit", 0).0, "no limit");
    }

    #[test]
    fn invalid_utf8_is_decoded_lossily() {
        assert_eq!(line_text(b"a\xffb", 100).0, "a\u{fffd}b");
    }

    #[test]
    fn sizes_and_counts_read_well() {
        assert_eq!(human_size(812), "812 B");
        assert_eq!(human_size(4_200), "4.2 KB");
        assert_eq!(human_size(17_000_000), "17.0 MB");
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(1234), "1,234");
        assert_eq!(grouped(12_345_678), "12,345,678");
    }
}
