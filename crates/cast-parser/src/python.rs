//! Python (`.py`, `.pyi`, `.pyx`) with Ruff's hand-written parser (`ruff_python_parser`).
//!
//! Symbols follow Python's own `ast` exactly: a `def` or `class` inside `if`/`try`/`with`/`for`
//! blocks belongs to the enclosing scope; `kind` is `method` for a def whose nearest enclosing
//! definition is a class; lines are those `ast` reports for `lineno`/`end_lineno`.
//!
//! Why Ruff's parser and not tree-sitter-python: it builds a full AST shaped like CPython's
//! (ranges included) and parses about nine times faster (36 MB/s against 4 MB/s per core on
//! the standard library), and it recovers from syntax errors as tree-sitter does.

use std::borrow::Cow;

use ruff_python_ast::token::{Token, TokenKind, Tokens};
use ruff_python_ast::visitor::{self, Visitor};
use ruff_python_ast::{self as ast, Expr, PySourceType, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use crate::source::LineIndex;
use crate::ts;
use crate::{
    Import, LanguageParser, ParseError, ParsedFile, RefKind, Reference, Symbol, SymbolKind,
    SyntaxError, TypeFact, TypeSource,
};

use crate::modules::{ModuleFamily, ModuleRules};

/// The Python language.
#[derive(Debug, Clone, Copy, Default)]
pub struct Python;

/// Python's name, as the parser gives it.
pub(crate) const MODULES_LANGUAGE: &str = "python";
pub(crate) const EXTENSIONS: &[&str] = &["py", "pyi", "pyx"];
/// Dotted modules, relative imports by level; no common names (Python's by-name rules are
/// checked against `ast`).
pub(crate) const MODULES: ModuleRules = ModuleRules::of(ModuleFamily::Python);

impl LanguageParser for Python {
    fn name(&self) -> &'static str {
        MODULES_LANGUAGE
    }

    fn extensions(&self) -> &'static [&'static str] {
        EXTENSIONS
    }

    fn skeleton_form(&self) -> crate::SkeletonForm {
        crate::SkeletonForm::Indented
    }

    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        parse(text, Wanted::Everything)
    }

    /// Symbols only: the walk leaves expressions alone, so no references nor imports are made.
    fn parse_symbols_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        parse(text, Wanted::Symbols)
    }
}

/// What a parse extracts: everything, or only what a listing of symbols shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Everything,
    Symbols,
}

fn parse(text: &str, wanted: Wanted) -> Result<ParsedFile, ParseError> {
    if u32::try_from(text.len()).is_err() {
        // Ruff's offsets are 32-bit.
        return Err(ParseError::TooLarge {
            path: "<text>".into(),
            size: text.len() as u64,
            limit: u64::from(u32::MAX),
        });
    }
    // The parser itself grows its stack as it nests; walking the tree and dropping it
    // recurse too, so both run on a stack sized for the deepest nesting the tokens allow.
    let parsed = ruff_python_parser::parse_unchecked_source(text, PySourceType::Python);
    let need = depth_bound(parsed.tokens()).saturating_mul(BYTES_PER_LEVEL) + STACK_SLACK;
    let work = move || {
        let file = extract(&parsed, text, wanted);
        drop(parsed);
        file
    };
    if stacker::remaining_stack().is_some_and(|left| left > need) {
        Ok(work())
    } else {
        Ok(stacker::grow(need, work))
    }
}

/// Stack bytes per level of syntax nesting for the extractor's walk and the tree's drop
/// (measured: about 60 for the drop; the walk's frames are larger, and far larger unoptimised).
const BYTES_PER_LEVEL: usize = if cfg!(debug_assertions) { 8192 } else { 512 };
const STACK_SLACK: usize = 256 * 1024;

