//! The one extractor every described language goes through: runs a description's queries over
//! a tree-sitter tree and builds symbols (nested by position), doc comments, decorators,
//! signatures, imports and references. Nothing here names a language.
//!
//! The tree is never walked recursively (queries and cursors are iterative), so deep nesting
//! cannot overflow the stack.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, QueryCursor, QueryMatch};

use crate::description::{
    Compiled, CompiledReferences, Declared, LanguageDescription, TreeSitterLanguage,
};
use crate::python::count_lines;
use crate::source::LineIndex;
use crate::{
    Import, LanguageParser, ParseError, ParsedFile, RefKind, Reference, Symbol, SymbolKind,
    TypeFact, TypeSource,
};
use crate::{rooted, ts};

/// Signatures longer than this are cut (with `…`).
const MAX_SIGNATURE: usize = 400;
/// The source bytes of a header read for its signature (comments and runs of whitespace
/// fold away, so more than [`MAX_SIGNATURE`]).
const SIGNATURE_SOURCE_BYTES: usize = 16 * 1024;
/// Receivers longer than this are cut, as Python's are.
const MAX_RECEIVER: usize = 80;

/// A described language parses by extraction: its queries run over tree-sitter's tree.
impl LanguageParser for TreeSitterLanguage {
    fn name(&self) -> &'static str {
        self.description().name
    }

    fn extensions(&self) -> &'static [&'static str] {
        self.description().extensions
    }

    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        let compiled = self.compiled()?;
        let references = self.compiled_references()?;
        extract(self.description(), compiled, Some(references), text)
    }

    fn skeleton_form(&self) -> crate::SkeletonForm {
        crate::SkeletonForm::Braced(self.description().skeleton)
    }

    /// Symbols only: the reference and import queries are neither compiled nor run.
    fn parse_symbols_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        let compiled = self.compiled()?;
        extract(self.description(), compiled, None, text)
    }
}

/// Parses `text` and runs the description's queries over it; the reference and import queries
/// only when given (a listing of symbols needs neither).
pub(crate) fn extract(
    d: &LanguageDescription,
    c: &Compiled,
    references_and_imports: Option<&CompiledReferences>,
    text: &str,
) -> Result<ParsedFile, ParseError> {
    if u32::try_from(text.len()).is_err() {
        // tree-sitter's offsets are 32-bit.
        return Err(ParseError::TooLarge {
            path: "<text>".into(),
            size: text.len() as u64,
            limit: u64::from(u32::MAX),
        });
    }
    let fixed = d.fixup.and_then(|fixup| fixup(text));
    let tree = ts::parse(&c.language, d.name, fixed.as_deref().unwrap_or(text))?;
    let root = tree.root_node();
    let mut cursor = QueryCursor::new();

    let (defs, docs) = definitions_and_docs(d, c, &mut cursor, root, text);
    let lines = LineIndex::new(text);
    let symbols = build_symbols(d, &defs, &docs, text, &lines);
    let Some(r) = references_and_imports else {
        return Ok(ParsedFile {
            language: d.name,
            symbols,
            imports: Vec::new(),
            references: Vec::new(),
            type_facts: Vec::new(),
            description: docs.module,
            line_count: count_lines(text),
            syntax_error: syntax_error(d, root, text),
            lossy_utf8: false,
        });
    };
    // References and imports belong to the definition whose body holds them; those in a
    // header (a base class, a default value) belong to the enclosing scope, as in Python, and
    // the analyzer finds the definition by its header's lines.
    let ranges: Vec<(usize, usize)> = symbols
        .iter()
        .map(|s| {
            s.body_start
                .map_or((s.end_byte, s.end_byte), |b| (b, s.end_byte))
        })
        .collect();
    let definition_names: HashSet<usize> = defs.iter().map(|d| d.name.id()).collect();
    let (references, facts) = references(d, r, &mut cursor, root, text, &definition_names);
    let ref_scopes = scopes(&ranges, references.iter().map(|(at, _)| *at));
    let fact_scopes = scopes(&ranges, facts.iter().map(|(at, _)| *at));
    let imports = imports(d, r, &mut cursor, root, text);
    let import_scopes = scopes(&ranges, imports.iter().map(|(at, _)| *at));
    Ok(ParsedFile {
        language: d.name,
        symbols,
        imports: imports
            .into_iter()
            .zip(import_scopes)
            .map(|((_, i), scope)| Import { scope, ..i })
            .collect(),
        references: references
            .into_iter()
            .zip(ref_scopes)
            .map(|((_, r), scope)| Reference { scope, ..r })
            .collect(),
        type_facts: facts
            .into_iter()
            .zip(fact_scopes)
            .map(|((_, f), scope)| TypeFact { scope, ..f })
            .collect(),
        description: docs.module,
        line_count: count_lines(text),
        syntax_error: syntax_error(d, root, text),
        lossy_utf8: false,
    })
}

/// The first syntax error, where the text is what the language's compiler reads: C and C++
/// are read before their preprocessor runs, and a macro the grammar cannot see through
/// (`FOREACH(x) {`, `#include "table.h"` inside an initializer) is no error of the code.
fn syntax_error(d: &LanguageDescription, root: Node, text: &str) -> Option<crate::SyntaxError> {
    if d.preprocessed {
        return None;
    }
    crate::ts::first_error(root, text)
}

fn capture<'t>(m: &QueryMatch<'_, 't>, index: Option<u32>) -> Option<Node<'t>> {
    let index = index?;
    m.captures()
        .iter()
        .find(|c| c.index == index)
        .map(|c| c.node)
}

/// Doc comments by node id, and the file's description.
struct Docs {
    ids: HashSet<usize>,
    module: Option<String>,
}

/// What the docs patterns matched, on the way to [`Docs`].
#[derive(Default)]
struct DocMatches<'t> {
    ids: HashSet<usize>,
    module_nodes: Vec<Node<'t>>,
    anchor: Option<Node<'t>>,
}

