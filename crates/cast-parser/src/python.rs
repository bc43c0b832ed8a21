//! Python (`.py`, `.pyi`, `.pyx`) with tree-sitter-python.
//!
//! Symbols follow Python's own `ast` exactly: a `def` or `class` inside `if`/`try`/`with`/`for`
//! blocks belongs to the enclosing scope; `kind` is `method` for a def whose nearest enclosing
//! definition is a class; lines are those `ast` reports for `lineno`/`end_lineno`.

use std::sync::LazyLock;

use std::num::NonZeroU16 as FieldId;

use tree_sitter::{Language, Node, Tree, TreeCursor};

use crate::ts::{self, LineIndex};
use crate::{
    Import, LanguageParser, ParseError, ParsedFile, RefKind, Reference, Symbol, SymbolKind,
};

/// The Python language.
#[derive(Debug, Clone, Copy, Default)]
pub struct Python;

impl LanguageParser for Python {
    fn name(&self) -> &'static str {
        "python"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py", "pyi", "pyx"]
    }

    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        let g = &*GRAMMAR;
        let mut tree = ts::parse(&g.language, "python", text)?;
        let mut parsed_text: std::borrow::Cow<str> = text.into();
        if tree.root_node().has_error() {
            // tree-sitter-python's scanner can mistake a continuation line inside brackets that
            // is indented less than its block for a dedent. Python ignores newlines inside
            // brackets, so parse again with those newlines turned into spaces; byte offsets
            // are unchanged and lines are counted on the original text.
            if let Some(joined) = join_bracketed_lines(text) {
                let retry = ts::parse(&g.language, "python", &joined)?;
                if !retry.root_node().has_error() {
                    tree = retry;
                    parsed_text = joined.into();
                }
            }
        }
        Ok(extract(g, &tree, &parsed_text, text))
    }
}

fn extract(g: &Grammar, tree: &Tree, src: &str, original: &str) -> ParsedFile {
    let lines = LineIndex::new(original);
    let root = tree.root_node();
    let mut extractor = Extractor::new(g, src, &lines);
    extractor.walk(root);
    let description = docstring_of_block(g, root, src, &lines).map(|(doc, _)| doc);
    ParsedFile {
        language: "python",
        symbols: extractor.symbols,
        imports: extractor.imports,
        references: extractor.references,
        description,
        line_count: count_lines(original),
        has_syntax_errors: root.has_error(),
        lossy_utf8: false,
    }
}

/// Node kinds and fields, looked up once: comparing numbers is much cheaper than strings.
struct Grammar {
    language: Language,
    comment: u16,
    decorated_definition: u16,
    decorator: u16,
    function_definition: u16,
    class_definition: u16,
    call: u16,
    attribute: u16,
    identifier: u16,
    import_statement: u16,
    import_from_statement: u16,
    future_import_statement: u16,
    aliased_import: u16,
    relative_import: u16,
    import_prefix: u16,
    dotted_name: u16,
    wildcard_import: u16,
    expression_statement: u16,
    string: u16,
    concatenated_string: u16,
    colon: u16,
    f_name: Option<FieldId>,
    f_body: Option<FieldId>,
    f_definition: Option<FieldId>,
    f_superclasses: Option<FieldId>,
    f_function: Option<FieldId>,
    f_object: Option<FieldId>,
    f_attribute: Option<FieldId>,
    f_module_name: Option<FieldId>,
    f_alias: Option<FieldId>,
}

static GRAMMAR: LazyLock<Grammar> = LazyLock::new(|| {
    let language: Language = tree_sitter_python::LANGUAGE.into();
    let kind = |k: &str| language.id_for_node_kind(k, true);
    let field = |f: &str| language.field_id_for_name(f);
    Grammar {
        comment: kind("comment"),
        decorated_definition: kind("decorated_definition"),
        decorator: kind("decorator"),
        function_definition: kind("function_definition"),
        class_definition: kind("class_definition"),
        call: kind("call"),
        attribute: kind("attribute"),
        identifier: kind("identifier"),
        import_statement: kind("import_statement"),
        import_from_statement: kind("import_from_statement"),
        future_import_statement: kind("future_import_statement"),
        aliased_import: kind("aliased_import"),
        relative_import: kind("relative_import"),
        import_prefix: kind("import_prefix"),
        dotted_name: kind("dotted_name"),
        wildcard_import: kind("wildcard_import"),
        expression_statement: kind("expression_statement"),
        string: kind("string"),
        concatenated_string: kind("concatenated_string"),
        colon: language.id_for_node_kind(":", false),
        f_name: field("name"),
        f_body: field("body"),
        f_definition: field("definition"),
        f_superclasses: field("superclasses"),
        f_function: field("function"),
        f_object: field("object"),
        f_attribute: field("attribute"),
        f_module_name: field("module_name"),
        f_alias: field("alias"),
        language,
    }
});

