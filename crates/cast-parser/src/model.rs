//! The records a parse produces: symbols, imports and references.

use serde::{Deserialize, Serialize};

/// What a symbol is. Python uses `class`, `function` and `method`; HTML `element` to `block`;
/// the tree-sitter languages the code kinds their queries name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    /// A `class` statement (Python, JavaScript, TypeScript, Java; a Java record too).
    Class,
    /// A `def` (or `async def`) that is not directly inside a class body; a function of any
    /// language that is not a method.
    Function,
    /// A `def` directly inside a class body (an `if` or `try` in between does not count); a
    /// function defined in a class, impl, trait or interface, or a Go function with a receiver.
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
    /// A struct (Rust `struct` and `union`, Go `type T struct`).
    Struct,
    /// An enumeration (Rust, TypeScript, Java).
    Enum,
    /// A Rust trait.
    Trait,
    /// An interface (Go, TypeScript, Java; a Java `@interface` too).
    Interface,
    /// A Rust `impl` block, named by the type it implements for.
    Impl,
    /// A type alias or other named type (`type A = B`, Go `type T int`).
    Type,
    /// A module or namespace (Rust `mod`, TypeScript `namespace`/`module`).
    Module,
    /// A constant that is part of a module's interface (Rust and Go `const`, an exported
    /// JavaScript/TypeScript `const`, a Java `static final` field).
    Constant,
    /// A module-level variable (Rust `static`, Go `var`).
    Variable,
    /// A macro definition (Rust `macro_rules!`).
    Macro,
}

impl SymbolKind {
    /// Every kind, in the order of their codes.
    pub const ALL: [SymbolKind; 18] = [
        SymbolKind::Class,
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Element,
        SymbolKind::Script,
        SymbolKind::Style,
        SymbolKind::Heading,
        SymbolKind::Block,
        SymbolKind::Struct,
        SymbolKind::Enum,
        SymbolKind::Trait,
        SymbolKind::Interface,
        SymbolKind::Impl,
        SymbolKind::Type,
        SymbolKind::Module,
        SymbolKind::Constant,
        SymbolKind::Variable,
        SymbolKind::Macro,
    ];

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
            SymbolKind::Struct => "struct",
            SymbolKind::Enum => "enum",
            SymbolKind::Trait => "trait",
            SymbolKind::Interface => "interface",
            SymbolKind::Impl => "impl",
            SymbolKind::Type => "type",
            SymbolKind::Module => "module",
            SymbolKind::Constant => "constant",
            SymbolKind::Variable => "variable",
            SymbolKind::Macro => "macro",
        }
    }

    /// The kind named `name` (as [`SymbolKind::as_str`] spells it).
    pub fn from_name(name: &str) -> Option<SymbolKind> {
        SymbolKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// A small stable number for storage ([`SymbolKind::from_code`] reverses it).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The kind stored as `code`.
    pub fn from_code(code: u8) -> Option<SymbolKind> {
        SymbolKind::ALL.get(usize::from(code)).copied()
    }

    /// Whether the symbol is callable code (a function or a method).
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }

    /// Whether the symbol is a type whose members a receiver (`self`, `this`, `Type::`) reaches:
    /// a class, struct, enum, trait, interface or impl block.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Trait
                | SymbolKind::Interface
                | SymbolKind::Impl
        )
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
    /// Enclosing definitions' names and this one's, joined with the language's separator:
    /// `Outer.method`, `outer.inner` (Python, Go, JavaScript, TypeScript, Java), `Type::method`
    /// (Rust). A Go method is qualified by its receiver's type (`Server.Handle`) although the
    /// type is not its parent in the file.
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
    /// Decorators as written — Python's without the `@` (`property`, `app.route("/")`), others
    /// whole (`#[derive(Debug)]`, `@Override`).
    pub decorators: Vec<String>,
    /// Index of the enclosing symbol in [`ParsedFile::symbols`].
    pub parent: Option<usize>,
    /// Byte range of the whole definition (decorators included) in the decoded text.
    pub start_byte: usize,
    pub end_byte: usize,
    /// Where the body starts (the part a skeleton elides), when the definition has one: a
    /// Python body's first statement, a `{` block.
    pub body_start: Option<usize>,
    /// The class a function's return annotation names (Python; `-> Client`,
    /// `-> Optional["Client"]`), as written, for resolving calls on what it returns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
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
    /// The name this import binds in its scope (`c` for `import a.b as c`, `a` for `import a.b`;
    /// a path's last part for a Go package, `y` for `github.com/x/y` or `github.com/x/y/v2`).
    pub fn bound_name(&self) -> &str {
        if let Some(alias) = &self.alias {
            return alias;
        }
        match &self.name {
            Some(name) => name,
            None if self.module.contains('/') => {
                let mut parts = self.module.rsplit('/');
                let last = parts.next().unwrap_or(&self.module);
                let is_version = last.len() > 1
                    && last.starts_with('v')
                    && last[1..].bytes().all(|b| b.is_ascii_digit());
                match parts.next() {
                    Some(before) if is_version => before,
                    _ => last,
                }
            }
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
    /// A base class in `class C(Base)`; an implemented trait or interface, an embedded type.
    Inherit,
    /// A type named in a signature, a field or a declaration (`fn f(x: Index)`): how a
    /// typed language uses its structs, classes and interfaces besides constructing them.
    Type,
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

/// What a variable or an attribute of the instance is known to hold, from the code around it:
/// resolution reads a call on it (`x.m()`, `self.x.m()`) through its class.
///
/// `x = Client()`, `def f(x: Client)`, `x: Client = ...`, `with Client() as x`, and in a method
/// `self.x = Client()`, `self.x = x` (a parameter) or `self.x: Client`; at class level `x:
/// Client` (a dataclass field) is `self.x`. In the tree-sitter languages the reference query's
/// `@fact.*` captures say it (see [`crate::LanguageDescription`]): parameters and receivers, declared
/// variables and fields (`self.x`, whatever the language calls the instance), constructors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeFact {
    /// The variable (`x`) or the attribute of the instance (`self.x`).
    pub target: String,
    pub source: TypeSource,
    /// Index of the innermost enclosing symbol (the function; the class for a class-level
    /// annotation); `None` at module level.
    pub scope: Option<usize>,
    /// The line of the target: a variable holds what its last assignment before a use says.
    pub line: u32,
}

/// Where a [`TypeFact`]'s type comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TypeSource {
    /// A class named by an annotation, as written without `Optional[…]`, `… | None` or quotes
    /// (`Client`, `httpx.Client`).
    Annotation(String),
    /// What a call of this name returns (`Client` in `x = Client(...)`): an instance when it
    /// is a class.
    Call(String),
    /// Whatever another variable of the same scope holds (`p` in `self.x = p`), or the class
    /// a name binds (`serializer_class = Serializer` in a class body holds that class).
    Same(String),
    /// Something no fact describes (`x = a[0]`, a loop variable, a tuple's part): what an
    /// earlier fact said no longer holds.
    Unknown,
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
    /// What variables hold, where the code says (Python; Go, Java, TypeScript and Rust through
    /// their queries; empty elsewhere).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub type_facts: Vec<TypeFact>,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
