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

use std::collections::{HashMap, HashSet};

use tree_sitter::{Language, Node, Query, QueryCursor, QueryMatch, StreamingIterator};

/// For each node kind id of a language, whether one of a query's patterns can start there,
/// and what such a node must have for one of them to match.
#[derive(Debug, Clone)]
pub(crate) struct PatternStarts {
    /// Per kind id: the index in `checks` of what the patterns starting there need; `None`
    /// where none starts.
    by_kind: Vec<Option<u32>>,
    /// Per start kind: one entry per pattern starting there, each the fields its node must
    /// have (none: any node of the kind may match).
    checks: Vec<Vec<Vec<FieldNeed>>>,
}

/// A field a pattern's node must have, holding a child of one of some kinds: the
/// `value: [(arrow_function) (function_expression)]` of JavaScript's `(pair …)`. Checking it
/// costs a field lookup; starting the query cursor at a node costs several times that, and
/// some start kinds (an object literal's `pair`) are frequent and seldom match.
#[derive(Debug, Clone)]
struct FieldNeed {
    field: std::num::NonZeroU16,
    /// Indexed by kind id.
    kinds: Vec<bool>,
}

impl FieldNeed {
    fn met<'t>(&self, node: Node<'t>, scratch: &mut tree_sitter::TreeCursor<'t>) -> bool {
        let mut children = node.children_by_field_id(self.field, scratch);
        children.any(|child| {
            self.kinds
                .get(usize::from(child.kind_id()))
                .copied()
                .unwrap_or(false)
        })
    }
}

impl PatternStarts {
    /// The kinds at which the patterns of `source` (a query for `language`) start; `None`
    /// when some pattern has no such kind, or the source cannot be read (the query compiler
    /// reports what is wrong with it).
    pub(crate) fn new(language: &Language, source: &str) -> Option<PatternStarts> {
        let tokens = tokens(source)?;
        let mut at = 0;
        // Per named start kind, each pattern's needs, as written.
        let mut named: HashMap<&str, Vec<Vec<Need>>> = HashMap::new();
        let mut anonymous: HashSet<&str> = HashSet::new();
        while at < tokens.len() {
            for start in pattern(&tokens, &mut at)? {
                match start {
                    Start::Named(kind, needs) => named.entry(kind).or_default().push(needs),
                    Start::Anonymous(text) => {
                        anonymous.insert(text);
                    }
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
        let mut by_kind = vec![None; count];
        let mut checks: Vec<Vec<Vec<FieldNeed>>> = Vec::new();
        let mut check_of: HashMap<&str, u32> = HashMap::new();
        let mut always: Option<u32> = None;
        for (id, starts) in by_kind.iter_mut().enumerate() {
            let id = id as u16;
            let Some(kind) = language.node_kind_for_id(id) else {
                continue;
            };
            let check = if language.node_kind_is_named(id) {
                let Some(patterns) = named.get(kind) else {
                    continue;
                };
                *check_of.entry(kind).or_insert_with(|| {
                    checks.push(
                        patterns
                            .iter()
                            .map(|needs| field_needs(language, needs))
                            .collect(),
                    );
                    checks.len() as u32 - 1
                })
            } else if anonymous.contains(kind) {
                // An anonymous node has no fields to check.
                *always.get_or_insert_with(|| {
                    checks.push(vec![Vec::new()]);
                    checks.len() as u32 - 1
                })
            } else {
                continue;
            };
            // A supertype matches its subtypes, whose kinds are others.
            if language.node_kind_is_supertype(id) {
                return None;
            }
            *starts = Some(check);
        }
        Some(PatternStarts { by_kind, checks })
    }

    /// Whether a pattern can start at `node`: its kind starts one, and the node has the fields
    /// one of those patterns needs. `scratch` is a cursor to look through fields with.
    fn starts_at<'t>(&self, node: Node<'t>, scratch: &mut tree_sitter::TreeCursor<'t>) -> bool {
        let Some(Some(check)) = self.by_kind.get(usize::from(node.kind_id())) else {
            return false;
        };
        self.checks[*check as usize]
            .iter()
            .any(|needs| needs.iter().all(|need| need.met(node, scratch)))
    }
}

/// A pattern's needs for `language`: a need whose field or kinds the language does not name as
/// plain kinds (a supertype, an unknown name) is left out, so that no node a pattern could
/// match is passed over.
fn field_needs(language: &Language, needs: &[Need]) -> Vec<FieldNeed> {
    let mut out = Vec::new();
    'needs: for need in needs {
        let Some(field) = language.field_id_for_name(need.field) else {
            continue;
        };
        let mut kinds = vec![false; language.node_kind_count()];
        let mut found = false;
        for (id, allowed) in kinds.iter_mut().enumerate() {
            let id = id as u16;
            if !language.node_kind_is_named(id) {
                continue;
            }
            let Some(name) = language.node_kind_for_id(id) else {
                continue;
            };
            if need.kinds.contains(&name) {
                if language.node_kind_is_supertype(id) {
                    continue 'needs;
                }
                *allowed = true;
                found = true;
            }
        }
        if found {
            out.push(FieldNeed { field, kinds });
        }
    }
    out
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
    let mut scratch = root.walk();
    // The walk's node's ancestors, root first (kept only when asked for).
    let mut path: Vec<Node<'t>> = Vec::new();
    'tree: loop {
        let node = walk.node();
        if starts.starts_at(node, &mut scratch) {
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
    /// A named node, with the fields the pattern needs it to have.
    Named(&'s str, Vec<Need<'s>>),
    Anonymous(&'s str),
}

/// A field a pattern names on its outermost node, with the kinds the child there may have:
/// `value: [(arrow_function) (function_expression)]`. Only what the pattern requires: a
/// field written with a wildcard, a string, a quantifier or anything else is not a need.
#[derive(Debug, PartialEq, Eq)]
struct Need<'s> {
    field: &'s str,
    kinds: Vec<&'s str>,
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
                let needs = needs(tokens, *at + 2);
                skip_to_close(tokens, at)?;
                Some(vec![Start::Named(kind, needs)])
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

/// The needs written in a node's body, which starts at `at` (after its kind) and runs to the
/// node's closing parenthesis.
fn needs<'s>(tokens: &[Token<'s>], mut at: usize) -> Vec<Need<'s>> {
    let mut out = Vec::new();
    loop {
        match tokens.get(at) {
            None | Some(Token::Close) => return out,
            Some(Token::Atom(atom)) if atom.ends_with(':') && !atom.starts_with('!') => {
                let field = &atom[..atom.len() - 1];
                at += 1;
                let kinds = field_kinds(tokens, &mut at);
                // A quantifier after the child makes the field optional.
                let optional =
                    matches!(tokens.get(at), Some(Token::Atom(q)) if matches!(*q, "?" | "*" | "+"));
                if let (Some(kinds), false) = (kinds, optional) {
                    out.push(Need { field, kinds });
                }
            }
            Some(Token::Open) => {
                if skip_to_close(tokens, &mut at).is_none() {
                    return out;
                }
            }
            Some(_) => at += 1,
        }
    }
}

