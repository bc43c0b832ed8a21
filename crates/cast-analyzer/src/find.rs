//! Relevance search: a natural-language or identifier query against every symbol, scored on
//! four dimensions and blended with PageRank.
//!
//! - **name**: query words found among the words of the symbol's name (`parse_date`,
//!   `parseDate` and `parsedate` all hold `parse` and `date`; a word inside a compound counts
//!   0.6), plus the module path and enclosing classes at a quarter weight; for a one-word query,
//!   also the Jaro-Winkler similarity of query and name (strsim), so `parsdate` still finds
//!   `parsedate`;
//! - **signature**: query words among the parameter names and annotations;
//! - **docstring**: query words in the docstring;
//! - **content**: query words in the body, read from disk for the 300 best candidates of the
//!   first three dimensions.
//!
//! Words are lower-cased and lightly stemmed (`parsing`, `parses`, `parsed` → `pars`); common
//! English words are dropped. Each dimension is the IDF-weighted fraction of query words it
//! matched (IDF over all symbols, so rare words count more). The blend is
//! `0.40 name + 0.10 signature + 0.25 docstring + 0.15 content + 0.10 rank`, times
//! `0.5 + 0.5 × coverage` (the IDF-weighted fraction of query words matched anywhere), times
//! 0.85 for tests, 0.9 for stubs (`.pyi`) and 0.95 for private names. Rank is the symbol's
//! PageRank on a log scale, 0 to 1. Files are scored on their path and description, plus their
//! best symbol.

use std::collections::HashMap;

use cast_parser::SymbolKind;
use rayon::prelude::*;
use serde::Serialize;

use crate::index::{Index, kind_of};
use crate::store::db_err;
use crate::{AnalyzerError, Result};

/// What a hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    Symbol,
    File,
}

/// The score of a hit on each dimension (0 to 1) and the blend.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Scores {
    pub name: f64,
    pub signature: f64,
    pub docstring: f64,
    pub content: f64,
    pub rank: f64,
    pub total: f64,
}

/// One search result.
#[derive(Debug, Clone, Serialize)]
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
    pub scores: Scores,
}

impl Hit {
    /// One line for a model: `path:line kind qualname — signature — doc`.
    pub fn render(&self) -> String {
        let mut s = match self.kind {
            HitKind::Symbol => format!(
                "{}:{} {} {}",
                self.path,
                self.line,
                self.symbol_kind.map_or("symbol", |k| k.as_str()),
                self.full_name.as_deref().unwrap_or("")
            ),
            HitKind::File => format!("{} (file)", self.path),
        };
        if let Some(sig) = &self.signature {
            s.push_str("  ");
            s.push_str(sig);
        }
        if let Some(doc) = &self.doc {
            s.push_str("  — ");
            s.push_str(doc);
        }
        s.push_str(&format!("  [{:.3}]", self.scores.total));
        s
    }
}

/// Symbols and files found for a query, best first.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Found {
    pub symbols: Vec<Hit>,
    pub files: Vec<Hit>,
}

impl Found {
    /// Symbols first, then files, one line each.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for h in &self.symbols {
            out.push_str(&h.render());
            out.push('\n');
        }
        if !self.files.is_empty() {
            out.push_str("Files:\n");
            for h in &self.files {
                out.push_str("  ");
                out.push_str(&h.render());
                out.push('\n');
            }
        }
        out
    }
}

const STOPWORDS: &[&str] = &[
    "a", "an", "the", "to", "for", "of", "in", "on", "and", "or", "with", "from", "into", "by",
    "is", "it", "as", "at", "be", "this", "that", "its", "all", "how", "do", "does", "i", "me",
    "my", "we", "our", "you", "your", "can", "which", "what", "when", "where", "using", "use",
    "given", "some", "any", "are", "was", "if", "then", "than", "so", "via", "way", "get",
];