/// An upper bound on the depth of the syntax tree: every level of expression nesting owns at
/// least one token of its logical line that is not a leaf (a literal) nor a comma (which
/// separates siblings), and every level of statement nesting one indent. Leaving leaves and
/// commas out keeps the bound small for huge flat data literals.
fn depth_bound(tokens: &Tokens) -> usize {
    let (mut indent, mut in_line, mut deepest) = (0usize, 0usize, 0usize);
    for token in tokens.iter() {
        match token.kind() {
            TokenKind::Indent => indent += 1,
            TokenKind::Dedent => indent = indent.saturating_sub(1),
            TokenKind::Newline => in_line = 0,
            TokenKind::NonLogicalNewline
            | TokenKind::Comment
            | TokenKind::Int
            | TokenKind::Float
            | TokenKind::Complex
            | TokenKind::String
            | TokenKind::FStringMiddle
            | TokenKind::TStringMiddle
            | TokenKind::Comma => {}
            _ => {
                in_line += 1;
                deepest = deepest.max(indent + in_line);
            }
        }
    }
    deepest + 16
}

fn extract(
    parsed: &ruff_python_parser::Parsed<ast::ModModule>,
    text: &str,
    wanted: Wanted,
) -> ParsedFile {
    let lines = LineIndex::new(text);
    let module = parsed.syntax();
    let mut extractor = Extractor {
        src: text,
        lines: &lines,
        tokens: parsed.tokens(),
        symbols: Vec::new(),
        imports: Vec::new(),
        references: Vec::new(),
        type_facts: Vec::new(),
        scopes: Vec::new(),
        references_and_imports: wanted == Wanted::Everything,
    };
    extractor.visit_body(&module.body);
    let type_facts = known_type_facts(std::mem::take(&mut extractor.type_facts));
    let description = extractor.docstring(&module.body).map(|(doc, _)| doc);
    ParsedFile {
        language: "python",
        symbols: extractor.symbols,
        imports: extractor.imports,
        references: extractor.references,
        type_facts,
        description,
        line_count: count_lines(text),
        syntax_error: parsed
            .errors()
            .iter()
            .min_by_key(|e| e.location.start())
            .map(|e| SyntaxError {
                // An error at the end of the input (an unclosed bracket) is on the last line.
                line: lines
                    .line(e.location.start().to_usize())
                    .min(count_lines(text).max(1)),
                message: e.error.to_string(),
            }),
        lossy_utf8: false,
    }
}

pub(crate) fn count_lines(text: &str) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let unterminated = !text.is_empty() && !text.ends_with('\n');
    (newlines + usize::from(unterminated)) as u32
}

/// An enclosing definition: its index in `symbols` and whether it is a class.
struct Scope {
    symbol: usize,
    is_class: bool,
}

/// A [`TypeFact`] while the file is walked.
struct PendingFact<'s> {
    target: Cow<'s, str>,
    source: TypeSource,
    scope: Option<usize>,
    line: u32,
}

struct Extractor<'s> {
    src: &'s str,
    lines: &'s LineIndex,
    tokens: &'s Tokens,
    symbols: Vec<Symbol>,
    imports: Vec<Import>,
    references: Vec<Reference>,
    /// Every fact met, its target borrowed from the tree where it can be: most say "unknown"
    /// and are dropped ([`known_type_facts`]), so they are not copied out first.
    type_facts: Vec<PendingFact<'s>>,
    scopes: Vec<Scope>,
    /// Whether references and imports are recorded (not for a listing of symbols, which
    /// then never walks into an expression).
    references_and_imports: bool,
}

/// What a `def` and a `class` statement have in common.
struct Definition<'a> {
    range: TextRange,
    name: &'a ast::Identifier,
    decorators: &'a [ast::Decorator],
    /// Base classes (positional class arguments); empty for a `def`.
    bases: &'a [Expr],
    /// A `def`'s return annotation.
    returns: Option<&'a Expr>,
    body: &'a [Stmt],
    is_class: bool,
}

