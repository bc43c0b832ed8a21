//! Relevance search: which files and symbols a task or a question is about.
//!
//! Everything starts from the full-text index built with the code index (SQLite FTS5; see
//! [`crate::text`] for the terms and [`crate::store`] for the tables), then adds what only CAST
//! knows. For a query:
//!
//! 1. **Terms.** The query's terms ([`cast_index::text::terms`]); of a long query (a commit message,
//!    an issue) only the [`MAX_TERMS`] rarest terms that occur in the index are kept — common
//!    terms add little to BM25 and cost the most to score.
//! 2. **Text (BM25F).** FTS5's `bm25()` over the file table (path ×[`W_FILE_PATH`], module
//!    docstring ×[`W_FILE_DOC`], body ×[`W_FILE_BODY`]) and over the symbol table (name
//!    ×[`W_SYM_NAME`], context ×[`W_SYM_CONTEXT`], signature ×[`W_SYM_SIGNATURE`], docstring
//!    ×[`W_SYM_DOC`]). A symbol's body is not stored — the words of a body count for its file —
//!    but the symbols of the candidate files are scored with their bodies (×[`W_SYM_BODY`]) at
//!    query time, [`crate::bodies`]: storing every body cost a third of the text index's build
//!    and most of a query's time on a large tree. Each list is divided by its best score, so
//!    each component is 0 to 1 within the query.
//! 3. **Exact identifiers.** Words of the query written as identifiers — `Session.send`,
//!    `parse_header`, `CliRunner`, `` `edit` ``, `name()`, `client.py` — are looked up as symbol
//!    names and file names. A symbol named so gives its file 1/k (k symbols of that name; a
//!    dotted name must also match the qualified name's tail); a file named so gives 1.
//! 4. **Graph.** Personalised PageRank ([`cast_index::graph::rank::personalized_page_rank`]) over the file
//!    graph (imports and resolved references between files), seeded by the best files by
//!    text, identifiers and history (step 6): the files that the hits import or call get
//!    credit. A file reached only through the graph (no word of the query in its text or path,
//!    no identifier, no past commit) is listed after every file with evidence of its own.
//! 5. **Path.** The IDF-weighted share of the query's terms in the file's path, divided by the
//!    query's best (BM25F dilutes a path match by the body's length).
//! 6. **History.** In a git repository, the [`HISTORY_COMMITS`] past commits whose messages
//!    best match the query (BM25 over the stored messages, [`crate::history`]) give the files
//!    they changed their score (summed per file): a task reads like a commit message, and what
//!    a similar change touched is likely to be touched again.
//! 7. **Priors.** The file's PageRank (log scale, 0 to 1); tests ×[`TEST_FACTOR`], stubs
//!    (`.pyi`, `.d.ts`) ×[`STUB_FACTOR`], examples, docs and packaging scripts
//!    ×[`EXAMPLE_FACTOR`], installed third-party code ×[`INSTALLED_FACTOR`] unless the query
//!    names its package; when the query speaks of them, stubs ×1 and tests, examples and docs
//!    ×[`ASKED_FACTOR`] (a task about a test mostly changes the code under test too); tests are
//!    recognised by each language's conventions (`test_x.py`, `x_test.go`, `x.test.ts`,
//!    `XTest.java`, `tests/`, `runtime-tests/`), and a symbol in a `tests` scope (Rust's `mod
//!    tests` beside the code) or with a test's decorator (`#[test]`, `@Test`) counts as a test.
//!    Among symbols (not files), an error type (`BadOptionError`, `HTTPException`) is
//!    ×[`ERROR_TYPE_FACTOR`] unless the query speaks of errors, exceptions, raising or failing.
//! 8. **Churn.** In a git repository, how often the file changed in the newest commits,
//!    each commit weighing half per [`CHURN_HALF_LIFE`] commits of age (log scale, 0 to 1):
//!    a prior, like the rank, added to files that other evidence found.
//! 9. **Cover.** The IDF-weighted share of the query's terms a text-matched file holds
//!    anywhere, each term once whatever the file's length (one FTS5 match per term, at most
//!    [`MAX_TERMS`]), divided by the query's best: BM25F saturates each term and divides by
//!    the length, so a file that repeats one word can outscore the one holding most of the task.
//!
//! File score = `W_TEXT·text + W_PATH·path + W_SYMBOLS·symbols + W_IDENT·ident +
//! W_GRAPH·graph + W_RANK·rank + W_HISTORY·history + W_CHURN·churn + W_COVER·cover`,
//! times the priors' factors, where `symbols` is the file's best symbol score plus a little for
//! each further hit symbol. Symbol score = `0.70·text + 0.30·exact name + 0.15·file text +
//! 0.10·rank`, with the same factors and ×0.95 for private names. `--json` shows each component.
//! The weights were set on the development repositories of `bench/localise.py` only.

use std::collections::HashMap;

use cast_parser::SymbolKind;
use cast_parser::roles::{FileRoles, installed_package};
use cast_workspace::Scope;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use cast_index::rows::{FileRow, SymbolNaming, SymbolRow};
use cast_index::{RankedTable, Ranks, Snapshot, StoredFileGraph, TermTable};

use crate::reader::Reader;
use crate::{AnalyzerError, Result};

/// Query terms kept of a long query (the rarest in the index).
pub const MAX_TERMS: usize = 40;
/// BM25F column weights of the file table.
pub const W_FILE_PATH: f64 = 4.0;
pub const W_FILE_DOC: f64 = 2.0;
pub const W_FILE_BODY: f64 = 1.0;
/// BM25F column weights of the symbol table.
pub const W_SYM_NAME: f64 = 6.0;
pub const W_SYM_CONTEXT: f64 = 1.5;
pub const W_SYM_SIGNATURE: f64 = 1.5;
pub const W_SYM_DOC: f64 = 2.0;
/// BM25F weight of a symbol's body (its own lines), in the second stage only.
pub const W_SYM_BODY: f64 = 1.0;
/// Files whose symbols are scored with their bodies (second stage): the best files so far…
pub const CANDIDATE_FILES: usize = 20;
/// …and the files of the best stored symbol matches.
pub const CANDIDATE_SYMBOLS: usize = 20;
/// The blend of a file's score.
pub const W_TEXT: f64 = 0.45;
pub const W_PATH: f64 = 0.30;
pub const W_SYMBOLS: f64 = 0.35;
pub const W_IDENT: f64 = 0.50;
pub const W_GRAPH: f64 = 0.20;
pub const W_RANK: f64 = 0.30;
pub const W_HISTORY: f64 = 0.30;
/// Past commits whose files get credit ([`crate::history`]).
pub const HISTORY_COMMITS: usize = 10;
/// How often a file changed lately, whatever the query (see [`Scores::churn`]).
pub const W_CHURN: f64 = 0.15;
/// Weight of [`Scores::cover`].
pub const W_COVER: f64 = 0.10;
/// A commit this many commits older than `HEAD` counts half in [`Scores::churn`].
pub const CHURN_HALF_LIFE: f64 = 50.0;
/// The newest commits read for [`Scores::churn`]: eight half-lives, older ones would weigh
/// under 0.4 % each.
const CHURN_COMMITS: usize = 400;
/// Factors for tests, stubs, and examples and docs, when the query is not about them.
pub const TEST_FACTOR: f64 = 0.3;
/// Tests, examples and docs when the query speaks of them: a task that adds a test or touches
/// the docs mostly changes the code they are about too, so the code keeps a little precedence.
pub const ASKED_FACTOR: f64 = 0.8;
pub const STUB_FACTOR: f64 = 0.6;
pub const EXAMPLE_FACTOR: f64 = 0.6;
/// Installed third-party code (under `site-packages/`, `dist-packages/`, `node_modules/`) when
/// the query names neither the package nor dependencies: like examples and stubs, code that is
/// not the project's own. The walk already leaves virtualenvs out; this is for a tree that
/// holds an installation anyway (a Python prefix, a vendored environment).
pub const INSTALLED_FACTOR: f64 = 0.6;
/// An error type (`BadOptionError`, `HTTPException`) among the symbols, when the query speaks
/// of no error: its docstring describes the operation it fails in ("Raised if an invalid
/// option is seen on the command line"), so it matches the words of a query about that
/// operation as well as the code that does it, and is rarely what such a query asks for.
pub const ERROR_TYPE_FACTOR: f64 = 0.7;
/// Rows read from each full-text table per query.
const TEXT_LIMIT: usize = 400;
/// Files that seed the personalised PageRank.
const SEEDS: usize = 8;