impl<'t> DocMatches<'t> {
    fn add(&mut self, c: &Compiled, m: &QueryMatch<'_, 't>) {
        for cap in m.captures() {
            if Some(cap.index) == c.doc {
                self.ids.insert(cap.node.id());
            } else if Some(cap.index) == c.doc_module {
                self.module_nodes.push(cap.node);
            } else if Some(cap.index) == c.doc_anchor {
                self.anchor.get_or_insert(cap.node);
            }
        }
    }
}

impl Docs {
    fn collect(found: DocMatches, text: &str) -> Docs {
        let DocMatches {
            ids,
            mut module_nodes,
            anchor,
        } = found;
        module_nodes.sort_by_key(|n| n.start_byte());
        module_nodes.dedup_by_key(|n| n.id());
        // Runs of adjacent module comments (a blank line ends a run).
        let mut runs: Vec<Vec<Node>> = Vec::new();
        for node in module_nodes {
            match runs.last_mut() {
                Some(run)
                    if run
                        .last()
                        .is_some_and(|last| ts::start_line(node) <= ts::end_line(*last) + 1) =>
                {
                    run.push(node)
                }
                _ => runs.push(vec![node]),
            }
        }
        // A run that says something to a reader: not only tool directives (build
        // constraints) or tags, not a licence header.
        let readable = |run: &Vec<Node>| {
            let said = file_description(&comment_text(run.iter().map(|n| ts::text(*n, text))));
            (!said.is_empty() && !is_licence(&said)).then_some(said)
        };
        // With an anchor, the run right above it first (Go's package comment, as `go doc`
        // reads it); then the first readable run.
        let above_anchor = anchor.and_then(|anchor| {
            runs.iter()
                .find(|run| {
                    run.last()
                        .is_some_and(|last| ts::end_line(*last) + 1 == ts::start_line(anchor))
                })
                .and_then(readable)
        });
        Docs {
            ids,
            module: above_anchor.or_else(|| runs.iter().find_map(readable)),
        }
    }
}

/// One `@definition.KIND` match.
struct Def<'t> {
    node: Node<'t>,
    name: Node<'t>,
    kind: SymbolKind,
    receiver: Option<Node<'t>>,
    body: Option<Node<'t>>,
    /// The node's nearest ancestors, as the walk that ran the query passed them.
    up: Ancestors<'t>,
}

/// The nearest ancestors of a node, parent first, as far as they are known. tree-sitter's
/// `Node::parent` and `prev_sibling` search down from the root at every call: on C++ (a
/// definition deep in a long namespace) they took 5 % of `cast symbols`. The query's walk
/// passes each definition's path instead, and a parent's children are listed once per file
/// ([`Family`]).
#[derive(Clone, Copy, Default)]
struct Ancestors<'t> {
    nodes: [Option<Node<'t>>; 4],
}

impl<'t> Ancestors<'t> {
    /// The last few nodes of `path` (the root first, the node's parent last).
    fn of(path: &[Node<'t>]) -> Self {
        let mut nodes = [None; 4];
        for (slot, node) in nodes.iter_mut().zip(path.iter().rev()) {
            *slot = Some(*node);
        }
        Ancestors { nodes }
    }

    /// The parent of `node`, whose ancestors these are.
    fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        match self.nodes[0] {
            Some(parent) => Some(parent),
            None => node.parent(),
        }
    }

    /// The ancestors of the parent.
    fn up(&self) -> Ancestors<'t> {
        let [_, a, b, c] = self.nodes;
        Ancestors {
            nodes: [a, b, c, None],
        }
    }
}

/// The children of the nodes definitions sit in, listed once per file.
#[derive(Default)]
struct Family<'t> {
    children: HashMap<usize, Vec<Node<'t>>>,
}

impl<'t> Family<'t> {
    /// The siblings before `node` under `parent`, in source order.
    fn before(&mut self, parent: Node<'t>, node: Node<'t>) -> &[Node<'t>] {
        let children = self.children.entry(parent.id()).or_insert_with(|| {
            let mut cursor = parent.walk();
            parent.children(&mut cursor).collect()
        });
        let at = children.partition_point(|c| c.start_byte() < node.start_byte());
        // A zero-width node (a missing token) can share a start byte: find `node` itself.
        let at = children[at..]
            .iter()
            .position(|c| c.id() == node.id())
            .map_or(at, |i| at + i);
        &children[..at]
    }
}

