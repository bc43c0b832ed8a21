//! Syntax errors an edit brings into a file that parsed before, and the re-indentation of a
//! SEARCH/REPLACE block that would avoid one.
//!
//! A file is checked with the parser of its language (cast-parser's registry, by extension);
//! files no parser handles are not checked. Only a *new* error counts: a file that did not
//! parse before the edit is edited as it is.

use std::path::Path;

use cast_parser::Registry;
use similar::{Algorithm, DiffOp};

use crate::search_replace::Block;
pub(crate) use crate::syntax_error::{NewSyntaxError, ReindentHint};
use crate::text::{indent_of, is_blank};

/// The first syntax error of `text` as the file at `path`, or `None` when it parses or no
/// parser handles the file.
pub(crate) fn first_error(
    registry: &Registry,
    path: &Path,
    text: &str,
) -> Option<cast_parser::SyntaxError> {
    let language = registry.for_path(path)?;
    language.parse(text).ok()?.syntax_error
}

/// Whether `path` has a parser (so it is checked at all).
pub(crate) fn is_checked(registry: &Registry, path: &Path) -> bool {
    registry.for_path(path).is_some()
}

/// Other indentations of a block's REPLACE worth trying, most likely first: the lines REPLACE
/// keeps from SEARCH put back at SEARCH's indentation, the others as written (a header
/// dedented without its body); the whole text shifted so its first line has SEARCH's first
/// line's indentation (a REPLACE shifted by a level); and the kept lines put back with the
/// lines between them moved along.
pub(crate) fn reindent_candidates(block: &Block) -> Vec<Vec<String>> {
    let (search, replace) = (&block.search, &block.replace);
    let (Some(s0), Some(r0)) = (first_indent(search), first_indent(replace)) else {
        return Vec::new();
    };
    // The SEARCH indentation of each REPLACE line kept from SEARCH (equal but for indentation).
    let trimmed =
        |lines: &[String]| -> Vec<String> { lines.iter().map(|l| l.trim().to_owned()).collect() };
    let (ts, tr) = (trimmed(search), trimmed(replace));
    let mut target: Vec<Option<&str>> = vec![None; replace.len()];
    for op in similar::capture_diff_slices(Algorithm::Myers, &ts, &tr) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for d in 0..len {
                if !is_blank(&search[old_index + d]) {
                    target[new_index + d] = Some(indent_of(&search[old_index + d]));
                }
            }
        }
    }
    let mut kept_only = Vec::with_capacity(replace.len());
    let mut moved_along = Some(Vec::with_capacity(replace.len()));
    let mut shift_by: (&str, &str) = (r0, s0);
    for (line, to) in replace.iter().zip(&target) {
        match to {
            Some(to) if !is_blank(line) => {
                let moved = format!("{to}{}", line.trim_start());
                kept_only.push(moved.clone());
                shift_by = (indent_of(line), to);
                if let Some(m) = moved_along.as_mut() {
                    m.push(moved);
                }
            }
            _ => {
                kept_only.push(line.clone());
                moved_along = moved_along.and_then(|mut m| {
                    m.push(shift(std::slice::from_ref(line), shift_by.0, shift_by.1)?.remove(0));
                    Some(m)
                });
            }
        }
    }
    let mut out: Vec<Vec<String>> = vec![kept_only];
    out.extend(shift(replace, r0, s0));
    out.extend(moved_along);
    let mut unique: Vec<Vec<String>> = Vec::new();
    for c in out {
        if c != *replace && c != *search && !unique.contains(&c) {
            unique.push(c);
        }
    }
    // Closest to SEARCH's own indentation first.
    let counterparts = counterparts(&ts, &tr);
    unique.sort_by_key(|c| {
        c.iter()
            .zip(&counterparts)
            .filter(|(l, _)| !is_blank(l))
            .filter_map(|(l, s)| Some(indent_of(l).len().abs_diff(indent_of(&search[(*s)?]).len())))
            .sum::<usize>()
    });
    unique
}

/// For each REPLACE line, the SEARCH line it stands for: the same line where REPLACE keeps it,
/// the line in the same place of a changed run, or the line before an insertion.
fn counterparts(search: &[String], replace: &[String]) -> Vec<Option<usize>> {
    let mut out = vec![None; replace.len()];
    for op in similar::capture_diff_slices(Algorithm::Myers, search, replace) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => (0..len).for_each(|d| out[new_index + d] = Some(old_index + d)),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                (0..new_len).for_each(|d| out[new_index + d] = Some(old_index + d.min(old_len - 1)))
            }
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (0..new_len).for_each(|d| out[new_index + d] = old_index.checked_sub(1)),
            DiffOp::Delete { .. } => {}
        }
    }
    out
}

/// The indentation of the first non-blank line.
fn first_indent(lines: &[String]) -> Option<&str> {
    lines.iter().find(|l| !is_blank(l)).map(|l| indent_of(l))
}

/// The lines with indentation `from` at their start replaced by `to` (blank lines kept);
/// `None` when a non-blank line does not start with `from`.
fn shift(lines: &[String], from: &str, to: &str) -> Option<Vec<String>> {
    if from == to {
        return Some(lines.to_vec());
    }
    lines
        .iter()
        .map(|l| {
            if is_blank(l) {
                Some(l.clone())
            } else {
                l.strip_prefix(from).map(|rest| format!("{to}{rest}"))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_shift_the_block_and_align_kept_lines() {
        // REPLACE shifted by 4 spaces.
        let block = Block::new("    x = 1\n    y = 2", "        x = 1\n        y = 3");
        assert!(
            reindent_candidates(&block)
                .contains(&vec!["    x = 1".to_owned(), "    y = 3".to_owned()])
        );
        // A loop header indented without its body: the kept header goes back to its level.
        let block = Block::new(
            "    for x in xs:\n        print(x)",
            "        for x in xs:\n        print(x, end='')",
        );
        assert_eq!(
            reindent_candidates(&block)[0],
            ["    for x in xs:", "        print(x, end='')"]
        );
    }

    #[test]
    fn unsupported_files_are_not_checked() {
        let registry = Registry::default();
        assert!(first_error(&registry, Path::new("a.txt"), "def (").is_none());
        assert!(first_error(&registry, Path::new("a.py"), "def (").is_some());
        assert!(first_error(&registry, Path::new("a.py"), "x = 1\n").is_none());
    }
}
