//! What a search answers, as data and as text: the hits ([`Hit`], [`Scores`]), the answer
//! ([`Found`], [`Searched`]) and the question ([`FindOptions`], [`FindMode`]).

use cast_parser::SymbolKind;
use cast_workspace::Scope;
use serde::{Deserialize, Serialize};

use crate::plural;

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
    /// it, each weighing half per 50 commits of age (the blend's `CHURN_HALF_LIFE`), on a log
    /// scale (0 to 1). Code that changes often is what the next task most likely changes again.
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
    /// The patterns the search was limited to (see [`crate::Queries::find_in`]); empty: the
    /// whole tree.
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

impl FindOptions {
    /// `query`'s 10 best symbols (and 5 files) in the whole tree: `cast find QUERY` without
    /// flags. Set the fields that differ with struct update syntax.
    pub fn new(query: impl Into<String>) -> FindOptions {
        FindOptions {
            query: query.into(),
            top: 10,
            mode: FindMode::Symbols,
            scope: Scope::whole_tree(),
        }
    }
}

/// What a search returns: files only, or symbols with a few files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FindMode {
    /// Symbols (at most `top`) and the best files (at most 5).
    Symbols,
    /// Files only (at most `top`).
    Files,
}
