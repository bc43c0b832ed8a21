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
//! this way a query on the standard library is 20 ms faster. Nor are the columns written out as
//! strings of terms to be split again: each symbol is counted as it is cut (its length and each
//! query term's weighted frequency are all BM25F reads), and a file's body terms are numbered
//! once so a symbol's distinct terms need no set of their own (the same scores, 9 ms less per
//! query on the standard library with site-packages). A file that cannot be read now, or is
//! larger than [`MAX_BODY_FILE`], gives its symbols without bodies.
//!
//! **Why a BM25F of its own beside FTS5's.** The first stage and the history are scored by
//! FTS5's `bm25()` in SQL. This stage cannot be: no stored table holds the bodies, and FTS5
//! takes a term's IDF and the average row length from the table it runs on only, while here the
//! IDF is the geometric mean of the candidates' own and the stored symbol table's (see
//! [`Reader::score_candidate_symbols`]; an FTS5 table of the candidates, with their IDF alone,
//! put 31 of the 40 stdlib queries' answers in the top 5 where this puts 33). Nor would this
//! scorer serve the first stage: it would read every matching row's terms back out of the
//! index, which FTS5 scores where they are stored, and no longer be FTS5's to the last bit.
//! Unifying either way changes the ranking, so there are two; this one follows FTS5's formula
//! (the column-weighted frequencies summed before saturation, [`BM25_K1`] and [`BM25_B`] as
//! FTS5's defaults, the length over all columns), so the two differ only in the IDF and the
//! rows they are computed over.

use std::path::Path;

use cast_parser::SourceText;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::blend::{BM25_B, BM25_K1, BM25_MIN_IDF, MAX_BODY_FILE};
use crate::Result;
use crate::reader::Reader;
use cast_index::rows::StoredSymbol;
use cast_index::{TermTable, text};

/// The columns of a candidate, in order: the stored table's four, then the body.
const COLUMNS: usize = 5;
const BODY: usize = 4;

/// The query as the counting meets it: each term's place among the query's terms, and the
/// weight of each column.
struct Query<'q> {
    place: FxHashMap<&'q str, usize>,
    weights: [f64; COLUMNS],
}

impl<'q> Query<'q> {
    fn new(terms: &'q [String], weights: [f64; COLUMNS]) -> Self {
        Query {
            place: terms
                .iter()
                .enumerate()
                .map(|(k, t)| (t.as_str(), k))
                .collect(),
            weights,
        }
    }

    fn terms(&self) -> usize {
        self.place.len()
    }
}

/// One candidate symbol counted against the query: its length in terms over all columns, and
/// each query term's column-weighted frequency (what FTS5's `bm25()` reads of a row).
#[derive(Debug, Clone, PartialEq)]
struct Counted {
    id: i64,
    file: i64,
    len: usize,
    tf: Vec<f64>,
}

impl Counted {
    fn new(id: i64, file: i64, q: &Query) -> Self {
        Counted {
            id,
            file,
            len: 0,
            tf: vec![0.0; q.terms()],
        }
    }

    /// One term of column `col`.
    fn term(&mut self, q: &Query, col: usize, place: Option<usize>) {
        self.len += 1;
        if let Some(k) = place {
            self.tf[k] += q.weights[col];
        }
    }

    /// Every term of `text`, in column `col`.
    fn field(&mut self, q: &Query, col: usize, text: &str) {
        text::terms(text, |t| self.term(q, col, q.place.get(t).copied()));
    }

    /// Every term of the name `name`, then the stored terms of the words it runs together
    /// (`symbols.name_split`, already cut: [`text::name_split_terms`]).
    fn name(&mut self, q: &Query, name: &str, split: Option<&str>) {
        self.field(q, 0, name);
        for t in split.unwrap_or("").split(' ').filter(|t| !t.is_empty()) {
            self.term(q, 0, q.place.get(t).copied());
        }
    }
}

/// The distinct terms of one file's own bodies, numbered as they are met, so each symbol's
/// distinct terms are counted by a stamp per term rather than a set built per symbol (the body
/// column holds each term once, as [`text::bag_string`] with a cap of 1 would).
///
/// A body is cut token by token (a run of letters, digits and `_`: [`text::for_each_token`]),
/// and the terms of each token are kept by the token's text: code writes the same names over and
/// over (`self`, `return`, a file's own identifiers), and a token met again is not cut again.
/// The terms of a text are the terms of its tokens, so this counts what [`text::terms`] of the
/// whole body would.
#[derive(Default)]
struct BodyTerms<'t> {
    number: FxHashMap<Box<str>, u32>,
    /// Per term: the last symbol (stamp) that counted it, and its place in the query.
    seen: Vec<(u32, Option<usize>)>,
    /// Per token met: where its term numbers are in `token_terms`.
    tokens: FxHashMap<&'t str, (u32, u32)>,
    token_terms: Vec<u32>,
}

