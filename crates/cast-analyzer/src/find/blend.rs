//! The blend: every weight and constant of search's ranking in one place, and the formulas that
//! put a hit's [`Scores`] together. The weights were set on the development repositories of
//! `bench/localise.py` only.

use super::results::Scores;

// What a query reads.

/// Query terms kept of a long query (the rarest in the index): common terms add little to BM25
/// and cost the most to score.
pub(super) const MAX_TERMS: usize = 40;
/// Rows read from each full-text table per query (and symbols kept of the second stage): the
/// text evidence the blend sees, which bounds a query's work.
pub(super) const TEXT_LIMIT: usize = 400;
/// Files whose symbols are scored with their bodies (second stage): the best files so far…
pub(super) const CANDIDATE_FILES: usize = 20;
/// …and the files of the best stored symbol matches (also how many stored matches are read).
pub(super) const CANDIDATE_SYMBOLS: usize = 20;
/// Definitions read of a name the query writes as an identifier: each gets 1/k of the credit,
/// so past a few hundred a name is too common to point anywhere.
pub(super) const NAMED_SYMBOLS: i64 = 200;
/// Files read of a file name the query writes (`client.py`), each getting 1/k, likewise.
pub(super) const NAMED_FILES: i64 = 50;
/// Past commits whose files get credit ([`Scores::history`]): the few whose messages read most
/// like the query.
pub(super) const HISTORY_COMMITS: usize = 10;
/// A commit this many commits older than `HEAD` counts half in [`Scores::churn`]: recent change
/// predicts the next change best.
pub(super) const CHURN_HALF_LIFE: f64 = 50.0;
/// The newest commits read for [`Scores::churn`]: eight half-lives, older ones would weigh
/// under 0.4 % each.
pub(super) const CHURN_COMMITS: usize = 400;
/// Files that seed the personalised PageRank ([`Scores::graph`]): the best few, so the graph
/// spreads from the likely answer, not from every weak match.
pub(super) const SEEDS: usize = 8;
/// The personalised PageRank's chance to jump back to the seeds at each step: high, so credit
/// stays near the seeds (what they import or call, not the whole tree).
pub(super) const GRAPH_RESTART: f64 = 0.3;
/// Residual (per unit of out-weight) below which the personalised PageRank stops pushing: it
/// bounds the work to the seeds' neighbourhood.
pub(super) const GRAPH_EPSILON: f64 = 1e-5;

// BM25F: the weight of each column of the full-text tables ([`Scores::text`]).

/// A file's path: a word of the path names what the file is about.
pub(super) const W_FILE_PATH: f64 = 4.0;
/// A file's module docstring: it says what the file is for, in words a task uses.
pub(super) const W_FILE_DOC: f64 = 2.0;
/// A file's body: every word of the code, the weakest evidence per word.
pub(super) const W_FILE_BODY: f64 = 1.0;
/// A symbol's name: what a query names most often.
pub(super) const W_SYM_NAME: f64 = 6.0;
/// A symbol's context (its module path and enclosing names): where it is, less than what it is.
pub(super) const W_SYM_CONTEXT: f64 = 1.5;
/// A symbol's signature: its parameters' and types' names.
pub(super) const W_SYM_SIGNATURE: f64 = 1.5;
/// A symbol's docstring: what it does, in words a task uses.
pub(super) const W_SYM_DOC: f64 = 2.0;
/// A symbol's body (its own lines), in the second stage only: the words of what it does.
pub(super) const W_SYM_BODY: f64 = 1.0;
/// BM25's term-frequency saturation in the second stage: FTS5's, so both stages score alike.
pub(super) const BM25_K1: f64 = 1.2;
/// BM25's length normalisation in the second stage: FTS5's, so both stages score alike.
pub(super) const BM25_B: f64 = 0.75;
/// The least IDF of a term in the second stage: a term in most rows still counts a little, as
/// FTS5 keeps its IDF above 0.
pub(super) const BM25_MIN_IDF: f64 = 1e-6;
/// Files larger than this give their symbols without bodies: reading and cutting a
/// multi-megabyte generated file would cost more than the rest of the query.
pub(super) const MAX_BODY_FILE: i64 = 1 << 20;

// The blend of a file's score ([`file_total`]).

