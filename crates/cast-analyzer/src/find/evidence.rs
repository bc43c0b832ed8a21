//! What search reads from the index for a query: full-text matches of files and symbols, exact
//! identifiers, the candidates' bodies, similar past commits and churn, the graph around the
//! best files, and the query's terms in paths and in whole files.

use std::collections::HashMap;

use cast_index::{StoredFileGraph, TermTable};

use super::blend::{
    CANDIDATE_FILES, CANDIDATE_SYMBOLS, CHURN_COMMITS, CHURN_HALF_LIFE, GRAPH_EPSILON,
    GRAPH_RESTART, HISTORY_COMMITS, NAMED_FILES, NAMED_SYMBOLS, TEXT_LIMIT, W_FILE_BODY,
    W_FILE_DOC, W_FILE_PATH, W_IDENT, W_SYM_BODY, W_SYM_CONTEXT, W_SYM_DOC, W_SYM_NAME,
    W_SYM_SIGNATURE, W_TEXT,
};
use super::query::{Ident, query_identifiers};
use crate::Result;
use crate::reader::Reader;
use crate::scope::InScope;

/// What the text, identifier and history steps found, before the blend.
pub(super) struct Evidence {
    /// The query's terms with their IDF over files.
    pub(super) terms: Vec<(String, f64)>,
    pub(super) file_text: HashMap<i64, f64>,
    pub(super) symbol_text: HashMap<i64, f64>,
    /// symbol id → (file id, exact-identifier credit)
    pub(super) symbol_ident: HashMap<i64, (i64, f64)>,
    pub(super) file_ident: HashMap<i64, f64>,
    pub(super) symbol_file: HashMap<i64, i64>,
    /// file id → what similar past commits say of it.
    pub(super) history: HashMap<i64, PastChanges>,
    /// path → how often it changed lately ([`super::Scores::churn`]).
    pub(super) churn: HashMap<String, f64>,
}

/// The evidence of similar past commits for one file.
pub(super) struct PastChanges {
    /// The scores of the commits that changed the file, summed, divided by the query's best.
    pub(super) credit: f64,
    /// The subject of the best of them.
    pub(super) subject: String,
}

/// Exact-identifier credit: symbol id → (file id, credit), and file id → credit.
type IdentCredit = (HashMap<i64, (i64, f64)>, HashMap<i64, f64>);

/// The full-text matches: file id → score (the best 1), and the stored symbols' (id, score).
type TextMatches = (HashMap<i64, f64>, Vec<(i64, f64)>);

/// Which rows a search reads: every row, or (in a scope) those of its files and symbols.
#[derive(Clone, Copy)]
struct Within<'s> {
    scope: Option<&'s InScope>,
}

impl Within<'_> {
    /// How many rows to ask of a full-text table whose best `limit` are kept. In a scope, every
    /// match is read and those outside it dropped, so the scope keeps its own best `limit`
    /// (FTS5 scores every matching row either way).
    fn read(self, limit: usize) -> usize {
        if self.scope.is_some() {
            usize::MAX
        } else {
            limit
        }
    }

    /// The same for the exact names: a common one (`run`, `__init__`) may have its scope's
    /// definitions past the tree's first few hundred. (SQLite reads a negative LIMIT as none.)
    fn sql_limit(self, limit: i64) -> i64 {
        if self.scope.is_some() { -1 } else { limit }
    }

    fn file(self, id: i64) -> bool {
        self.scope.is_none_or(|s| s.files.contains(&id))
    }

    fn symbol(self, id: i64) -> bool {
        self.scope.is_none_or(|s| s.symbols.contains(&id))
    }

    /// The rows of a match that `keep` keeps, at most `limit` (all of them outside a scope:
    /// they were read with the limit).
    fn keep(
        self,
        rows: cast_index::Result<Vec<(i64, f64)>>,
        keep: impl Fn(i64) -> bool,
        limit: usize,
    ) -> cast_index::Result<Vec<(i64, f64)>> {
        rows.map(|rows| match self.scope {
            None => rows,
            Some(_) => rows
                .into_iter()
                .filter(|(id, _)| keep(*id))
                .take(limit)
                .collect(),
        })
    }
}

/// Divides by the best value, so the best is 1.
pub(super) fn normalise(rows: Vec<(i64, f64)>) -> HashMap<i64, f64> {
    let best = rows.iter().map(|(_, s)| *s).fold(0.0f64, f64::max);
    rows.into_iter()
        .map(|(id, s)| (id, if best > 0.0 { s / best } else { 0.0 }))
        .collect()
}

