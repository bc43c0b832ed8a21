//! The second stage of search: the symbols of a query's candidate files, scored with their
//! bodies.
//!
//! The stored index holds a symbol's name, context, signature and docstring, but not the words of
//! its body: indexing every body (a third of the text index's build and most of a query's time
//! on a large tree, measured) is not needed to find *where* to look — a file's body words are
//! indexed with the file. Once the first stage has picked the candidate files, their symbols are
//! cut from the files' current text (the index was refreshed before the query) and ranked with
//! their bodies by the same BM25F as the stored table plus a body column.
//!
//! The scoring is done here rather than by an in-memory FTS5 table of the candidates (the
//! first version): a few thousand rows per query, each already cut into terms, cost more to
//! insert into FTS5 than to score. Both gave the same ranking on the benchmark's 40 queries;
//! this way a query on the standard library is 20 ms faster. A file that cannot be read now, or
//! is larger than [`MAX_BODY_FILE`], gives its symbols without bodies.

use std::collections::HashMap;

use cast_parser::SourceText;

use crate::index::Index;
use crate::store::{self, TermTable};
use crate::text;

/// Files larger than this give their symbols without bodies (reading and cutting a
/// multi-megabyte generated file would cost more than the rest of the query).
pub const MAX_BODY_FILE: i64 = 1 << 20;

/// BM25's saturation and length normalisation, FTS5's defaults.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// One candidate symbol: its id, its file, and its fields as terms (name, context, signature,
/// docstring, body).
type Row = (i64, i64, [String; 5]);

/// BM25F of each row against `terms`, as FTS5's `bm25()` computes it — the column-weighted
/// term frequencies summed before saturation, the row's length over the average row's — with
/// the IDF `idf(term, rows holding it, rows)` gives. Each row's words are read once. Rows
/// matching no term are left out; each result is `(id, file, score)`.
fn bm25f(
    rows: &[Row],
    terms: &[String],
    weights: &[f64],
    idf: impl Fn(&str, usize, usize) -> f64,
) -> Vec<(i64, i64, f64)> {
    let place: HashMap<&str, usize> = terms
        .iter()
        .enumerate()
        .map(|(k, t)| (t.as_str(), k))
        .collect();
    // One pass: each row's length and weighted term frequencies, and in how many rows each
    // term occurs.
    let mut held = vec![0usize; terms.len()];
    let counted: Vec<(usize, Vec<f64>)> = rows
        .iter()
        .map(|(_, _, cols)| {
            let mut len = 0;
            let mut tf = vec![0.0f64; terms.len()];
            for (col, weight) in cols.iter().zip(weights) {
                for word in col.split(' ').filter(|w| !w.is_empty()) {
                    len += 1;
                    if let Some(&k) = place.get(word) {
                        tf[k] += weight;
                    }
                }
            }
            for (k, f) in tf.iter().enumerate() {
                if *f > 0.0 {
                    held[k] += 1;
                }
            }
            (len, tf)
        })
        .collect();
    let idfs: Vec<f64> = terms
        .iter()
        .zip(&held)
        .map(|(t, &d)| idf(t, d, rows.len()))
        .collect();
    let average = (counted.iter().map(|(len, _)| len).sum::<usize>() as f64
        / rows.len().max(1) as f64)
        .max(1.0);
    let mut out = Vec::new();
    for ((id, file, _), (len, tf)) in rows.iter().zip(&counted) {
        let norm = K1 * (1.0 - B + B * *len as f64 / average);
        let score: f64 = tf
            .iter()
            .zip(&idfs)
            .filter(|(f, _)| **f > 0.0)
            .map(|(f, idf)| idf * f * (K1 + 1.0) / (f + norm))
            .sum();
        if score > 0.0 {
            out.push((*id, *file, score));
        }
    }
    out
}

/// One stored definition of a candidate file.
struct StoredSymbol {
    id: i64,
    name: String,
    qualname: String,
    signature: String,
    docstring: Option<String>,
    start_byte: usize,
    end_byte: usize,
    parent_id: Option<i64>,
}

impl Index {
    /// BM25F of every symbol of `files` against `terms`, with the weights given in the
    /// columns' order (name, context, signature, docstring, body); at most `limit`, best first,
    /// each as `(symbol id, file id, score)`.
    pub(crate) fn score_candidate_symbols(
        &self,
        files: &[i64],
        terms: &[String],
        weights: &[f64],
        limit: usize,
    ) -> rusqlite::Result<Vec<(i64, i64, f64)>> {
        let rows = self.candidate_rows(files)?;
        // The IDF is the geometric mean of the candidates' own (as an FTS5 table of them would
        // give it) and the stored symbol table's (names, context, signatures, docstrings of every
        // symbol; a term found in bodies only counts as absent there, i.e. rare). Measured on
        // the 40 stdlib queries: the candidates' alone 31/40 in the top 5 (25 with
        // site-packages); the symbol table's alone 32 (24); their mean 33 (24); this 33 (25).
        // The file table's IDF ranked worse (hit@1 17 of 40 instead of 19).
        let (stored, symbols) = store::doc_freqs(&self.conn, TermTable::Symbols, terms)?;
        let idf = |d: f64, n: f64| ((n - d + 0.5) / (d + 0.5)).ln().max(1e-6);
        let mut scored = bm25f(&rows, terms, weights, |term, held, n| {
            let local = idf(held as f64, n as f64);
            let global = idf(
                stored.get(term).copied().unwrap_or(0) as f64,
                symbols as f64,
            );
            (local * global).sqrt()
        });
        scored.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        Ok(scored)
    }

