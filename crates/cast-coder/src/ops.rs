//! Line ops: insert, replace and delete by line number in the original file.
//!
//! Every line number is 1-based and refers to the file before any op applies, so ops may come
//! in any order; they are applied bottom-up. Ops that touch the same lines, or name lines the
//! file does not have, are refused. A replace or delete may carry `old_content`, the lines it
//! expects to find: a mismatch means stale line numbers and is refused.

use serde::{Deserialize, Deserializer, Serialize};

use crate::Format;
use crate::refusal::{LineRange, Reason, Refusal};
use crate::text::{Lines, fragment_lines};

/// Lines of text: a JSON array of strings, or one string split at its newlines.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, schemars::JsonSchema)]
#[serde(transparent)]
pub struct Content(pub Vec<String>);

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Lines(Vec<String>),
            Text(String),
        }
        let lines = match Raw::deserialize(d)? {
            Raw::Lines(lines) => lines
                .iter()
                .flat_map(|l| {
                    let l = crate::text::normalize_edit_text(l);
                    if l.is_empty() {
                        vec![String::new()]
                    } else {
                        fragment_lines(&l)
                    }
                })
                .collect(),
            Raw::Text(text) => fragment_lines(&crate::text::normalize_edit_text(&text)),
        };
        Ok(Content(lines))
    }
}

/// One line op. Line numbers are 1-based, in the original file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Op {
    /// Insert lines after line `after_line` (0: at the top).
    Insert {
        /// The line to insert after; 0 inserts before the first line.
        after_line: usize,
        /// The lines to insert.
        content: Content,
    },
    /// Replace lines `start_line..=end_line`.
    Replace {
        /// First line replaced.
        start_line: usize,
        /// Last line replaced (inclusive).
        end_line: usize,
        /// The new lines (empty: delete).
        content: Content,
        /// The lines expected there now; refused when they differ.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old_content: Option<Content>,
    },
    /// Delete lines `start_line..=end_line`.
    Delete {
        /// First line deleted.
        start_line: usize,
        /// Last line deleted (inclusive).
        end_line: usize,
        /// The lines expected there now; refused when they differ.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old_content: Option<Content>,
    },
}

/// Reads one op from a JSON object (its `file_path`, if any, already taken out). `number` is
/// its 1-based place in the edit, for the message.
pub(crate) fn op_from_value(number: usize, value: serde_json::Value) -> Result<Op, Refusal> {
    serde_json::from_value(value).map_err(|e| {
        Refusal::malformed(
            Format::Op,
            format!(
                "op {number}: {e}. Each op is {{\"type\":\"insert\",\"after_line\":N,\"content\":[...]}}, \
                 {{\"type\":\"replace\",\"start_line\":A,\"end_line\":B,\"content\":[...]}} or \
                 {{\"type\":\"delete\",\"start_line\":A,\"end_line\":B}}"
            ),
            None,
        )
    })
}

/// What an op does to the original lines: replace `start..end` (0-based, end exclusive; empty
/// for an insertion point) with `content`.
struct Span<'a> {
    op: usize,
    start: usize,
    end: usize,
    content: &'a [String],
    insert: bool,
}

/// Applies ops to `text` (LF line ends).
pub(crate) fn plan(ops: &[Op], text: &str) -> Result<String, Refusal> {
    let doc = Lines::split(text);
    let n = doc.lines.len();
    let mut spans = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let number = i + 1;
        let out_of_range = |message: String| {
            Refusal::new(Reason::OpOutOfRange {
                op: number,
                file_lines: n,
                message,
            })
        };
        match op {
            Op::Insert {
                after_line,
                content,
            } => {
                if *after_line > n {
                    return Err(out_of_range(format!("insert after line {after_line}")));
                }
                spans.push(Span {
                    op: number,
                    start: *after_line,
                    end: *after_line,
                    content: &content.0,
                    insert: true,
                });
            }
            Op::Replace {
                start_line,
                end_line,
                old_content,
                ..
            }
            | Op::Delete {
                start_line,
                end_line,
                old_content,
            } => {
                let verb = if matches!(op, Op::Delete { .. }) {
                    "delete"
                } else {
                    "replace"
                };
                if *start_line == 0 || *start_line > *end_line || *end_line > n {
                    return Err(out_of_range(format!(
                        "{verb} lines {start_line}-{end_line}{}",
                        if *start_line > *end_line {
                            " (start after end)"
                        } else {
                            ""
                        }
                    )));
                }
                if let Some(expected) = old_content {
                    check_old(number, &doc.lines, *start_line, *end_line, &expected.0)?;
                }
                let content: &[String] = match op {
                    Op::Replace { content, .. } => &content.0,
                    _ => &[],
                };
                spans.push(Span {
                    op: number,
                    start: start_line - 1,
                    end: *end_line,
                    content,
                    insert: false,
                });
            }
        }
    }
    // Order by position; an insertion point sorts before a range starting there.
    spans.sort_by_key(|s| (s.start, !s.insert, s.end));
    for pair in spans.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let clash = if a.insert && b.insert {
            a.start == b.start
        } else {
            b.start < a.end || (a.insert && !b.insert && a.start > b.start)
        };
        if clash {
            let (first, second) = (a.op.min(b.op), a.op.max(b.op));
            return Err(Refusal::new(Reason::OpsOverlap {
                first,
                second,
                message: format!("{} and {}", describe(a), describe(b)),
            }));
        }
    }
    // Bottom-up: later spans first, so earlier line numbers stay valid.
    let mut lines = doc.lines.clone();
    for span in spans.iter().rev() {
        lines.splice(span.start..span.end, span.content.iter().cloned());
    }
    let final_newline = doc.final_newline || n == 0;
    Ok(Lines {
        lines,
        final_newline,
    }
    .join())
}

