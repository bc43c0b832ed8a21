//! Tree-sitter plumbing: per-thread parsers with a time budget, and small node helpers.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Language, Node, ParseOptions, ParseState, Parser, Tree};

use crate::ParseError;

thread_local! {
    // A `Parser` is not `Sync` and costs an allocation to set up; keep one per language per thread.
    static PARSERS: RefCell<HashMap<&'static str, Parser>> = RefCell::new(HashMap::new());
}

/// Parses `text` with a cached per-thread parser for `language`.
pub(crate) fn parse(
    language: &Language,
    name: &'static str,
    text: &str,
) -> Result<Tree, ParseError> {
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(name) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut parser = Parser::new();
                parser
                    .set_language(language)
                    .map_err(|err| ParseError::Grammar {
                        language: name,
                        message: err.to_string(),
                    })?;
                e.insert(parser)
            }
        };
        let budget = time_budget(text.len());
        let started = Instant::now();
        let mut over_budget = |_: &ParseState| {
            if started.elapsed() > budget {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let bytes = text.as_bytes();
        let tree = parser.parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut over_budget)),
        );
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A stopped parse leaves the parser mid-way; start the next one clean.
                parser.reset();
                if started.elapsed() > budget {
                    Err(ParseError::TooSlow {
                        language: name,
                        millis: budget.as_millis() as u64,
                    })
                } else {
                    Err(ParseError::Incomplete { language: name })
                }
            }
        }
    })
}

/// How long a parse may take: tree-sitter reads ordinary code at several MB/s (a 250 KB Rust
/// file in 80 ms), but its error recovery can take minutes on hostile input (100,000 unclosed
/// brackets: 70 s) and grows faster than the input on deep HTML nesting. Five seconds plus
/// 20 µs a byte (50 KB/s) leaves real files far inside the budget, even on a busy machine,
/// and bounds the worst case.
fn time_budget(len: usize) -> Duration {
    let per_byte = Duration::from_micros(20).saturating_mul(u32::try_from(len).unwrap_or(u32::MAX));
    Duration::from_secs(5).saturating_add(per_byte)
}

/// The first error of a tree (in source order): a node the grammar could not place, or one it
/// had to assume missing. `None` when the tree has no error.
pub(crate) fn first_error(root: Node, src: &str) -> Option<crate::SyntaxError> {
    if !root.has_error() {
        return None;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            let message = if node.is_missing() {
                format!("missing `{}`", node.kind())
            } else {
                let found = one_line(text(node, src), 40);
                if found.is_empty() {
                    "unexpected input".to_owned()
                } else {
                    format!("unexpected `{found}`")
                }
            };
            return Some(crate::SyntaxError {
                line: start_line(node),
                message,
            });
        }
        // Descend only into subtrees that hold an error; otherwise move on.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// 1-based line of a node's first byte.
pub(crate) fn start_line(node: Node) -> u32 {
    node.start_position().row as u32 + 1
}

/// 1-based line of a node's last byte (a node ending at column 0 ends on the line before).
pub(crate) fn end_line(node: Node) -> u32 {
    let end = node.end_position();
    let start = node.start_position();
    if end.column == 0 && end.row > start.row {
        end.row as u32
    } else {
        end.row as u32 + 1
    }
}

/// The text of a node; empty when the range is not on a char boundary (cannot happen for
/// text that was valid UTF-8, but the parser never trusts that).
pub(crate) fn text<'a>(node: Node, src: &'a str) -> &'a str {
    src.get(node.start_byte()..node.end_byte()).unwrap_or("")
}

/// Collapses runs of whitespace to single spaces and cuts to at most `max` bytes (on a char
/// boundary), marking a cut with `…`.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    // Most texts (a decorator, a one-line signature) are one line already: copied as they are.
    let bytes = text.as_bytes();
    if text.len() <= max
        && text.is_ascii()
        && bytes.first() != Some(&b' ')
        && bytes.last() != Some(&b' ')
        && !bytes
            .iter()
            .any(|&b| char::from(b).is_whitespace() && b != b' ')
        && !text.contains("  ")
    {
        return text.to_owned();
    }
    one_line_of_words(text, max)
}

/// [`one_line`] of any text: its words joined by one space.
fn one_line_of_words(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max + 4));
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.len() > max {
            let mut cut = max;
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text copied as it is gives what joining its words gives.
    #[test]
    fn one_line_as_it_is_is_one_line_of_its_words() {
        let texts = [
            "",
            "property",
            "def f(a, b) -> int",
            "def f(a,\n      b)",
            " leading",
            "trailing ",
            "two  spaces",
            "tab\there",
            "vertical\x0btab",
            "form\x0cfeed",
            "no\u{a0}break",
            "über(x)",
            "a_very_long_decorator_name_that_goes_on_and_on(with_arguments=1)",
        ];
        for text in texts {
            for max in [5, 40, 400] {
                assert_eq!(
                    one_line(text, max),
                    one_line_of_words(text, max),
                    "{text:?} {max}"
                );
            }
        }
    }
}