/// Every definition, deduplicated (a node matched by several patterns keeps the first
/// pattern's reading), in source order with outer definitions before inner ones; and the doc
/// comments, from the same walk of the tree.
fn definitions_and_docs<'t>(
    d: &LanguageDescription,
    c: &Compiled,
    cursor: &mut QueryCursor,
    root: Node<'t>,
    text: &str,
) -> (Vec<Def<'t>>, Docs) {
    let mut best: HashMap<(usize, usize), (usize, Def<'t>)> = HashMap::new();
    let mut doc_matches = DocMatches::default();
    let starts = c.symbol_starts.as_ref();
    rooted::for_each_match_on_path(
        &c.symbols,
        starts,
        cursor,
        root,
        text.as_bytes(),
        |m, path| {
            if m.pattern_index >= c.first_doc_pattern {
                doc_matches.add(c, m);
                return;
            }
            let Some((node, kind)) = m.captures().iter().find_map(|cap| {
                c.definition_kinds
                    .get(cap.index as usize)
                    .copied()
                    .flatten()
                    .map(|kind| (cap.node, kind))
            }) else {
                return;
            };
            let named = match (capture(m, c.def_name), capture(m, c.def_declarator)) {
                (Some(name), _) => Some(Declared {
                    name,
                    receiver: capture(m, c.def_receiver),
                    kind,
                }),
                (None, Some(declarator)) => {
                    d.declarator.and_then(|read| read(declarator, kind, text))
                }
                (None, None) => None,
            };
            let Some(Declared {
                name,
                receiver,
                kind,
            }) = named
            else {
                return;
            };
            let up = match path.split_last() {
                Some((start, ancestors)) if start.id() == node.id() => Ancestors::of(ancestors),
                _ => Ancestors::default(),
            };
            let def = Def {
                node,
                name,
                kind,
                receiver,
                up,
                // In a brace language the body is a `{ … }` block: a tuple struct's `(u32, u32)`
                // or an arrow function's expression is part of the signature.
                body: capture(m, c.def_body)
                    .or_else(|| {
                        // Read here, not by a `body: (_)` step in the query: tree-sitter
                        // analyses every step when it compiles, milliseconds each.
                        capture(m, c.def_function).and_then(|f| f.child_by_field_name("body"))
                    })
                    .or_else(|| node.child_by_field_name("body"))
                    .filter(|b| {
                        d.skeleton.body_end != "}"
                            || text.as_bytes().get(b.start_byte()) == Some(&b'{')
                    }),
            };
            let key = (node.id(), name.id());
            match best.get(&key) {
                Some((pattern, _)) if *pattern <= m.pattern_index => {}
                _ => {
                    best.insert(key, (m.pattern_index, def));
                }
            }
        },
    );
    let mut defs: Vec<Def<'t>> = best.into_values().map(|(_, def)| def).collect();
    defs.sort_by_key(|d| {
        (
            d.node.start_byte(),
            std::cmp::Reverse(d.node.end_byte()),
            d.name.start_byte(),
        )
    });
    // `exports.f = function f() {}` is one definition read twice: a definition of the same
    // name on the same line, inside another's header (before its body), is dropped.
    let mut kept: Vec<Def<'t>> = Vec::with_capacity(defs.len());
    let mut stack: Vec<usize> = Vec::new();
    for def in defs {
        if def.kind == SymbolKind::Variable
            && !d.variable_parents.is_empty()
            && !def
                .up
                .parent(def.node)
                .is_some_and(|p| d.variable_parents.contains(&p.kind()))
        {
            continue;
        }
        while let Some(&top) = stack.last() {
            let outer = kept[top].node;
            if outer.start_byte() <= def.node.start_byte()
                && def.node.end_byte() <= outer.end_byte()
            {
                break;
            }
            stack.pop();
        }
        if let Some(&top) = stack.last() {
            let outer = &kept[top];
            if def.kind == SymbolKind::Variable
                && !d.variable_parents.is_empty()
                && stack.iter().any(|&k| kept[k].kind.is_callable())
            {
                continue;
            }
            let in_header = outer
                .body
                .is_none_or(|body| def.node.start_byte() < body.start_byte());
            if outer.node.id() != def.node.id()
                && in_header
                && ts::text(outer.name, text) == ts::text(def.name, text)
                && outer.node.start_position().row == def.name.start_position().row
            {
                continue;
            }
        }
        stack.push(kept.len());
        kept.push(def);
    }
    (kept, Docs::collect(doc_matches, text))
}

fn build_symbols(
    d: &LanguageDescription,
    defs: &[Def],
    docs: &Docs,
    text: &str,
    lines: &LineIndex,
) -> Vec<Symbol> {
    let mut symbols: Vec<Symbol> = Vec::with_capacity(defs.len());
    let mut family = Family::default();
    // Enclosing definitions of the current one, innermost last (indexes into `defs`).
    let mut stack: Vec<usize> = Vec::new();
    for (i, def) in defs.iter().enumerate() {
        let (start, end) = (def.node.start_byte(), def.node.end_byte());
        while let Some(&top) = stack.last() {
            let outer = defs[top].node;
            // The same node can define several names (`var a, b = 1, 2`): siblings.
            if outer.id() != def.node.id() && outer.start_byte() <= start && end <= outer.end_byte()
            {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().copied();
        stack.push(i);

        let name = match unquote(ts::text(def.name, text)) {
            // `declare module 'express'`: the string is the name.
            quoted if quoted.len() + 2 == def.name.byte_range().len() => quoted,
            // A namespace is named in full: `namespace Newtonsoft.Json`, `namespace a::b`.
            raw if def.kind == SymbolKind::Module => raw.split_whitespace().collect(),
            // An operator is named by its symbol: `operator()`, `operator<<`, and a
            // conversion by its type: `operator string_view`.
            raw if is_operator_name(&raw) => ts::one_line(&raw, 80),
            raw => type_name(&raw, d.path_separator),
        };
        let parent_symbol = parent.and_then(|p| symbols.get(p));
        let kind = match (def.kind, parent_symbol) {
            (SymbolKind::Function, Some(p)) if p.kind.is_type() => SymbolKind::Method,
            (kind, _) => kind,
        };
        let qualname = match (parent_symbol, def.receiver) {
            // `void buffer::push() {}` inside `namespace fmt`: `fmt::buffer::push`.
            (Some(p), Some(receiver)) if !p.kind.is_type() => {
                let owner = type_name(ts::text(receiver, text), d.path_separator);
                format!("{}{sep}{owner}{sep}{name}", p.qualname, sep = d.separator)
            }
            (Some(p), _) => format!("{}{}{}", p.qualname, d.separator, name),
            (None, Some(receiver)) => {
                let owner = type_name(ts::text(receiver, text), d.path_separator);
                if owner.is_empty() {
                    name.clone()
                } else {
                    format!("{owner}{}{name}", d.separator)
                }
            }
            (None, None) => name.clone(),
        };

        let (anchor, anchor_up) = anchor(d, def.node, def.up);
        let leading = leading(d, anchor, def.name.start_byte());
        let (preceding, doc) = preceding(d, anchor, anchor_up, docs, &mut family);
        let decorators: Vec<Node> = preceding
            .iter()
            .chain(&leading.decorators)
            .copied()
            .collect();
        let header_end = def
            .body
            .map_or(def.node.end_byte().max(anchor.end_byte()), |b| {
                b.start_byte()
            })
            .max(leading.start);
        let header = without_comments(anchor, text, leading.start, header_end);
        let first_byte = decorators.first().map_or(anchor.start_byte(), |n| {
            n.start_byte().min(anchor.start_byte())
        });
        // A definition's line is its name's, as compilers and ctags report it; a header's
        // lines above the name (C's return type on a line of its own, `public` then `#if`)
        // are still the symbol's, from `decorated_line`.
        let start_line = lines.line(leading.start.max(def.name.start_byte()));
        let doc_text = comment_text(doc.iter().map(|n| ts::text(*n, text)));
        symbols.push(Symbol {
            kind,
            name,
            qualname,
            signature: tidy_signature(&header),
            docstring: (!doc_text.is_empty()).then_some(doc_text),
            start_line,
            end_line: ts::end_line(def.node).max(start_line),
            decorated_line: lines.line(first_byte).min(start_line),
            header_end_line: def
                .body
                .map_or(ts::end_line(def.node), ts::start_line)
                .max(start_line),
            docstring_lines: match (doc.first(), doc.last()) {
                (Some(first), Some(last)) => Some((ts::start_line(*first), ts::end_line(*last))),
                _ => None,
            },
            decorators: decorators
                .iter()
                .map(|n| ts::one_line(ts::text(*n, text), 200))
                .collect(),
            parent,
            start_byte: first_byte,
            end_byte: def.node.end_byte().max(anchor.end_byte()),
            body_start: def.body.map(|b| b.start_byte()),
            returns: match (kind, d.returns) {
                (SymbolKind::Function | SymbolKind::Method, Some(field)) => def
                    .node
                    .child_by_field_name(field)
                    .map(first_result)
                    .and_then(|t| type_path(ts::text(t, text), d.path_separator))
                    // `Self` (Rust) is the `impl`'s type, which resolution finds.
                    .filter(|t| t == "Self" || !d.modules.common.is_common_type(t)),
                _ => None,
            },
        });
    }
    symbols
}

/// The node whose surroundings hold a definition's doc comment and decorators: the definition
/// itself, or the wrappers around it that start on its line (`export const f = …`).
/// Returns it with its ancestors.
fn anchor<'t>(
    d: &LanguageDescription,
    node: Node<'t>,
    up: Ancestors<'t>,
) -> (Node<'t>, Ancestors<'t>) {
    let mut anchor = node;
    let mut up = up;
    while let Some(parent) = up.parent(anchor) {
        if !d.wrappers.contains(&parent.kind()) {
            break;
        }
        // `@decorator\nexport class C`: the decorators of the wrapper are the definition's.
        let mut cursor = parent.walk();
        let before: Vec<Node> = parent
            .named_children(&mut cursor)
            .take_while(|child| child.id() != anchor.id())
            .filter(|child| !child.is_extra())
            .collect();
        let decorated = !before.is_empty()
            && before
                .iter()
                .all(|child| d.decorators.contains(&child.kind()));
        if parent.start_position().row != node.start_position().row && !decorated {
            break;
        }
        anchor = parent;
        up = up.up();
    }
    (anchor, up)
}

/// Decorators at the start of a definition node, and where its signature starts: the first
/// token that is neither part of a decorator nor a comment.
struct Leading<'t> {
    decorators: Vec<Node<'t>>,
    start: usize,
}

fn leading<'t>(d: &LanguageDescription, anchor: Node<'t>, name_start: usize) -> Leading<'t> {
    let mut decorators = Vec::new();
    let mut cursor = anchor.walk();
    // A bound on the nodes looked at: the signature starts within the first few tokens.
    for _ in 0..4096 {
        let node = cursor.node();
        if node.start_byte() >= name_start {
            return Leading {
                decorators,
                start: node.start_byte().min(name_start),
            };
        }
        let skip = d.decorators.contains(&node.kind()) || node.is_extra();
        if d.decorators.contains(&node.kind()) {
            decorators.push(node);
        }
        if !skip {
            if node.child_count() == 0 {
                return Leading {
                    decorators,
                    start: node.start_byte(),
                };
            }
            if cursor.goto_first_child() {
                continue;
            }
        }
        // Next node after this subtree, without leaving the anchor.
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() || cursor.node().id() == anchor.id() {
                return Leading {
                    decorators,
                    start: name_start,
                };
            }
        }
    }
    Leading {
        decorators,
        start: name_start.min(anchor.end_byte()),
    }
}

