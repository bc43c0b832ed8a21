//! The hits of a ranking: each ranked file or symbol read back as a [`Hit`], with what says
//! why a file was found (its best symbols, a past commit).

use cast_index::rows::{FileRow, SymbolRow};

use super::evidence::Evidence;
use super::priors::Priors;
use super::results::{Hit, HitKind, Scores};
use crate::Result;
use crate::reader::Reader;
use crate::test_code::is_test_symbol;

/// The best matching symbols a file hit names.
const MATCHES: usize = 3;

fn first_line(doc: &str) -> String {
    doc.lines().next().unwrap_or("").trim().to_owned()
}

impl Reader<'_> {
    fn file_row(&self, id: i64) -> Result<Option<FileRow>> {
        Ok(self.snap.file_row(id)?)
    }

    fn symbol_row(&self, id: i64) -> Result<Option<SymbolRow>> {
        Ok(self.snap.symbol_row(id)?)
    }

    /// The best `top` of the ranked `files` as hits.
    pub(super) fn file_hits(
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
            let matches = self.best_matches(*id, ev, priors)?;
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

    /// A file's best [`MATCHES`] symbols (`qualname:line`), to say why it was found. Its own
    /// tests (Rust's `mod tests`) count as little here as in the symbol ranking, or they would
    /// name the file by the tests that repeat the query's words rather than by the code they
    /// test.
    fn best_matches(&self, id: i64, ev: &Evidence, priors: &Priors) -> Result<Vec<String>> {
        let mut best: Vec<(f64, i64)> = ev
            .symbol_text
            .iter()
            .filter(|(s, _)| ev.symbol_file.get(s) == Some(&id))
            .map(|(s, v)| (*v + ev.symbol_ident.get(s).map_or(0.0, |x| x.1), *s))
            .chain(
                ev.symbol_ident
                    .iter()
                    .filter(|(s, (f, _))| *f == id && !ev.symbol_text.contains_key(s))
                    .map(|(s, (_, c))| (*c, *s)),
            )
            .collect();
        let file_roles = self.snap.file_roles()?.of(id);
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
        for (_, s) in best.iter().take(MATCHES) {
            if let Some(sym) = self.symbol_row(*s)? {
                matches.push(format!("{}:{}", sym.qualname, sym.start_line));
            }
        }
        Ok(matches)
    }

    /// The best `top` of the ranked symbols as hits.
    pub(super) fn symbol_hits(
        &self,
        ranked: &[(i64, Scores, String)],
        top: usize,
    ) -> Result<Vec<Hit>> {
        let mut out = Vec::new();
        for (id, scores, path) in ranked.iter().take(top) {
            let (id, scores, path) = (*id, *scores, path.clone());
            let Some(sym) = self.symbol_row(id)? else {
                continue;
            };
            out.push(Hit {
                kind: HitKind::Symbol,
                full_name: Some(cast_parser::modules::paths::full_name(&path, &sym.qualname)),
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
        }
        Ok(out)
    }
}
