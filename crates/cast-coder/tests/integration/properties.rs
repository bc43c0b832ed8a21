//! Property tests: exact round-trips, refusals that touch nothing, op order independence.

use cast_coder::{Block, Coder, Edit, FileEdit, Format, Op, plan};
use proptest::prelude::*;

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,8}( [a-z0-9_=()]{1,6}){0,3}",
        1 => "    [a-z]{1,8}( [a-z0-9_=()]{1,6}){0,2}",
        1 => Just(String::new()),
    ]
}

fn file_lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(line(), 1..60)
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn occurrences(hay: &[String], needle: &[String]) -> usize {
    if needle.is_empty() || needle.len() > hay.len() {
        return 0;
    }
    hay.windows(needle.len()).filter(|w| *w == needle).count()
}

/// Grows `start..end` by a line above, then below, … until it occurs once.
fn unique_context(lines: &[String], mut start: usize, mut end: usize) -> Option<(usize, usize)> {
    let mut up = true;
    while occurrences(lines, &lines[start..end]) != 1 {
        match (up, start > 0, end < lines.len()) {
            (true, true, _) | (false, true, false) => start -= 1,
            (_, _, true) => end += 1,
            _ => return None,
        }
        up = !up;
    }
    Some((start, end))
}

fn block_text(search: &[String], replace: &[String]) -> String {
    format!(
        "------- SEARCH\n{}=======\n{}+++++++ REPLACE\n",
        join(search),
        join(replace)
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// An exact SEARCH/REPLACE block written from the file itself applies, and yields exactly
    /// the file with the hunk replaced.
    #[test]
    fn exact_search_replace_round_trips(
        lines in file_lines(),
        at in any::<prop::sample::Index>(),
        len in 1usize..4,
        new in prop::collection::vec(line(), 0..5),
    ) {
        let start = at.index(lines.len());
        let end = (start + len).min(lines.len());
        let Some((a, b)) = unique_context(&lines, start, end) else {
            return Ok(()); // the whole file repeats: no unique SEARCH exists
        };
        let search = lines[a..b].to_vec();
        let mut replace = lines[a..start].to_vec();
        replace.extend(new.iter().cloned());
        replace.extend(lines[end..b].iter().cloned());
        let mut expected = lines[..start].to_vec();
        expected.extend(new.iter().cloned());
        expected.extend(lines[end..].iter().cloned());

        let edit = Edit::parse(Format::SearchReplace, &block_text(&search, &replace)).unwrap();
        let planned = plan(&edit, &join(&lines)).unwrap();
        prop_assert_eq!(planned.text, join(&expected));
    }

    /// Whatever the edit, when it is refused the file's bytes are exactly as before.
    #[test]
    fn a_refused_edit_leaves_the_bytes_unchanged(
        lines in file_lines(),
        crlf in any::<bool>(),
        final_newline in any::<bool>(),
        format in prop::sample::select(Format::ALL.to_vec()),
        search in prop::collection::vec(line(), 0..4),
        replace in prop::collection::vec(line(), 0..4),
        junk in "[ -~\n]{0,80}",
    ) {
        let mut text = lines.join(if crlf { "\r\n" } else { "\n" });
        if final_newline {
            text.push_str(if crlf { "\r\n" } else { "\n" });
        }
        let edit_text = match format {
            Format::SearchReplace => block_text(&search, &replace),
            Format::Op => format!("[{{\"type\":\"replace\",\"start_line\":{},\"end_line\":{},\"content\":{:?}}}]", search.len(), lines.len() + search.len(), replace),
            Format::Dmp => format!("@@ -1,{} +1,{} @@\n {}\n", junk.len(), junk.len(), junk.replace('%', "%25").replace('\n', "%0A")),
            Format::Lazy => format!("# ... existing code ...\n{}{junk}\n# ... existing code ...\n", join(&search)),
        };
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("f.txt");
        std::fs::write(&target, &text).unwrap();
        let outcome = Edit::parse(format, &edit_text)
            .map_err(cast_coder::CoderError::from)
            .and_then(|edit| Coder::new(dir.path()).apply(&[FileEdit::new("f.txt", edit)]));
        if let Err(err) = outcome {
            prop_assert!(err.refusal().is_some(), "not a refusal: {}", err);
            prop_assert_eq!(std::fs::read(&target).unwrap(), text.as_bytes());
            prop_assert!(!dir.path().join(".cast/undo").exists() || std::fs::read_dir(dir.path().join(".cast/undo")).unwrap().count() == 0);
        }
    }

    /// Ops given in any order give the same file as the same ops applied one by one from the
    /// bottom of the file up.
    #[test]
    fn op_batches_in_any_order_equal_bottom_up(
        lines in file_lines(),
        plan_seed in prop::collection::vec((0u8..4, 1usize..4, prop::collection::vec(line(), 0..3)), 1..30),
        shuffle_seed in any::<u64>(),
    ) {
        // Walk the file, placing non-overlapping ops by original line numbers.
        let n = lines.len();
        let mut ops: Vec<Op> = Vec::new();
        let mut line_no = 0usize; // lines consumed so far
        for (kind, len, content) in plan_seed {
            if line_no > n { break; }
            match kind {
                0 => line_no += len, // leave lines alone
                1 => { // insert after the current line
                    ops.push(Op::Insert { after_line: line_no, content: cast_coder::Content(content) });
                    line_no += 1;
                }
                2 if line_no < n => {
                    let end = (line_no + len).min(n);
                    ops.push(Op::Replace { start_line: line_no + 1, end_line: end, content: cast_coder::Content(content), old_content: None });
                    line_no = end + 1;
                }
                3 if line_no < n => {
                    let end = (line_no + len).min(n);
                    ops.push(Op::Delete { start_line: line_no + 1, end_line: end, old_content: None });
                    line_no = end + 1;
                }
                _ => line_no += 1,
            }
        }
        // Reference: one op at a time, from the bottom up.
        let key = |op: &Op| match op {
            // At one index, the range applies before the insertion in front of it.
            Op::Insert { after_line, .. } => (*after_line, 0),
            Op::Replace { start_line, .. } | Op::Delete { start_line, .. } => (start_line - 1, 1),
        };
        let mut sorted = ops.clone();
        sorted.sort_by_key(|op| std::cmp::Reverse(key(op)));
        let mut expected = lines.clone();
        for op in &sorted {
            match op {
                Op::Insert { after_line, content } => {
                    expected.splice(*after_line..*after_line, content.0.iter().cloned());
                }
                Op::Replace { start_line, end_line, content, .. } => {
                    expected.splice(start_line - 1..*end_line, content.0.iter().cloned());
                }
                Op::Delete { start_line, end_line, .. } => {
                    expected.drain(start_line - 1..*end_line);
                }
            }
        }
        // The batch, in a shuffled order.
        let mut shuffled = ops.clone();
        let mut state = shuffle_seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let planned = plan(&Edit::Op { ops: shuffled }, &join(&lines)).unwrap();
        prop_assert_eq!(planned.text, join(&expected));
    }
}

#[test]
fn block_helper_builds_blocks_from_text() {
    let b = Block::new("a\nb\n", "c\n");
    assert_eq!((b.search.len(), b.replace.len()), (2, 1));
}
