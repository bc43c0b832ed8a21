//! Queries run only where their patterns can start.
//!
//! A tree-sitter [`QueryCursor`] run over a whole tree keeps match states for every node it
//! passes, and that bookkeeping costs about half a parse even for a query of one trivial
//! pattern (`(function_item) @f` over ripgrep: parse 0.46 s CPU, parse and query 0.69 s). A
//! plain walk of the same tree costs a tenth of that. So the extractor walks the tree itself
//! and starts the query cursor only at nodes whose kind begins one of the query's patterns
//! (a function, a class, a comment: a few per cent of the nodes), with the start depth held to
//! that node, so that the cursor follows the pattern's own steps and nothing else.
//!
//! The kinds a pattern can start at are read from the query's source: a pattern is a node
//! `(kind …)`, an alternation `[…]` of them, a string (an anonymous node), or a group
//! `((kind …) (#pred? …))` holding one of those. A pattern that starts anywhere (`(_)`), at a
//! supertype, or at a run of siblings (`(a) . (b)` as a group, a quantifier at the top) has
//! no such kind: a query holding one runs over the whole tree, as before ([`PatternStarts::new`]
//! returns `None`).
//!
//! ```text
//! let starts = PatternStarts::new(&language, source).expect("rooted patterns");
//! for_each_match(&query, Some(&starts), &mut cursor, tree.root_node(), text, |m| { … });
//! ```
//!
//! Matches are the same as the whole-tree run's; their order is not (outer patterns come
//! first here), so a caller must not depend on it.

use std::collections::HashSet;

use tree_sitter::{Language, Node, Query, QueryCursor, QueryMatch, StreamingIterator};

/// For each node kind id of a language, whether one of a query's patterns can start there.
#[derive(Debug, Clone)]
pub(crate) struct PatternStarts {
    by_kind: Vec<bool>,
}

impl PatternStarts {
    /// The kinds at which the patterns of `source` (a query for `language`) start; `None`
    /// when some pattern has no such kind, or the source cannot be read (the query compiler
    /// reports what is wrong with it).
    pub(crate) fn new(language: &Language, source: &str) -> Option<PatternStarts> {
        let tokens = tokens(source)?;
        let mut at = 0;
        let mut named: HashSet<&str> = HashSet::new();
        let mut anonymous: HashSet<&str> = HashSet::new();
        while at < tokens.len() {
            for start in pattern(&tokens, &mut at)? {
                match start {
                    Start::Named(kind) => named.insert(kind),
                    Start::Anonymous(text) => anonymous.insert(text),
                };
            }
            // What follows a pattern at the top: captures, or a quantifier, which makes the
            // pattern a run of siblings.
            while let Some(Token::Atom(atom)) = tokens.get(at) {
                if !atom.starts_with('@') {
                    return None;
                }
                at += 1;
            }
        }
        let count = language.node_kind_count();
        let mut by_kind = vec![false; count];
        for (id, starts) in by_kind.iter_mut().enumerate() {
            let id = id as u16;
            let Some(kind) = language.node_kind_for_id(id) else {
                continue;
            };
            *starts = if language.node_kind_is_named(id) {
                named.contains(kind)
            } else {
                anonymous.contains(kind)
            };
            // A supertype matches its subtypes, whose kinds are others.
            if *starts && language.node_kind_is_supertype(id) {
                return None;
            }
        }
        Some(PatternStarts { by_kind })
    }

    fn starts_at(&self, node: Node) -> bool {
        self.by_kind
            .get(usize::from(node.kind_id()))
            .copied()
            .unwrap_or(false)
    }
}

/// Calls `each` with every match of `query` under `root`: started only at the nodes
/// `starts` names when given, else by one cursor over the whole tree. Leaves the cursor's
/// start depth unlimited.
pub(crate) fn for_each_match<'t>(
    query: &Query,
    starts: Option<&PatternStarts>,
    cursor: &mut QueryCursor,
    root: Node<'t>,
    text: &[u8],
    mut each: impl FnMut(&QueryMatch<'_, 't>),
) {
    walk_matches::<false>(query, starts, cursor, root, text, |m, _| each(m));
}