/// Decorators written before a definition node (Rust attributes) and the doc comments right
/// above them, both in source order.
fn preceding<'t>(
    d: &LanguageDescription,
    anchor: Node<'t>,
    up: Ancestors<'t>,
    docs: &Docs,
    family: &mut Family<'t>,
) -> (Vec<Node<'t>>, Vec<Node<'t>>) {
    let mut decorators = Vec::new();
    let mut doc = Vec::new();
    let mut next_line = ts::start_line(anchor);
    // A definition that opens its parent node takes the comments above the parent: Ruby's
    // grammar leaves the comments above a class body's first definition outside the body.
    let mut first = anchor;
    let mut up = up;
    let before = loop {
        let Some(parent) = up.parent(first) else {
            break &[][..];
        };
        let before = family.before(parent, first);
        if !before.is_empty() || parent.start_byte() != first.start_byte() {
            break before;
        }
        first = parent;
        up = up.up();
    };
    for &prev in before.iter().rev() {
        if ts::end_line(prev) + 1 < next_line {
            break; // a blank line between
        }
        if d.decorators.contains(&prev.kind()) && doc.is_empty() {
            decorators.push(prev);
        } else if docs.ids.contains(&prev.id()) {
            doc.push(prev);
        } else if !(doc.is_empty() && d.plain_comments.contains(&prev.kind())) {
            break;
        }
        next_line = ts::start_line(prev);
    }
    decorators.reverse();
    doc.reverse();
    (decorators, doc)
}