fn describe(s: &Span<'_>) -> String {
    if s.insert {
        format!("op {} inserts after line {}", s.op, s.start)
    } else {
        format!("op {} covers lines {}-{}", s.op, s.start + 1, s.end)
    }
}

fn check_old(
    op: usize,
    lines: &[String],
    start: usize,
    end: usize,
    expected: &[String],
) -> Result<(), Refusal> {
    let found = &lines[start - 1..end];
    let same = found.len() == expected.len()
        && found
            .iter()
            .zip(expected)
            .all(|(a, b)| a.trim_end() == b.trim_end());
    if same {
        return Ok(());
    }
    let now_at = if expected.is_empty() {
        None
    } else {
        let hay: Vec<&str> = lines.iter().map(|l| l.trim_end()).collect();
        let needle: Vec<&str> = expected.iter().map(|l| l.trim_end()).collect();
        let at: Vec<usize> = (0..=hay.len().saturating_sub(needle.len()))
            .filter(|&i| hay.len() >= needle.len() && hay[i..i + needle.len()] == needle[..])
            .collect();
        (at.len() == 1).then(|| LineRange::from_index(at[0], needle.len()))
    };
    Err(Refusal::new(Reason::OpStale {
        op,
        lines: LineRange { start, end },
        expected: expected.to_vec(),
        found: found.to_vec(),
        now_at,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(json: &str, text: &str) -> Result<String, Refusal> {
        match crate::Edit::parse(Format::Op, json)? {
            crate::Edit::Op { ops } => plan(&ops, text),
            other => panic!("not ops: {other:?}"),
        }
    }

    #[test]
    fn ops_in_any_order_use_original_numbers() {
        let text = "1\n2\n3\n4\n5\n";
        let json = r#"[{"type":"delete","start_line":1,"end_line":1},
                       {"type":"replace","start_line":4,"end_line":5,"content":["four","five"]},
                       {"type":"insert","after_line":2,"content":"2.5"}]"#;
        assert_eq!(run(json, text).unwrap(), "2\n2.5\n3\nfour\nfive\n");
    }

    #[test]
    fn insert_at_edges_of_a_replaced_range_is_fine() {
        let text = "a\nb\nc\n";
        let json = r#"[{"type":"replace","start_line":2,"end_line":2,"content":["B"]},
                       {"type":"insert","after_line":1,"content":["before"]},
                       {"type":"insert","after_line":2,"content":["after"]}]"#;
        assert_eq!(run(json, text).unwrap(), "a\nbefore\nB\nafter\nc\n");
    }

    #[test]
    fn overlaps_and_ranges_are_refused() {
        let text = "a\nb\nc\n";
        let overlap = r#"[{"type":"delete","start_line":1,"end_line":2},{"type":"replace","start_line":2,"end_line":3,"content":[]}]"#;
        assert!(matches!(
            *run(overlap, text).unwrap_err().reason,
            Reason::OpsOverlap {
                first: 1,
                second: 2,
                ..
            }
        ));
        let inside = r#"[{"type":"delete","start_line":1,"end_line":3},{"type":"insert","after_line":1,"content":["x"]}]"#;
        assert!(matches!(
            *run(inside, text).unwrap_err().reason,
            Reason::OpsOverlap { .. }
        ));
        let same_point = r#"[{"type":"insert","after_line":1,"content":["x"]},{"type":"insert","after_line":1,"content":["y"]}]"#;
        assert!(matches!(
            *run(same_point, text).unwrap_err().reason,
            Reason::OpsOverlap { .. }
        ));
        let range = r#"[{"type":"delete","start_line":3,"end_line":4}]"#;
        assert!(matches!(
            *run(range, text).unwrap_err().reason,
            Reason::OpOutOfRange {
                op: 1,
                file_lines: 3,
                ..
            }
        ));
    }

    #[test]
    fn stale_old_content_is_refused_with_the_new_place() {
        let text = "x\na\nb\n";
        let json = r#"[{"type":"replace","start_line":1,"end_line":1,"content":["A"],"old_content":["a"]}]"#;
        let err = run(json, text).unwrap_err();
        assert!(
            matches!(
                *err.reason,
                Reason::OpStale {
                    now_at: Some(LineRange { start: 2, end: 2 }),
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn malformed_ops_name_the_op() {
        let err = run(
            r#"[{"type":"insert","after_line":1,"content":[]},{"type":"move"}]"#,
            "a\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("op 2"), "{err}");
        assert!(run("not json", "a\n").is_err());
        assert!(run("[]", "a\n").is_err());
        assert!(run(r#"[{"type":"insert","after_line":-1,"content":[]}]"#, "a\n").is_err());
    }
}