    /// Every symbol of `files` with its file and its fields as terms.
    fn candidate_rows(&self, files: &[i64]) -> rusqlite::Result<Vec<Row>> {
        let mut out = Vec::new();
        let mut file_stmt = self
            .conn
            .prepare_cached("SELECT path, size FROM files WHERE id = ?1")?;
        let mut sym_stmt = self.conn.prepare_cached(
            "SELECT id, name, qualname, signature, docstring, start_byte, end_byte, parent_id
             FROM symbols WHERE file_id = ?1 ORDER BY ord",
        )?;
        for &file in files {
            let Some((path, size)) = file_stmt
                .query_row([file], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })
                .ok()
            else {
                continue;
            };
            let symbols: Vec<StoredSymbol> = sym_stmt
                .query_map([file], |r| {
                    Ok(StoredSymbol {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        qualname: r.get(2)?,
                        signature: r.get(3)?,
                        docstring: r.get(4)?,
                        start_byte: r.get::<_, i64>(5)?.max(0) as usize,
                        end_byte: r.get::<_, i64>(6)?.max(0) as usize,
                        parent_id: r.get(7)?,
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
            if symbols.is_empty() {
                continue;
            }
            let mut bodies = if size <= MAX_BODY_FILE {
                self.current_text(&path)
                    .map(|text| {
                        let place: HashMap<i64, usize> =
                            symbols.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
                        let spans: Vec<(usize, usize, Option<usize>)> = symbols
                            .iter()
                            .map(|s| {
                                let parent = s.parent_id.and_then(|p| place.get(&p).copied());
                                (s.start_byte, s.end_byte, parent)
                            })
                            .collect();
                        text::own_bodies(&text, &spans)
                    })
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let context_path = text::terms_string(text::module_path(&path));
            bodies.resize(symbols.len(), String::new());
            for (s, body) in symbols.iter().zip(bodies) {
                let fields = text::symbol_terms(
                    &context_path,
                    &s.name,
                    &s.qualname,
                    &s.signature,
                    s.docstring.as_deref(),
                );
                out.push((
                    s.id,
                    file,
                    [
                        fields.name,
                        fields.context,
                        fields.signature,
                        fields.doc,
                        body,
                    ],
                ));
            }
        }
        Ok(out)
    }

    /// The text of an indexed file as the parser read it, or `None` when it cannot be read.
    fn current_text(&self, rel: &str) -> Option<String> {
        let path = self.root.join(rel);
        let bytes = std::fs::read(&path).ok()?;
        SourceText::from_bytes(&path, bytes).ok().map(|s| s.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64, name: &str, body: &str) -> Row {
        (
            id,
            0,
            [
                name.into(),
                String::new(),
                String::new(),
                String::new(),
                body.into(),
            ],
        )
    }

    #[test]
    fn bm25f_weighs_columns_rarity_and_length() {
        let terms = vec!["charg".to_owned(), "card".to_owned()];
        let weights = [6.0, 1.5, 1.5, 2.0, 1.0];
        let rows = vec![
            row(1, "charg card", ""),
            row(2, "settl", "charg card"),
            row(
                3,
                "settl",
                "charg card and a great many other word in a long body",
            ),
            row(4, "noise", "nothing here"),
        ];
        let scores: HashMap<i64, f64> = bm25f(&rows, &terms, &weights, |_, _, _| 1.0)
            .into_iter()
            .map(|(id, _, s)| (id, s))
            .collect();
        assert!(scores[&1] > scores[&2], "{scores:?}"); // the name weighs more than the body
        assert!(scores[&2] > scores[&3], "{scores:?}"); // a longer row, the same words: less
        assert!(!scores.contains_key(&4)); // no term: left out
        // A rarer term counts more.
        let only_card: HashMap<i64, f64> =
            bm25f(
                &rows,
                &terms,
                &weights,
                |t, _, _| {
                    if t == "card" { 5.0 } else { 0.1 }
                },
            )
            .into_iter()
            .map(|(id, _, s)| (id, s))
            .collect();
        assert!(only_card[&1] > 2.0 * scores[&1]);
    }
}