/// The text of doc comments without their markers (`///`, `//`, `/** … */`, leading `*`),
/// blank lines at either end dropped; tool directives (`//go:generate`) left out.
fn comment_text<'a>(comments: impl Iterator<Item = &'a str>) -> String {
    let mut lines: Vec<String> = Vec::new();
    for raw in comments {
        if let Some(block) = raw.strip_prefix("/*") {
            let block = block.strip_suffix("*/").unwrap_or(block);
            let block = block.trim_start_matches(['*', '!']);
            let mut tags = false;
            for line in block.lines() {
                let line = line.trim();
                let line = line.strip_prefix('*').map_or(line, |l| l.trim_start());
                // JSDoc and Javadoc end the description at the first block tag (`@param`),
                // often without a blank line: the tags become a paragraph of their own.
                if line.starts_with('@') && !tags {
                    tags = true;
                    if lines.last().is_some_and(|l| !l.is_empty()) {
                        lines.push(String::new());
                    }
                }
                lines.push(line.trim_end().to_owned());
            }
        } else {
            for line in raw.lines() {
                let line = line.trim();
                // `// …` and `/// …`, or Ruby's `# …`.
                let body = if line.starts_with('#') {
                    line.trim_start_matches('#')
                } else {
                    line.trim_start_matches('/')
                };
                let body = body.strip_prefix('!').unwrap_or(body);
                // Tool directives: `//go:build`; Ruby's magic `# frozen_string_literal: true`.
                if (line.starts_with("//") && is_directive(body))
                    || (line.starts_with('#') && is_magic_comment(body.trim_start()))
                {
                    continue;
                }
                lines.push(body.strip_prefix(' ').unwrap_or(body).trim_end().to_owned());
            }
        }
    }
    // C#'s XML doc comments: `<summary>` and `<para>` mark paragraphs.
    for line in &mut lines {
        if line.contains('<') {
            for tag in XML_PARAGRAPH_TAGS {
                if line.contains(tag) {
                    *line = line.replace(tag, "").trim().to_owned();
                }
            }
        }
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let first = lines
        .iter()
        .position(|l| !l.is_empty())
        .unwrap_or(lines.len());
    lines[first..].join("\n")
}

/// What a file's comment says of the file: its text up to the first block tag, where the tags
/// that introduce a file's description (JSDoc's `@file`, `@fileoverview`, `@overview`,
/// `@description`; TSDoc's `@packageDocumentation`) only lose the tag and `@module NAME` names
/// it. `/** @jsxImportSource preact */` says nothing.
/// `operator()`, `operator <<`, `operator bool`: a C++ operator's name (not `operator_id`).
fn is_operator_name(name: &str) -> bool {
    name.strip_prefix("operator")
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| !(c.is_alphanumeric() || c == '_'))
}

/// Ruby's magic comments and linters' directives, which say nothing to a reader.
fn is_magic_comment(body: &str) -> bool {
    [
        "frozen_string_literal:",
        "encoding:",
        "coding:",
        "-*-",
        "warn_indent:",
        "shareable_constant_value:",
        "rubocop:",
        "typed:",
    ]
    .iter()
    .any(|magic| body.starts_with(magic))
}

/// Tags of C#'s XML doc comments that only mark paragraphs: dropped from a doc's text.
const XML_PARAGRAPH_TAGS: [&str; 6] = [
    "<summary>",
    "</summary>",
    "<remarks>",
    "</remarks>",
    "<para>",
    "</para>",
];

fn file_description(comment: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for line in comment.lines() {
        let Some(tagged) = line.strip_prefix('@') else {
            lines.push(line);
            continue;
        };
        let (tag, rest) = tagged
            .split_once(char::is_whitespace)
            .unwrap_or((tagged, ""));
        match tag {
            "module" => {}
            "file" | "fileoverview" | "overview" | "description" | "packageDocumentation" => {
                lines.push(rest.trim())
            }
            _ => break,
        }
    }
    lines.join("\n").trim().to_owned()
}

/// Whether a file's comment is its licence header (`Copyright …`, `SPDX-License-Identifier`,
/// `Licensed under …`) rather than a description. A description that speaks of copyright
/// (`Package copyright checks …`) is not one.
fn is_licence(comment: &str) -> bool {
    let head: String = comment.chars().take(300).collect::<String>().to_lowercase();
    let head = head.trim_start();
    ["copyright", "(c)", "©", "@license", "license:", "licence:"]
        .iter()
        .any(|opening| head.starts_with(opening))
        || [
            "spdx-license-identifier",
            "licensed under",
            "license that can be found",
            "all rights reserved",
            "permission is hereby granted",
        ]
        .iter()
        .any(|phrase| head.contains(phrase))
}

/// `go:generate …`, `nolint:…`, `eslint-disable`, Go's old `+build` constraint: a comment for
/// a tool, not a reader.
fn is_directive(body: &str) -> bool {
    if body.trim_start().starts_with("+build ") {
        return true;
    }
    let word: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!word.is_empty() && body[word.len()..].starts_with(':') && !body.starts_with(' '))
        || body.starts_with("eslint-")
}

/// A type as written (`&'a mut Foo<T>`, `*Server[T]`, `fmt::Display`) → its plain name (`Foo`,
/// `Server`, `Display`). Text that has no plain name (`[T]`, a tuple) stays as written.
pub(crate) fn type_name(raw: &str, path_separator: &str) -> String {
    let mut t = raw.trim();
    loop {
        let before = t;
        t = t.trim_start_matches(['&', '*', '(', ' ']);
        if let Some(rest) = t.strip_prefix('\'') {
            // a lifetime: `'a `
            t = rest.split_once(' ').map_or("", |(_, r)| r);
        }
        for prefix in ["mut ", "dyn ", "const ", "impl "] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest;
            }
        }
        if t == before {
            break;
        }
    }
    let cut = t
        .find(['<', '[', '(', ')', ' '])
        .filter(|&i| i > 0)
        .unwrap_or(t.len());
    let t = &t[..cut];
    let t = t.rsplit(path_separator).next().unwrap_or(t);
    let t = t.rsplit('.').next().unwrap_or(t);
    if t.is_empty() {
        ts::one_line(raw, 80)
    } else {
        t.to_owned()
    }
}

