//! Languages described by data: a tree-sitter grammar, file extensions and four tree-sitter
//! queries. One generic extractor (`extract.rs`) turns any description into symbols, imports
//! and references, so adding a language is adding a description and its queries, not a walker.
//!
//! The queries follow the grammars' own `tags.scm` in spirit, with these capture names:
//!
//! | query | capture | meaning |
//! |---|---|---|
//! | definitions | `@definition.KIND` | a definition node; `KIND` is a [`SymbolKind`] name (`function`, `struct`, …) |
//! | | `@name` | its name (a type written with generics or a path is reduced to its last plain name) |
//! | | `@receiver` | the type a definition outside its type belongs to (a Go method's receiver, `F.prototype.m = …`): it qualifies the name |
//! | | `@body` | the part a skeleton elides; the signature ends where it starts (default: the node's `body` field; none: the whole node is the signature) |
//! | | `@function` | the function a definition binds its name to (`const f = () => {}`): the body is that function's `body` field |
//! | | `@declarator` | instead of `@name`: the node the description's [`LanguageDescription::declarator`] reads the name (and receiver) from |
//! | references | `@reference.call`, `@reference.inherit`, `@reference.type` | a call; a base class, implemented interface or trait; a type named in a signature or declaration |
//! | | `@name`, `@receiver` | the called or inherited name and the expression before it |
//! | | `@fact.var`, `@fact.param`, `@fact.field` | a variable, a parameter (it holds in its function's body), or a field of the instance (`self.x`), whose type the code states: a [`crate::TypeFact`] |
//! | | `@fact.type`, `@fact.new`, `@fact.same` | the type it is declared with; the type or function whose call gives its value (`Client{}`, `new Client()`, `NewClient()`); the variable whose value it takes (`p := c`) |
//! | imports | `@import` | an import statement (one [`Import`] per match) |
//! | | `@import.module`, `@import.name`, `@import.alias`, `@import.star` | its parts: quotes are stripped from the module |
//! | | `@import.tree` | syntax a query cannot flatten (Rust's use trees), handed to [`LanguageDescription::import_tree`] |
//! | docs | `@doc` | a doc comment: it documents the definition right below it |
//! | | `@doc.module` | a comment describing the whole file |
//! | | `@doc.anchor` | the node whose comment describes the file first (Go's `package` clause): the run of comments right above it, no blank line between; else the first run, as without an anchor |
//!
//! A file's description skips comment runs that only hold tool directives (`//go:build`,
//! `// +build`, `eslint-disable`) or a licence header.
//!
//! A function whose enclosing definition is a type (class, struct, trait, interface, impl,
//! enum) is reported as a method. Symbols nest by where their nodes sit, so qualified names
//! come from the tree: `Type::method` (Rust), `Class.method`.

use std::sync::OnceLock;

use tree_sitter::{Language, Node, Query};

use crate::{Import, LanguageParser, ParseError, ParsedFile, SymbolKind};