/// What a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    Symbol,
    File,
}

/// The components of a hit's score (each 0 to 1 unless said) and the total.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct Scores {
    /// BM25F of the hit's own full-text row, divided by the query's best.
    pub text: f64,
    /// Files: the IDF-weighted share of the query's terms found in the path, divided by the
    /// query's best (BM25F dilutes a path match with the body's length; this does not).
    pub path: f64,
    /// Files: the best symbol's text score plus a little per further hit symbol. Symbols: the
    /// text score of the symbol's file.
    pub symbols: f64,
    /// Exact identifiers of the query this hit defines or is named by (a sum, may pass 1).
    pub ident: f64,
    /// Personalised PageRank from the best hits, divided by the query's best.
    pub graph: f64,
    /// Global PageRank, log scale.
    pub rank: f64,
    /// Files: what the past commits whose messages best match the query changed — the BM25
    /// scores of the commits that changed the file, summed, divided by the query's best.
    pub history: f64,
    /// Files: how often the file changed lately, whatever the query — the commits that changed
    /// it, each weighing half per [`CHURN_HALF_LIFE`] commits of age, on a log scale (0 to 1).
    /// Code that changes often is what the next task most likely changes again.
    pub churn: f64,
    /// Files: the IDF-weighted share of the query's terms the file holds anywhere (path, docstring
    /// or body), divided by the query's best. BM25F saturates each term and divides by the
    /// file's length, so a short file that repeats one rare word can outscore the file that
    /// holds most of what a task describes; this counts each word once, whatever the length.
    pub cover: f64,
    /// The product of the priors (test, stub, private) applied to the blend.
    pub factor: f64,
    pub total: f64,
}

impl Scores {
    /// Whether a file has evidence of its own: its text, path, symbols, an identifier of the
    /// query, or past commits (the graph, rank and churn only add to such evidence).
    pub fn is_direct(&self) -> bool {
        self.text > 0.0
            || self.path > 0.0
            || self.symbols > 0.0
            || self.ident > 0.0
            || self.history > 0.0
    }
}

/// One search result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hit {
    pub kind: HitKind,
    pub path: String,
    pub line: u32,
    pub end_line: u32,
    pub symbol_kind: Option<SymbolKind>,
    pub qualname: Option<String>,
    /// Module path plus qualified name, e.g. `email.utils.parsedate_to_datetime`.
    pub full_name: Option<String>,
    pub signature: Option<String>,
    /// The docstring's (or the module description's) first line.
    pub doc: Option<String>,
    /// Files: the best matching symbols in it (`qualname:line`), at most three.
    pub matches: Vec<String>,
    /// Files: the subject of the best matching past commit that changed it, when the history
    /// counted in its score.
    pub past_commit: Option<String>,
    /// The blend (same as `scores.total`).
    pub score: f64,
    pub scores: Scores,
}

impl Hit {
    /// One line for a model: `path:line kind qualname  signature  — doc  [score]`, or for a
    /// file `path  — doc  (matches…)  past commit: "subject"  [score]`.
    pub fn render(&self) -> String {
        let mut s = match self.kind {
            HitKind::Symbol => format!(
                "{}:{} {} {}",
                self.path,
                self.line,
                self.symbol_kind.map_or("symbol", |k| k.as_str()),
                self.full_name.as_deref().unwrap_or("")
            ),
            HitKind::File => self.path.clone(),
        };
        if let Some(sig) = &self.signature {
            s.push_str("  ");
            s.push_str(sig);
        }
        if let Some(doc) = self.doc.as_deref().filter(|d| !d.is_empty()) {
            s.push_str("  — ");
            s.push_str(doc);
        }
        if !self.matches.is_empty() {
            s.push_str("  (");
            s.push_str(&self.matches.join(", "));
            s.push(')');
        }
        if let Some(subject) = &self.past_commit {
            s.push_str(&format!("  past commit: {subject:?}"));
        }
        s.push_str(&format!("  [{:.3}]", self.scores.total));
        s
    }
}

/// Symbols and files found for a query, best first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Found {
    pub symbols: Vec<Hit>,
    pub files: Vec<Hit>,
    /// What the search looked through.
    pub searched: Searched,
    /// The patterns the search was limited to (see [`Index::find_in`]); empty: the whole tree.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scope: Vec<String>,
}

/// How much of the code base a search looked through (of its scope, when it had one): what it
/// can say when nothing matched.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Searched {
    /// Indexed source files (parsed, not skipped).
    pub files: usize,
    pub symbols: usize,
}

impl Found {
    /// Whether nothing matched.
    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty() && self.files.is_empty()
    }

    /// Why nothing was found for `query`, in one sentence without advice (each front end adds
    /// its own: another command, another tool, and another root when [`Searched::files`] is 0);
    /// `None` when something was.
    pub fn nothing_found(&self, query: &str) -> Option<String> {
        if !self.is_empty() {
            return None;
        }
        let Searched { files, symbols } = self.searched;
        let scope = self.scope.join(", ");
        let under = if self.scope.is_empty() {
            String::new()
        } else {
            format!(" of the scope ({scope})")
        };
        Some(if files == 0 && !self.scope.is_empty() {
            format!("nothing can match {query:?}: no indexed source file is in the scope ({scope})")
        } else if files == 0 {
            let extensions = cast_parser::Registry::default()
                .extensions()
                .iter()
                .map(|e| format!(".{e}"))
                .collect::<Vec<_>>()
                .join(" ");
            format!(
                "nothing can match {query:?}: no source file is indexed here (cast reads {extensions} files)"
            )
        } else {
            format!(
                "nothing matches {query:?} in {files} {} and {symbols} {}{under}",
                plural(files, "file", "files"),
                plural(symbols, "symbol", "symbols")
            )
        })
    }
    /// Symbols first, then files, one line each.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for h in &self.symbols {
            out.push_str(&h.render());
            out.push('\n');
        }
        if !self.files.is_empty() {
            if !self.symbols.is_empty() {
                out.push_str("Files:\n");
            }
            for h in &self.files {
                if !self.symbols.is_empty() {
                    out.push_str("  ");
                }
                out.push_str(&h.render());
                out.push('\n');
            }
        }
        out
    }
}