fn child<'t>(node: Node<'t>, field: Option<FieldId>) -> Option<Node<'t>> {
    node.child_by_field_id(field?.get())
}

pub(crate) fn count_lines(text: &str) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let unterminated = !text.is_empty() && !text.ends_with('\n');
    (newlines + usize::from(unterminated)) as u32
}

/// A copy of `text` in which every newline inside open brackets (outside strings) is a space
/// and every comment inside brackets is blanked, byte for byte; `None` when nothing changes.
fn join_bracketed_lines(text: &str) -> Option<String> {
    let mut bytes = text.as_bytes().to_vec();
    let mut depth = 0usize;
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => {
                let end = memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
                if depth > 0 {
                    // Blank every byte, multi-byte characters included: the text stays UTF-8.
                    bytes[i..end].fill(b' ');
                    changed = true;
                }
                i = end;
                continue;
            }
            quote @ (b'"' | b'\'') => {
                let triple = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
                i += if triple { 3 } else { 1 };
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'\n' if !triple => break, // unterminated: give up on this string
                        q if q == quote => {
                            if !triple {
                                i += 1;
                                break;
                            }
                            if bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote)
                            {
                                i += 3;
                                break;
                            }
                            i += 1;
                        }
                        _ => i += 1,
                    }
                }
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' | b'\r' if depth > 0 => {
                bytes[i] = b' ';
                changed = true;
            }
            _ => {}
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    String::from_utf8(bytes).ok()
}

struct Scope {
    node_id: usize,
    symbol: usize,
    is_class: bool,
}

struct Extractor<'s> {
    g: &'s Grammar,
    src: &'s str,
    lines: &'s LineIndex,
    symbols: Vec<Symbol>,
    imports: Vec<Import>,
    references: Vec<Reference>,
    scopes: Vec<Scope>,
    /// Decorators seen on a `decorated_definition`, waiting for its definition child (by id).
    pending_decorators: Option<(usize, u32, usize, Vec<String>)>,
    /// Attribute nodes already recorded as a call, decorator or base class.
    claimed_attributes: Vec<usize>,
}

impl<'s> Extractor<'s> {
    fn new(g: &'s Grammar, src: &'s str, lines: &'s LineIndex) -> Self {
        Extractor {
            g,
            src,
            lines,
            symbols: Vec::new(),
            imports: Vec::new(),
            references: Vec::new(),
            scopes: Vec::new(),
            pending_decorators: None,
            claimed_attributes: Vec::new(),
        }
    }