/// A language parsed through a tree-sitter grammar, described by data. See the module
/// documentation for the capture names the queries use.
pub struct LanguageDescription {
    /// Lower-case name, e.g. `rust`.
    pub name: &'static str,
    /// File extensions without the dot.
    pub extensions: &'static [&'static str],
    /// The grammar, as the grammar crates export it.
    pub grammar: tree_sitter_language::LanguageFn,
    /// Query for definitions.
    pub definitions: &'static str,
    /// Query for references: calls and inheritance.
    pub references: &'static str,
    /// Query for imports.
    pub imports: &'static str,
    /// Query for doc comments.
    pub docs: &'static str,
    /// Joins a parent's qualified name and a child's name: `::` for Rust, `.` elsewhere.
    pub separator: &'static str,
    /// Separator of paths as written in references (`::` in Rust); read as `.` so that
    /// receivers look the same in every language.
    pub path_separator: &'static str,
    /// Nodes that wrap a definition on its first line without being one (`export_statement`,
    /// `lexical_declaration`): the signature, doc comment and decorators are looked for at the
    /// wrapper.
    pub wrappers: &'static [&'static str],
    /// Decorator, attribute and annotation nodes: kept as the symbol's decorators, left out of
    /// its signature, and skipped between a doc comment and its definition.
    pub decorators: &'static [&'static str],
    /// Comment nodes that are not doc comments and, between a doc comment and its definition,
    /// neither belong to the doc nor hide it (`/** Doc. */ // a note` then the class: javac,
    /// rustdoc and TypeScript read it so). Empty where such a comment is the doc itself (Go).
    pub plain_comments: &'static [&'static str],
    /// Interprets an `@import.tree` capture into imports.
    pub import_tree: Option<fn(Node, &str, &mut Vec<Import>)>,
    /// Whether the text is read before a preprocessor expands it (C, C++, C#'s `#if`): a parse error is
    /// then most often a macro the grammar cannot see through, so none is reported.
    pub preprocessed: bool,
    /// Where a `@definition.variable` must sit to be a symbol: the node kinds its parent may be
    /// (C: the file or a preprocessor conditional), never inside a function (a conditional in a
    /// function body holds locals). Empty: wherever the query finds it. A query could say so
    /// itself, but C++'s grammar makes such a query take a tenth of a second to compile.
    pub variable_parents: &'static [&'static str],
    /// How a skeleton writes the language. Its `body_end` also says what a body is: with `}`,
    /// a `{ … }` block (a body that is not — an arrow function's expression, a tuple struct's
    /// fields — is part of the signature); with Ruby's `end`, any `@body` or `body` field.
    pub skeleton: SkeletonStyle,
    /// Works around a grammar bug: rewrites the text before parsing, keeping every byte
    /// offset (`None`: nothing to change). Symbols and lines still come from the original.
    pub fixup: Option<fn(&str) -> Option<String>>,
    /// The field of a function's node that holds its return type (`result` in Go): a call's
    /// receiver is then typed by what the function returns (`NewServer().Start()`, `c :=
    /// NewClient()`). `None`: not read.
    pub returns: Option<&'static str>,
    /// Its module system and the standard-library names resolution must not resolve by
    /// name alone.
    pub modules: crate::modules::ModuleRules,
    /// Reads a definition's name out of a `@declarator` capture, for the nested shapes a query
    /// would spell out one by one (C's `*f(…)`, `A::m(…)`, JavaScript's `F.prototype.m =`).
    /// tree-sitter analyses every step of a pattern when it compiles a query: spelled out,
    /// C++'s function shapes alone took 0.14 s to compile, a fifth of `cast symbols` on fmt.
    /// `None`: the queries capture `@name` only.
    pub declarator: Option<Declarator>,
}

/// Reads a definition's name out of a `@declarator` capture: given the capture, the kind its
/// pattern names and the text, the name and receiver, or `None` when the capture is no
/// definition of that kind (a prototype's declarator where a variable was asked for).
pub type Declarator = for<'t> fn(Node<'t>, SymbolKind, &str) -> Option<Declared<'t>>;

/// A definition's name as a [`Declarator`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct Declared<'t> {
    /// The name's node.
    pub name: Node<'t>,
    /// The type a definition outside its type belongs to, as `@receiver` captures it.
    pub receiver: Option<Node<'t>>,
    /// The kind: the pattern's, or what the declarator shows (a function with a receiver
    /// is a method).
    pub kind: SymbolKind,
}

impl<'t> Declared<'t> {
    /// A definition of the pattern's `kind` named `name`; a function with a receiver
    /// (`void A::m()`, `F.prototype.m = …`) is a method of it.
    pub fn new(name: Node<'t>, receiver: Option<Node<'t>>, kind: SymbolKind) -> Self {
        let kind = match (kind, receiver) {
            (SymbolKind::Function, Some(_)) => SymbolKind::Method,
            _ => kind,
        };
        Declared {
            name,
            receiver,
            kind,
        }
    }
}

/// How `cast skeleton` writes a language: what closes a body, where an import statement ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkeletonStyle {
    /// What closes a body: `}`, or Ruby's `end` (an elided body is then `... end`, not
    /// `{ ... }`).
    pub body_end: &'static str,
    /// Where an import statement ends.
    pub import_end: ImportEnd,
    /// Written before an import line that lacks it (a spec inside Go's `import ( … )`).
    pub import_keyword: Option<&'static str>,
}

/// How `cast skeleton` lays a language out; each language's parser says which
/// ([`crate::LanguageParser::skeleton_form`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkeletonForm {
    /// Indented blocks, bodies elided as `...` and docstrings kept as string literals (Python).
    Indented,
    /// Bodies elided between delimiters, in the given style (the tree-sitter languages).
    Braced(SkeletonStyle),
    /// Each symbol's signature, indented by its depth (HTML's outline; the default).
    Outline,
}