pub(crate) fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// A search as data: what `cast find`'s flags ask, and what a `cast serve` is sent. Answered by
/// [`crate::Queries::search`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FindOptions {
    /// Words, an identifier, or a whole task.
    pub query: String,
    /// At most this many symbols (or files, with [`FindMode::Files`]); 0 reads as 1.
    pub top: usize,
    pub mode: FindMode,
    /// The files searched; the whole tree by default.
    pub scope: Scope,
}

/// What a search returns: files only, or symbols with a few files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FindMode {
    /// Symbols (at most `top`) and the best files (at most 5).
    Symbols,
    /// Files only (at most `top`).
    Files,
}

/// Whether a symbol is test code: in a test file (by its stored roles), in a `tests` scope of another file, or
/// marked as a test by a decorator (`decorators` as stored: one per line; see
/// [`is_test_decorator`]).
pub(crate) fn is_test_symbol(roles: FileRoles, qualname: &str, decorators: Option<&str>) -> bool {
    roles.test || in_test_scope(qualname) || marked_as_test(decorators)
}

/// Whether any of a symbol's stored decorators (one per line) marks it as a test.
fn marked_as_test(decorators: Option<&str>) -> bool {
    decorators.is_some_and(|d| d.lines().any(is_test_decorator))
}

/// Whether a decorator marks a test: Rust's `#[test]`, `#[tokio::test]`, `#[test_case(…)]`,
/// `#[rstest]` and `#[cfg(test)]`; Java's `@Test`, `@ParameterizedTest`, `@RepeatedTest`;
/// Python's `@pytest.mark.…` (Python's tests are otherwise known by their files; a
/// `@pytest.fixture` or `@pytest.hookimpl` outside them is a plugin's own code). Rust writes unit
/// tests beside the code, often outside a `mod tests` (ripgrep's flags keep a `#[test] fn
/// test_max_depth()` next to each flag), where only the attribute says what they are.
fn is_test_decorator(decorator: &str) -> bool {
    let d = decorator.trim();
    let d = d
        .strip_prefix("#[")
        .map_or(d, |d| d.strip_suffix(']').unwrap_or(d));
    let d = d.strip_prefix('@').unwrap_or(d);
    let (path, args) = d.split_once('(').unwrap_or((d, ""));
    let path = path.trim();
    if path == "cfg" {
        return args.trim_end_matches(')').trim() == "test";
    }
    if path.starts_with("pytest.mark.") {
        return true;
    }
    let last = path.rsplit([':', '.']).next().unwrap_or(path);
    last == "test"
        || last.starts_with("test_")
        || last == "rstest"
        || (last.ends_with("Test") && last.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Words that make a query about tests (then tests are not demoted).
const TEST_WORDS: &[&str] = &[
    "test", "tests", "testing", "pytest", "unittest", "fixture", "conftest",
];

/// Words of a query about errors: error types are not demoted then.
const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "err",
    "panic",
    "panics",
    "catch",
    "except",
    "warn",
    "exception",
    "exceptions",
    "raise",
    "raises",
    "raised",
    "raising",
    "throw",
    "throws",
    "thrown",
    "warning",
    "warnings",
    "fail",
    "fails",
    "failed",
    "failure",
    "failures",
];

/// Whether a symbol is an error type by the usual conventions: a type (class, struct, enum,
/// trait, interface, impl block or type alias; not a Go or Java function such as `LogError` or
/// Go's `Error()` method) whose name is capitalised and ends in `Error`, `Exception` or
/// `Warning` (Python's PEP 8, Java's and JavaScript's `…Exception` and `…Error` classes, Rust's
/// `Error` types).
fn is_error_type(kind: SymbolKind, name: &str) -> bool {
    (kind.is_type() || kind == SymbolKind::Type)
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && ["Error", "Exception", "Warning"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// Whether a query or task speaks of tests.
pub(crate) fn speaks_of_tests(query: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    cast_index::text::for_each_word(query, |w| words.push(w.to_owned()));
    about(&words, TEST_WORDS)
}

/// Whether a symbol is inside a scope named `tests` or `test` (Rust's `#[cfg(test)] mod
/// tests`, the usual home of a file's own tests), or is such a scope itself.
fn in_test_scope(qualname: &str) -> bool {
    let mut parts = qualname
        .split(['.', ':'])
        .filter(|p| !p.is_empty())
        .peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        if part == "tests" || (part == "test" && !last) {
            return true;
        }
    }
    false
}

/// Declarations without bodies: Python stubs, TypeScript declaration files.
/// Whether every word of a package's name is among the query's words (`_pytest` is named by
/// "pytest", `google_auth` by "google auth").
fn names_package(query_words: &[String], package: &str) -> bool {
    let mut all = true;
    let mut any = false;
    cast_index::text::for_each_word(package, |w| {
        any = true;
        all &= query_words.iter().any(|q| q == w);
    });
    any && all
}

fn first_line(doc: &str) -> String {
    doc.lines().next().unwrap_or("").trim().to_owned()
}

/// An identifier written in the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ident {
    /// A (possibly dotted) name: `Session.send` → name `send`, qualifier `Session`.
    Name {
        name: String,
        dotted: Option<String>,
    },
    /// A file name: `client.py`, `utils/http.py`.
    File(String),
}

/// The extensions of the files CAST parses, with the dot (`.py`, `.tsx`): a query word ending
/// in one is a file name. Each language states its own; read once from the default registry.
fn file_extensions() -> &'static [String] {
    static EXTENSIONS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    EXTENSIONS.get_or_init(|| {
        cast_parser::Registry::default()
            .extensions()
            .into_iter()
            .map(|e| format!(".{e}"))
            .collect()
    })
}

/// Words of the query that are written as identifiers: with `_`, an inner capital
/// (`CliRunner`, `parseDate`), dots between names, `()` after them, in backticks, or file names.
pub(crate) fn query_identifiers(query: &str) -> Vec<Ident> {
    let mut out: Vec<Ident> = Vec::new();
    let mut push = |i: Ident| {
        if !out.contains(&i) {
            out.push(i);
        }
    };
    // A query of one word is a name, however it is written (`Reader`, `tokenize`): that is
    // what someone typing a single word looks for first.
    let single = query.split_whitespace().nth(1).is_none();
    let mut in_ticks = false;
    for (n, piece) in query.split('`').enumerate() {
        in_ticks = n % 2 == 1;
        for raw in piece.split(|c: char| c.is_whitespace() || ",;:()[]{}<>'\"=!?".contains(c)) {
            let called = piece.contains(&format!("{raw}("));
            let word = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
            if word.len() < 3 || !word.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                continue;
            }
            let lower = word.to_lowercase();
            if let Some(ext) = file_extensions()
                .iter()
                .find(|e| lower.ends_with(e.as_str()))
            {
                if word.len() > ext.len() {
                    push(Ident::File(word.to_owned()));
                }
                continue;
            }
            let last = word.rsplit('.').next().unwrap_or(word);
            if last.len() < 3 {
                continue;
            }
            let b = last.as_bytes();
            let inner_capital = b.iter().skip(1).any(u8::is_ascii_uppercase)
                && b.iter().any(u8::is_ascii_lowercase);
            let dotted = word.contains('.') && word.split('.').all(|p| !p.is_empty());
            let ident_like =
                last.contains('_') || inner_capital || dotted || called || in_ticks || single;
            if !ident_like || cast_index::text::is_stopword(&lower) {
                continue;
            }
            push(Ident::Name {
                name: last.to_owned(),
                dotted: word.rsplit_once('.').map(|(q, _)| q.to_owned()),
            });
        }
    }
    let _ = in_ticks;
    out
}

