//! Words for search: how code and queries are cut into the terms the full-text index holds.
//!
//! One rule for both sides, so a query term meets the same term in the index:
//! - text is cut into alphanumeric runs; each run is split further on camelCase and on
//!   letter/digit boundaries (`parseHTTPDate` → `parse http date`, `http2time` → `http 2 time`);
//! - words are lower-cased and lightly stemmed (`parsing`, `parses`, `parse` → `par`);
//! - common English words and one-letter words are dropped;
//! - an identifier made of several words also yields itself, lower-cased and joined
//!   (`parse_header` → `par header parseheader`), so a query naming the identifier meets its
//!   exact uses more strongly than the words apart.
//!
//! It knows no language: it reads code as text, which is what keeps the index language-agnostic.

use cast_parser::ParsedFile;
use rustc_hash::FxHashMap;

use crate::store::{FileTerms, SymbolTerms};

/// How often one term may repeat in a file's body field.
const FILE_BODY_CAP: u32 = 4;
/// Characters of a docstring that are indexed.
const DOC_CHARS: usize = 4000;

pub(crate) const STOPWORDS: &[&str] = &[
    "a", "an", "the", "to", "for", "of", "in", "on", "and", "or", "with", "from", "into", "by",
    "is", "it", "as", "at", "be", "this", "that", "its", "all", "how", "do", "does", "i", "me",
    "my", "we", "our", "you", "your", "can", "which", "what", "when", "where", "using", "use",
    "given", "some", "any", "are", "was", "if", "then", "than", "so", "via", "way", "get", "not",
    "no", "should", "would", "will", "there", "these", "those", "also", "but", "been", "has",
    "have", "had", "were", "they", "them", "their", "one", "only", "more", "such",
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
/// (`HTTPDate` → `http`, `date`) and letter/digit boundaries.
pub(crate) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_alphanumeric() {
            let boundary = match i.checked_sub(1).map(|j| chars[j]) {
                Some(p) if p.is_alphanumeric() => {
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_alphabetic() && c.is_numeric())
                        || (p.is_numeric() && c.is_alphabetic())
                        // the last capital of a run that starts a new word: HTTPDate → HTTP|Date
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                }
                _ => false,
            };
            if boundary && !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            buf.extend(c.to_lowercase());
        } else if !buf.is_empty() {
            f(&buf);
            buf.clear();
        }
    }
    if !buf.is_empty() {
        f(&buf);
    }
}

/// Calls `f` with every identifier of `text` that holds several words (`parse_header`,
/// `parseHeader`, `HTTPServer`), lower-cased with its separators removed.
fn for_each_compound(text: &str, mut f: impl FnMut(&str)) {
    let mut start: Option<usize> = None;
    let bytes = text.as_bytes();
    let mut emit = |s: &str| {
        let t = s.trim_matches('_');
        let b = t.as_bytes();
        let several = t.contains('_')
            || b.windows(2).any(|w| {
                (w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
                    || (w[0].is_ascii_alphabetic() && w[1].is_ascii_digit())
            })
            || b.windows(3).any(|w| {
                w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
            });
        if several && t.len() <= 64 {
            let joined: String = t
                .chars()
                .filter(|c| *c != '_')
                .flat_map(char::to_lowercase)
                .collect();
            f(&joined);
        }
    };
    for (i, &b) in bytes.iter().enumerate() {
        let word = b.is_ascii_alphanumeric() || b == b'_';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                emit(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        emit(&text[s..]);
    }
}

/// The index terms of `text`, in order: stemmed words (stopwords and one-letter words dropped)
/// and joined compound identifiers.
pub(crate) fn terms(text: &str, mut f: impl FnMut(&str)) {
    for_each_word(text, |w| {
        if w.len() < 2 || STOPWORDS.contains(&w) {
            return;
        }
        f(&stem(w));
    });
    for_each_compound(text, f);
}

/// The terms of `text` as one space-separated string, for a full-text column.
pub(crate) fn terms_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    terms(text, |t| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    });
    out
}