/// Strips common English suffixes, at most twice, keeping three letters.
pub(crate) fn stem(word: &str) -> String {
    let mut w = word.to_owned();
    for _ in 0..2 {
        let mut cut = false;
        for suffix in ["ing", "ies", "ed", "es", "s", "e", "ly"] {
            if w.len() >= suffix.len() + 3 && w.ends_with(suffix) && !w.ends_with("ss") {
                w.truncate(w.len() - suffix.len());
                if suffix == "ies" {
                    w.push('y');
                }
                cut = true;
                break;
            }
        }
        if !cut {
            break;
        }
    }
    w
}

/// Calls `f` with each lower-cased word of `text`, splitting on non-alphanumerics, camelCase
/// and letter/digit boundaries.
fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_alphanumeric() {
            let boundary = match prev {
                Some(p) => {
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_alphabetic() && c.is_numeric())
                        || (p.is_numeric() && c.is_alphabetic())
                }
                None => false,
            };
            if boundary && !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            buf.extend(c.to_lowercase());
            prev = Some(c);
        } else {
            if !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            prev = None;
        }
    }
    if !buf.is_empty() {
        f(&buf);
    }
}

#[derive(Debug, Clone)]
struct Term {
    word: String,
    stem: String,
}

fn query_terms(query: &str) -> Vec<Term> {
    let mut out: Vec<Term> = Vec::new();
    for_each_word(query, |w| {
        if STOPWORDS.contains(&w) {
            return;
        }
        let stem = stem(w);
        if !out.iter().any(|t| t.stem == stem) {
            out.push(Term {
                word: w.to_owned(),
                stem,
            });
        }
    });
    if out.is_empty() {
        // A query of stopwords only: keep them rather than search for nothing.
        for_each_word(query, |w| {
            out.push(Term {
                word: w.to_owned(),
                stem: stem(w),
            })
        });
    }
    out.truncate(16);
    out
}

/// Per-term match strength (0 to 1) of a text, by stemmed word equality.
fn match_words(text: &str, terms: &[Term], out: &mut [f32]) {
    for_each_word(text, |w| {
        if w.len() < 2 {
            return;
        }
        let s = stem(w);
        for (i, t) in terms.iter().enumerate() {
            if s == t.stem {
                out[i] = 1.0;
            }
        }
    });
}

/// Name matching: whole words count 1, a query word inside a compound word 0.6.
fn match_name(name: &str, terms: &[Term], out: &mut [f32]) {
    match_words(name, terms, out);
    let lower = name.to_lowercase();
    for (i, t) in terms.iter().enumerate() {
        if out[i] < 1.0
            && ((t.word.len() >= 4 && lower.contains(&t.word))
                || (t.stem.len() >= 4 && lower.contains(&t.stem)))
        {
            out[i] = out[i].max(0.6);
        }
    }
}

fn weighted(m: &[f32], idf: &[f64]) -> f64 {
    let total: f64 = idf.iter().sum();
    if total <= 0.0 {
        return 0.0;
    }
    m.iter()
        .zip(idf)
        .map(|(m, w)| f64::from(*m) * w)
        .sum::<f64>()
        / total
}

/// A symbol that matched, with its per-word matches on each dimension.
struct Candidate {
    sym: SymbolRow,
    name: Vec<f32>,
    context: Vec<f32>,
    sig: Vec<f32>,
    docm: Vec<f32>,
    content: Vec<f32>,
    jw: f64,
    scores: Scores,
}

/// A symbol as read for a search.
struct SymbolRow {
    id: i64,
    file_id: i64,
    path: String,
    kind: SymbolKind,
    name: String,
    qualname: String,
    signature: String,
    doc: Option<String>,
    start_line: u32,
    end_line: u32,
    start_byte: usize,
    end_byte: usize,
}