/// Where an import statement ends, for a skeleton that shows it on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportEnd {
    /// At a `;` (Rust, Java, C#, PHP).
    Semicolon,
    /// At the end of its first line (a Go spec, `#include`, Ruby's `require`).
    Line,
    /// At the line naming the module: a `;`, a closing quote or parenthesis (JavaScript).
    Specifier,
}

impl SkeletonStyle {
    /// Braced bodies, imports ending at a `;`.
    pub const BRACES: SkeletonStyle = SkeletonStyle {
        body_end: "}",
        import_end: ImportEnd::Semicolon,
        import_keyword: None,
    };
}

impl std::fmt::Debug for LanguageDescription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LanguageDescription")
            .field("name", &self.name)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

/// A description with its queries compiled (on first use, once per process). The symbol
/// queries and the reference queries compile apart: a listing of symbols never pays for the
/// others (C++'s and Ruby's reference queries take 80–130 ms to compile).
pub struct TreeSitterLanguage {
    description: &'static LanguageDescription,
    compiled: OnceLock<Result<Compiled, String>>,
    compiled_references: OnceLock<Result<CompiledReferences, String>>,
}

impl std::fmt::Debug for TreeSitterLanguage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("TreeSitterLanguage")
            .field(&self.description.name)
            .finish()
    }
}

impl TreeSitterLanguage {
    /// A parser for a described language; queries compile when it first parses.
    pub const fn new(description: &'static LanguageDescription) -> Self {
        TreeSitterLanguage {
            description,
            compiled: OnceLock::new(),
            compiled_references: OnceLock::new(),
        }
    }

    /// The description this parser follows.
    pub fn description(&self) -> &'static LanguageDescription {
        self.description
    }

    /// The compiled grammar and symbol queries; an error names the query that does not
    /// compile.
    pub(crate) fn compiled(&self) -> Result<&Compiled, ParseError> {
        self.compiled
            .get_or_init(|| Compiled::new(self.description))
            .as_ref()
            .map_err(|message| self.grammar_error(message))
    }

    /// The compiled reference and import queries.
    pub(crate) fn compiled_references(&self) -> Result<&CompiledReferences, ParseError> {
        let compiled = self.compiled()?;
        self.compiled_references
            .get_or_init(|| CompiledReferences::new(self.description, &compiled.language))
            .as_ref()
            .map_err(|message| self.grammar_error(message))
    }

    fn grammar_error(&self, message: &str) -> ParseError {
        ParseError::Grammar {
            language: self.description.name,
            message: message.to_owned(),
        }
    }

    /// Compiles the queries now, to find a broken description early.
    pub fn check(&self) -> Result<(), ParseError> {
        self.compiled_references().map(|_| ())
    }
}

/// A shared (static) description parser registers as itself.
impl LanguageParser for &'static TreeSitterLanguage {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn extensions(&self) -> &'static [&'static str] {
        (**self).extensions()
    }

    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        (**self).parse_text(text)
    }

    fn parse_symbols_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        (**self).parse_symbols_text(text)
    }

    fn skeleton_form(&self) -> SkeletonForm {
        (**self).skeleton_form()
    }
}

/// The grammar and the symbol queries (definitions, then docs, as one query: one walk of the
/// tree finds both), with the capture indexes the extractor reads.
pub(crate) struct Compiled {
    pub language: Language,
    pub symbols: Query,
    /// Where the patterns of `symbols` start (`None`: some pattern starts anywhere; the query
    /// then runs over the whole tree).
    pub symbol_starts: Option<crate::rooted::PatternStarts>,
    /// The first pattern of `symbols` that comes from the docs query.
    pub first_doc_pattern: usize,
    /// For each capture index of `definitions`, the kind a `@definition.KIND` capture names.
    pub definition_kinds: Vec<Option<SymbolKind>>,
    pub def_name: Option<u32>,
    pub def_declarator: Option<u32>,
    pub def_receiver: Option<u32>,
    pub def_body: Option<u32>,
    pub def_function: Option<u32>,
    pub doc: Option<u32>,
    pub doc_module: Option<u32>,
    pub doc_anchor: Option<u32>,
}