impl<'a> Visitor<'a> for Extractor<'a> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(def) => {
                let entered = self.definition(&Definition {
                    range: def.range,
                    name: &def.name,
                    decorators: &def.decorator_list,
                    bases: &[],
                    returns: def.returns.as_deref(),
                    body: &def.body,
                    is_class: false,
                });
                if self.references_and_imports {
                    if entered {
                        self.parameter_facts(&def.parameters);
                    }
                    if let Some(type_params) = &def.type_params {
                        self.visit_type_params(type_params);
                    }
                    self.visit_parameters(&def.parameters);
                    if let Some(returns) = &def.returns {
                        self.visit_annotation(returns);
                    }
                }
                self.visit_body(&def.body);
                self.leave(entered);
            }
            Stmt::ClassDef(class) => {
                let entered = self.definition(&Definition {
                    range: class.range,
                    name: &class.name,
                    decorators: &class.decorator_list,
                    bases: class.arguments.as_ref().map_or(&[], |a| &a.args),
                    returns: None,
                    body: &class.body,
                    is_class: true,
                });
                if self.references_and_imports {
                    if let Some(type_params) = &class.type_params {
                        self.visit_type_params(type_params);
                    }
                    if let Some(arguments) = &class.arguments {
                        for keyword in &arguments.keywords {
                            self.visit_keyword(keyword);
                        }
                    }
                }
                self.visit_body(&class.body);
                self.leave(entered);
            }
            Stmt::Import(import) if self.references_and_imports => self.import(import),
            Stmt::ImportFrom(import) if self.references_and_imports => self.import_from(import),
            Stmt::Assign(assign) if self.references_and_imports => {
                let source = match assign.value.as_ref() {
                    Expr::Call(call) => dotted(&call.func).map(TypeSource::Call),
                    Expr::Name(name) => Some(TypeSource::Same(name.id.as_str().to_owned())),
                    _ => None,
                };
                for target in &assign.targets {
                    self.type_fact(target, source.clone());
                }
                visitor::walk_stmt(self, stmt);
            }
            Stmt::For(for_loop) if self.references_and_imports => {
                self.type_fact(&for_loop.target, None);
                visitor::walk_stmt(self, stmt);
            }
            Stmt::AnnAssign(assign) if self.references_and_imports => {
                let source = annotated_class(&assign.annotation).map(TypeSource::Annotation);
                self.type_fact(&assign.target, source);
                visitor::walk_stmt(self, stmt);
            }
            Stmt::With(with) if self.references_and_imports => {
                for item in &with.items {
                    if let Some(target) = item.optional_vars.as_deref() {
                        let source = match &item.context_expr {
                            Expr::Call(call) => dotted(&call.func).map(TypeSource::Call),
                            _ => None,
                        };
                        self.type_fact(target, source);
                    }
                }
                visitor::walk_stmt(self, stmt);
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        if !self.references_and_imports {
            // No definition is inside an expression (a lambda is no symbol).
            return;
        }
        match expr {
            Expr::Call(call) => {
                self.callee(&call.func, RefKind::Call);
                self.visit_arguments(&call.arguments);
            }
            Expr::Attribute(attribute) => {
                self.attribute_ref(attribute, RefKind::Attribute);
                self.visit_expr(&attribute.value);
            }
            _ => visitor::walk_expr(self, expr),
        }
    }
}

impl<'a> Extractor<'a> {
    /// The line of an offset; the end of the text counts as its last line (recovered nodes of
    /// broken code can sit there).
    fn line(&self, offset: TextSize) -> u32 {
        let last = self.src.len().saturating_sub(1);
        self.lines.line(offset.to_usize().min(last))
    }

    /// The line of a range's last byte (its first when it is empty).
    fn end_line(&self, range: TextRange) -> u32 {
        let end = range.end().to_usize().saturating_sub(1);
        self.line(TextSize::new(end.max(range.start().to_usize()) as u32))
    }