/// The text of `start..end` with the comments inside it (the grammar's extras under `node`)
/// left out: a header put on one line must not read `<// eslint-disable … E extends Env>`, or
/// `{ a: A // the first  b: B }` with the rest of the line commented out.
fn without_comments<'a>(node: Node, text: &'a str, start: usize, end: usize) -> Cow<'a, str> {
    // A header that is a whole initialiser (a large object literal) is cut on one line to
    // MAX_SIGNATURE anyway: its first bytes are all that can show, and a header cut here says
    // so with `…`.
    let cut = end > start.saturating_add(SIGNATURE_SOURCE_BYTES);
    let mut end = end.min(start.saturating_add(SIGNATURE_SOURCE_BYTES));
    while end > start && !text.is_char_boundary(end) {
        end -= 1;
    }
    let Some(header) = text.get(start..end) else {
        return Cow::Borrowed("");
    };
    let mut comments: Vec<(usize, usize)> = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.end_byte() <= start || n.start_byte() >= end {
            continue;
        }
        // Comments only: tree-sitter also marks the ERROR node of a recovered syntax error as
        // an extra, and that is code the reader must see.
        if n.is_extra() && !n.is_error() && n.kind().contains("comment") {
            // A comment across the cut ends the header where it starts.
            comments.push((n.start_byte().max(start), n.end_byte().min(end)));
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    if comments.is_empty() && !cut {
        return Cow::Borrowed(header);
    }
    comments.sort_unstable();
    let mut out = String::with_capacity(header.len() + 4);
    let mut at = start;
    for (from, to) in comments {
        if from >= at {
            out.push_str(text.get(at..from).unwrap_or(""));
            out.push(' ');
            at = to;
        }
    }
    out.push_str(text.get(at..end).unwrap_or(""));
    if cut {
        out.push_str(" …");
    }
    Cow::Owned(out)
}

/// A header on one line: `fn f(\n    a: u32,\n) -> u32` → `fn f(a: u32) -> u32`. A `{`
/// left before the body is dropped.
fn tidy_signature(header: &str) -> String {
    let header = header.trim_end();
    let header = header.strip_suffix('{').unwrap_or(header).trim_end();
    // A `>` that opens a line closes a generic list (`Expect<\n  Equal<A, B>\n>`): joined to
    // the line before without a space, where one_line would leave `Equal<A, B> >`.
    let mut joined = String::with_capacity(header.len());
    for (i, line) in header.split('\n').enumerate() {
        let rest = line.trim_start();
        if i == 0 {
            joined.push_str(line);
        } else if rest.starts_with('>') {
            joined.push_str(rest);
        } else {
            joined.push('\n');
            joined.push_str(line);
        }
    }
    let line = ts::one_line(&joined, MAX_SIGNATURE);
    // `route<\n  P extends string,\n>(` → `route<P extends string>(`
    let mut tight = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        tight.push(ch);
        // `Vec< T >` → `Vec<T>`; Ruby's `class A < B` keeps its spaces.
        if ch == '<'
            && chars.peek() == Some(&' ')
            && tight.len() > 1
            && !tight[..tight.len() - 1].ends_with(' ')
        {
            chars.next();
        }
    }
    tight
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(",)", ")")
        .replace("[ ", "[")
        .replace(" ]", "]")
        .replace(",>", ">")
        .replace(", >", ">")
}

/// A type or a callee as resolution reads it: a dotted path without what makes it a pointer,
/// a reference or a generic (`*pkg.Server` → `pkg.Server`, `&'a mut Vec<T>` → `Vec`,
/// `Client::new` → `Client.new`); `None` for what names no one type (`[]T`, `func()`, `A | B`).
pub(crate) fn type_path(raw: &str, path_separator: &str) -> Option<String> {
    let mut t = raw.trim();
    loop {
        let before = t;
        t = t.trim_start_matches(['&', '*', ':', ' ']);
        if let Some(rest) = t.strip_prefix('\'') {
            t = rest.split_once(' ').map_or("", |(_, r)| r); // a lifetime: `'a `
        }
        for prefix in ["mut ", "dyn ", "impl ", "const "] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest;
            }
        }
        if t == before {
            break;
        }
    }
    let t = &t[..t.find(['<', '[']).unwrap_or(t.len())];
    let path = t.replace(path_separator, ".");
    let plain = !path.is_empty()
        && !path.starts_with('.')
        && !path.ends_with('.')
        && !path.contains("..")
        && path
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$' || b >= 0x80);
    plain.then_some(path)
}

/// The first of several results (Go's `(*Client, error)`): what `c, err := NewClient()` gives
/// `c`.
fn first_result(node: Node) -> Node {
    if node.kind() == "parameter_list"
        && let Some(first) = node.named_child(0)
    {
        return first.child_by_field_name("type").unwrap_or(first);
    }
    node
}

/// The body of the function whose parameter `node` is: the `body` of the nearest enclosing
/// node that has one, when the parameter comes before it.
fn body_after(node: Node) -> Option<Node> {
    let mut cur = node.parent();
    for _ in 0..4 {
        let n = cur?;
        if let Some(body) = n.child_by_field_name("body") {
            return (body.start_byte() >= node.end_byte()).then_some(body);
        }
        cur = n.parent();
    }
    None
}

/// A `@fact.*` match: what a variable or a field of the instance is declared to hold.
fn type_fact(
    d: &LanguageDescription,
    c: &CompiledReferences,
    m: &QueryMatch<'_, '_>,
    text: &str,
) -> Option<(usize, TypeFact)> {
    let (target, field, param) = if let Some(var) = capture(m, c.fact_var) {
        (var, false, false)
    } else if let Some(param) = capture(m, c.fact_param) {
        (param, false, true)
    } else {
        (capture(m, c.fact_field)?, true, false)
    };
    let source = if let Some(t) = capture(m, c.fact_type) {
        let t = type_path(ts::text(t, text), d.path_separator)?;
        // `int`, `string`, `Context`: no type of the tree, and many.
        if d.modules.common.is_common_type(&t) {
            return None;
        }
        TypeSource::Annotation(t)
    } else if let Some(callee) = capture(m, c.fact_new) {
        TypeSource::Call(type_path(ts::text(callee, text), d.path_separator)?)
    } else if let Some(other) = capture(m, c.fact_same) {
        TypeSource::Same(ts::text(other, text).to_owned())
    } else {
        TypeSource::Unknown
    };
    let name = ts::text(target, text);
    let name = name.strip_prefix('$').unwrap_or(name);
    // A parameter holds in the body of its function (a function type's have none).
    let at = if param {
        body_after(target)?.start_byte() + 1
    } else {
        target.start_byte()
    };
    Some((
        at,
        TypeFact {
            target: if field {
                format!("self.{name}")
            } else {
                name.to_owned()
            },
            source,
            scope: None,
            line: ts::start_line(target),
        },
    ))
}