/// As [`for_each_match`], and each match comes with the path to the node its pattern started
/// at: the root first, that node last (empty when the query ran over the whole tree). The walk
/// knows it for free, where tree-sitter's `Node::parent` searches down from the root.
pub(crate) fn for_each_match_on_path<'t>(
    query: &Query,
    starts: Option<&PatternStarts>,
    cursor: &mut QueryCursor,
    root: Node<'t>,
    text: &[u8],
    each: impl FnMut(&QueryMatch<'_, 't>, &[Node<'t>]),
) {
    walk_matches::<true>(query, starts, cursor, root, text, each);
}

fn walk_matches<'t, const PATH: bool>(
    query: &Query,
    starts: Option<&PatternStarts>,
    cursor: &mut QueryCursor,
    root: Node<'t>,
    text: &[u8],
    mut each: impl FnMut(&QueryMatch<'_, 't>, &[Node<'t>]),
) {
    let Some(starts) = starts else {
        let mut matches = cursor.matches(query, root, text);
        while let Some(m) = matches.next() {
            each(m, &[]);
        }
        return;
    };
    cursor.set_max_start_depth(Some(0));
    let mut walk = root.walk();
    // The walk's node's ancestors, root first (kept only when asked for).
    let mut path: Vec<Node<'t>> = Vec::new();
    'tree: loop {
        let node = walk.node();
        if starts.starts_at(node) {
            if PATH {
                path.push(node);
            }
            let mut matches = cursor.matches(query, node, text);
            while let Some(m) = matches.next() {
                each(m, &path);
            }
            if PATH {
                path.pop();
            }
        }
        if walk.goto_first_child() {
            if PATH {
                path.push(node);
            }
            continue;
        }
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                break 'tree;
            }
            if PATH {
                path.pop();
            }
        }
    }
    cursor.set_max_start_depth(None);
}

/// Where a pattern can start.
#[derive(Debug, PartialEq, Eq)]
enum Start<'s> {
    Named(&'s str),
    Anonymous(&'s str),
}

#[derive(Debug, PartialEq, Eq)]
enum Token<'s> {
    Open,
    Close,
    OpenAlternation,
    CloseAlternation,
    /// A string's contents, escapes left as written (none of the start kinds has one).
    Str(&'s str),
    /// Anything else: a kind, a field name (`name:`), a capture, a quantifier, an anchor, a
    /// predicate name.
    Atom(&'s str),
}

/// The tokens of a query's source, comments dropped; `None` for an unclosed string.
fn tokens(source: &str) -> Option<Vec<Token<'_>>> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                out.push(Token::Open);
                i += 1;
            }
            b')' => {
                out.push(Token::Close);
                i += 1;
            }
            b'[' => {
                out.push(Token::OpenAlternation);
                i += 1;
            }
            b']' => {
                out.push(Token::CloseAlternation);
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                loop {
                    match bytes.get(j)? {
                        b'\\' => j += 2,
                        b'"' => break,
                        _ => j += 1,
                    }
                }
                out.push(Token::Str(source.get(start..j)?));
                i = j + 1;
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'(' | b')' | b'[' | b']' | b'"' | b';')
                {
                    i += 1;
                }
                out.push(Token::Atom(source.get(start..i)?));
            }
        }
    }
    Some(out)
}

