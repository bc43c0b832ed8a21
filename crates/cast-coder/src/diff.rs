//! Unified diffs and changed line ranges of an applied edit.

use serde::Serialize;
use similar::{DiffTag, TextDiff};

/// One changed region, numbered like a unified diff's `@@ -a,b +c,d @@` without context: lines
/// are 1-based; a count of 0 means an insertion or deletion point after line `start - 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// First old line.
    pub old_start: usize,
    /// Old lines removed.
    pub old_lines: usize,
    /// First new line.
    pub new_start: usize,
    /// New lines written.
    pub new_lines: usize,
}

/// The unified diff (3 lines of context) of two texts, with `a/NAME` and `b/NAME` headers.
pub fn unified_diff(old: &str, new: &str, name: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// The changed regions, without context, merged where adjacent.
pub fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let diff = TextDiff::from_lines(old, new);
    let mut out: Vec<Hunk> = Vec::new();
    for op in diff.ops() {
        if op.tag() == DiffTag::Equal {
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        let h = Hunk {
            old_start: o.start + 1,
            old_lines: o.len(),
            new_start: n.start + 1,
            new_lines: n.len(),
        };
        match out.last_mut() {
            Some(last)
                if last.old_start + last.old_lines == h.old_start
                    && last.new_start + last.new_lines == h.new_start =>
            {
                last.old_lines += h.old_lines;
                last.new_lines += h.new_lines;
            }
            _ => out.push(h),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_number_lines_like_a_diff() {
        let h = hunks("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!(
            h,
            [
                Hunk {
                    old_start: 2,
                    old_lines: 1,
                    new_start: 2,
                    new_lines: 1
                },
                Hunk {
                    old_start: 4,
                    old_lines: 0,
                    new_start: 4,
                    new_lines: 1
                }
            ]
        );
        let d = unified_diff("a\nb\n", "a\nc\n", "x.py");
        assert!(
            d.starts_with("--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n"),
            "{d}"
        );
    }
}