/// A bag of the terms of `text`, each repeated at most `cap` times, as one string: term
/// frequency saturates in BM25 anyway, and the cap keeps large files cheap to index.
pub(crate) fn bag_string(text: &str, cap: u32) -> String {
    let mut counts: FxHashMap<String, u32> = FxHashMap::default();
    let mut order: Vec<String> = Vec::new();
    terms(text, |t| {
        if t.len() > 40 {
            return;
        }
        match counts.get_mut(t) {
            Some(n) => *n += 1,
            None => {
                counts.insert(t.to_owned(), 1);
                order.push(t.to_owned());
            }
        }
    });
    let mut out = String::with_capacity(order.len() * 8);
    for t in &order {
        let n = counts.get(t).copied().unwrap_or(1).min(cap);
        for _ in 0..n {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t);
        }
    }
    out
}

fn prefix(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(i, _)| &text[..i])
}

/// The full-text fields of a parsed file and of each of its symbols (in the parse's order).
pub(crate) fn search_terms(
    rel: &str,
    text: &str,
    parsed: &ParsedFile,
) -> (FileTerms, Vec<SymbolTerms>) {
    let module_path = rel.rsplit_once('.').map_or(rel, |(stem, _)| stem);
    let file = FileTerms {
        path: terms_string(module_path),
        doc: terms_string(prefix(
            parsed.description.as_deref().unwrap_or(""),
            DOC_CHARS,
        )),
        body: bag_string(text, FILE_BODY_CAP),
    };
    let mut children: Vec<Vec<(usize, usize)>> = vec![Vec::new(); parsed.symbols.len()];
    for s in &parsed.symbols {
        if let Some(p) = s.parent.and_then(|p| children.get_mut(p)) {
            p.push((s.start_byte, s.end_byte));
        }
    }
    let context_path = terms_string(module_path);
    let symbols = parsed
        .symbols
        .iter()
        .zip(&children)
        .map(|(s, kids)| {
            let mut own = String::new();
            let mut at = s.start_byte.min(text.len());
            let end = s.end_byte.min(text.len());
            let mut kids = kids.clone();
            kids.sort_unstable();
            for (ks, ke) in kids {
                if let Some(piece) = text.get(at..ks.clamp(at, end)) {
                    own.push_str(piece);
                    own.push('\n');
                }
                at = at.max(ke.min(end));
            }
            if let Some(piece) = text.get(at..end) {
                own.push_str(piece);
            }
            let parents = s.qualname.rsplit_once('.').map_or("", |(p, _)| p);
            let params = s.signature.split_once('(').map_or("", |(_, p)| p);
            SymbolTerms {
                name: terms_string(&s.name),
                context: format!("{context_path} {}", terms_string(parents)),
                signature: terms_string(params),
                doc: terms_string(prefix(s.docstring.as_deref().unwrap_or(""), DOC_CHARS)),
                body: bag_string(&own, 1),
            }
        })
        .collect();
    (file, symbols)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<String> {
        let mut v = Vec::new();
        terms(text, |t| v.push(t.to_owned()));
        v
    }

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
    fn words_split_snake_camel_acronyms_and_digits() {
        let mut words = Vec::new();
        for_each_word("parseHTTPDate http2time snake_case", |w| {
            words.push(w.to_owned())
        });
        assert_eq!(
            words,
            vec![
                "parse", "http", "date", "http", "2", "time", "snake", "case"
            ]
        );
    }

    #[test]
    fn compound_identifiers_also_count_whole() {
        assert_eq!(
            all("parse_header(HTTPServer) x"),
            vec![
                "par",
                "header",
                "http",
                "server",
                "parseheader",
                "httpserver"
            ]
        );
        // a plain word is not a compound
        assert_eq!(all("header"), vec!["header"]);
    }

    #[test]
    fn bags_cap_repeats() {
        assert_eq!(bag_string("a_b a_b a_b a_b x", 2), "ab ab");
        assert_eq!(bag_string("cache cache cache", 2), "cach cach");
    }
}