    fn text(&self, range: TextRange) -> &'a str {
        self.src
            .get(range.start().to_usize()..range.end().to_usize())
            .unwrap_or("")
    }

    fn scope(&self) -> Option<usize> {
        self.scopes.last().map(|s| s.symbol)
    }

    /// Tokens from `offset` on (the token holding it included).
    fn tokens_from(&self, offset: TextSize) -> &'a [Token] {
        let tokens: &'a [Token] = self.tokens;
        let first = tokens.partition_point(|t| t.end() <= offset);
        &tokens[first..]
    }

    /// Records a `def`/`class` (its decorators and bases are references in the enclosing scope) and
    /// enters its scope; the caller walks the rest and calls [`Self::leave`] with the result.
    /// Broken code can leave a definition without a name: then there is no symbol, and its body
    /// stays in the enclosing scope (`false`).
    fn definition(&mut self, def: &Definition<'a>) -> bool {
        let mut decorators = Vec::with_capacity(def.decorators.len());
        for decorator in def.decorators {
            decorators.push(ts::one_line(self.text(decorator.expression.range()), 200));
            if self.references_and_imports {
                self.callee(&decorator.expression, RefKind::Decorator);
            }
        }
        if self.references_and_imports {
            for base in def.bases {
                self.callee(base, RefKind::Inherit);
            }
        }
        if def.name.as_str().is_empty() {
            return false;
        }
        // The keyword (`def`, `async`, `class`) follows the last decorator.
        let after_decorators = def
            .decorators
            .last()
            .map_or(def.range.start(), |d| d.range.end());
        let keyword = self
            .tokens_from(after_decorators)
            .iter()
            .take_while(|t| t.start() < def.name.range.start())
            .find(|t| {
                matches!(
                    t.kind(),
                    TokenKind::Def | TokenKind::Async | TokenKind::Class
                )
            })
            .map_or(after_decorators, |t| t.start());
        let body_start = def.body.first().map(|s| s.start());
        // The header ends at the last `:` before the body.
        let colon = body_start.and_then(|body| {
            self.tokens_from(def.name.range.end())
                .iter()
                .take_while(|t| t.start() < body)
                .filter(|t| t.kind() == TokenKind::Colon)
                .last()
                .map(|t| t.start())
        });
        let header_end = colon.or(body_start).unwrap_or(def.range.end());
        let header = self.text(TextRange::new(keyword, header_end.max(keyword)));

        let name = def.name.as_str().to_owned();
        let parent = self.scopes.last();
        let kind = if def.is_class {
            SymbolKind::Class
        } else if parent.is_some_and(|p| p.is_class) {
            SymbolKind::Method
        } else {
            SymbolKind::Function
        };
        let parent = parent.map(|p| p.symbol);
        let qualname = match parent.and_then(|p| self.symbols.get(p)) {
            Some(p) => joined(&p.qualname, &name),
            None => name.clone(),
        };
        let (docstring, docstring_lines) = match self.docstring(def.body) {
            Some((doc, lines)) => (Some(doc), Some(lines)),
            None => (None, None),
        };
        let start_byte = def.decorators.first().map_or(keyword, |d| d.range.start());
        self.symbols.push(Symbol {
            kind,
            name,
            qualname,
            signature: tidy_signature(header),
            docstring,
            start_line: self.line(keyword),
            end_line: self.end_line(TextRange::new(keyword, def.range.end().max(keyword))),
            decorated_line: self.line(start_byte),
            header_end_line: self.line(colon.unwrap_or(keyword)),
            docstring_lines,
            decorators,
            parent,
            start_byte: start_byte.to_usize(),
            end_byte: def.range.end().to_usize(),
            body_start: body_start.map(|b| b.to_usize()),
            returns: def.returns.and_then(annotated_class),
        });
        self.scopes.push(Scope {
            symbol: self.symbols.len() - 1,
            is_class: def.is_class,
        });
        true
    }

    /// A function's annotated parameters (not `self`/`cls`), as facts of its scope.
    fn parameter_facts(&mut self, parameters: &'a ast::Parameters) {
        let scope = self.scope();
        let named = parameters
            .posonlyargs
            .iter()
            .chain(&parameters.args)
            .chain(&parameters.kwonlyargs)
            .map(|p| &p.parameter);
        for parameter in named {
            let name = parameter.name.as_str();
            if matches!(name, "self" | "cls") {
                continue;
            }
            if let Some(class) = parameter.annotation.as_deref().and_then(annotated_class) {
                self.type_facts.push(PendingFact {
                    target: Cow::Borrowed(name),
                    source: TypeSource::Annotation(class),
                    scope,
                    line: self.line(parameter.range.start()),
                });
            }
        }
    }

    /// A fact that `target` holds what `source` says (`None`: something no fact describes),
    /// when the target is a variable or an attribute of `self`; a plain name at class level is
    /// an attribute of the instance; each name of a tuple target holds something unknown.
    fn type_fact(&mut self, target_expr: &'a Expr, source: Option<TypeSource>) {
        if let Expr::Tuple(tuple) = target_expr {
            for element in &tuple.elts {
                self.type_fact(element, None);
            }
            return;
        }
        let source = source.unwrap_or(TypeSource::Unknown);
        let in_class = self.scopes.last().is_some_and(|s| s.is_class);
        let target = match target_expr {
            Expr::Name(name) if in_class => Cow::Owned(joined("self", name.id.as_str())),
            Expr::Name(name) => Cow::Borrowed(name.id.as_str()),
            Expr::Attribute(attribute) if matches!(attribute.value.as_ref(), Expr::Name(n) if n.id.as_str() == "self") => {
                Cow::Owned(joined("self", attribute.attr.as_str()))
            }
            _ => return,
        };
        self.type_facts.push(PendingFact {
            target,
            source,
            scope: self.scope(),
            line: self.line(target_expr.range().start()),
        });
    }

    fn leave(&mut self, entered: bool) {
        if entered {
            self.scopes.pop();
        }
    }

    /// A called, decorating or inherited expression: a bare name or `obj.name` is a reference
    /// of `kind` (and the attribute is not also an attribute use); anything else is walked.
    fn callee(&mut self, expr: &'a Expr, kind: RefKind) {
        match expr {
            Expr::Name(name) => self.name_ref(name, kind),
            Expr::Attribute(attribute) => {
                self.attribute_ref(attribute, kind);
                self.visit_expr(&attribute.value);
            }
            // `class C(Base[T])` (a generic base): the base class is `Base`; the subscript is
            // read as any other expression.
            Expr::Subscript(subscript) if kind == RefKind::Inherit => {
                self.callee(&subscript.value, kind);
                self.visit_expr(&subscript.slice);
            }
            other => self.visit_expr(other),
        }
    }

    fn name_ref(&mut self, name: &ast::ExprName, kind: RefKind) {
        self.references.push(Reference {
            kind,
            name: name.id.as_str().to_owned(),
            receiver: None,
            line: self.line(name.range.start()),
            scope: self.scope(),
        });
    }

    fn attribute_ref(&mut self, attribute: &ast::ExprAttribute, kind: RefKind) {
        let receiver = self.text(attribute.value.range());
        let receiver = if receiver.len() <= 80 && !receiver.contains(char::is_whitespace) {
            receiver.to_owned()
        } else {
            ts::one_line(receiver, 80)
        };
        self.references.push(Reference {
            kind,
            name: attribute.attr.as_str().to_owned(),
            receiver: Some(receiver),
            line: self.line(attribute.attr.range.start()),
            scope: self.scope(),
        });
    }

    fn import(&mut self, import: &ast::StmtImport) {
        let line = self.line(import.range.start());
        for alias in &import.names {
            self.imports.push(Import {
                module: alias.name.as_str().to_owned(),
                name: None,
                alias: alias.asname.as_ref().map(|a| a.as_str().to_owned()),
                level: 0,
                line,
                scope: self.scope(),
            });
        }
    }

    fn import_from(&mut self, import: &ast::StmtImportFrom) {
        let line = self.line(import.range.start());
        let module = import
            .module
            .as_ref()
            .map_or_else(String::new, |m| m.as_str().to_owned());
        for alias in &import.names {
            self.imports.push(Import {
                module: module.clone(),
                name: Some(alias.name.as_str().to_owned()),
                alias: alias.asname.as_ref().map(|a| a.as_str().to_owned()),
                level: import.level,
                line,
                scope: self.scope(),
            });
        }
        if import.names.is_empty() {
            // Broken code (`from x import` and nothing): the module is still a dependency.
            self.imports.push(Import {
                module,
                name: None,
                alias: None,
                level: import.level,
                line,
                scope: self.scope(),
            });
        }
    }

    /// The docstring of a module or a body: its first statement, when that is a plain string
    /// (not an f-string or bytes), cleaned like `inspect.cleandoc`. Returns the text and lines.
    fn docstring(&self, body: &[Stmt]) -> Option<(String, (u32, u32))> {
        let Some(Stmt::Expr(statement)) = body.first() else {
            return None;
        };
        let Expr::StringLiteral(string) = &*statement.value else {
            return None;
        };
        let lines = (self.line(string.start()), self.end_line(string.range));
        Some((cleandoc(string.value.to_str()), lines))
    }
}