/// References and type facts, each with the byte its scope is found at.
type ReferencesAndFacts = (Vec<(usize, Reference)>, Vec<(usize, TypeFact)>);

/// References in source order, with the type facts the same query finds. A name is read once
/// (the first pattern that matches it wins: `Cache { … }` is a construction, not also a type
/// use); a definition's own name is not a reference.
fn references(
    d: &LanguageDescription,
    c: &CompiledReferences,
    cursor: &mut QueryCursor,
    root: Node,
    text: &str,
    definition_names: &HashSet<usize>,
) -> ReferencesAndFacts {
    // Every reading of a name, then read in source order, a name's readings by pattern.
    let mut found: Vec<(usize, usize, Node, RefKind, Option<Node>)> = Vec::new();
    // Facts by their target's node: a typed reading of a declaration wins over one that
    // only says it is declared (`let x: T = …` over `let x = …`).
    let mut facts: HashMap<usize, (usize, TypeFact)> = HashMap::new();
    let starts = c.reference_starts.as_ref();
    rooted::for_each_match(&c.references, starts, cursor, root, text.as_bytes(), |m| {
        if let Some(fact) = type_fact(d, c, m, text) {
            // A constructor's `private x: T` is a parameter and a field: two facts.
            let node = capture(m, c.fact_var)
                .or_else(|| capture(m, c.fact_param))
                .map_or_else(
                    || capture(m, c.fact_field).map_or(0, |n| 2 * n.start_byte() + 1),
                    |n| 2 * n.start_byte(),
                );
            let known = |f: &TypeFact| f.source != TypeSource::Unknown;
            match facts.entry(node) {
                std::collections::hash_map::Entry::Occupied(mut e) => {
                    if !known(&e.get().1) && known(&fact.1) {
                        e.insert(fact);
                    }
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(fact);
                }
            }
            return;
        }
        let kind = if capture(m, c.ref_call).is_some() {
            RefKind::Call
        } else if capture(m, c.ref_inherit).is_some() {
            RefKind::Inherit
        } else if capture(m, c.ref_type).is_some() {
            RefKind::Type
        } else {
            return;
        };
        let Some(name) = capture(m, c.ref_name) else {
            return;
        };
        if definition_names.contains(&name.id()) {
            return;
        }
        let receiver = capture(m, c.ref_receiver);
        found.push((name.start_byte(), m.pattern_index, name, kind, receiver));
    });
    found.sort_by_key(|(at, pattern, name, ..)| (*at, name.end_byte(), *pattern));
    let mut out: Vec<(usize, Reference)> = Vec::new();
    // Name node → its reference in `out`: a name is read once, as a call or a base rather
    // than as a type where several patterns match it (`Entry.new` in Ruby names a type too).
    let mut seen: HashMap<usize, usize> = HashMap::new();
    for (_, _, name, kind, receiver) in found {
        let earlier = seen.get(&name.id()).copied();
        if earlier.is_some_and(|at| !(out[at].1.kind == RefKind::Type && kind != RefKind::Type)) {
            continue;
        }
        let receiver = receiver.map(|r| receiver_text(d, ts::text(r, text)));
        let reference = (
            name.start_byte(),
            Reference {
                kind,
                name: ts::text(name, text).to_owned(),
                receiver,
                line: ts::start_line(name),
                scope: None,
            },
        );
        if let Some(at) = earlier {
            out[at] = reference;
            continue;
        }
        seen.insert(name.id(), out.len());
        out.push(reference);
    }
    let mut facts: Vec<(usize, (usize, TypeFact))> = facts.into_iter().collect();
    facts.sort_by_key(|(target, (at, _))| (*at, *target));
    (out, facts.into_iter().map(|(_, fact)| fact).collect())
}

/// A receiver as the resolver reads it: paths joined with `.`, generic arguments dropped
/// (`Vec::<u8>` → `Vec`).
fn receiver_text(d: &LanguageDescription, raw: &str) -> String {
    let mut raw = if d.path_separator == "." {
        std::borrow::Cow::Borrowed(raw)
    } else {
        std::borrow::Cow::Owned(raw.replace(d.path_separator, "."))
    };
    if raw.contains('<') && !raw.contains(char::is_whitespace) {
        let mut depth = 0usize;
        let mut kept = String::with_capacity(raw.len());
        for ch in raw.chars() {
            match ch {
                '<' => depth += 1,
                '>' if depth > 0 => depth -= 1,
                _ if depth == 0 => kept.push(ch),
                _ => {}
            }
        }
        while kept.contains("..") {
            kept = kept.replace("..", ".");
        }
        raw = std::borrow::Cow::Owned(kept.trim_matches('.').to_owned());
    }
    if raw.len() <= MAX_RECEIVER && !raw.contains(char::is_whitespace) {
        raw.into_owned()
    } else {
        ts::one_line(&raw, MAX_RECEIVER)
    }
}