/// Whether the query asks about tests or stubs (then they are not demoted).
fn about(query_words: &[String], words: &[&str]) -> bool {
    query_words.iter().any(|w| words.contains(&w.as_str()))
}

/// The query's terms: unique, and for a long query the rarest [`MAX_TERMS`] that occur.
fn select_terms(snap: &Snapshot, query: &str) -> Result<Vec<String>> {
    let mut terms: Vec<String> = Vec::new();
    cast_index::text::terms(query, |t| {
        if !terms.iter().any(|x| x == t) {
            terms.push(t.to_owned());
        }
    });
    if terms.is_empty() {
        // A query of stop words only: search for them rather than for nothing.
        cast_index::text::for_each_word(query, |w| {
            if !terms.iter().any(|x| x == w) {
                terms.push(w.to_owned());
            }
        });
    }
    if terms.len() > MAX_TERMS {
        let (df, _) = snap.doc_freqs(TermTable::Files, &terms)?;
        terms.retain(|t| df.contains_key(t));
        terms.sort_by_key(|t| df.get(t).copied().unwrap_or(0));
        terms.truncate(MAX_TERMS);
    }
    Ok(terms)
}

/// Divides by the best value, so the best is 1.
fn normalise(rows: Vec<(i64, f64)>) -> HashMap<i64, f64> {
    let best = rows.iter().map(|(_, s)| *s).fold(0.0f64, f64::max);
    rows.into_iter()
        .map(|(id, s)| (id, if best > 0.0 { s / best } else { 0.0 }))
        .collect()
}

/// The priors of one query: what it speaks of, and so which factors apply.
struct Priors {
    query_words: Vec<String>,
    tests_ok: bool,
    stubs_ok: bool,
    examples_ok: bool,
    installed_ok: bool,
    errors_ok: bool,
}

impl Priors {
    fn new(query: &str) -> Priors {
        let mut query_words: Vec<String> = Vec::new();
        cast_index::text::for_each_word(query, |w| query_words.push(w.to_owned()));
        let tests_ok = about(&query_words, TEST_WORDS);
        let stubs_ok = about(&query_words, &["stub", "stubs", "pyi", "typeshed"]);
        let examples_ok = about(
            &query_words,
            &[
                "example",
                "examples",
                "doc",
                "docs",
                "documentation",
                "setup",
                "benchmark",
                "sphinx",
            ],
        );
        let installed_ok = about(
            &query_words,
            &[
                "dependency",
                "dependencies",
                "installed",
                "vendored",
                "thirdparty",
            ],
        );
        let errors_ok = about(&query_words, ERROR_WORDS);
        Priors {
            query_words,
            tests_ok,
            stubs_ok,
            examples_ok,
            installed_ok,
            errors_ok,
        }
    }

    /// The factor of a file by its stored roles: installed code (unless the query names its
    /// package, read from the path), examples, tests, stubs. Generated code is ranked as source
    /// is: it changes in the same commit as what it is generated from (fzf's `stringer`
    /// output), and a factor of 0.3 or 0.6 pushed such an answer out of the top ten.
    fn of_file(&self, path: &str, roles: FileRoles) -> f64 {
        let mut f = 1.0;
        if roles.installed
            && !self.installed_ok
            && !installed_package(path).is_some_and(|p| names_package(&self.query_words, p))
        {
            f *= INSTALLED_FACTOR;
        }
        if roles.example {
            f *= if self.examples_ok {
                ASKED_FACTOR
            } else {
                EXAMPLE_FACTOR
            };
        }
        if roles.test {
            f *= self.test_factor();
        }
        if !self.stubs_ok && roles.stub {
            f *= STUB_FACTOR;
        }
        f
    }

    /// The factor of a symbol: its file's, a little less for a private name, and a test's when
    /// it sits in a `tests` scope (Rust's `mod tests`) or carries a test's decorator (`#[test]`)
    /// in a file that is not a test already.
    fn of_symbol(&self, path: &str, roles: FileRoles, named: &SymbolNaming) -> f64 {
        let (qualname, decorators) = (named.qualname.as_str(), named.decorators.as_deref());
        let mut f = self.of_file(path, roles);
        let short = qualname.rsplit('.').next().unwrap_or("");
        if short.starts_with('_') && !short.starts_with("__") {
            f *= 0.95;
        }
        // Rust's qualified names use `::`.
        let last = qualname.rsplit(['.', ':']).next().unwrap_or("");
        if !self.errors_ok && is_error_type(named.kind, last) {
            f *= ERROR_TYPE_FACTOR;
        }
        if !roles.test && (in_test_scope(qualname) || marked_as_test(decorators)) {
            f *= self.test_factor();
        }
        f
    }

    fn test_factor(&self) -> f64 {
        if self.tests_ok {
            ASKED_FACTOR
        } else {
            TEST_FACTOR
        }
    }
}

/// The files and symbols of a [`Scope`], by id.
pub(crate) struct InScope {
    pub(crate) files: FxHashSet<i64>,
    pub(crate) symbols: FxHashSet<i64>,
}

impl InScope {
    /// Past this many files, the symbols are found by one pass over the table rather than a
    /// lookup per file.
    const LOOKUPS: usize = 2000;

    pub(crate) fn of(snap: &Snapshot, scope: &Scope) -> Result<InScope> {
        let mut files = FxHashSet::default();
        snap.for_each_parsed_file(|id, path| {
            if scope.contains(path) {
                files.insert(id);
            }
        })?;
        Self::with_symbols(snap, files)
    }

    /// The scope of these `files` (ids of parsed files), with their symbols.
    pub(crate) fn with_symbols(snap: &Snapshot, files: FxHashSet<i64>) -> Result<InScope> {
        let mut symbols = FxHashSet::default();
        if files.len() <= Self::LOOKUPS {
            for f in &files {
                symbols.extend(snap.symbols_of_file(*f)?);
            }
        } else {
            snap.for_each_symbol_file(|id, file| {
                if files.contains(&file) {
                    symbols.insert(id);
                }
            })?;
        }
        Ok(InScope { files, symbols })
    }
}

/// What the text, identifier and graph steps found, before the blend.
struct Evidence {
    /// The query's terms with their IDF over files.
    terms: Vec<(String, f64)>,
    file_text: HashMap<i64, f64>,
    symbol_text: HashMap<i64, f64>,
    /// symbol id → (file id, exact-identifier credit)
    symbol_ident: HashMap<i64, (i64, f64)>,
    file_ident: HashMap<i64, f64>,
    symbol_file: HashMap<i64, i64>,
    /// file id → what similar past commits say of it.
    history: HashMap<i64, PastChanges>,
    /// path → how often it changed lately ([`Scores::churn`]).
    churn: HashMap<String, f64>,
}

/// The evidence of similar past commits for one file.
struct PastChanges {
    /// The scores of the commits that changed the file, summed, divided by the query's best.
    credit: f64,
    /// The subject of the best of them.
    subject: String,
}

