//! Lazy edits: the file's new text with unchanged runs collapsed to marker lines such as
//! `# ... existing code ...`, merged back deterministically.
//!
//! The sketch is cut at its marker lines into parts. A part before the first marker starts at
//! the top of the file; a part after the last marker ends at its bottom; every other part floats
//! between the parts around it. A part replaces the region of the file that begins with a line
//! equal to its first line and ends with a line equal to its last (ignoring trailing
//! whitespace); of all such regions after the previous part, the one that needs the fewest
//! changed lines to become the part is chosen, and it must be the only one with that count
//! (two regions giving the same file count as one). Lines the part shares with its region are
//! kept exactly as the file has them. A sketch whose merge would delete most of the file is
//! refused: a forgotten marker, not an intended deletion.

use similar::{Algorithm, DiffOp};

use crate::refusal::{LineRange, Reason, Refusal};
use crate::text::{Lines, fragment_lines, is_blank};

/// Whether a line is an elision marker: a comment whose text starts with `...` (or `…`) and
/// speaks of existing, unchanged, remaining or other code.
pub fn is_marker(line: &str) -> bool {
    let mut t = line.trim();
    for open in ["<!--", "{/*", "/*", "//", "#", "--", ";", "%", "*"] {
        if let Some(rest) = t.strip_prefix(open) {
            t = rest;
            break;
        }
    }
    for close in ["-->", "*/}", "*/"] {
        if let Some(rest) = t.strip_suffix(close) {
            t = rest;
            break;
        }
    }
    let t = t.trim();
    let Some(body) = t.strip_prefix("...").or_else(|| t.strip_prefix('…')) else {
        return false;
    };
    let body = body.to_lowercase();
    [
        "existing",
        "unchanged",
        "rest of",
        "remaining",
        "other ",
        "previous",
        "same as before",
        "keep",
    ]
    .iter()
    .any(|k| body.contains(k))
}

struct Part {
    lines: Vec<String>,
    /// 1-based line of the sketch where the part starts.
    sketch_line: usize,
    /// A marker stands before / after it.
    open_start: bool,
    open_end: bool,
}

fn parts(sketch: &[String]) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut start = 1;
    let mut open_start = false;
    for (i, line) in sketch.iter().enumerate() {
        if is_marker(line) {
            if !current.iter().all(|l| is_blank(l)) {
                out.push(Part {
                    lines: std::mem::take(&mut current),
                    sketch_line: start,
                    open_start,
                    open_end: true,
                });
            }
            current.clear();
            open_start = true;
            start = i + 2;
        } else {
            current.push(line.clone());
        }
    }
    if !current.iter().all(|l| is_blank(l)) {
        out.push(Part {
            lines: current,
            sketch_line: start,
            open_start,
            open_end: false,
        });
    }
    out
}

fn same(a: &str, b: &str) -> bool {
    a.trim_end() == b.trim_end()
}

/// How similar a sketch line must be to the file line it replaces to count as that line
/// modified (one change) rather than deleted and inserted (two).
const MODIFIED_SIMILARITY: f64 = 0.8;

/// Changed lines to turn `region` into `part` (deleted + inserted, a line modified in place
/// counting once), and the deleted count.
fn cost(region: &[String], part: &[String]) -> (usize, usize) {
    let r: Vec<&str> = region.iter().map(|l| l.trim_end()).collect();
    let p: Vec<&str> = part.iter().map(|l| l.trim_end()).collect();
    let (mut changed, mut deleted) = (0, 0);
    for op in similar::capture_diff_slices(Algorithm::Myers, &r, &p) {
        match op {
            DiffOp::Equal { .. } => {}
            DiffOp::Delete { old_len, .. } => {
                changed += old_len;
                deleted += old_len;
            }
            DiffOp::Insert { new_len, .. } => changed += new_len,
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                // A file line rewritten into a close variant (a renamed call, an added
                // argument) is one change, not a deletion plus an insertion: otherwise a
                // region where the part inserts a line would always win over one where it
                // edits a line in place, and the merge would guess.
                let pairs = old_len.min(new_len);
                let modified = (0..pairs)
                    .filter(|&k| {
                        strsim::normalized_levenshtein(
                            r[old_index + k].trim(),
                            p[new_index + k].trim(),
                        ) >= MODIFIED_SIMILARITY
                    })
                    .count();
                changed += old_len + new_len - modified;
                deleted += old_len;
            }
        }
    }
    (changed, deleted)
}