fn imports(
    d: &LanguageDescription,
    c: &CompiledReferences,
    cursor: &mut QueryCursor,
    root: Node,
    text: &str,
) -> Vec<(usize, Import)> {
    let mut out = Vec::new();
    let starts = c.import_starts.as_ref();
    rooted::for_each_match(&c.imports, starts, cursor, root, text.as_bytes(), |m| {
        let Some(statement) = capture(m, c.import).or_else(|| m.captures().first().map(|c| c.node))
        else {
            return;
        };
        let line = ts::start_line(statement);
        let at = statement.start_byte();
        if let (Some(tree), Some(hook)) = (capture(m, c.import_tree), d.import_tree) {
            let mut found = Vec::new();
            hook(tree, text, &mut found);
            out.extend(found.into_iter().map(|mut i| {
                i.line = line;
                (at, i)
            }));
            return;
        }
        let module = capture(m, c.import_module)
            .map(|n| unquote(ts::text(n, text)))
            .unwrap_or_default();
        let name = if capture(m, c.import_star).is_some() {
            Some("*".to_owned())
        } else {
            capture(m, c.import_name).map(|n| ts::text(n, text).to_owned())
        };
        let alias = capture(m, c.import_alias).map(|n| ts::text(n, text).to_owned());
        if module.is_empty() && name.is_none() {
            return;
        }
        out.push((
            at,
            Import {
                module,
                name,
                alias,
                level: 0,
                line,
                scope: None,
            },
        ));
    });
    out.sort_by_key(|(at, i)| (*at, i.line));
    // A statement that binds names (`import { a } from './m'`) also matches the module-only
    // pattern (`import './m'`); the bare module is kept only when nothing else was bound.
    let binds: HashSet<usize> = out
        .iter()
        .filter(|(_, i)| i.name.is_some() || i.alias.is_some())
        .map(|(at, _)| *at)
        .collect();
    out.retain(|(at, i)| i.name.is_some() || i.alias.is_some() || !binds.contains(at));
    out.dedup();
    out
}

/// A string literal's contents (`"fmt"`, `'./a'`, `` `x` ``); other text as it is.
fn unquote(raw: &str) -> String {
    let t = raw.trim();
    for q in ['"', '\'', '`'] {
        if let Some(inner) = t.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner.to_owned();
        }
    }
    t.to_owned()
}

/// For each byte, the innermost definition whose body holds it. `ranges` are the bodies of the
/// definitions in source order, outer before inner (an empty range for one without a body).
fn scopes(ranges: &[(usize, usize)], bytes: impl Iterator<Item = usize>) -> Vec<Option<usize>> {
    let mut order: Vec<(usize, usize)> = bytes.enumerate().map(|(i, at)| (at, i)).collect();
    let mut out = vec![None; order.len()];
    order.sort_unstable();
    // Bodies nest; visit them by start, outer first. Empty ones hold nothing.
    let mut bodies: Vec<usize> = (0..ranges.len())
        .filter(|&i| ranges[i].0 < ranges[i].1)
        .collect();
    bodies.sort_by_key(|&i| (ranges[i].0, std::cmp::Reverse(ranges[i].1), i));
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    for (at, i) in order {
        // A body holds what starts after its first byte (an import that is itself a
        // definition, `mod name;`, belongs to the enclosing scope).
        while let Some(&body) = bodies.get(next)
            && ranges[body].0 < at
        {
            while stack
                .last()
                .is_some_and(|&top| ranges[top].1 <= ranges[body].0)
            {
                stack.pop();
            }
            stack.push(body);
            next += 1;
        }
        while stack.last().is_some_and(|&top| ranges[top].1 <= at) {
            stack.pop();
        }
        out[i] = stack.last().copied();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_one_line_without_spaces_inside_brackets() {
        for (header, want) in [
            ("fn f(\n    a: u32,\n) -> u32 {", "fn f(a: u32) -> u32"),
            (
                "route<\n  P extends string,\n>(path: P)",
                "route<P extends string>(path: P)",
            ),
            (
                "type V = Expect<\n  Equal<A extends B ? true : false, true>\n>",
                "type V = Expect<Equal<A extends B ? true : false, true>>",
            ),
            (
                "type G = Apply<\n  typeof app,\n  {\n    500: { json: string }\n  }\n>",
                "type G = Apply<typeof app, { 500: { json: string } }>",
            ),
            // A `>` inside a line is left as written.
            ("def f(x=a > b)", "def f(x=a > b)"),
        ] {
            assert_eq!(tidy_signature(header), want, "{header:?}");
        }
    }

    #[test]
    fn type_names_lose_references_generics_and_paths() {
        for (raw, want) in [
            ("Foo", "Foo"),
            ("&'a mut Foo<T>", "Foo"),
            ("*Server[T]", "Server"),
            ("fmt::Display", "Display"),
            ("std::collections::HashMap<K, V>", "HashMap"),
            ("dyn Trait + Send", "Trait"),
            ("[T]", "[T]"),
        ] {
            assert_eq!(type_name(raw, "::"), want, "{raw}");
        }
    }

    #[test]
    fn type_paths_keep_the_path_and_lose_pointers_references_and_generics() {
        for (raw, sep, want) in [
            ("*Server", ".", Some("Server")),
            ("*pkg.Server[T]", ".", Some("pkg.Server")),
            ("&'a mut Vec<T>", "::", Some("Vec")),
            ("Client::new", "::", Some("Client.new")),
            (": Map<string, Pool>", ".", Some("Map")),
            ("[]Server", ".", None),
            ("func(int) error", ".", None),
            ("A | B", ".", None),
            ("(*Client, error)", ".", None),
        ] {
            assert_eq!(type_path(raw, sep).as_deref(), want, "{raw}");
        }
    }

    #[test]
    fn comment_markers_are_stripped() {
        assert_eq!(
            comment_text(["/// First line.", "///", "/// Second."].into_iter()),
            "First line.\n\nSecond."
        );
        assert_eq!(
            comment_text(["/**\n * Adds two.\n *\n * @param a one\n */"].into_iter()),
            "Adds two.\n\n@param a one"
        );
        assert_eq!(
            comment_text(["// Foo does x.", "//go:generate stringer"].into_iter()),
            "Foo does x."
        );
        assert_eq!(comment_text(["//! Crate doc."].into_iter()), "Crate doc.");
    }

    /// Chart.js's JSDoc runs its description into `@param` lines with no blank line between,
    /// and the whole block became the "first paragraph" of skeletons.
    #[test]
    fn a_block_tag_starts_a_new_paragraph() {
        assert_eq!(
            comment_text(
                ["/**
 * Create path.
 * Points in order.
 * @param ctx - Context
 * @returns {any}
 */"]
                .into_iter()
            ),
            "Create path.\nPoints in order.\n\n@param ctx - Context\n@returns {any}"
        );
        assert_eq!(
            comment_text(["/** @module JWK Auth Middleware. */"].into_iter()),
            "@module JWK Auth Middleware."
        );
    }
}