impl Reader<'_> {
    /// Relevance search among the files of `scope` ([`crate::Queries::find_in`]).
    pub(crate) fn find_in(
        &self,
        query: &str,
        top: usize,
        mode: FindMode,
        scope: &Scope,
    ) -> Result<Found> {
        let in_scope = if scope.is_whole_tree() {
            None
        } else {
            Some(InScope::of(self.snap, scope)?)
        };
        let searched = match &in_scope {
            Some(s) => Searched {
                files: s.files.len(),
                symbols: s.symbols.len(),
            },
            None => self.searched()?,
        };
        let (ev, priors) = self.prepare(query, in_scope.as_ref())?;
        let files = self.rank_files(&ev, &priors, in_scope.as_ref())?;
        let file_top = match mode {
            FindMode::Files => top,
            FindMode::Symbols => top.min(5),
        };
        let file_hits = self.file_hits(&files, &ev, &priors, file_top)?;
        let symbols = match mode {
            FindMode::Files => Vec::new(),
            FindMode::Symbols => {
                let ranked = self.rank_symbols(&ev, &priors)?;
                self.symbol_hits(&ranked, top)?
            }
        };
        Ok(Found {
            symbols,
            files: file_hits,
            searched,
            scope: if in_scope.is_some() {
                scope.patterns().to_vec()
            } else {
                Vec::new()
            },
        })
    }

    /// How many files and symbols a search looks through.
    fn searched(&self) -> Result<Searched> {
        let (files, symbols) = self.snap.searchable_counts()?;
        Ok(Searched { files, symbols })
    }

    /// The evidence for a query and its priors.
    fn prepare(&self, query: &str, in_scope: Option<&InScope>) -> Result<(Evidence, Priors)> {
        if query.trim().is_empty() {
            return Err(AnalyzerError::EmptyQuery);
        }
        let terms = select_terms(self.snap, query)?;
        if terms.is_empty() {
            return Err(AnalyzerError::EmptyQuery);
        }
        let ev = self.evidence(query, &terms, in_scope)?;
        Ok((ev, Priors::new(query)))
    }

    /// For a focused map: the ids of the best symbols and of the best files for a task, best
    /// first.
    pub(crate) fn focus(
        &self,
        task: &str,
        symbols: usize,
        files: usize,
        in_scope: Option<&InScope>,
    ) -> Result<(Vec<i64>, Vec<i64>)> {
        let (ev, priors) = self.prepare(task, in_scope)?;
        let ranked_files = self.rank_files(&ev, &priors, in_scope)?;
        let ranked_syms = self.rank_symbols(&ev, &priors)?;
        Ok((
            ranked_syms
                .into_iter()
                .take(symbols)
                .map(|(id, _, _)| id)
                .collect(),
            ranked_files
                .into_iter()
                .take(files)
                .map(|(id, _)| id)
                .collect(),
        ))
    }

    /// The files whose symbols are scored with their bodies: the best files by text and exact
    /// identifiers, and the files of the best stored symbol matches, at most
    /// [`CANDIDATE_FILES`] + [`CANDIDATE_SYMBOLS`] in all.
    fn candidate_files(
        &self,
        file_text: &HashMap<i64, f64>,
        file_ident: &HashMap<i64, f64>,
        stored_symbols: &[(i64, f64)],
    ) -> Result<Vec<i64>> {
        let mut by_file: HashMap<i64, f64> = HashMap::new();
        for (f, s) in file_text {
            *by_file.entry(*f).or_default() += W_TEXT * s;
        }
        for (f, s) in file_ident {
            *by_file.entry(*f).or_default() += W_IDENT * s;
        }
        let mut best: Vec<(i64, f64)> = by_file.into_iter().collect();
        best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut files: Vec<i64> = best.iter().take(CANDIDATE_FILES).map(|(f, _)| *f).collect();
        for (id, _) in stored_symbols {
            if let Some(f) = self.snap.file_of_symbol(*id)?
                && !files.contains(&f)
            {
                files.push(f);
            }
        }
        Ok(files)
    }

    /// The stored PageRank of every symbol or file, decoded once while the database is
    /// unchanged (search and the map read the same).
    pub(crate) fn stored_ranks(&self, table: RankedTable) -> Result<std::sync::Arc<Ranks>> {
        Ok(self.snap.ranks(table)?)
    }

    fn evidence(
        &self,
        query: &str,
        terms: &[String],
        in_scope: Option<&InScope>,
    ) -> Result<Evidence> {
        // In a scope, every match is read and those outside it dropped, so the scope keeps its
        // own best `limit` (FTS5 scores every matching row either way).
        let within = |rows: cast_index::Result<Vec<(i64, f64)>>,
                      keep: &dyn Fn(i64) -> bool,
                      limit: usize| {
            rows.map(|rows| match in_scope {
                None => rows,
                Some(_) => rows
                    .into_iter()
                    .filter(|(id, _)| keep(*id))
                    .take(limit)
                    .collect(),
            })
        };
        let read = |limit: usize| {
            if in_scope.is_some() {
                usize::MAX
            } else {
                limit
            }
        };
        // The same for the exact names: a common one (`run`, `__init__`) may have its scope's
        // definitions past the tree's first few hundred. (SQLite reads a negative LIMIT as none.)
        let sql_limit = |limit: i64| if in_scope.is_some() { -1 } else { limit };
        let file_in = |id: i64| in_scope.is_none_or(|s| s.files.contains(&id));
        let symbol_in = |id: i64| in_scope.is_none_or(|s| s.symbols.contains(&id));
        // The files' match may run beside the symbols' (a query with every core to itself).
        let (file_text, stored_symbols) = self.snap.match_files_and_symbols(
            terms,
            (&[W_FILE_PATH, W_FILE_DOC, W_FILE_BODY], read(TEXT_LIMIT)),
            (
                &[W_SYM_NAME, W_SYM_CONTEXT, W_SYM_SIGNATURE, W_SYM_DOC],
                read(CANDIDATE_SYMBOLS),
            ),
        );
        // First stage of the symbols: name, context, signature and docstring, stored.
        let file_text = within(file_text, &file_in, TEXT_LIMIT);
        let stored_symbols = within(stored_symbols, &symbol_in, CANDIDATE_SYMBOLS);
        let file_text = normalise(file_text?);
        let stored_symbols = stored_symbols?;
        let mut symbol_ident: HashMap<i64, (i64, f64)> = HashMap::new();
        let mut file_ident: HashMap<i64, f64> = HashMap::new();
        let idents = query_identifiers(query);
        for ident in &idents {
            match ident {
                Ident::Name { name, dotted } => {
                    let found: Vec<(i64, i64, String)> = self
                        .snap
                        .symbols_named(name, sql_limit(200))?
                        .into_iter()
                        .filter(|s| file_in(s.file))
                        .map(|s| (s.id, s.file, s.qualname))
                        .collect();
                    if found.is_empty() {
                        continue;
                    }
                    let fitting: Vec<&(i64, i64, String)> = match dotted {
                        Some(q) => {
                            let tail = format!("{q}.{name}");
                            let exact: Vec<_> = found
                                .iter()
                                .filter(|(_, _, qn)| {
                                    qn.ends_with(&tail) || tail.ends_with(qn.as_str())
                                })
                                .collect();
                            if exact.is_empty() {
                                found.iter().collect()
                            } else {
                                exact
                            }
                        }
                        None => found.iter().collect(),
                    };
                    let k = fitting.len() as f64;
                    let mut defining: Vec<i64> = fitting.iter().map(|(_, f, _)| *f).collect();
                    defining.sort_unstable();
                    defining.dedup();
                    // A file's credit is its share of the files defining the name, however
                    // many times it defines it (a stub's overloads are one answer, not four).
                    let per_file = 1.0 / defining.len() as f64;
                    for f in defining {
                        *file_ident.entry(f).or_default() += per_file;
                    }
                    for (id, file, _) in fitting {
                        let e = symbol_ident.entry(*id).or_insert((*file, 0.0));
                        e.1 += 1.0 / k;
                    }
                }
                Ident::File(name) => {
                    let name = name.trim_start_matches("./");
                    let named: Vec<(i64, String)> = self
                        .snap
                        .files_named(name, sql_limit(50))?
                        .into_iter()
                        .filter(|(id, _)| file_in(*id))
                        .collect();
                    let k = named.len() as f64;
                    for (id, _) in named {
                        *file_ident.entry(id).or_default() += 1.0 / k;
                    }
                }
            }
        }
        // Second stage: every symbol of the candidate files, with its body.
        let candidates = self.candidate_files(&file_text, &file_ident, &stored_symbols)?;
        let with_bodies = self.score_candidate_symbols(
            &candidates,
            terms,
            [
                W_SYM_NAME,
                W_SYM_CONTEXT,
                W_SYM_SIGNATURE,
                W_SYM_DOC,
                W_SYM_BODY,
            ],
            TEXT_LIMIT,
        )?;
        let mut symbol_file: HashMap<i64, i64> = with_bodies
            .iter()
            .map(|&(id, file, _)| (id, file))
            .collect();
        let symbol_text = normalise(
            with_bodies
                .into_iter()
                .map(|(id, _, score)| (id, score))
                .collect(),
        );
        for (id, (f, _)) in &symbol_ident {
            symbol_file.insert(*id, *f);
        }
        let history = self.history_evidence(terms, &file_in, in_scope.is_some())?;
        let churn = self.churn()?;
        let (df, n) = self.snap.doc_freqs(TermTable::Files, terms)?;
        let terms = terms
            .iter()
            .map(|t| {
                let d = df.get(t).copied().unwrap_or(0) as f64;
                (t.clone(), (1.0 + (n as f64 - d + 0.5) / (d + 0.5)).ln())
            })
            .collect();
        Ok(Evidence {
            terms,
            file_text,
            symbol_text,
            symbol_ident,
            file_ident,
            symbol_file,
            history,
            churn,
        })
    }

    /// Every file the newest [`CHURN_COMMITS`] commits changed, with its [`Scores::churn`].
    fn churn(&self) -> Result<HashMap<String, f64>> {
        let mut weights: HashMap<String, f64> = HashMap::new();
        for (age, files) in self
            .snap
            .recent_commit_files(CHURN_COMMITS)?
            .into_iter()
            .enumerate()
        {
            let weight = 0.5f64.powf(age as f64 / CHURN_HALF_LIFE);
            for f in files {
                *weights.entry(f).or_default() += weight;
            }
        }
        let best = weights.values().fold(0.0f64, |a, b| a.max(*b));
        for w in weights.values_mut() {
            *w = (1.0 + *w).ln() / (1.0 + best).ln();
        }
        Ok(weights)
    }

    /// The files of the past commits whose messages best match `terms`: the scores of the
    /// commits that changed a file, summed, and its best commit's subject.
    /// In a scope (`scoped`), the best [`HISTORY_COMMITS`] commits that changed a file of it.
    fn history_evidence(
        &self,
        terms: &[String],
        file_in: &dyn Fn(i64) -> bool,
        scoped: bool,
    ) -> Result<HashMap<i64, PastChanges>> {
        let read = if scoped { usize::MAX } else { HISTORY_COMMITS };
        let commits = self.snap.match_commits(terms, read)?;
        let mut counted = 0;
        let mut files: HashMap<i64, PastChanges> = HashMap::new();
        for commit in commits {
            if counted == HISTORY_COMMITS {
                break;
            }
            let mut in_scope = false;
            for p in &commit.files {
                let Some(id) = self.snap.parsed_file_id(p)? else {
                    continue;
                };
                if !file_in(id) {
                    continue;
                }
                in_scope = true;
                // Each file gets the commit's whole score: sharing it among the commit's files
                // (÷ n, ÷ √n) ranked a little worse on the development repositories.
                // Best first: the first commit to name a file gives its subject.
                files
                    .entry(id)
                    .or_insert_with(|| PastChanges {
                        credit: 0.0,
                        subject: commit.subject.clone(),
                    })
                    .credit += commit.score;
            }
            counted += usize::from(in_scope || !scoped);
        }
        let best = files.values().map(|f| f.credit).fold(0.0f64, f64::max);
        if best > 0.0 {
            for f in files.values_mut() {
                f.credit /= best;
            }
        }
        Ok(files)
    }

    /// Every candidate file with its score components, best first.
    fn rank_files(
        &self,
        ev: &Evidence,
        priors: &Priors,
        in_scope: Option<&InScope>,
    ) -> Result<Vec<(i64, Scores)>> {
        let file_roles = self.snap.file_roles()?;
        // symbols: the best symbol plus a little for each further one.
        let mut per_file: HashMap<i64, Vec<f64>> = HashMap::new();
        for (id, s) in &ev.symbol_text {
            if let Some(f) = ev.symbol_file.get(id) {
                per_file.entry(*f).or_default().push(*s);
            }
        }
        let mut scores: HashMap<i64, Scores> = HashMap::new();
        for (f, mut list) in per_file {
            list.sort_by(|a, b| b.total_cmp(a));
            let rest: f64 = list.iter().skip(1).take(4).sum();
            scores.entry(f).or_default().symbols = (list[0] + 0.1 * rest).min(1.0);
        }
        for (f, s) in &ev.file_text {
            scores.entry(*f).or_default().text = *s;
        }
        for (f, s) in &ev.file_ident {
            scores.entry(*f).or_default().ident = *s;
        }
        for (f, past) in &ev.history {
            scores.entry(*f).or_default().history = past.credit;
        }
        // Personalised PageRank from the best files so far.
        let mut seeds: Vec<(i64, f64)> = scores
            .iter()
            .map(|(f, s)| {
                (
                    *f,
                    W_TEXT * s.text
                        + W_SYMBOLS * s.symbols
                        + W_IDENT * s.ident
                        + W_HISTORY * s.history,
                )
            })
            .collect();
        seeds.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        seeds.truncate(SEEDS);
        let graph = self.snap.file_graph()?;
        if let Some(StoredFileGraph {
            ids,
            pos,
            adjacency,
        }) = graph.as_ref()
        {
            let seed_pos: Vec<(u32, f64)> = seeds
                .iter()
                .filter_map(|(f, w)| pos.get(*f).map(|p| (p, *w)))
                .collect();
            let ppr =
                cast_index::graph::rank::personalized_page_rank(adjacency, &seed_pos, 0.3, 1e-5);
            // A seed keeps most of its own mass; what counts is what flows on to others, inside
            // the scope (normalised among its files).
            let flowed: Vec<(i64, f64)> = ppr
                .into_iter()
                .filter(|(p, _)| !seed_pos.iter().any(|(s, _)| s == p))
                .map(|(p, v)| (ids[p as usize], v))
                .filter(|(f, _)| in_scope.is_none_or(|scope| scope.files.contains(f)))
                .collect();
            for (f, g) in normalise(flowed) {
                scores.entry(f).or_default().graph = g;
            }
        }
        // Coverage: which of the text-matched files hold each term.
        let mut cover: HashMap<i64, f64> = HashMap::new();
        for (t, w) in &ev.terms {
            for id in self.snap.rows_with_term(TermTable::Files, t)? {
                if ev.file_text.contains_key(&id) {
                    *cover.entry(id).or_default() += w;
                }
            }
        }
        let best_cover = cover.values().fold(0.0f64, |a, b| a.max(*b));
        let ranks = self.stored_ranks(RankedTable::Files)?;
        let mut out = Vec::with_capacity(scores.len());
        let idf_total: f64 = ev.terms.iter().map(|(_, w)| w).sum();
        for (f, mut s) in scores {
            // The graph reaches beyond a scope; what it reaches there is not an answer.
            if in_scope.is_some_and(|scope| !scope.files.contains(&f)) {
                continue;
            }
            let Some(path) = self.snap.parsed_file_path(f)? else {
                continue;
            };
            let module_path = cast_index::text::module_path(&path);
            let mut in_path: Vec<String> = Vec::new();
            cast_index::text::terms(module_path, |t| in_path.push(t.to_owned()));
            if idf_total > 0.0 {
                // Folded from 0.0: an empty f64 sum is -0.0, which `--json` printed as `-0.0`.
                s.path = ev
                    .terms
                    .iter()
                    .filter(|(t, _)| in_path.contains(t))
                    .fold(0.0, |acc, (_, w)| acc + w)
                    / idf_total;
            }
            s.rank = ranks.score(f);
            s.churn = ev.churn.get(&path).copied().unwrap_or(0.0);
            if best_cover > 0.0 {
                s.cover = cover.get(&f).copied().unwrap_or(0.0) / best_cover;
            }
            s.factor = priors.of_file(&path, file_roles.of(f));
            out.push((f, s, path));
        }
        let best_path = out.iter().map(|(_, s, _)| s.path).fold(0.0f64, f64::max);
        for (_, s, _) in &mut out {
            if best_path > 0.0 {
                s.path /= best_path;
            }
            s.total = (W_TEXT * s.text
                + W_PATH * s.path
                + W_SYMBOLS * s.symbols
                + W_IDENT * s.ident
                + W_GRAPH * s.graph
                + W_RANK * s.rank
                + W_HISTORY * s.history
                + W_CHURN * s.churn
                + W_COVER * s.cover)
                * s.factor;
        }
        // Files with evidence of their own come first; after them, the files reached only
        // through the graph (what the hits import or call, with no word of the query).
        out.sort_by(|a, b| {
            b.1.is_direct()
                .cmp(&a.1.is_direct())
                .then(b.1.total.total_cmp(&a.1.total))
                .then(a.2.cmp(&b.2))
        });
        Ok(out.into_iter().map(|(f, s, _)| (f, s)).collect())
    }

    fn file_row(&self, id: i64) -> Result<Option<FileRow>> {
        Ok(self.snap.file_row(id)?)
    }

    fn symbol_row(&self, id: i64) -> Result<Option<SymbolRow>> {
        Ok(self.snap.symbol_row(id)?)
    }

    fn file_hits(
        &self,
        files: &[(i64, Scores)],
        ev: &Evidence,
        priors: &Priors,
        top: usize,
    ) -> Result<Vec<Hit>> {
        let mut out = Vec::new();
        for (id, scores) in files.iter().take(top) {
            let Some(row) = self.file_row(*id)? else {
                continue;
            };
            // The file's best symbols, to say why it was found. Its own tests (Rust's `mod
            // tests`) count as little here as in the symbol ranking, or they would name the file
            // by the tests that repeat the query's words rather than by the code they test.
            let mut best: Vec<(f64, i64)> = ev
                .symbol_text
                .iter()
                .filter(|(s, _)| ev.symbol_file.get(s) == Some(id))
                .map(|(s, v)| (*v + ev.symbol_ident.get(s).map_or(0.0, |x| x.1), *s))
                .chain(
                    ev.symbol_ident
                        .iter()
                        .filter(|(s, (f, _))| f == id && !ev.symbol_text.contains_key(s))
                        .map(|(s, (_, c))| (*c, *s)),
                )
                .collect();
            let file_roles = self.snap.file_roles()?.of(*id);
            if !file_roles.test {
                for (score, s) in &mut best {
                    let named = self.snap.symbol_naming(*s)?;
                    if named.is_some_and(|n| {
                        is_test_symbol(file_roles, &n.qualname, n.decorators.as_deref())
                    }) {
                        *score *= priors.test_factor();
                    }
                }
            }
            best.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut matches = Vec::new();
            for (_, s) in best.iter().take(3) {
                if let Some(sym) = self.symbol_row(*s)? {
                    matches.push(format!("{}:{}", sym.qualname, sym.start_line));
                }
            }
            out.push(Hit {
                kind: HitKind::File,
                line: 1,
                end_line: row.lines,
                symbol_kind: None,
                qualname: None,
                full_name: None,
                signature: None,
                doc: row
                    .description
                    .as_deref()
                    .map(|d| first_line(&crate::description::lead_paragraph(d))),
                path: row.path,
                matches,
                past_commit: ev.history.get(id).map(|past| past.subject.clone()),
                score: scores.total,
                scores: *scores,
            });
        }
        Ok(out)
    }

    /// Every candidate symbol with its score components and path, best first.
    fn rank_symbols(&self, ev: &Evidence, priors: &Priors) -> Result<Vec<(i64, Scores, String)>> {
        let ranks = self.stored_ranks(RankedTable::Symbols)?;
        let file_roles = self.snap.file_roles()?;
        let mut cands: Vec<(i64, Scores, String)> = Vec::new();
        let ids: std::collections::BTreeSet<i64> = ev
            .symbol_text
            .keys()
            .chain(ev.symbol_ident.keys())
            .copied()
            .collect();
        let mut path_of: HashMap<i64, String> = HashMap::new();
        for id in ids {
            let Some(file) = ev.symbol_file.get(&id).copied() else {
                continue;
            };
            let path = match path_of.get(&file) {
                Some(p) => p.clone(),
                None => {
                    let Some(p) = self.snap.file_path(file)? else {
                        continue;
                    };
                    path_of.insert(file, p.clone());
                    p
                }
            };
            // Read in the same snapshot as the evidence, so it is there.
            let Some(named) = self.snap.symbol_naming(id)? else {
                continue;
            };
            let mut s = Scores {
                text: ev.symbol_text.get(&id).copied().unwrap_or(0.0),
                path: 0.0,
                symbols: ev.file_text.get(&file).copied().unwrap_or(0.0),
                ident: ev.symbol_ident.get(&id).map_or(0.0, |x| x.1),
                graph: 0.0,
                rank: ranks.score(id),
                history: 0.0,
                churn: 0.0,
                cover: 0.0,
                factor: priors.of_symbol(&path, file_roles.of(file), &named),
                total: 0.0,
            };
            s.total = (0.70 * s.text + 0.30 * s.ident.min(1.0) + 0.15 * s.symbols + 0.10 * s.rank)
                * s.factor;
            cands.push((id, s, path));
        }
        // Ties by path, then id (document order within a file): ids across files follow the
        // order files were parsed in, which differs from one build to the next.
        cands.sort_by(|a, b| {
            b.1.total
                .total_cmp(&a.1.total)
                .then(a.2.cmp(&b.2))
                .then(a.0.cmp(&b.0))
        });
        Ok(cands)
    }

    fn symbol_hits(&self, ranked: &[(i64, Scores, String)], top: usize) -> Result<Vec<Hit>> {
        let mut out = Vec::new();
        for (id, scores, path) in ranked.iter().take(top) {
            let (id, scores, path) = (*id, *scores, path.clone());
            let Some(sym) = self.symbol_row(id)? else {
                continue;
            };
            out.push(Hit {
                kind: HitKind::Symbol,
                full_name: Some(cast_index::graph::modpath::full_name(&path, &sym.qualname)),
                path,
                line: sym.start_line,
                end_line: sym.end_line,
                symbol_kind: Some(sym.kind),
                qualname: Some(sym.qualname),
                signature: Some(sym.signature),
                doc: sym.doc.as_deref().map(first_line),
                matches: Vec::new(),
                past_commit: None,
                score: scores.total,
                scores,
            });
            let _ = sym.id;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_beside_the_code_are_known_by_their_scope() {
        for q in [
            "tests::parses_globs",
            "tests",
            "walk::tests::helper::run",
            "test::bench_one",
            "TestCase.tests.run",
        ] {
            assert!(in_test_scope(q), "{q}");
        }
        for q in [
            "test",
            "Parser.test",
            "latest::x",
            "testing::f",
            "contest.tests_run",
            "re.Pattern.search",
        ] {
            assert!(!in_test_scope(q), "{q}");
        }
    }

    #[test]
    fn error_types_are_known_by_their_kind_and_names() {
        use SymbolKind::{Class, Enum, Function, Method, Struct};
        for (kind, name) in [
            (Class, "BadOptionError"),
            (Enum, "Error"),
            (Class, "HTTPException"),
            (Class, "DeprecationWarning"),
            (Struct, "ParseError"),
        ] {
            assert!(is_error_type(kind, name), "{kind:?} {name}");
        }
        for (kind, name) in [
            (Function, "raise_error"),
            (Class, "ErrorHandler"),
            (Class, "Errors"),
            (Class, "_Error"),
            // Go's exported functions and every error type's `Error()` method are capitalised.
            (Function, "LogError"),
            (Method, "Error"),
        ] {
            assert!(!is_error_type(kind, name), "{kind:?} {name}");
        }
        let named = |kind, qualname: &str| SymbolNaming {
            kind,
            qualname: qualname.to_owned(),
            decorators: None,
        };
        let factor = |query: &str, n: &SymbolNaming| {
            Priors::new(query).of_symbol("opts.py", FileRoles::of_path("opts.py"), n)
        };
        let error = named(Class, "BadOptionError");
        assert_eq!(factor("parse the options", &error), ERROR_TYPE_FACTOR);
        assert_eq!(
            factor("parse the options", &named(Class, "OptionParser")),
            1.0
        );
        assert_eq!(factor("the error of a bad option", &error), 1.0);
        assert_eq!(factor("what is raised for a bad option", &error), 1.0);
        // Nested and Rust-qualified names are judged by their last part.
        let nested = named(Class, "Parser.OptionError");
        assert_eq!(factor("parse the options", &nested), ERROR_TYPE_FACTOR);
        let rust = named(Enum, "config::Error");
        assert_eq!(factor("read the config", &rust), ERROR_TYPE_FACTOR);
    }

    #[test]
    fn tests_are_known_by_their_decorators() {
        for d in [
            "#[test]",
            "#[tokio::test]",
            "#[tokio::test(flavor = \"multi_thread\")]",
            "#[cfg(test)]",
            "#[test_case(1, 2)]",
            "#[rstest]",
            "@Test",
            "@ParameterizedTest",
            "@org.junit.jupiter.api.Test",
            "pytest.mark.parametrize(\"x\", [1, 2])",
            "pytest.mark.slow",
        ] {
            assert!(is_test_decorator(d), "{d}");
        }
        for d in [
            "#[derive(Debug)]",
            "#[cfg(feature = \"test\")]",
            "#[cfg(not(test))]",
            "#[inline]",
            "@Override",
            "@Latest",
            "property",
            "functools.lru_cache(maxsize=None)",
            "app.route(\"/test\")",
            "contest",
            "pytest.fixture",
            "pytest.hookimpl(tryfirst=True)",
        ] {
            assert!(!is_test_decorator(d), "{d}");
        }
        assert!(is_test_symbol(
            FileRoles::of_path("crates/core/flags/defs.rs"),
            "test_max_depth",
            Some("#[cfg(test)]\n#[test]")
        ));
        assert!(!is_test_symbol(
            FileRoles::of_path("crates/core/flags/defs.rs"),
            "MaxDepth",
            Some("#[derive(Debug)]")
        ));
        assert!(!is_test_symbol(
            FileRoles::of_path("src/lib.rs"),
            "parse",
            None
        ));
        assert!(is_test_symbol(
            FileRoles::of_path("src/lib_test.go"),
            "Parse",
            None
        ));
    }

    #[test]
    fn installed_code_is_recognised_by_its_folder_and_named_by_its_package() {
        assert_eq!(
            installed_package("lib/python3.11/site-packages/werkzeug/security.py"),
            Some("werkzeug")
        );
        assert_eq!(installed_package("site-packages/six.py"), Some("six"));
        assert_eq!(
            installed_package("web/node_modules/left-pad/index.js"),
            Some("left-pad")
        );
        assert_eq!(
            installed_package("dist-packages/_pytest/main.py"),
            Some("_pytest")
        );
        assert_eq!(installed_package("src/site/packages.py"), None);
        assert_eq!(installed_package("site-packages"), None);
        let words = |q: &str| {
            let mut w = Vec::new();
            cast_index::text::for_each_word(q, |x| w.push(x.to_owned()));
            w
        };
        assert!(names_package(
            &words("hash a password with werkzeug"),
            "werkzeug"
        ));
        assert!(names_package(&words("a pytest fixture"), "_pytest"));
        assert!(names_package(
            &words("refresh Google auth tokens"),
            "google_auth"
        ));
        assert!(!names_package(&words("refresh auth tokens"), "google_auth"));
        assert!(!names_package(&words("hash a password"), "werkzeug"));
    }

    fn names(q: &str) -> Vec<String> {
        query_identifiers(q)
            .into_iter()
            .map(|i| match i {
                Ident::Name { name, dotted } => match dotted {
                    Some(d) => format!("{d}.{name}"),
                    None => name,
                },
                Ident::File(f) => format!("file:{f}"),
            })
            .collect()
    }

    #[test]
    fn identifiers_are_the_words_written_as_code() {
        assert_eq!(
            names("Fix Session.send when parse_header sees a CliRunner in client.py"),
            vec![
                "Session.send",
                "parse_header",
                "CliRunner",
                "file:client.py"
            ]
        );
        assert_eq!(
            names("Add support of `edit` and call wrap()"),
            vec!["edit", "wrap"]
        );
        // Plain words, a capitalised first word and acronyms are not identifiers.
        assert_eq!(
            names("Fix the HTTP date parsing in Python"),
            Vec::<String>::new()
        );
        // A query of one word is a name, unless it is too short or a stop word.
        assert_eq!(names("Reader"), vec!["Reader"]);
        assert_eq!(names("  tokenize "), vec!["tokenize"]);
        assert_eq!(names("the"), Vec::<String>::new());
        assert_eq!(names("io"), Vec::<String>::new());
    }
}