/// Reads one pattern at `at` (a node, an alternation, a string or a group) and returns the
/// kinds it can start at; `None` when it can start anywhere or at a run of siblings.
fn pattern<'s>(tokens: &[Token<'s>], at: &mut usize) -> Option<Vec<Start<'s>>> {
    match tokens.get(*at)? {
        // A string with an escape would need unescaping to compare with a kind's name: none
        // of the languages' queries starts at one, so such a query runs over the whole tree.
        Token::Str(text) if text.contains('\\') => None,
        Token::Str(text) => {
            *at += 1;
            Some(vec![Start::Anonymous(text)])
        }
        Token::OpenAlternation => {
            *at += 1;
            let mut starts = Vec::new();
            loop {
                match tokens.get(*at)? {
                    Token::CloseAlternation => {
                        *at += 1;
                        return Some(starts);
                    }
                    Token::Atom(_) => *at += 1,
                    _ => starts.extend(pattern(tokens, at)?),
                }
            }
        }
        Token::Open => match tokens.get(*at + 1)? {
            Token::Atom(kind) if !kind.starts_with('#') => {
                if *kind == "_" {
                    return None;
                }
                skip_to_close(tokens, at)?;
                Some(vec![Start::Named(kind)])
            }
            // A group: one pattern with predicates, or a run of siblings.
            Token::Open | Token::OpenAlternation | Token::Str(_) => {
                *at += 1;
                let mut starts = None;
                loop {
                    match tokens.get(*at)? {
                        Token::Close => {
                            *at += 1;
                            return starts;
                        }
                        Token::Atom(atom) if atom.starts_with('@') => *at += 1,
                        // A quantifier or an anchor inside the group: a run of siblings.
                        Token::Atom(_) => return None,
                        Token::Open if matches!(tokens.get(*at + 1), Some(Token::Atom(a)) if a.starts_with('#')) => {
                            skip_to_close(tokens, at)?
                        }
                        _ => {
                            if starts.is_some() {
                                return None;
                            }
                            starts = Some(pattern(tokens, at)?);
                        }
                    }
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// Moves `at` past the parenthesised form that opens at it.
fn skip_to_close(tokens: &[Token], at: &mut usize) -> Option<()> {
    let mut depth = 0usize;
    loop {
        match tokens.get(*at)? {
            Token::Open => depth += 1,
            Token::Close => {
                depth -= 1;
                if depth == 0 {
                    *at += 1;
                    return Some(());
                }
            }
            _ => {}
        }
        *at += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(source: &str) -> Option<Vec<String>> {
        let tokens = tokens(source)?;
        let mut at = 0;
        let mut out = Vec::new();
        while at < tokens.len() {
            for s in pattern(&tokens, &mut at)? {
                out.push(match s {
                    Start::Named(k) => k.to_owned(),
                    Start::Anonymous(t) => format!("\"{t}\""),
                });
            }
            while let Some(Token::Atom(a)) = tokens.get(at) {
                if !a.starts_with('@') {
                    return None;
                }
                at += 1;
            }
        }
        Some(out)
    }

    #[test]
    fn a_pattern_starts_at_its_outermost_node() {
        assert_eq!(
            starts("; a comment (not a pattern)\n(function_item name: (identifier) @name) @definition.function").unwrap(),
            ["function_item"]
        );
        assert_eq!(
            starts("((comment) @doc (#match? @doc \"^/\\\\*\\\\*\"))").unwrap(),
            ["comment"]
        );
        assert_eq!(
            starts("[(class_declaration) (interface_declaration)] @definition.class \"static\" @x")
                .unwrap(),
            ["class_declaration", "interface_declaration", "\"static\""]
        );
        assert_eq!(
            starts("(program . (comment)+ @doc.module)").unwrap(),
            ["program"]
        );
    }

    /// Every match as (pattern, captures by node), sorted: what a caller may rely on.
    fn all_matches(
        query: &Query,
        starts: Option<&PatternStarts>,
        root: Node,
        text: &[u8],
    ) -> Vec<(usize, Vec<(u32, usize)>)> {
        let mut cursor = QueryCursor::new();
        let mut out = Vec::new();
        for_each_match(query, starts, &mut cursor, root, text, |m| {
            let mut captures: Vec<(u32, usize)> = m
                .captures()
                .iter()
                .map(|c| (c.index, c.node.id()))
                .collect();
            captures.sort_unstable();
            out.push((m.pattern_index, captures));
        });
        out.sort();
        out
    }

    /// Each described language's queries (symbols, references, imports) start only at known
    /// kinds, and find on the language's fixture exactly the matches the whole-tree cursor
    /// finds.
    #[test]
    fn started_at_their_kinds_the_queries_match_as_over_the_whole_tree() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
        let mut checked = 0;
        for language in crate::languages::described() {
            let d = language.description();
            let compiled = language.compiled().expect("queries compile");
            let references = language.compiled_references().expect("queries compile");
            let queries = [
                ("symbols", &compiled.symbols, &compiled.symbol_starts),
                (
                    "references",
                    &references.references,
                    &references.reference_starts,
                ),
                ("imports", &references.imports, &references.import_starts),
            ];
            let fixture = std::fs::read_dir(fixtures)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| d.extensions.contains(&e))
                });
            let Some(fixture) = fixture else { continue };
            let text = std::fs::read_to_string(&fixture).unwrap();
            let tree = crate::ts::parse(&compiled.language, d.name, &text).unwrap();
            for (which, query, starts) in queries {
                let starts = starts
                    .as_ref()
                    .unwrap_or_else(|| panic!("{}: a {which} pattern starts anywhere", d.name));
                let whole = all_matches(query, None, tree.root_node(), text.as_bytes());
                let rooted = all_matches(query, Some(starts), tree.root_node(), text.as_bytes());
                assert!(
                    !whole.is_empty(),
                    "{}: no {which} match in {fixture:?}",
                    d.name
                );
                assert_eq!(whole, rooted, "{} {which}: {fixture:?}", d.name);
            }
            // The path each symbol match comes with runs from the root to the node its
            // pattern started at, each node the parent of the next.
            let mut cursor = QueryCursor::new();
            let mut paths = 0;
            let root = tree.root_node();
            let symbol_starts = compiled.symbol_starts.as_ref();
            for_each_match_on_path(
                &compiled.symbols,
                symbol_starts,
                &mut cursor,
                root,
                text.as_bytes(),
                |m, path| {
                    let start = *path.last().expect("a path");
                    assert_eq!(path[0].id(), root.id(), "{}", d.name);
                    for pair in path.windows(2) {
                        assert_eq!(
                            pair[1].parent().map(|p| p.id()),
                            Some(pair[0].id()),
                            "{}",
                            d.name
                        );
                    }
                    assert!(
                        m.captures()
                            .iter()
                            .all(|c| c.node.start_byte() >= start.start_byte()
                                && c.node.end_byte() <= start.end_byte()),
                        "{}: a capture outside the start node",
                        d.name
                    );
                    paths += 1;
                },
            );
            assert!(paths > 0, "{}: no symbol match", d.name);
            checked += 1;
        }
        assert!(checked >= 9, "only {checked} languages had a fixture");
    }

    #[test]
    fn patterns_without_one_start_are_refused() {
        assert_eq!(starts("(_ name: (identifier) @name) @x"), None);
        assert_eq!(starts("(comment)+ @doc"), None);
        assert_eq!(starts("((comment)+ @doc . (function_item))"), None);
        assert_eq!(starts("((comment) @doc . (function_item))"), None);
        assert_eq!(starts("(comment \"unclosed"), None);
        assert_eq!(starts("\"\\\"\" @quote"), None);
    }
}