impl<'t> BodyTerms<'t> {
    /// Counts the distinct terms of `pieces` (one symbol's own lines) into `row`; `stamp` is
    /// unique to the symbol within the file and never 0.
    fn count(&mut self, q: &Query, row: &mut Counted, stamp: u32, pieces: &[&'t str]) {
        for piece in pieces {
            text::for_each_token(piece, |token: &'t str| {
                let (from, to) = match self.tokens.get(token) {
                    Some(&range) => range,
                    None => self.cut(q, token),
                };
                for k in from..to {
                    let n = self.token_terms[k as usize] as usize;
                    let (last, place) = &mut self.seen[n];
                    if *last != stamp {
                        *last = stamp;
                        row.term(q, BODY, *place);
                    }
                }
            });
        }
    }

    /// Cuts a token met for the first time into its terms, numbering the new ones.
    fn cut(&mut self, q: &Query, token: &'t str) -> (u32, u32) {
        let from = self.token_terms.len() as u32;
        text::terms(token, |t| {
            if t.len() > text::MAX_BAG_TERM {
                return;
            }
            let n = match self.number.get(t) {
                Some(&n) => n,
                None => {
                    let n = self.seen.len() as u32;
                    self.number.insert(t.into(), n);
                    self.seen.push((0, q.place.get(t).copied()));
                    n
                }
            };
            self.token_terms.push(n);
        });
        let range = (from, self.token_terms.len() as u32);
        self.tokens.insert(token, range);
        range
    }
}

/// BM25F of each row, as FTS5's `bm25()` computes it — the column-weighted term frequencies
/// summed before saturation, the row's length over the average row's — with the IDF that
/// `idf(term's place, rows holding it, rows)` gives. Rows matching no term are left out; each
/// result is `(id, file, score)`.
fn bm25f(
    rows: &[Counted],
    terms: usize,
    idf: impl Fn(usize, usize, usize) -> f64,
) -> Vec<(i64, i64, f64)> {
    let mut held = vec![0usize; terms];
    for row in rows {
        for (k, f) in row.tf.iter().enumerate() {
            if *f > 0.0 {
                held[k] += 1;
            }
        }
    }
    let idfs: Vec<f64> = held
        .iter()
        .enumerate()
        .map(|(k, &d)| idf(k, d, rows.len()))
        .collect();
    let average =
        (rows.iter().map(|r| r.len).sum::<usize>() as f64 / rows.len().max(1) as f64).max(1.0);
    let mut out = Vec::new();
    for row in rows {
        let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * row.len as f64 / average);
        let score: f64 = row
            .tf
            .iter()
            .zip(&idfs)
            .filter(|(f, _)| **f > 0.0)
            .map(|(f, idf)| idf * f * (BM25_K1 + 1.0) / (f + norm))
            .sum();
        if score > 0.0 {
            out.push((row.id, row.file, score));
        }
    }
    out
}