/// The part's lines, keeping the file's own text for lines it shares with the region.
fn merged(region: &[String], part: &[String]) -> Vec<String> {
    let r: Vec<&str> = region.iter().map(|l| l.trim_end()).collect();
    let p: Vec<&str> = part.iter().map(|l| l.trim_end()).collect();
    let mut out: Vec<String> = part.to_vec();
    for op in similar::capture_diff_slices(Algorithm::Myers, &r, &p) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            out[new_index..new_index + len].clone_from_slice(&region[old_index..old_index + len]);
        }
    }
    out
}

struct Choice {
    start: usize,
    end: usize,
    changed: usize,
    deleted: usize,
}

/// Applies a sketch to `text` (LF line ends).
pub(crate) fn plan(sketch: &str, text: &str) -> Result<String, Refusal> {
    let doc = Lines::split(text);
    let file = &doc.lines;
    let n = file.len();
    let sketch_lines = fragment_lines(sketch);
    let parts = parts(&sketch_lines);
    let total = parts.len();
    if total == 0 {
        return Err(Refusal::malformed(
            crate::Format::Lazy,
            "the sketch has no code, only `... existing code ...` markers",
            None,
        ));
    }
    if total == 1 && !parts[0].open_start && !parts[0].open_end {
        // No marker: the sketch is the whole new file.
        let (_, deleted) = cost(file, &parts[0].lines);
        guard(deleted, n, LineRange::from_index(0, n))?;
        let final_newline = doc.final_newline || n == 0;
        return Ok(Lines {
            lines: merged(file, &parts[0].lines),
            final_newline,
        }
        .join());
    }
    let mut cursor = 0;
    let mut choices: Vec<Choice> = Vec::with_capacity(total);
    for (k, part) in parts.iter().enumerate() {
        let choice = place(part, k + 1, total, file, cursor)?;
        cursor = choice.end;
        choices.push(choice);
    }
    let deleted: usize = choices.iter().map(|c| c.deleted).sum();
    if let Some(largest) = choices.iter().max_by_key(|c| c.deleted) {
        guard(
            deleted,
            n,
            LineRange::from_index(largest.start, largest.end - largest.start),
        )?;
    }
    let mut out = Vec::with_capacity(n + sketch_lines.len());
    let mut at = 0;
    for (part, choice) in parts.iter().zip(&choices) {
        out.extend(file[at..choice.start].iter().cloned());
        out.extend(merged(&file[choice.start..choice.end], &part.lines));
        at = choice.end;
    }
    out.extend(file[at..].iter().cloned());
    Ok(Lines {
        lines: out,
        final_newline: doc.final_newline || n == 0,
    }
    .join())
}

/// Refuses merges that delete more than half of a file of more than 20 lines.
fn guard(deleted: usize, file_lines: usize, largest: LineRange) -> Result<(), Refusal> {
    if deleted > 20 && deleted * 2 > file_lines {
        return Err(Refusal::new(Reason::LazyLargeDeletion {
            deleted,
            file_lines,
            largest,
        }));
    }
    Ok(())
}

