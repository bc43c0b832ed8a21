//! The records a parse produces: symbols, imports and references.

use serde::Serialize;

/// What a symbol is. Python uses the first three; HTML the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    /// A `class` statement.
    Class,
    /// A `def` (or `async def`) that is not directly inside a class body.
    Function,
    /// A `def` directly inside a class body (an `if` or `try` in between does not count).
    Method,
    /// An HTML element carrying an `id` attribute.
    Element,
    /// An HTML `<script>` block.
    Script,
    /// An HTML `<style>` block.
    Style,
    /// An HTML heading, `<h1>` to `<h6>`.
    Heading,
    /// A template block, `{% block name %}` … `{% endblock %}` (Django, Jinja).
    Block,
}

impl SymbolKind {
    /// The lower-case name used in JSON and in the text listing.
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Class => "class",
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Element => "element",
            SymbolKind::Script => "script",
            SymbolKind::Style => "style",
            SymbolKind::Heading => "heading",
            SymbolKind::Block => "block",
        }
    }

    /// Whether the symbol is callable code (a function or a method).
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }
}

impl std::fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A named definition in a file.
///
/// Lines are 1-based and inclusive. For Python, `start_line` is the line of the `def`/`class`
/// keyword (decorators not counted) and `end_line` the last line of the body, exactly as Python's
/// own `ast` reports `lineno` and `end_lineno`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Symbol {
    pub kind: SymbolKind,
    pub name: String,
    /// Enclosing class and function names joined with dots: `Outer.method`, `outer.inner`.
    pub qualname: String,
    /// The definition's header on one line, e.g. `def get(self, key, default=None) -> str`.
    pub signature: String,
    /// The docstring, cleaned as `inspect.cleandoc` does; `None` when there is none.
    pub docstring: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// First line of the definition including its decorators (equals `start_line` without any).
    pub decorated_line: u32,
    /// Last line of the header (the line holding the `:` that opens the body).
    pub header_end_line: u32,
    /// Lines the docstring spans, when there is one.
    pub docstring_lines: Option<(u32, u32)>,
    /// Decorators as written, without the `@`, e.g. `property`, `app.route("/")`.
    pub decorators: Vec<String>,
    /// Index of the enclosing symbol in [`ParsedFile::symbols`].
    pub parent: Option<usize>,
    /// Byte range of the whole definition (decorators included) in the decoded text.
    pub start_byte: usize,
    pub end_byte: usize,
}

/// One name bound by an import statement.
///
/// `import a.b as c` gives `module: "a.b", name: None, alias: Some("c")`;
/// `from ..pkg import x as y` gives `module: "pkg", level: 2, name: Some("x"), alias: Some("y")`;
/// `from m import *` gives `name: Some("*")`. HTML templates report `{% extends %}`,
/// `{% include %}`, `{% import %}`, `<script src>` and `<link href>` targets as modules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Import {
    pub module: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    /// Leading dots of a relative import (0 for an absolute one).
    pub level: u32,
    pub line: u32,
    /// Index of the enclosing symbol, for an import inside a function or class.
    pub scope: Option<usize>,
}

impl Import {
    /// The name this import binds in its scope (`c` for `import a.b as c`, `a` for `import a.b`).
    pub fn bound_name(&self) -> &str {
        if let Some(alias) = &self.alias {
            return alias;
        }
        match &self.name {
            Some(name) => name,
            None => self.module.split('.').next().unwrap_or(&self.module),
        }
    }
}

/// How a name is used at a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RefKind {
    /// `name(...)` or `obj.name(...)`.
    Call,
    /// `obj.name` that is not called.
    Attribute,
    /// `@name` or `@obj.name` without arguments.
    Decorator,
    /// A base class in `class C(Base)`.
    Inherit,
}

/// A use of a name: a call, an attribute access, a decorator or a base class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub kind: RefKind,
    /// The last name in the chain (`get` for `self.cache.get(...)`).
    pub name: String,
    /// The expression before the last dot, as written (`self.cache`), cut at 80 bytes.
    pub receiver: Option<String>,
    pub line: u32,
    /// Index of the innermost enclosing symbol; `None` at module level.
    pub scope: Option<usize>,
}

/// Everything a parse of one file yields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParsedFile {
    /// The language's name, e.g. `python`.
    pub language: &'static str,
    /// Symbols in source order (a parent always comes before its children).
    pub symbols: Vec<Symbol>,
    pub imports: Vec<Import>,
    pub references: Vec<Reference>,
    /// The module docstring (Python) or `<title>` (HTML), cleaned.
    pub description: Option<String>,
    /// Number of lines in the file.
    pub line_count: u32,
    /// The first syntax error, when the text does not parse; the parser recovered and the
    /// symbols are best effort.
    pub syntax_error: Option<SyntaxError>,
    /// The bytes were not valid UTF-8 and were decoded lossily (U+FFFD for bad sequences).
    pub lossy_utf8: bool,
}

/// Where and why a text does not parse (the first error a parser found).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SyntaxError {
    /// The 1-based line of the error.
    pub line: u32,
    /// What the parser expected or found, e.g. `Expected ')', found newline`.
    pub message: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl ParsedFile {
    /// Whether the text does not parse (see [`ParsedFile::syntax_error`]).
    pub fn has_syntax_errors(&self) -> bool {
        self.syntax_error.is_some()
    }

    /// Walks from a symbol up to the file level, yielding the symbol itself first.
    pub fn ancestors(&self, index: usize) -> impl Iterator<Item = &Symbol> {
        let mut next = Some(index);
        std::iter::from_fn(move || {
            let i = next?;
            let symbol = self.symbols.get(i)?;
            next = symbol.parent;
            Some(symbol)
        })
    }

    /// The innermost symbol whose lines contain `line` (1-based), if any.
    pub fn symbol_at_line(&self, line: u32) -> Option<usize> {
        self.symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.decorated_line <= line && line <= s.end_line)
            .min_by_key(|(_, s)| s.end_line - s.decorated_line)
            .map(|(i, _)| i)
    }
}