impl Reader<'_> {
    /// BM25F of every symbol of `files` against `terms`, with the weights given in the
    /// columns' order (name, context, signature, docstring, body); at most `limit`, best first,
    /// each as `(symbol id, file id, score)`.
    pub(crate) fn score_candidate_symbols(
        &self,
        files: &[i64],
        terms: &[String],
        weights: [f64; COLUMNS],
        limit: usize,
    ) -> Result<Vec<(i64, i64, f64)>> {
        let query = Query::new(terms, weights);
        let rows = self.count_candidates(files, &query)?;
        // The IDF is the geometric mean of the candidates' own (as an FTS5 table of them would
        // give it) and the stored symbol table's (names, context, signatures, docstrings of every
        // symbol; a term found in bodies only counts as absent there, i.e. rare). Measured on
        // the 40 stdlib queries: the candidates' alone 31/40 in the top 5 (25 with
        // site-packages); the symbol table's alone 32 (24); their mean 33 (24); this 33 (25).
        // The file table's IDF ranked worse (hit@1 17 of 40 instead of 19).
        let (stored, symbols) = self.snap.doc_freqs(TermTable::Symbols, terms)?;
        let idf = |d: f64, n: f64| ((n - d + 0.5) / (d + 0.5)).ln().max(BM25_MIN_IDF);
        let mut scored = bm25f(&rows, query.terms(), |k, held, n| {
            let local = idf(held as f64, n as f64);
            let global = idf(
                terms
                    .get(k)
                    .and_then(|t| stored.get(t))
                    .copied()
                    .unwrap_or(0) as f64,
                symbols as f64,
            );
            (local * global).sqrt()
        });
        scored.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)));
        scored.truncate(limit);
        Ok(scored)
    }

    /// Every symbol of `files`, counted against the query: its stored fields, the module path
    /// of its file as context, and its own lines as the file reads now. The stored rows are read
    /// on this thread (one connection); when the query has every core to itself (a kept index,
    /// [`cast_index::Index::answer_many`], or one query with no check beside it), the files are read and
    /// cut on all cores (the cutting is most of the work).
    fn count_candidates(&self, files: &[i64], query: &Query) -> Result<Vec<Counted>> {
        let mut stored: Vec<(i64, String, i64, Vec<StoredSymbol>)> = Vec::new();
        for &file in files {
            // A file gone from the table since the candidates were picked gives nothing.
            let Some((path, size)) = self.snap.file_path_and_size(file)? else {
                continue;
            };
            let symbols = self.snap.stored_symbols(file)?;
            if !symbols.is_empty() {
                stored.push((file, path, size, symbols));
            }
        }
        let root = self.snap.root();
        let count = |(file, path, size, symbols): &(i64, String, i64, Vec<StoredSymbol>)| {
            count_file(root, *file, path, *size, symbols, query)
        };
        // A one-query process runs the check on its second core: there, tasks on both cores
        // only made the query wait (measured 5 ms slower).
        let counted: Vec<Vec<Counted>> = if self.snap.all_cores() {
            stored.par_iter().map(count).collect()
        } else {
            stored.iter().map(count).collect()
        };
        Ok(counted.into_iter().flatten().collect())
    }
}

/// The symbols of one candidate file, counted (see [`Reader::count_candidates`]).
fn count_file(
    root: &Path,
    file: i64,
    path: &str,
    size: i64,
    symbols: &[StoredSymbol],
    query: &Query,
) -> Vec<Counted> {
    let text = if size <= MAX_BODY_FILE {
        current_text(root, path)
    } else {
        None
    };
    let pieces = text.as_deref().map_or_else(Vec::new, |text| {
        let place: FxHashMap<i64, usize> =
            symbols.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
        let spans: Vec<(usize, usize, Option<usize>)> = symbols
            .iter()
            .map(|s| {
                let parent = s.parent_id.and_then(|p| place.get(&p).copied());
                (s.start_byte, s.end_byte, parent)
            })
            .collect();
        text::own_pieces(text, &spans)
    });
    // The module path opens every symbol's context: its terms are cut once per file.
    let mut module_path: Vec<Option<usize>> = Vec::new();
    text::terms(text::module_path(path), |t| {
        module_path.push(query.place.get(t).copied())
    });
    let mut bodies = BodyTerms::default();
    let mut out = Vec::with_capacity(symbols.len());
    for (i, s) in symbols.iter().enumerate() {
        let [name, context, signature, doc] =
            text::symbol_field_texts(&s.name, &s.qualname, &s.signature, s.docstring.as_deref());
        let mut row = Counted::new(s.id, file, query);
        row.name(query, name, s.name_split.as_deref());
        for &place in &module_path {
            row.term(query, 1, place);
        }
        row.field(query, 1, context);
        row.field(query, 2, signature);
        row.field(query, 3, doc);
        if let Some(own) = pieces.get(i) {
            bodies.count(query, &mut row, i as u32 + 1, own);
        }
        out.push(row);
    }
    out
}

