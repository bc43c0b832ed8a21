//! Tree-sitter plumbing shared by the languages: per-thread parsers and small node helpers.

use std::cell::RefCell;
use std::collections::HashMap;

use tree_sitter::{Language, Node, Parser, Tree};

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
        let tree = parser.parse(text, None);
        if tree.is_none() {
            // A failed parse leaves the parser mid-way; start the next one clean.
            parser.reset();
        }
        tree.ok_or(ParseError::Incomplete { language: name })
    })
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

/// The last leaf of real code in a node: trailing comments (which tree-sitter attaches to the
/// enclosing block) and zero-width nodes are skipped, as Python's `ast` ignores them for
/// `end_lineno`.
pub(crate) fn last_code_leaf(node: Node, comment_kind: u16) -> Node {
    let mut current = node;
    let mut cursor = node.walk();
    loop {
        cursor.reset(current);
        if !cursor.goto_last_child() {
            return current;
        }
        let mut picked = None;
        loop {
            let child = cursor.node();
            if child.kind_id() != comment_kind && child.end_byte() > child.start_byte() {
                picked = Some(child);
                break;
            }
            if !cursor.goto_previous_sibling() {
                break;
            }
        }
        match picked {
            Some(child) => current = child,
            None => return current,
        }
    }
}

/// Byte offset → 1-based line, by binary search over line starts.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts }
    }

    /// The line holding `byte`.
    pub(crate) fn line(&self, byte: usize) -> u32 {
        self.starts.partition_point(|&s| s <= byte) as u32
    }

    /// The line of a node's first byte.
    pub(crate) fn start(&self, node: Node) -> u32 {
        self.line(node.start_byte())
    }

    /// The line of a node's last byte (its first when it is empty).
    pub(crate) fn end(&self, node: Node) -> u32 {
        self.line(node.end_byte().saturating_sub(1).max(node.start_byte()))
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