/// Matches one symbol's name, context, signature and docstring against the query words; `None`
/// when nothing matched (and, for an identifier query, the name is not similar either).
fn match_symbol(row: SymbolRow, terms: &[Term], ident: Option<&str>) -> Option<Candidate> {
    let n_terms = terms.len();
    let mut name = vec![0f32; n_terms];
    let mut context = vec![0f32; n_terms];
    let mut sig = vec![0f32; n_terms];
    let mut docm = vec![0f32; n_terms];
    match_name(&row.name, terms, &mut name);
    match_words(&row.path, terms, &mut context);
    if let Some((parents, _)) = row.qualname.rsplit_once('.') {
        match_words(parents, terms, &mut context);
    }
    let params = row.signature.split_once('(').map_or("", |(_, p)| p);
    match_words(params, terms, &mut sig);
    if let Some(d) = &row.doc {
        let cut = d.char_indices().nth(2000).map_or(d.len(), |(i, _)| i);
        match_words(&d[..cut], terms, &mut docm);
    }
    let jw = ident.map_or(0.0, |q| strsim::jaro_winkler(q, &row.name.to_lowercase()));
    let any =
        (0..n_terms).any(|i| name[i] > 0.0 || sig[i] > 0.0 || docm[i] > 0.0 || context[i] > 0.0);
    if !any && jw < 0.85 {
        return None;
    }
    Some(Candidate {
        sym: row,
        name,
        context,
        sig,
        docm,
        content: vec![0.0; n_terms],
        jw,
        scores: Scores::default(),
    })
}

fn is_test(path: &str) -> bool {
    path.split('/')
        .any(|p| p == "test" || p == "tests" || p.starts_with("test_") || p.ends_with("_test.py"))
}

fn first_line(doc: &str) -> String {
    doc.lines().next().unwrap_or("").trim().to_owned()
}

/// How many candidates get their bodies read for the content dimension.
const CONTENT_POOL: usize = 300;

