//! The ranking: each candidate file's and symbol's evidence gathered into its [`Scores`],
//! weighed by the blend ([`super::blend`]) and its priors, best first.

use std::collections::{BTreeSet, HashMap};

use cast_index::RankedTable;

use super::blend::{self, SEEDS};
use super::evidence::{Evidence, path_share};
use super::priors::Priors;
use super::results::Scores;
use crate::Result;
use crate::reader::Reader;
use crate::scope::InScope;

/// The components of each file that has evidence of its own: its symbols, text, identifiers
/// and history.
fn direct_scores(ev: &Evidence) -> HashMap<i64, Scores> {
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
        scores.entry(f).or_default().symbols = blend::file_symbols(&list);
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
    scores
}

/// The best [`SEEDS`] files so far, with their weight, to seed the personalised PageRank.
fn seeds(scores: &HashMap<i64, Scores>) -> Vec<(i64, f64)> {
    let mut seeds: Vec<(i64, f64)> = scores
        .iter()
        .map(|(f, s)| (*f, blend::seed_weight(s)))
        .collect();
    seeds.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    seeds.truncate(SEEDS);
    seeds
}

impl Reader<'_> {
    /// Every candidate file with its score components, best first.
    pub(super) fn rank_files(
        &self,
        ev: &Evidence,
        priors: &Priors,
        in_scope: Option<&InScope>,
    ) -> Result<Vec<(i64, Scores)>> {
        let file_roles = self.snap.file_roles()?;
        let mut scores = direct_scores(ev);
        // Personalised PageRank from the best files so far.
        for (f, g) in self.graph_evidence(&seeds(&scores), in_scope)? {
            scores.entry(f).or_default().graph = g;
        }
        let cover = self.cover_evidence(ev)?;
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
            s.path = path_share(&ev.terms, idf_total, &path);
            s.rank = ranks.score(f);
            s.churn = ev.churn.get(&path).copied().unwrap_or(0.0);
            s.cover = cover.get(&f).copied().unwrap_or(0.0);
            s.factor = priors.of_file(&path, file_roles.of(f));
            out.push((f, s, path));
        }
        let best_path = out.iter().map(|(_, s, _)| s.path).fold(0.0f64, f64::max);
        for (_, s, _) in &mut out {
            if best_path > 0.0 {
                s.path /= best_path;
            }
            s.total = blend::file_total(s);
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

    /// Every candidate symbol with its score components and path, best first.
    pub(super) fn rank_symbols(
        &self,
        ev: &Evidence,
        priors: &Priors,
    ) -> Result<Vec<(i64, Scores, String)>> {
        let ranks = self.stored_ranks(RankedTable::Symbols)?;
        let file_roles = self.snap.file_roles()?;
        let mut cands: Vec<(i64, Scores, String)> = Vec::new();
        let ids: BTreeSet<i64> = ev
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
            s.total = blend::symbol_total(&s);
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
}