/// The reference and import queries, with their capture indexes.
pub(crate) struct CompiledReferences {
    pub references: Query,
    /// Where the patterns of `references` start (`None`: anywhere).
    pub reference_starts: Option<crate::rooted::PatternStarts>,
    pub ref_call: Option<u32>,
    pub ref_inherit: Option<u32>,
    pub ref_type: Option<u32>,
    pub ref_name: Option<u32>,
    pub ref_receiver: Option<u32>,
    pub fact_var: Option<u32>,
    pub fact_field: Option<u32>,
    pub fact_type: Option<u32>,
    pub fact_new: Option<u32>,
    pub fact_same: Option<u32>,
    pub fact_param: Option<u32>,
    pub imports: Query,
    /// Where the patterns of `imports` start (`None`: anywhere).
    pub import_starts: Option<crate::rooted::PatternStarts>,
    pub import: Option<u32>,
    pub import_module: Option<u32>,
    pub import_name: Option<u32>,
    pub import_alias: Option<u32>,
    pub import_star: Option<u32>,
    pub import_tree: Option<u32>,
}

fn query(language: &Language, which: &str, source: &str) -> Result<Query, String> {
    Query::new(language, source).map_err(|err| format!("{which} query: {err}"))
}

impl Compiled {
    fn new(d: &LanguageDescription) -> Result<Compiled, String> {
        let language = Language::new(d.grammar);
        let source = format!("{}\n{}", d.definitions, d.docs);
        let symbols = Query::new(&language, &source).map_err(|_| {
            // Name the query at fault.
            query(&language, "definitions", d.definitions)
                .and_then(|_| query(&language, "docs", d.docs))
                .err()
                .unwrap_or_else(|| "definitions and docs queries together".to_owned())
        })?;
        let first_doc_pattern = (0..symbols.pattern_count())
            .find(|&i| symbols.start_byte_for_pattern(i) > d.definitions.len())
            .unwrap_or(symbols.pattern_count());
        let (definitions, docs) = (&symbols, &symbols);
        let mut definition_kinds = Vec::new();
        for name in definitions.capture_names() {
            let kind = match name.strip_prefix("definition.") {
                Some(kind) => Some(
                    SymbolKind::from_name(kind)
                        .ok_or_else(|| format!("definitions query: unknown kind @{name}"))?,
                ),
                None => None,
            };
            definition_kinds.push(kind);
        }
        Ok(Compiled {
            def_name: definitions.capture_index_for_name("name"),
            def_declarator: definitions.capture_index_for_name("declarator"),
            def_receiver: definitions.capture_index_for_name("receiver"),
            def_body: definitions.capture_index_for_name("body"),
            def_function: definitions.capture_index_for_name("function"),
            definition_kinds,
            doc: docs.capture_index_for_name("doc"),
            doc_module: docs.capture_index_for_name("doc.module"),
            doc_anchor: docs.capture_index_for_name("doc.anchor"),
            symbol_starts: crate::rooted::PatternStarts::new(&language, &source),
            language,
            first_doc_pattern,
            symbols,
        })
    }
}

impl CompiledReferences {
    fn new(d: &LanguageDescription, language: &Language) -> Result<CompiledReferences, String> {
        let references = query(language, "references", d.references)?;
        let imports = query(language, "imports", d.imports)?;
        Ok(CompiledReferences {
            ref_call: references.capture_index_for_name("reference.call"),
            ref_inherit: references.capture_index_for_name("reference.inherit"),
            ref_type: references.capture_index_for_name("reference.type"),
            ref_name: references.capture_index_for_name("name"),
            ref_receiver: references.capture_index_for_name("receiver"),
            fact_var: references.capture_index_for_name("fact.var"),
            fact_field: references.capture_index_for_name("fact.field"),
            fact_type: references.capture_index_for_name("fact.type"),
            fact_new: references.capture_index_for_name("fact.new"),
            fact_same: references.capture_index_for_name("fact.same"),
            fact_param: references.capture_index_for_name("fact.param"),
            import: imports.capture_index_for_name("import"),
            import_module: imports.capture_index_for_name("import.module"),
            import_name: imports.capture_index_for_name("import.name"),
            import_alias: imports.capture_index_for_name("import.alias"),
            import_star: imports.capture_index_for_name("import.star"),
            import_tree: imports.capture_index_for_name("import.tree"),
            reference_starts: crate::rooted::PatternStarts::new(language, d.references),
            import_starts: crate::rooted::PatternStarts::new(language, d.imports),
            references,
            imports,
        })
    }
}