/// `def f(\n    a,\n    b,\n) -> int` → `def f(a, b) -> int`; comments are dropped.
/// The facts resolution can use: every fact about a target of which some fact says something
/// (an unknown one after a known one ends what the known one says), and those about `cls`
/// (a `cls` that is assigned is not the class a classmethod is given). Facts that only say
/// "unknown" about a target are dropped: most assignments are of that kind.
fn known_type_facts(facts: Vec<PendingFact<'_>>) -> Vec<TypeFact> {
    // Fx, not SipHash: hashing these keys was most of the set's cost, about 1 % of a cold
    // build's CPU, and they are the file's own names.
    let known: rustc_hash::FxHashSet<(Option<usize>, &str)> = facts
        .iter()
        .filter(|f| f.source != TypeSource::Unknown || f.target == "cls")
        .map(|f| (f.scope, &*f.target))
        .collect();
    let keep: Vec<bool> = facts
        .iter()
        .map(|f| known.contains(&(f.scope, &*f.target)))
        .collect();
    facts
        .into_iter()
        .zip(keep)
        .filter_map(|(f, keep)| {
            keep.then(|| TypeFact {
                target: f.target.into_owned(),
                source: f.source,
                scope: f.scope,
                line: f.line,
            })
        })
        .collect()
}