    /// Depth-first over the whole tree without recursion (so 10,000 nested blocks cannot
    /// overflow the stack).
    fn walk(&mut self, root: Node) {
        let mut cursor = root.walk();
        'outer: loop {
            let node = cursor.node();
            self.enter(node);
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                let node = cursor.node();
                if self.scopes.last().is_some_and(|s| s.node_id == node.id()) {
                    self.scopes.pop();
                }
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
            }
        }
    }

    fn scope(&self) -> Option<usize> {
        self.scopes.last().map(|s| s.symbol)
    }

    fn text(&self, node: Node) -> &'s str {
        ts::text(node, self.src)
    }

    fn enter(&mut self, node: Node) {
        let g = self.g;
        let kind = node.kind_id();
        if kind == g.call {
            self.call(node);
        } else if kind == g.attribute {
            if let Some(pos) = self
                .claimed_attributes
                .iter()
                .position(|&id| id == node.id())
            {
                self.claimed_attributes.swap_remove(pos);
            } else {
                self.attribute_ref(node, RefKind::Attribute);
            }
        } else if kind == g.function_definition || kind == g.class_definition {
            self.definition(node);
        } else if kind == g.decorated_definition {
            self.decorated(node);
        } else if kind == g.import_statement
            || kind == g.import_from_statement
            || kind == g.future_import_statement
        {
            self.import(node);
        }
    }

    fn name_ref(&mut self, node: Node, kind: RefKind) {
        self.references.push(Reference {
            kind,
            name: self.text(node).to_owned(),
            receiver: None,
            line: self.lines.start(node),
            scope: self.scope(),
        });
    }

    fn decorated(&mut self, node: Node) {
        let g = self.g;
        let Some(definition) = child(node, g.f_definition) else {
            return;
        };
        let mut decorators = Vec::new();
        let mut cursor = node.walk();
        for dec in node.named_children(&mut cursor) {
            if dec.kind_id() != g.decorator {
                continue;
            }
            let Some(expr) = dec.named_child(0) else {
                continue;
            };
            decorators.push(ts::one_line(self.text(expr), 200));
            if expr.kind_id() == g.identifier {
                self.name_ref(expr, RefKind::Decorator);
            } else if expr.kind_id() == g.attribute {
                self.attribute_ref(expr, RefKind::Decorator);
                self.claimed_attributes.push(expr.id());
            }
        }
        self.pending_decorators = Some((
            definition.id(),
            self.lines.start(node),
            node.start_byte(),
            decorators,
        ));
    }

    fn definition(&mut self, node: Node) {
        let g = self.g;
        let is_class = node.kind_id() == g.class_definition;
        let (decorated_line, start_byte, decorators) = match self.pending_decorators.take() {
            Some((id, line, byte, decorators)) if id == node.id() => (line, byte, decorators),
            other => {
                self.pending_decorators = other;
                (self.lines.start(node), node.start_byte(), Vec::new())
            }
        };
        let Some(name_node) = child(node, g.f_name) else {
            return; // broken code: no name, no symbol; the body stays in the outer scope
        };
        let name = self.text(name_node).to_owned();
        let parent = self.scopes.last();
        let kind = if is_class {
            SymbolKind::Class
        } else if parent.is_some_and(|p| p.is_class) {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        };
        let parent = parent.map(|p| p.symbol);
        let qualname = match parent.and_then(|p| self.symbols.get(p)) {
            Some(p) => format!("{}.{}", p.qualname, name),
            None => name.clone(),
        };
        let body = child(node, g.f_body);
        let (header_end_line, signature) = self.header(node, body);
        let (docstring, docstring_lines) =
            match body.and_then(|b| docstring_of_block(g, b, self.src, self.lines)) {
                Some((doc, lines)) => (Some(doc), Some(lines)),
                None => (None, None),
            };
        if is_class {
            self.bases(node);
        }
        self.symbols.push(Symbol {
            kind,
            name,
            qualname,
            signature,
            docstring,
            start_line: self.lines.start(node),
            end_line: self.lines.end(ts::last_code_leaf(node, g.comment)),
            decorated_line,
            header_end_line,
            docstring_lines,
            decorators,
            parent,
            start_byte,
            end_byte: node.end_byte(),
        });
        self.scopes.push(Scope {
            node_id: node.id(),
            symbol: self.symbols.len() - 1,
            is_class,
        });
    }

    /// The header runs from the keyword to the `:` before the body.
    fn header(&self, node: Node, body: Option<Node>) -> (u32, String) {
        let mut cursor = node.walk();
        let mut colon = None;
        for part in node.children(&mut cursor) {
            if Some(part) == body {
                break;
            }
            if part.kind_id() == self.g.colon {
                colon = Some(part);
            }
        }
        let end_byte = colon.map_or_else(
            || body.map_or(node.end_byte(), |b| b.start_byte()),
            |c| c.start_byte(),
        );
        let header = self.src.get(node.start_byte()..end_byte).unwrap_or("");
        let line = self.lines.start(colon.unwrap_or(node));
        (line, tidy_signature(header))
    }

    fn bases(&mut self, class: Node) {
        let g = self.g;
        let Some(args) = child(class, g.f_superclasses) else {
            return;
        };
        let mut cursor = args.walk();
        for base in args.named_children(&mut cursor) {
            if base.kind_id() == g.identifier {
                self.name_ref(base, RefKind::Inherit);
            } else if base.kind_id() == g.attribute {
                self.attribute_ref(base, RefKind::Inherit);
                self.claimed_attributes.push(base.id());
            }
        }
    }

    fn call(&mut self, node: Node) {
        let g = self.g;
        let Some(function) = child(node, g.f_function) else {
            return;
        };
        if function.kind_id() == g.identifier {
            self.name_ref(function, RefKind::Call);
        } else if function.kind_id() == g.attribute {
            self.attribute_ref(function, RefKind::Call);
            self.claimed_attributes.push(function.id());
        }
    }

    fn attribute_ref(&mut self, node: Node, kind: RefKind) {
        let g = self.g;
        let (Some(object), Some(attr)) = (child(node, g.f_object), child(node, g.f_attribute))
        else {
            return;
        };
        let receiver = self.text(object);
        let receiver = if receiver.len() <= 80 && !receiver.contains(char::is_whitespace) {
            receiver.to_owned()
        } else {
            ts::one_line(receiver, 80)
        };
        self.references.push(Reference {
            kind,
            name: self.text(attr).to_owned(),
            receiver: Some(receiver),
            line: self.lines.start(attr),
            scope: self.scope(),
        });
    }

    fn import(&mut self, node: Node) {
        let g = self.g;
        let line = self.lines.start(node);
        let scope = self.scope();
        let mut cursor = node.walk();
        let kind = node.kind_id();
        let (module, level) = if kind == g.import_statement {
            let Some(name_field) = g.f_name else { return };
            for name in node.children_by_field_id(name_field, &mut cursor) {
                let (module, alias) = self.aliased(name);
                self.imports.push(Import {
                    module,
                    name: None,
                    alias,
                    level: 0,
                    line,
                    scope,
                });
            }
            return;
        } else if kind == g.future_import_statement {
            ("__future__".to_owned(), 0)
        } else {
            match child(node, g.f_module_name) {
                Some(m) if m.kind_id() == g.relative_import => {
                    let mut level = 0;
                    let mut module = String::new();
                    let mut inner = m.walk();
                    for part in m.named_children(&mut inner) {
                        if part.kind_id() == g.import_prefix {
                            level = self.text(part).matches('.').count() as u32;
                        } else if part.kind_id() == g.dotted_name {
                            module = dotted(part, self.src);
                        }
                    }
                    (module, level)
                }
                Some(m) => (dotted(m, self.src), 0),
                None => return,
            }
        };
        let mut any = false;
        let Some(name_field) = g.f_name else { return };
        for name in node.children_by_field_id(name_field, &mut cursor) {
            let (name, alias) = self.aliased(name);
            any = true;
            self.imports.push(Import {
                module: module.clone(),
                name: Some(name),
                alias,
                level,
                line,
                scope,
            });
        }
        let mut cursor = node.walk();
        let wildcard = node
            .named_children(&mut cursor)
            .any(|c| c.kind_id() == g.wildcard_import);
        if wildcard || !any {
            self.imports.push(Import {
                module,
                name: wildcard.then(|| "*".to_owned()),
                alias: None,
                level,
                line,
                scope,
            });
        }
    }

    /// `a.b` or `a.b as c` → (`a.b`, alias).
    fn aliased(&self, node: Node) -> (String, Option<String>) {
        if node.kind_id() == self.g.aliased_import {
            let name = child(node, self.g.f_name)
                .map(|n| dotted(n, self.src))
                .unwrap_or_default();
            let alias = child(node, self.g.f_alias).map(|a| self.text(a).to_owned());
            (name, alias)
        } else {
            (dotted(node, self.src), None)
        }
    }
}