impl Index {
    /// Relevance search over symbols and files: at most `top` of each, best first.
    pub fn find(&self, query: &str, top: usize) -> Result<Found> {
        let terms = query_terms(query);
        if terms.is_empty() {
            return Err(AnalyzerError::EmptyQuery);
        }
        let n_terms = terms.len();
        let ident =
            (!query.trim().contains(char::is_whitespace)).then(|| query.trim().to_lowercase());
        let err = db_err(&self.db_path);
        let ranks = self.symbol_ranks()?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT s.id, s.file_id, f.path, s.kind, s.name, s.qualname, s.signature, s.docstring, s.start_line, s.end_line, s.start_byte, s.end_byte FROM symbols s JOIN files f ON f.id = s.file_id",
            )
            .map_err(&err)?;
        // Read every symbol, then match them on all cores (the matching, not SQLite, is the cost).
        let rows: Vec<SymbolRow> = stmt
            .query_map([], |r| {
                Ok(SymbolRow {
                    id: r.get(0)?,
                    file_id: r.get(1)?,
                    path: r.get(2)?,
                    kind: kind_of(r.get(3)?),
                    name: r.get(4)?,
                    qualname: r.get(5)?,
                    signature: r.get(6)?,
                    doc: r.get(7)?,
                    start_line: r.get(8)?,
                    end_line: r.get(9)?,
                    start_byte: r.get::<_, i64>(10)? as usize,
                    end_byte: r.get::<_, i64>(11)? as usize,
                })
            })
            .map_err(&err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&err)?;
        let total_syms = rows.len();
        let mut cands: Vec<Candidate> = rows
            .into_par_iter()
            .filter_map(|row| match_symbol(row, &terms, ident.as_deref()))
            .collect();
        // Document frequency: symbols matching each query word in any dimension (a symbol that
        // matched nothing was dropped above and counts for no word).
        let mut df = vec![0usize; n_terms];
        for c in &cands {
            for (i, d) in df.iter_mut().enumerate() {
                if c.name[i] > 0.0 || c.sig[i] > 0.0 || c.docm[i] > 0.0 || c.context[i] > 0.0 {
                    *d += 1;
                }
            }
        }
        let n = total_syms.max(1) as f64;
        let idf: Vec<f64> = df
            .iter()
            .map(|&d| (1.0 + n / (1.0 + d as f64)).ln())
            .collect();
        let max_rank = ranks.values().copied().fold(0.0f64, f64::max);
        let rank_score = |id: i64| -> f64 {
            let r = ranks.get(&id).copied().unwrap_or(0.0);
            if max_rank <= 0.0 {
                return 0.0;
            }
            (1.0 + r * n).ln() / (1.0 + max_rank * n).ln()
        };
        let score = |c: &Candidate, content: bool| -> Scores {
            let name_words = weighted(&c.name, &idf);
            let ctx = weighted(&c.context, &idf);
            let mut name = (name_words + 0.25 * ctx).min(1.0);
            if ident.is_some() && c.jw >= 0.85 {
                name = name.max(c.jw * c.jw);
            }
            let signature = weighted(&c.sig, &idf);
            let docstring = weighted(&c.docm, &idf);
            let content_score = if content {
                weighted(&c.content, &idf)
            } else {
                0.0
            };
            let any: Vec<f32> = (0..c.name.len())
                .map(|i| {
                    c.name[i]
                        .max(c.context[i])
                        .max(c.sig[i])
                        .max(c.docm[i])
                        .max(c.content[i])
                })
                .collect();
            let coverage = weighted(&any, &idf).max(if c.jw >= 0.85 { c.jw } else { 0.0 });
            let rank = rank_score(c.sym.id);
            let mut total = 0.40 * name
                + 0.10 * signature
                + 0.25 * docstring
                + 0.15 * content_score
                + 0.10 * rank;
            total *= 0.5 + 0.5 * coverage;
            if is_test(&c.sym.path) {
                total *= 0.85;
            }
            if c.sym.path.ends_with(".pyi") {
                total *= 0.9;
            }
            let short = c.sym.qualname.rsplit('.').next().unwrap_or("");
            if short.starts_with('_') && !short.starts_with("__") {
                total *= 0.95;
            }
            Scores {
                name,
                signature,
                docstring,
                content: content_score,
                rank,
                total,
            }
        };
        for c in &mut cands {
            c.scores = score(c, false);
        }
        cands.sort_by(|a, b| b.scores.total.total_cmp(&a.scores.total));
        cands.truncate(CONTENT_POOL);
        // Content: read each candidate's body once.
        let mut texts: HashMap<String, Option<String>> = HashMap::new();
        for c in &mut cands {
            let text = texts.entry(c.sym.path.clone()).or_insert_with(|| {
                std::fs::read(self.root.join(&c.sym.path))
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
            });
            if let Some(text) = text {
                let text = text.strip_prefix('\u{feff}').unwrap_or(text);
                if let Some(body) = text.get(c.sym.start_byte..c.sym.end_byte.min(text.len())) {
                    let cut = body
                        .char_indices()
                        .nth(20_000)
                        .map_or(body.len(), |(i, _)| i);
                    match_words(&body[..cut], &terms, &mut c.content);
                }
            }
        }
        for c in &mut cands {
            c.scores = score(c, true);
        }
        cands.sort_by(|a, b| {
            b.scores
                .total
                .total_cmp(&a.scores.total)
                .then(a.sym.path.cmp(&b.sym.path))
                .then(a.sym.start_line.cmp(&b.sym.start_line))
        });

        // Files: path and description, plus their best symbol.
        let mut best_in_file: HashMap<i64, f64> = HashMap::new();
        for c in &cands {
            let e = best_in_file.entry(c.sym.file_id).or_insert(0.0);
            *e = e.max(c.scores.total);
        }
        let files = self.find_files(&terms, &idf, &best_in_file, top)?;