fn place(
    part: &Part,
    index: usize,
    total: usize,
    file: &[String],
    cursor: usize,
) -> Result<Choice, Refusal> {
    let lines = &part.lines;
    let m = lines.len();
    let n = file.len();
    let unplaced = |message: String, locations: Vec<LineRange>| {
        Refusal::new(Reason::LazyUnplaced {
            segment: index,
            segments: total,
            sketch_line: part.sketch_line,
            message,
            locations,
        })
    };
    // Where the part may start and end.
    let starts: Vec<usize> = if part.open_start {
        (cursor..n).filter(|&a| same(&file[a], &lines[0])).collect()
    } else {
        vec![0]
    };
    let ends: Vec<usize> = if part.open_end {
        (cursor + 1..=n)
            .filter(|&b| same(&file[b - 1], &lines[m - 1]))
            .collect()
    } else {
        vec![n]
    };
    if starts.is_empty() {
        return Err(unplaced(
            format!(
                "its first line {:?} is not in the file{}.",
                lines[0],
                if cursor > 0 {
                    " after the part before it"
                } else {
                    ""
                }
            ),
            Vec::new(),
        ));
    }
    if ends.is_empty() {
        return Err(unplaced(
            format!(
                "its last line {:?} is not in the file{}.",
                lines[m - 1],
                if cursor > 0 {
                    " after the part before it"
                } else {
                    ""
                }
            ),
            Vec::new(),
        ));
    }
    // How far each candidate start (end) agrees with the part's first (last) lines, and how
    // many non-blank lines that is: blank lines alone anchor nothing.
    let nonblank_prefix: Vec<usize> = std::iter::once(0)
        .chain(lines.iter().scan(0, |acc, l| {
            *acc += usize::from(!is_blank(l));
            Some(*acc)
        }))
        .collect();
    let nonblank = |from: usize, to: usize| nonblank_prefix[to] - nonblank_prefix[from];
    let prefix_len = |a: usize| {
        (0..m.min(n - a))
            .take_while(|&k| same(&file[a + k], &lines[k]))
            .count()
    };
    let suffix_len = |b: usize| {
        (0..m.min(b))
            .take_while(|&k| same(&file[b - 1 - k], &lines[m - 1 - k]))
            .count()
    };
    let start_anchor: Vec<(usize, usize)> = starts.iter().map(|&a| (a, prefix_len(a))).collect();
    let end_anchor: Vec<(usize, usize)> = ends.iter().map(|&b| (b, suffix_len(b))).collect();
    // The strongest anchoring first: most non-blank lines of the part matched at its two ends
    // (counted once where the ends overlap); then the fewest changed lines.
    let mut best_strength = 0usize;
    let mut strongest: Vec<(usize, usize)> = Vec::new();
    for &(a, p) in &start_anchor {
        for &(b, q) in &end_anchor {
            if b < a || (part.open_end && b == a) {
                continue;
            }
            let len = b - a;
            let (p, q) = (p.min(len), q.min(len));
            let strength = if p + q >= m {
                nonblank(0, m)
            } else {
                nonblank(0, p) + nonblank(m - q, m)
            };
            if strength > best_strength || strongest.is_empty() {
                if strength > best_strength {
                    strongest.clear();
                }
                best_strength = strength;
            }
            if strength == best_strength {
                strongest.push((a, b));
            }
        }
    }
    let mut best: Vec<Choice> = Vec::new();
    let mut best_changed = usize::MAX;
    strongest.sort_by_key(|&(a, b)| (b - a).abs_diff(m));
    for (a, b) in strongest {
        if (b - a).abs_diff(m) > best_changed {
            break; // the change count is at least the length difference
        }
        let (changed, deleted) = cost(&file[a..b], lines);
        if changed < best_changed {
            best_changed = changed;
            best.clear();
        }
        if changed == best_changed {
            best.push(Choice {
                start: a,
                end: b,
                changed,
                deleted,
            });
        }
    }
    if best.is_empty() {
        return Err(unplaced(
            "its first and last lines do not occur in that order in the file.".into(),
            Vec::new(),
        ));
    }
    if best.len() > 1 {
        // Different regions that give the same file are one choice.
        let result = |c: &Choice| -> Vec<String> {
            let mut v: Vec<String> = file[..c.start].to_vec();
            v.extend(lines.iter().map(|l| l.trim_end().to_owned()));
            v.extend(file[c.end..].iter().cloned());
            v
        };
        let first = result(&best[0]);
        if best[1..].iter().any(|c| result(c) != first) {
            let locations = best
                .iter()
                .take(10)
                .map(|c| LineRange::from_index(c.start, c.end - c.start))
                .collect();
            return Err(unplaced(
                "several places in the file fit it equally well.".into(),
                locations,
            ));
        }
    }
    let mut choice = best.swap_remove(0);
    let _ = choice.changed;
    if choice.end < choice.start {
        choice.end = choice.start;
    }
    Ok(choice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insertion_does_not_beat_an_edit_in_place() {
        // The part's context occurs twice: once with a line between its halves that the part
        // edits, once with nothing between them (where the part would insert the line). The
        // two readings are equally good, so the merge refuses rather than guessing.
        let text = "def a():\n    x()\n    y()\n    x()\n    y()\n\ndef b():\n    x()\n    y()\n    total = compute(items, 1)\n    x()\n    y()\n";
        let sketch = "# ... existing code ...\n    x()\n    y()\n    total = compute(items, 2)\n    x()\n    y()\n# ... existing code ...\n";
        let err = plan(sketch, text).unwrap_err();
        assert!(
            matches!(*err.reason, Reason::LazyUnplaced { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn markers_in_several_languages() {
        for m in [
            "# ... existing code ...",
            "    // ... existing code ...",
            "<!-- ... existing code ... -->",
            "/* ... rest of the file unchanged */",
            "# … existing code …",
        ] {
            assert!(is_marker(m), "{m}");
        }
        for not in ["# ...", "x = ...", "...", "# existing code"] {
            assert!(!is_marker(not), "{not}");
        }
    }

    #[test]
    fn floating_part_replaces_its_region() {
        let text = "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n\ndef c():\n    return 3\n";
        let sketch = "# ... existing code ...\ndef b():\n    return 20\n\ndef c():\n# ... existing code ...\n";
        let out = plan(sketch, text).unwrap();
        assert_eq!(out, text.replace("return 2\n", "return 20\n"));
    }

    #[test]
    fn insertion_with_context_on_both_sides() {
        let text = "a\nb\nc\nd\ne\n";
        let sketch = "# ... existing code ...\nb\nc\nnew\nd\n# ... existing code ...\n";
        assert_eq!(plan(sketch, text).unwrap(), "a\nb\nc\nnew\nd\ne\n");
    }

    #[test]
    fn regression_part_starting_with_a_blank_line_anchors_on_its_real_context() {
        // Every blank line matches the part's first line; only one is followed by `d`.
        let text = "a\n\nb\nc\n\nd\ne\n\nf\n";
        let sketch = "# ... existing code ...\n\nd\nNEW\ne\n# ... existing code ...\n";
        assert_eq!(plan(sketch, text).unwrap(), "a\n\nb\nc\n\nd\nNEW\ne\n\nf\n");
    }

    #[test]
    fn ambiguous_part_is_refused() {
        let text = "x = 1\nreturn x\ny = 2\nx = 1\nreturn x\n";
        let sketch = "# ... existing code ...\nx = 1\nreturn x + 1\n# ... existing code ...\n";
        let err = plan(sketch, text).unwrap_err();
        assert!(
            matches!(*err.reason, Reason::LazyUnplaced { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn forgotten_marker_that_deletes_most_of_the_file_is_refused() {
        let text: String = (0..60).map(|i| format!("line {i}\n")).collect();
        let sketch = "line 0\nline 1 changed\n";
        let err = plan(sketch, &text).unwrap_err();
        assert!(
            matches!(*err.reason, Reason::LazyLargeDeletion { .. }),
            "{err:?}"
        );
    }
}