/// `a.b`, allocated once at its length (`format!` goes through the formatting machinery, and
/// this runs for every definition and many assignments).
fn joined(a: &str, b: &str) -> String {
    let mut out = String::with_capacity(a.len() + 1 + b.len());
    out.push_str(a);
    out.push('.');
    out.push_str(b);
    out
}

/// A name or a dotted name (`Client`, `httpx.Client`), as written.
fn dotted(expr: &Expr) -> Option<String> {
    // Measured first, then written into one allocation of that length.
    let mut out = String::with_capacity(dotted_len(expr)?);
    push_dotted(expr, &mut out);
    Some(out)
}

/// The length of [`dotted`]'s name, `None` when `expr` is not a dotted name.
fn dotted_len(expr: &Expr) -> Option<usize> {
    match expr {
        Expr::Name(name) => Some(name.id.len()),
        Expr::Attribute(attribute) => {
            Some(dotted_len(&attribute.value)? + 1 + attribute.attr.len())
        }
        _ => None,
    }
}

fn push_dotted(expr: &Expr, out: &mut String) {
    match expr {
        Expr::Name(name) => out.push_str(name.id.as_str()),
        Expr::Attribute(attribute) => {
            push_dotted(&attribute.value, out);
            out.push('.');
            out.push_str(attribute.attr.as_str());
        }
        _ => {}
    }
}