/// The IDF-weighted share of `terms` (with their IDF, summing to `idf_total`) in a file's
/// module path ([`super::Scores::path`] before it is divided by the query's best).
pub(super) fn path_share(terms: &[(String, f64)], idf_total: f64, path: &str) -> f64 {
    let module_path = cast_index::text::module_path(path);
    let mut in_path: Vec<String> = Vec::new();
    cast_index::text::terms(module_path, |t| in_path.push(t.to_owned()));
    if idf_total > 0.0 {
        // Folded from 0.0: an empty f64 sum is -0.0, which `--json` printed as `-0.0`.
        terms
            .iter()
            .filter(|(t, _)| in_path.contains(t))
            .fold(0.0, |acc, (_, w)| acc + w)
            / idf_total
    } else {
        0.0
    }
}

impl Reader<'_> {
    /// The evidence of the text, the identifiers, the bodies and the history for `query`, cut
    /// into `terms`, among the files of `in_scope` (all when `None`).
    pub(super) fn evidence(
        &self,
        query: &str,
        terms: &[String],
        in_scope: Option<&InScope>,
    ) -> Result<Evidence> {
        let within = Within { scope: in_scope };
        let (file_text, stored_symbols) = self.text_matches(terms, within)?;
        let (symbol_ident, file_ident) = self.identifier_evidence(query, within)?;
        // Second stage: every symbol of the candidate files, with its body.
        let candidates = self.candidate_files(&file_text, &file_ident, &stored_symbols)?;
        let (symbol_text, mut symbol_file) = self.body_evidence(&candidates, terms)?;
        for (id, (f, _)) in &symbol_ident {
            symbol_file.insert(*id, *f);
        }
        let history = self.history_evidence(terms, &|id| within.file(id), in_scope.is_some())?;
        let churn = self.churn()?;
        let terms = self.term_weights(terms)?;
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

    /// The full-text matches of the files (normalised) and the first stage of the symbols:
    /// name, context, signature and docstring, stored.
    fn text_matches(&self, terms: &[String], within: Within) -> Result<TextMatches> {
        // The files' match may run beside the symbols' (a query with every core to itself).
        let (file_text, stored_symbols) = self.snap.match_files_and_symbols(
            terms,
            (
                &[W_FILE_PATH, W_FILE_DOC, W_FILE_BODY],
                within.read(TEXT_LIMIT),
            ),
            (
                &[W_SYM_NAME, W_SYM_CONTEXT, W_SYM_SIGNATURE, W_SYM_DOC],
                within.read(CANDIDATE_SYMBOLS),
            ),
        );
        let file_text = within.keep(file_text, |id| within.file(id), TEXT_LIMIT);
        let stored_symbols = within.keep(stored_symbols, |id| within.symbol(id), CANDIDATE_SYMBOLS);
        let file_text = normalise(file_text?);
        let stored_symbols = stored_symbols?;
        Ok((file_text, stored_symbols))
    }

    /// The credit of the identifiers and file names the query writes: a symbol named so gets
    /// 1/k (k symbols fit the name), its file its share of the files defining it; a file named
    /// so gets 1/k of the files of that name.
    fn identifier_evidence(&self, query: &str, within: Within) -> Result<IdentCredit> {
        let mut symbol_ident: HashMap<i64, (i64, f64)> = HashMap::new();
        let mut file_ident: HashMap<i64, f64> = HashMap::new();
        for ident in &query_identifiers(query) {
            match ident {
                Ident::Name { name, dotted } => {
                    let fitting = self.symbols_fitting(name, dotted.as_deref(), within)?;
                    if fitting.is_empty() {
                        continue;
                    }
                    let k = fitting.len() as f64;
                    let mut defining: Vec<i64> = fitting.iter().map(|(_, f)| *f).collect();
                    defining.sort_unstable();
                    defining.dedup();
                    // A file's credit is its share of the files defining the name, however
                    // many times it defines it (a stub's overloads are one answer, not four).
                    let per_file = 1.0 / defining.len() as f64;
                    for f in defining {
                        *file_ident.entry(f).or_default() += per_file;
                    }
                    for (id, file) in fitting {
                        let e = symbol_ident.entry(id).or_insert((file, 0.0));
                        e.1 += 1.0 / k;
                    }
                }
                Ident::File(name) => {
                    let name = name.trim_start_matches("./");
                    let named: Vec<(i64, String)> = self
                        .snap
                        .files_named(name, within.sql_limit(NAMED_FILES))?
                        .into_iter()
                        .filter(|(id, _)| within.file(*id))
                        .collect();
                    let k = named.len() as f64;
                    for (id, _) in named {
                        *file_ident.entry(id).or_default() += 1.0 / k;
                    }
                }
            }
        }
        Ok((symbol_ident, file_ident))
    }

    /// The symbols named `name` (as `(symbol id, file id)`): with a qualifier (`Session.send`),
    /// those whose qualified name ends so, when any does.
    fn symbols_fitting(
        &self,
        name: &str,
        dotted: Option<&str>,
        within: Within,
    ) -> Result<Vec<(i64, i64)>> {
        let found: Vec<(i64, i64, String)> = self
            .snap
            .symbols_named(name, within.sql_limit(NAMED_SYMBOLS))?
            .into_iter()
            .filter(|s| within.file(s.file))
            .map(|s| (s.id, s.file, s.qualname))
            .collect();
        let fitting: Vec<&(i64, i64, String)> = match dotted {
            Some(q) => {
                let tail = format!("{q}.{name}");
                let exact: Vec<_> = found
                    .iter()
                    .filter(|(_, _, qn)| qn.ends_with(&tail) || tail.ends_with(qn.as_str()))
                    .collect();
                if exact.is_empty() {
                    found.iter().collect()
                } else {
                    exact
                }
            }
            None => found.iter().collect(),
        };
        Ok(fitting.iter().map(|(id, file, _)| (*id, *file)).collect())
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

    /// The second stage: every symbol of the `candidates` scored with its body (normalised),
    /// and the file of each.
    fn body_evidence(
        &self,
        candidates: &[i64],
        terms: &[String],
    ) -> Result<(HashMap<i64, f64>, HashMap<i64, i64>)> {
        let with_bodies = self.score_candidate_symbols(
            candidates,
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
        let symbol_file: HashMap<i64, i64> = with_bodies
            .iter()
            .map(|&(id, file, _)| (id, file))
            .collect();
        let symbol_text = normalise(
            with_bodies
                .into_iter()
                .map(|(id, _, score)| (id, score))
                .collect(),
        );
        Ok((symbol_text, symbol_file))
    }

    /// Each of the query's terms with its IDF over the files.
    fn term_weights(&self, terms: &[String]) -> Result<Vec<(String, f64)>> {
        let (df, n) = self.snap.doc_freqs(TermTable::Files, terms)?;
        Ok(terms
            .iter()
            .map(|t| {
                let d = df.get(t).copied().unwrap_or(0) as f64;
                (t.clone(), (1.0 + (n as f64 - d + 0.5) / (d + 0.5)).ln())
            })
            .collect())
    }

    /// Every file the newest [`CHURN_COMMITS`] commits changed, with its
    /// [`super::Scores::churn`].
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

    /// The graph step: personalised PageRank over the file graph from `seeds` (file id, weight),
    /// as it flows on to other files of the scope, divided by the best.
    pub(super) fn graph_evidence(
        &self,
        seeds: &[(i64, f64)],
        in_scope: Option<&InScope>,
    ) -> Result<HashMap<i64, f64>> {
        let graph = self.snap.file_graph()?;
        let Some(StoredFileGraph {
            ids,
            pos,
            adjacency,
        }) = graph.as_ref()
        else {
            return Ok(HashMap::new());
        };
        let seed_pos: Vec<(u32, f64)> = seeds
            .iter()
            .filter_map(|(f, w)| pos.get(*f).map(|p| (p, *w)))
            .collect();
        let ppr = cast_index::graph::rank::personalized_page_rank(
            adjacency,
            &seed_pos,
            GRAPH_RESTART,
            GRAPH_EPSILON,
        );
        // A seed keeps most of its own mass; what counts is what flows on to others, inside
        // the scope (normalised among its files).
        let flowed: Vec<(i64, f64)> = ppr
            .into_iter()
            .filter(|(p, _)| !seed_pos.iter().any(|(s, _)| s == p))
            .map(|(p, v)| (ids[p as usize], v))
            .filter(|(f, _)| in_scope.is_none_or(|scope| scope.files.contains(f)))
            .collect();
        Ok(normalise(flowed))
    }

    /// Coverage ([`super::Scores::cover`]): the IDF-weighted share of the query's terms each
    /// text-matched file holds anywhere, divided by the best.
    pub(super) fn cover_evidence(&self, ev: &Evidence) -> Result<HashMap<i64, f64>> {
        let mut cover: HashMap<i64, f64> = HashMap::new();
        for (t, w) in &ev.terms {
            for id in self.snap.rows_with_term(TermTable::Files, t)? {
                if ev.file_text.contains_key(&id) {
                    *cover.entry(id).or_default() += w;
                }
            }
        }
        let best = cover.values().fold(0.0f64, |a, b| a.max(*b));
        if best > 0.0 {
            for c in cover.values_mut() {
                *c /= best;
            }
        } else {
            cover.clear();
        }
        Ok(cover)
    }
}