/// The text of an indexed file as the parser read it, or `None` when it cannot be read.
fn current_text(root: &Path, rel: &str) -> Option<String> {
    let path = root.join(rel);
    let bytes = std::fs::read(&path).ok()?;
    SourceText::from_bytes(&path, bytes).ok().map(|s| s.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A row counted from columns already cut into space-separated terms.
    fn row(q: &Query, id: i64, columns: [&str; COLUMNS]) -> Counted {
        let mut r = Counted::new(id, 0, q);
        for (col, text) in columns.iter().enumerate() {
            for word in text.split(' ').filter(|w| !w.is_empty()) {
                r.term(q, col, q.place.get(word).copied());
            }
        }
        r
    }

    #[test]
    fn bm25f_weighs_columns_rarity_and_length() {
        let terms = vec!["charg".to_owned(), "card".to_owned()];
        let q = Query::new(&terms, [6.0, 1.5, 1.5, 2.0, 1.0]);
        let rows = vec![
            row(&q, 1, ["charg card", "", "", "", ""]),
            row(&q, 2, ["settl", "", "", "", "charg card"]),
            row(
                &q,
                3,
                [
                    "settl",
                    "",
                    "",
                    "",
                    "charg card and a great many other word in a long body",
                ],
            ),
            row(&q, 4, ["noise", "", "", "", "nothing here"]),
        ];
        let scores: HashMap<i64, f64> = bm25f(&rows, q.terms(), |_, _, _| 1.0)
            .into_iter()
            .map(|(id, _, s)| (id, s))
            .collect();
        assert!(scores[&1] > scores[&2], "{scores:?}"); // the name weighs more than the body
        assert!(scores[&2] > scores[&3], "{scores:?}"); // a longer row, the same words: less
        assert!(!scores.contains_key(&4)); // no term: left out
        // A rarer term counts more.
        let only_card: HashMap<i64, f64> =
            bm25f(&rows, q.terms(), |k, _, _| if k == 1 { 5.0 } else { 0.1 })
                .into_iter()
                .map(|(id, _, s)| (id, s))
                .collect();
        assert!(only_card[&1] > 2.0 * scores[&1]);
    }

    /// The counting reads a symbol exactly as the columns written out as terms would: the
    /// stored fields, the module path before the context, and the distinct terms of the own
    /// lines (each once, long ones left out).
    #[test]
    fn counting_equals_the_columns_written_out() {
        let text = "class HTTPClient:\n    \"\"\"Sends a request.\"\"\"\n    retries = 3\n    \
                    def sendrequest(self, url):\n        send(url); send(url)\n        \
                    café_naïve = parse_header(url)\n        \
                    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = 1\n    \
                    timeout = 5\n";
        let send_at = text.find("    def sendrequest").unwrap();
        let send_end = text.find("    timeout").unwrap();
        let spans = [(0, text.len(), None), (send_at, send_end, Some(0))];
        let pieces = text::own_pieces(text, &spans);
        let symbols = [
            (
                "HTTPClient",
                "HTTPClient",
                "class HTTPClient",
                Some("Sends a request."),
            ),
            (
                "sendrequest",
                "HTTPClient.sendrequest",
                "def sendrequest(self, url)",
                None,
            ),
        ];
        let path = "pkg/http/client_lib.py";
        let terms: Vec<String> = [
            "send",
            "request",
            "http",
            "client",
            "header",
            "parseheader",
            "naïv",
            "retri",
            "lib",
        ]
        .iter()
        .map(|t| t.to_string())
        .collect();
        let q = Query::new(&terms, [6.0, 1.5, 1.5, 2.0, 1.0]);
        // One numbering for the file, as in the query: the second symbol meets terms the first
        // numbered, and must count them again.
        let mut bodies = BodyTerms::default();
        let words = text::FileWords::of(text);
        for (i, (name, qualname, signature, doc)) in symbols.into_iter().enumerate() {
            let stored = text::symbol_terms(name, qualname, signature, doc, &words);
            if name == "sendrequest" {
                // The file writes `send` and `request` on their own.
                assert_eq!(stored.name, "sendrequest send request");
            }
            let context = format!(
                "{} {}",
                text::terms_string(text::module_path(path)),
                stored.context
            );
            let body = text::bag_string(&pieces[i].join("\n"), 1);
            let expected = row(
                &q,
                7,
                [
                    &stored.name,
                    &context,
                    &stored.signature,
                    &stored.doc,
                    &body,
                ],
            );
            let mut counted = Counted::new(7, 0, &q);
            let [n, c, s, d] = text::symbol_field_texts(name, qualname, signature, doc);
            counted.name(&q, n, Some(&stored.name_split));
            text::terms(text::module_path(path), |t| {
                counted.term(&q, 1, q.place.get(t).copied())
            });
            counted.field(&q, 1, c);
            counted.field(&q, 2, s);
            counted.field(&q, 3, d);
            bodies.count(&q, &mut counted, i as u32 + 1, &pieces[i]);
            assert_eq!(counted, expected, "{name}");
            assert!(
                counted.len > 5 && counted.tf.iter().any(|f| *f > 0.0),
                "{counted:?}"
            );
        }
    }
}