        let symbols = cands
            .into_iter()
            .take(top)
            .map(|c| {
                let module = crate::resolve::module_of(&c.sym.path);
                Hit {
                    kind: HitKind::Symbol,
                    full_name: Some(if module.is_empty() {
                        c.sym.qualname.clone()
                    } else {
                        format!("{module}.{}", c.sym.qualname)
                    }),
                    path: c.sym.path,
                    line: c.sym.start_line,
                    end_line: c.sym.end_line,
                    symbol_kind: Some(c.sym.kind),
                    qualname: Some(c.sym.qualname),
                    signature: Some(c.sym.signature),
                    doc: c.sym.doc.as_deref().map(first_line),
                    scores: c.scores,
                }
            })
            .collect();
        Ok(Found { symbols, files })
    }

    fn find_files(
        &self,
        terms: &[Term],
        idf: &[f64],
        best: &HashMap<i64, f64>,
        top: usize,
    ) -> Result<Vec<Hit>> {
        let err = db_err(&self.db_path);
        let franks = self.file_ranks()?;
        let max_rank = franks.values().copied().fold(0.0f64, f64::max);
        let n = franks.len().max(1) as f64;
        let mut stmt = self
            .conn
            .prepare("SELECT id, path, description, line_count FROM files WHERE flags & 4 = 0")
            .map_err(&err)?;
        let mut rows = stmt.query([]).map_err(&err)?;
        let mut hits = Vec::new();
        let mut pm = vec![0f32; terms.len()];
        let mut dm = vec![0f32; terms.len()];
        while let Some(r) = rows.next().map_err(&err)? {
            let id: i64 = r.get(0).map_err(&err)?;
            let path: String = r.get(1).map_err(&err)?;
            let desc: Option<String> = r.get(2).map_err(&err)?;
            pm.iter_mut().for_each(|x| *x = 0.0);
            dm.iter_mut().for_each(|x| *x = 0.0);
            match_name(&path, terms, &mut pm);
            if let Some(d) = &desc {
                match_words(d, terms, &mut dm);
            }
            let name = weighted(&pm, idf);
            let docstring = weighted(&dm, idf);
            let content = best.get(&id).copied().unwrap_or(0.0);
            if name + docstring + content <= 0.0 {
                continue;
            }
            let r_raw = franks.get(&id).copied().unwrap_or(0.0);
            let rank = if max_rank > 0.0 {
                (1.0 + r_raw * n).ln() / (1.0 + max_rank * n).ln()
            } else {
                0.0
            };
            let mut total = 0.4 * name + 0.3 * docstring + 0.2 * content + 0.1 * rank;
            if is_test(&path) {
                total *= 0.85;
            }
            hits.push(Hit {
                kind: HitKind::File,
                line: 1,
                end_line: r.get(3).map_err(&err)?,
                symbol_kind: None,
                qualname: None,
                full_name: None,
                signature: None,
                doc: desc.as_deref().map(first_line),
                path,
                scores: Scores {
                    name,
                    signature: 0.0,
                    docstring,
                    content,
                    rank,
                    total,
                },
            });
        }
        hits.sort_by(|a, b| {
            b.scores
                .total
                .total_cmp(&a.scores.total)
                .then(a.path.cmp(&b.path))
        });
        hits.truncate(top.min(5));
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_group_word_forms() {
        for (a, b) in [
            ("parse", "parsing"),
            ("parses", "parsed"),
            ("quote", "quoting"),
            ("date", "dates"),
            ("entries", "entry"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
    }

    #[test]
    fn words_split_snake_camel_and_digits() {
        let mut words = Vec::new();
        for_each_word("parseHTTPDate http2time snake_case", |w| {
            words.push(w.to_owned())
        });
        assert_eq!(
            words,
            vec!["parse", "httpdate", "http", "2", "time", "snake", "case"]
        );
    }

    #[test]
    fn query_words_drop_stopwords() {
        let t: Vec<String> = query_terms("parse an HTTP date")
            .into_iter()
            .map(|t| t.word)
            .collect();
        assert_eq!(t, vec!["parse", "http", "date"]);
    }
}