fn dotted(node: Node, src: &str) -> String {
    ts::text(node, src).split_whitespace().collect()
}

/// `def f(\n    a,\n    b,\n) -> int` → `def f(a, b) -> int`.
fn tidy_signature(header: &str) -> String {
    let line = ts::one_line(header, 400);
    line.replace("( ", "(")
        .replace(" )", ")")
        .replace(",)", ")")
        .replace("[ ", "[")
        .replace(" ]", "]")
}

/// The docstring of a module or a body block: its first statement, when that is a plain string
/// (not an f-string or bytes), cleaned like `inspect.cleandoc`. Returns the text and its lines.
fn docstring_of_block(
    g: &Grammar,
    block: Node,
    src: &str,
    lines: &LineIndex,
) -> Option<(String, (u32, u32))> {
    let mut cursor = block.walk();
    let first = first_statement(g, block, &mut cursor)?;
    if first.kind_id() != g.expression_statement || first.named_child_count() != 1 {
        return None;
    }
    let expr = first.named_child(0)?;
    let raw = if expr.kind_id() == g.string {
        string_value(expr, src)?
    } else if expr.kind_id() == g.concatenated_string {
        let mut value = String::new();
        let mut inner = expr.walk();
        for part in expr.named_children(&mut inner) {
            if part.kind_id() == g.string {
                value.push_str(&string_value(part, src)?);
            }
        }
        value
    } else {
        return None;
    };
    Some((cleandoc(&raw), (lines.start(expr), lines.end(expr))))
}