/// The file's own text (BM25F): the main evidence.
pub(super) const W_TEXT: f64 = 0.45;
/// The query's terms in the path, undiluted by the body's length.
pub(super) const W_PATH: f64 = 0.30;
/// The file's best symbols: a file is often found through what it defines.
pub(super) const W_SYMBOLS: f64 = 0.35;
/// An identifier of the query that the file defines or is named by: the surest evidence.
pub(super) const W_IDENT: f64 = 0.50;
/// What the best files import or call (personalised PageRank): the code a hit leads to.
pub(super) const W_GRAPH: f64 = 0.20;
/// The file's global PageRank: central code is more often what a task is about.
pub(super) const W_RANK: f64 = 0.30;
/// What similar past commits changed: a task reads like a commit message.
pub(super) const W_HISTORY: f64 = 0.30;
/// How often the file changed lately, whatever the query: a prior, weaker than evidence.
pub(super) const W_CHURN: f64 = 0.15;
/// The share of the query's terms the file holds anywhere ([`Scores::cover`]): a tie-breaker
/// against files that repeat one word.
pub(super) const W_COVER: f64 = 0.10;
/// Each further hit symbol of a file adds this much of its score to the file's best symbol's…
pub(super) const W_FURTHER_SYMBOL: f64 = 0.1;
/// …for at most this many further symbols: many weak hits do not make a strong file.
pub(super) const FURTHER_SYMBOLS: usize = 4;

// The blend of a symbol's score ([`symbol_total`]).

/// The symbol's own text (BM25F with its body): the main evidence.
pub(super) const W_SYMBOL_TEXT: f64 = 0.70;
/// The query names the symbol (capped at 1): sure, but shared by every symbol of that name.
pub(super) const W_SYMBOL_IDENT: f64 = 0.30;
/// Its file's text score: a symbol in a file about the query is likelier the answer.
pub(super) const W_SYMBOL_FILE_TEXT: f64 = 0.15;
/// The symbol's global PageRank: central code first among equals.
pub(super) const W_SYMBOL_RANK: f64 = 0.10;

// Priors: factors by what a file or symbol is ([`Scores::factor`]).

/// Tests, when the query is not about them: a task mostly changes the code, not its tests.
pub(super) const TEST_FACTOR: f64 = 0.3;
/// Tests, examples and docs when the query speaks of them: a task that adds a test or touches
/// the docs mostly changes the code they are about too, so the code keeps a little precedence.
pub(super) const ASKED_FACTOR: f64 = 0.8;
/// Stubs (`.pyi`, `.d.ts`), when the query is not about them: declarations, not the code.
pub(super) const STUB_FACTOR: f64 = 0.6;
/// Examples, docs and packaging scripts, when the query is not about them: not the project's
/// code proper.
pub(super) const EXAMPLE_FACTOR: f64 = 0.6;
/// Installed third-party code (under `site-packages/`, `dist-packages/`, `node_modules/`) when
/// the query names neither the package nor dependencies: like examples and stubs, code that is
/// not the project's own. The walk already leaves virtualenvs out; this is for a tree that
/// holds an installation anyway (a Python prefix, a vendored environment).
pub(super) const INSTALLED_FACTOR: f64 = 0.6;
/// An error type (`BadOptionError`, `HTTPException`) among the symbols, when the query speaks
/// of no error: its docstring describes the operation it fails in ("Raised if an invalid
/// option is seen on the command line"), so it matches the words of a query about that
/// operation as well as the code that does it, and is rarely what such a query asks for.
pub(super) const ERROR_TYPE_FACTOR: f64 = 0.7;
/// A private name (`_helper`, not `__init__`): a little less likely what a reader looks for.
pub(super) const PRIVATE_FACTOR: f64 = 0.95;

/// A file's [`Scores::symbols`] from its hit symbols' text scores, best first: the best plus a
/// little for each further one, at most 1.
pub(super) fn file_symbols(best_first: &[f64]) -> f64 {
    let rest: f64 = best_first.iter().skip(1).take(FURTHER_SYMBOLS).sum();
    (best_first[0] + W_FURTHER_SYMBOL * rest).min(1.0)
}

/// How strongly a file seeds the personalised PageRank: its direct evidence, blended.
pub(super) fn seed_weight(s: &Scores) -> f64 {
    W_TEXT * s.text + W_SYMBOLS * s.symbols + W_IDENT * s.ident + W_HISTORY * s.history
}

/// A file's score: the blend of its components, times its priors' factor.
pub(super) fn file_total(s: &Scores) -> f64 {
    (W_TEXT * s.text
        + W_PATH * s.path
        + W_SYMBOLS * s.symbols
        + W_IDENT * s.ident
        + W_GRAPH * s.graph
        + W_RANK * s.rank
        + W_HISTORY * s.history
        + W_CHURN * s.churn
        + W_COVER * s.cover)
        * s.factor
}

/// A symbol's score: the blend of its components, times its priors' factor.
pub(super) fn symbol_total(s: &Scores) -> f64 {
    (W_SYMBOL_TEXT * s.text
        + W_SYMBOL_IDENT * s.ident.min(1.0)
        + W_SYMBOL_FILE_TEXT * s.symbols
        + W_SYMBOL_RANK * s.rank)
        * s.factor
}