/// The one class an annotation names: `Client`, `mod.Client`, `"Client"`, `Optional[Client]`,
/// `Client | None`, and a generic class's own name (`Option[T]` is `Option`, so `list[Client]`
/// is `list`, which names no class of a tree). `None` for a union of two classes or anything
/// else.
fn annotated_class(annotation: &Expr) -> Option<String> {
    match annotation {
        Expr::Name(_) | Expr::Attribute(_) => dotted(annotation),
        Expr::StringLiteral(literal) => {
            let text = literal.value.to_str().trim();
            let plain = !text.is_empty()
                && text
                    .split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
            plain.then(|| text.to_owned())
        }
        Expr::Subscript(subscript) => {
            let outer = dotted(&subscript.value)?;
            if outer == "Optional" || outer.ends_with(".Optional") {
                annotated_class(&subscript.slice)
            } else {
                Some(outer)
            }
        }
        Expr::BinOp(union) if union.op == ast::Operator::BitOr => {
            match (union.left.as_ref(), union.right.as_ref()) {
                (Expr::NoneLiteral(_), other) | (other, Expr::NoneLiteral(_)) => {
                    annotated_class(other)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

fn tidy_signature(header: &str) -> String {
    let mut line = ts::one_line(&without_comments(header), 400);
    // In this order (`f(a, )` → `f(a,)` → `f(a)`); most signatures hold none of them, and are
    // not copied.
    for (from, to) in [
        ("( ", "("),
        (" )", ")"),
        (",)", ")"),
        ("[ ", "["),
        (" ]", "]"),
    ] {
        if line.contains(from) {
            line = line.replace(from, to);
        }
    }
    line
}

/// The text with its `#` comments removed (up to each line's end), strings left alone: a
/// signature written over several lines keeps `a,  # the first` comments out of the one-line
/// form (where they would swallow the rest of it).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // The open string's quote and whether it is triple-quoted.
    let mut quote: Option<(char, bool)> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some((q, triple)) => {
                out.push(c);
                if c == '\\' {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                } else if c == q {
                    if !triple {
                        quote = None;
                    } else if chars.peek() == Some(&q) {
                        out.push(q);
                        chars.next();
                        if chars.peek() == Some(&q) {
                            out.push(q);
                            chars.next();
                            quote = None;
                        }
                    }
                }
            }
            None if c == '#' => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            None => {
                out.push(c);
                if c == '"' || c == '\'' {
                    let triple = chars.peek() == Some(&c) && {
                        let mut ahead = chars.clone();
                        ahead.next();
                        ahead.peek() == Some(&c)
                    };
                    if triple {
                        out.push(c);
                        out.push(c);
                        chars.next();
                        chars.next();
                    }
                    quote = Some((c, triple));
                }
            }
        }
    }
    out
}

/// `inspect.cleandoc`: strip the first line, dedent the rest uniformly, drop blank edges.
pub(crate) fn cleandoc(doc: &str) -> String {
    // Every definition's docstring comes through here: its lines are borrowed, and only the
    // result is allocated.
    let expanded = if doc.contains('\t') {
        Cow::Owned(doc.replace('\t', "        "))
    } else {
        Cow::Borrowed(doc)
    };
    let mut lines = expanded.lines();
    let first = lines.next().unwrap_or("").trim_start();
    let rest: Vec<&str> = lines.collect();
    let margin = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<&str> = std::iter::once(first)
        .chain(
            rest.iter()
                .map(|l| l.get(margin..).unwrap_or("").trim_end()),
        )
        .collect();
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let start = out
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(out.len());
    out[start..].join("\n")
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

    /// Issue 17, item 14: `def f(a,  # why` kept the comment in the one-line signature,
    /// where it swallowed the rest (`def f(a, # why b)`).
    #[test]
    fn regression_comments_are_dropped_from_signatures() {
        let f = parse(
            "def f(a,  # the first\n      ## HACK: keep b\n      b='#x',  # default\n      c=\"\"\"#\"\"\",\n      ) -> int:  # returns\n    return a\n\n\nclass K(Base,  # why\n        Mixin):\n    pass\n",
        );
        assert_eq!(
            f.symbols[0].signature,
            "def f(a, b='#x', c=\"\"\"#\"\"\") -> int"
        );
        assert_eq!(f.symbols[1].signature, "class K(Base, Mixin)");
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
    fn type_facts_come_from_annotations_constructors_and_self_attributes() {
        let src = "\
import httpx

x = Registry()

@dataclass
class Config:
    plugins: PluginCollection
    name: str = 'a'

    def __init__(self, client: 'httpx.Client', hooks: Optional[Hooks] = None, n: int | None = None, ids: list[Id] = ()):
        self.client = client
        self.cache = Cache(size=3)
        self.ready: Event
        other = self
        with open_store() as store:
            pass

def f(a: A | B, b: None | Bar):
    c = b
    c = b.items[0]
    for b in range(3):
        d, e = b, b
    z = [1]
";
        let file = parse(src);
        let facts: Vec<(&str, String, Option<&str>)> = file
            .type_facts
            .iter()
            .map(|f| {
                let source = match &f.source {
                    TypeSource::Annotation(t) => format!("annotation {t}"),
                    TypeSource::Call(t) => format!("call {t}"),
                    TypeSource::Same(t) => format!("same {t}"),
                    TypeSource::Unknown => "unknown".to_owned(),
                };
                let scope = f.scope.map(|s| file.symbols[s].qualname.as_str());
                (f.target.as_str(), source, scope)
            })
            .collect();
        let init = Some("Config.__init__");
        assert_eq!(
            facts,
            [
                ("x", "call Registry".to_owned(), None),
                (
                    "self.plugins",
                    "annotation PluginCollection".to_owned(),
                    Some("Config")
                ),
                ("self.name", "annotation str".to_owned(), Some("Config")),
                ("client", "annotation httpx.Client".to_owned(), init),
                ("hooks", "annotation Hooks".to_owned(), init),
                ("n", "annotation int".to_owned(), init),
                // A generic's own class: `list` names no class of a tree.
                ("ids", "annotation list".to_owned(), init),
                ("self.client", "same client".to_owned(), init),
                ("self.cache", "call Cache".to_owned(), init),
                ("self.ready", "annotation Event".to_owned(), init),
                ("other", "same self".to_owned(), init),
                ("store", "call open_store".to_owned(), init),
                ("b", "annotation Bar".to_owned(), Some("f")),
                ("c", "same b".to_owned(), Some("f")),
                // What later assignments and loops say ends what the facts above say; a
                // name nothing typed is ever said of (`d`, `e`, `z`) has no facts.
                ("c", "unknown".to_owned(), Some("f")),
                ("b", "unknown".to_owned(), Some("f")),
            ]
        );
        // A listing of symbols records none.
        let symbols_only = Python.parse_symbols_text(src).unwrap();
        assert!(symbols_only.type_facts.is_empty());
        // A function's return annotation is its symbol's.
        let file = parse(
            "def a() -> Optional['mod.Client']:\n    pass\n\ndef b() -> int | str:\n    pass\n",
        );
        let returns: Vec<Option<&str>> =
            file.symbols.iter().map(|s| s.returns.as_deref()).collect();
        assert_eq!(returns, [Some("mod.Client"), None]);
    }

    #[test]
    fn a_generic_base_is_its_class() {
        let file = parse("class C(Generic[T], base.Option[List[T]]):\n    pass\n");
        let inherits: Vec<_> = file
            .references
            .iter()
            .filter(|r| r.kind == RefKind::Inherit)
            .map(|r| (r.name.as_str(), r.receiver.as_deref()))
            .collect();
        assert_eq!(inherits, [("Generic", None), ("Option", Some("base"))]);
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
        assert!(file.has_syntax_errors());
        assert!(file.symbols.iter().any(|s| s.name == "ok"));
    }

    #[test]
    fn regression_the_first_syntax_error_has_its_line_and_message() {
        let file = parse("def ok():\n    pass\n\ndef broken(:\n    return 2\n\nx = (\n");
        let error = file.syntax_error.expect("a syntax error");
        assert_eq!(error.line, 4, "{error}");
        assert!(!error.message.is_empty());
        assert_eq!(parse("x = 1\n").syntax_error, None);
        let unclosed = parse("def f(a, b):\n    return (a + b\n")
            .syntax_error
            .unwrap();
        assert_eq!(unclosed.line, 2, "{unclosed}");
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