fn first_statement<'t>(
    g: &Grammar,
    block: Node<'t>,
    cursor: &mut TreeCursor<'t>,
) -> Option<Node<'t>> {
    block
        .named_children(cursor)
        .find(|c| c.kind_id() != g.comment)
}

/// The value of a string literal; `None` for f-strings and bytes (not docstrings).
fn string_value(node: Node, src: &str) -> Option<String> {
    let text = ts::text(node, src);
    let prefix_len = text.find(['"', '\''])?;
    let prefix = text[..prefix_len].to_ascii_lowercase();
    if prefix.contains('f') || prefix.contains('b') || prefix.contains('t') {
        return None;
    }
    let body = &text[prefix_len..];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") {
        3
    } else {
        1
    };
    let inner = body
        .get(quote..body.len().saturating_sub(quote))
        .unwrap_or("");
    if prefix.contains('r') {
        Some(inner.to_owned())
    } else {
        Some(unescape(inner))
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('\n') => {} // line continuation
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// `inspect.cleandoc`: strip the first line, dedent the rest uniformly, drop blank edges.
pub(crate) fn cleandoc(doc: &str) -> String {
    let expanded = doc.replace('\t', "        ");
    let mut lines = expanded.lines();
    let first = lines.next().unwrap_or("").trim_start().to_owned();
    let rest: Vec<&str> = lines.collect();
    let margin = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = std::iter::once(first)
        .chain(
            rest.iter()
                .map(|l| l.get(margin..).unwrap_or("").trim_end().to_owned()),
        )
        .collect();
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    while out.first().is_some_and(|l| l.trim().is_empty()) {
        out.remove(0);
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> ParsedFile {
        Python.parse_text(src).unwrap()
    }

    fn rows(file: &ParsedFile) -> Vec<(String, &'static str, u32, u32)> {
        file.symbols
            .iter()
            .map(|s| {
                (
                    s.qualname.clone(),
                    s.kind.as_str(),
                    s.start_line,
                    s.end_line,
                )
            })
            .collect()
    }

    #[test]
    fn qualnames_kinds_and_lines_follow_ast() {
        let src = "\
class A:
    def m(self):
        def inner():
            pass
        return inner
    if True:
        def n(self):
            x = 1
            # trailing comment
    class B:
        async def c(self): ...

@decorator
def f():
    class Local:
        def g(self): pass
";
        let file = parse(src);
        assert_eq!(
            rows(&file),
            vec![
                ("A".into(), "class", 1, 11),
                ("A.m".into(), "method", 2, 5),
                ("A.m.inner".into(), "function", 3, 4),
                ("A.n".into(), "method", 7, 8),
                ("A.B".into(), "class", 10, 11),
                ("A.B.c".into(), "method", 11, 11),
                ("f".into(), "function", 14, 16),
                ("f.Local".into(), "class", 15, 16),
                ("f.Local.g".into(), "method", 16, 16),
            ]
        );
        assert_eq!(file.symbols[6].decorated_line, 13);
        assert_eq!(file.symbols[6].decorators, vec!["decorator"]);
        assert_eq!(file.symbols[2].parent, Some(1));
    }

    #[test]
    fn signatures_and_docstrings() {
        let src = "\
def get(
    self,
    key: str,
    default=None,
) -> str:
    '''Fetch a value.

        More detail.
    '''
    return key
";
        let file = parse(src);
        let s = &file.symbols[0];
        assert_eq!(s.signature, "def get(self, key: str, default=None) -> str");
        assert_eq!(
            s.docstring.as_deref(),
            Some("Fetch a value.\n\nMore detail.")
        );
        assert_eq!(s.header_end_line, 5);
        assert_eq!(s.docstring_lines, Some((6, 9)));
    }

    #[test]
    fn module_description_and_fstring_is_not_a_docstring() {
        let file = parse("\"\"\"The module.\"\"\"\ndef f():\n    f'not {doc}'\n");
        assert_eq!(file.description.as_deref(), Some("The module."));
        assert_eq!(file.symbols[0].docstring, None);
    }

    #[test]
    fn imports_are_split_per_bound_name() {
        let file = parse(
            "import os.path as p, sys\nfrom ..pkg.mod import (a as b, c)\nfrom . import d\nfrom x import *\nfrom __future__ import annotations\n",
        );
        let got: Vec<_> = file
            .imports
            .iter()
            .map(|i| {
                (
                    i.module.as_str(),
                    i.name.as_deref(),
                    i.alias.as_deref(),
                    i.level,
                    i.bound_name(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("os.path", None, Some("p"), 0, "p"),
                ("sys", None, None, 0, "sys"),
                ("pkg.mod", Some("a"), Some("b"), 2, "b"),
                ("pkg.mod", Some("c"), None, 2, "c"),
                ("", Some("d"), None, 1, "d"),
                ("x", Some("*"), None, 0, "*"),
                ("__future__", Some("annotations"), None, 0, "annotations"),
            ]
        );
    }

    #[test]
    fn references_record_calls_attributes_decorators_and_bases() {
        let src = "\
@app.route('/')
@cached
class C(base.Base, Mixin):
    def m(self):
        return self.cache.get(helper(1)).value
";
        let file = parse(src);
        let got: Vec<_> = file
            .references
            .iter()
            .map(|r| {
                (
                    r.kind,
                    r.name.as_str(),
                    r.receiver.as_deref(),
                    r.line,
                    r.scope,
                )
            })
            .collect();
        assert!(
            got.contains(&(RefKind::Call, "route", Some("app"), 1, None)),
            "{got:?}"
        );
        assert!(
            got.contains(&(RefKind::Decorator, "cached", None, 2, None)),
            "{got:?}"
        );
        assert!(
            got.contains(&(RefKind::Inherit, "Base", Some("base"), 3, None)),
            "{got:?}"
        );
        assert!(
            got.contains(&(RefKind::Inherit, "Mixin", None, 3, None)),
            "{got:?}"
        );
        assert!(
            got.contains(&(RefKind::Call, "get", Some("self.cache"), 5, Some(1))),
            "{got:?}"
        );
        assert!(
            got.contains(&(RefKind::Call, "helper", None, 5, Some(1))),
            "{got:?}"
        );
        assert!(
            got.contains(&(
                RefKind::Attribute,
                "value",
                Some("self.cache.get(helper(1))"),
                5,
                Some(1)
            )),
            "{got:?}"
        );
        assert!(
            got.contains(&(RefKind::Attribute, "cache", Some("self"), 5, Some(1))),
            "{got:?}"
        );
        // the called attribute is a call, not also an attribute use
        assert!(
            !got.iter()
                .any(|r| r.0 == RefKind::Attribute && r.1 == "get"),
            "{got:?}"
        );
    }

    #[test]
    fn broken_code_still_yields_symbols() {
        let file = parse("def ok():\n    pass\n\ndef broken(:\n    x = (\n\nclass K:\n    pass\n");
        assert!(file.has_syntax_errors);
        assert!(file.symbols.iter().any(|s| s.name == "ok"));
    }

    #[test]
    fn cleandoc_matches_inspect() {
        assert_eq!(
            cleandoc("  First.\n\n      indented\n    body\n  "),
            "First.\n\n  indented\nbody"
        );
        assert_eq!(
            cleandoc("\n    Starts on line two.\n    "),
            "Starts on line two."
        );
    }
}