/// The kinds a field's child may have, read at `at` (moved past it): a node `(kind …)` or an
/// alternation of nodes; `None` for anything else (a wildcard, a string, a nested alternation).
fn field_kinds<'s>(tokens: &[Token<'s>], at: &mut usize) -> Option<Vec<&'s str>> {
    fn node<'s>(tokens: &[Token<'s>], at: &mut usize) -> Option<&'s str> {
        let kind = match (tokens.get(*at), tokens.get(*at + 1)) {
            (Some(Token::Open), Some(Token::Atom(kind)))
                if !kind.starts_with(['_', '#', '@', '.', '!']) && !kind.ends_with(':') =>
            {
                Some(*kind)
            }
            _ => None,
        };
        skip_to_close(tokens, at)?;
        kind
    }
    match tokens.get(*at)? {
        Token::Open => node(tokens, at).map(|kind| vec![kind]),
        Token::OpenAlternation => {
            *at += 1;
            let mut kinds = Vec::new();
            let mut plain = true;
            loop {
                match tokens.get(*at)? {
                    Token::CloseAlternation => {
                        *at += 1;
                        return plain.then_some(kinds);
                    }
                    Token::Atom(atom) if atom.starts_with('@') => *at += 1,
                    Token::Open => match node(tokens, at) {
                        Some(kind) => kinds.push(kind),
                        None => plain = false,
                    },
                    // A string, a nested alternation, a quantifier on an alternative.
                    Token::OpenAlternation => {
                        plain = false;
                        skip_to_close(tokens, at)?;
                    }
                    _ => {
                        plain = false;
                        *at += 1;
                    }
                }
            }
        }
        _ => None,
    }
}

/// Moves `at` past the form that opens at it, `(…)` or `[…]` (the two nest within each other).
fn skip_to_close(tokens: &[Token], at: &mut usize) -> Option<()> {
    let mut depth = 0usize;
    loop {
        match tokens.get(*at)? {
            Token::Open | Token::OpenAlternation => depth += 1,
            Token::Close | Token::CloseAlternation => {
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
                    Start::Named(k, _) => k.to_owned(),
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

    fn needs_of(source: &str) -> Vec<(String, Vec<String>)> {
        let tokens = tokens(source).unwrap();
        let mut at = 0;
        match pattern(&tokens, &mut at).unwrap().remove(0) {
            Start::Named(_, needs) => needs
                .into_iter()
                .map(|n| {
                    (
                        n.field.to_owned(),
                        n.kinds.into_iter().map(str::to_owned).collect(),
                    )
                })
                .collect(),
            Start::Anonymous(_) => Vec::new(),
        }
    }

    #[test]
    fn a_pattern_needs_only_the_fields_it_requires() {
        let owned = |field: &str, kinds: &[&str]| {
            (
                field.to_owned(),
                kinds.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            needs_of(
                "(pair key: (property_identifier) @name value: [(arrow_function) @f (function_expression) @f]) @d"
            ),
            [
                owned("key", &["property_identifier"]),
                owned("value", &["arrow_function", "function_expression"])
            ]
        );
        // A wildcard, a string, an optional child, a negated field, a nested alternation and
        // a field inside a child are no needs of the outermost node.
        assert_eq!(needs_of("(function_definition declarator: (_) @d) @x"), []);
        assert_eq!(
            needs_of("(a b: \"x\" c: (d)? e: [(f) [(g) (h)]] !i (j k: (l))) @x"),
            []
        );
        assert_eq!(
            needs_of(
                "((declaration declarator: (init_declarator) @d) @x (#not-match? @x \"^extern\"))"
            ),
            [owned("declarator", &["init_declarator"])]
        );
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
