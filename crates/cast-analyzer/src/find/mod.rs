//! Relevance search: which files and symbols a task or a question is about. This is the entry
//! ([`Reader::find_in`], and [`Reader::focus`] for a focused map); the steps live in `query`,
//! `evidence` (with `bodies`), `priors`, `rank`, `blend` and `hits`, the public types in `results`.
//!
//! Everything starts from the full-text index built with the code index (SQLite FTS5; see
//! [`cast_index::text`] for the terms), then adds what only CAST knows. For a query:
//!
//! 1. **Terms.** The query's terms ([`cast_index::text::terms`]); of a long query (a commit message,
//!    an issue) only the [`MAX_TERMS`] rarest terms that occur in the index are kept — common
//!    terms add little to BM25 and cost the most to score.
//! 2. **Text (BM25F).** FTS5's `bm25()` over the file table (path ×[`W_FILE_PATH`], module
//!    docstring ×[`W_FILE_DOC`], body ×[`W_FILE_BODY`]) and over the symbol table (name
//!    ×[`W_SYM_NAME`], context ×[`W_SYM_CONTEXT`], signature ×[`W_SYM_SIGNATURE`], docstring
//!    ×[`W_SYM_DOC`]). A symbol's body is not stored — the words of a body count for its file —
//!    but the symbols of the candidate files are scored with their bodies (×[`W_SYM_BODY`]) at
//!    query time, [`bodies`]: storing every body cost a third of the text index's build
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
//!    best match the query (BM25 over the messages the index stores) give the files
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
//! 0.10·rank`, with the same factors and ×0.95 for private names ([`blend::file_total`],
//! [`blend::symbol_total`]). `--json` shows each component. The weights were set on the
//! development repositories of `bench/localise.py` only.
//!
//! [`MAX_TERMS`]: blend::MAX_TERMS
//! [`W_FILE_PATH`]: blend::W_FILE_PATH
//! [`W_FILE_DOC`]: blend::W_FILE_DOC
//! [`W_FILE_BODY`]: blend::W_FILE_BODY
//! [`W_SYM_NAME`]: blend::W_SYM_NAME
//! [`W_SYM_CONTEXT`]: blend::W_SYM_CONTEXT
//! [`W_SYM_SIGNATURE`]: blend::W_SYM_SIGNATURE
//! [`W_SYM_DOC`]: blend::W_SYM_DOC
//! [`W_SYM_BODY`]: blend::W_SYM_BODY
//! [`HISTORY_COMMITS`]: blend::HISTORY_COMMITS
//! [`TEST_FACTOR`]: blend::TEST_FACTOR
//! [`STUB_FACTOR`]: blend::STUB_FACTOR
//! [`EXAMPLE_FACTOR`]: blend::EXAMPLE_FACTOR
//! [`INSTALLED_FACTOR`]: blend::INSTALLED_FACTOR
//! [`ASKED_FACTOR`]: blend::ASKED_FACTOR
//! [`ERROR_TYPE_FACTOR`]: blend::ERROR_TYPE_FACTOR
//! [`CHURN_HALF_LIFE`]: blend::CHURN_HALF_LIFE

mod blend;
mod bodies;
mod evidence;
mod hits;
mod priors;
mod query;
mod rank;
mod results;

pub use results::{FindMode, FindOptions, Found, Hit, HitKind, Scores, Searched};

use cast_workspace::Scope;

use crate::reader::Reader;
use crate::scope::InScope;
use crate::{AnalyzerError, Result};
use evidence::Evidence;
use priors::Priors;
use query::select_terms;

/// The files a search in [`FindMode::Symbols`] lists beside its symbols, at most.
const FILES_WITH_SYMBOLS: usize = 5;

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
            FindMode::Symbols => top.min(FILES_WITH_SYMBOLS),
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
}
