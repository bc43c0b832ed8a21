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

/// Common English words left out of the index and of queries, sorted (binary search: this is
/// asked for every word of every file indexed).
pub(crate) const STOPWORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "do", "does", "for", "from", "get", "given", "had", "has", "have", "how", "i", "if", "in",
    "into", "is", "it", "its", "me", "more", "my", "no", "not", "of", "on", "one", "only", "or",
    "our", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "use", "using", "via", "was", "way", "we", "were",
    "what", "when", "where", "which", "will", "with", "would", "you", "your",
];

/// Whether `word` (lower-case) is one of [`STOPWORDS`].
pub(crate) fn is_stopword(word: &str) -> bool {
    word.len() <= STOPWORD_MAX_LEN && STOPWORDS.binary_search(&word).is_ok()
}

/// The longest of [`STOPWORDS`].
const STOPWORD_MAX_LEN: usize = 6;

/// Strips common English suffixes, at most twice, keeping three letters.
#[cfg(test)]
pub(crate) fn stem(word: &str) -> String {
    let mut w = String::new();
    stem_into(word, &mut w);
    w
}

/// [`stem`] into `w` (cleared first), so the caller's buffer is reused.
fn stem_into(word: &str, w: &mut String) {
    w.clear();
    w.push_str(word);
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
}

/// Calls `f` with each lower-cased word of `text`, splitting on non-alphanumerics, camelCase
/// (`HTTPDate` → `http`, `date`) and letter/digit boundaries.
pub(crate) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    // One pass with the previous and next character at hand (no copy of the text).
    let mut buf = String::new();
    let mut chars = text.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() {
            let boundary = match prev {
                Some(p) if p.is_alphanumeric() => {
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_alphabetic() && c.is_numeric())
                        || (p.is_numeric() && c.is_alphabetic())
                        // the last capital of a run that starts a new word: HTTPDate → HTTP|Date
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && chars.peek().is_some_and(|n| n.is_lowercase()))
                }
                _ => false,
            };
            if boundary && !buf.is_empty() {
                f(&buf);
                buf.clear();
            }
            if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        } else if !buf.is_empty() {
            f(&buf);
            buf.clear();
        }
        prev = Some(c);
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
    let mut stemmed = String::new();
    for_each_word(text, |w| {
        if w.len() < 2 || is_stopword(w) {
            return;
        }
        stem_into(w, &mut stemmed);
        f(&stemmed);
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
    // term → its place in `order`; one allocation per distinct term.
    let mut place: FxHashMap<String, usize> = FxHashMap::default();
    let mut order: Vec<(String, u32)> = Vec::new();
    terms(text, |t| {
        if t.len() > 40 {
            return;
        }
        match place.get(t) {
            Some(&i) => order[i].1 += 1,
            None => {
                place.insert(t.to_owned(), order.len());
                order.push((t.to_owned(), 1));
            }
        }
    });
    let mut out = String::with_capacity(order.len() * 8);
    for (t, n) in &order {
        for _ in 0..(*n).min(cap) {
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
    fn stopwords_are_sorted_and_short_for_the_binary_search() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOPWORDS.iter().all(|w| w.len() <= STOPWORD_MAX_LEN));
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
        assert!(!is_stopword("parse") && !is_stopword("shoulder") && !is_stopword(""));
    }

    /// The straightforward version of [`for_each_word`] (the whole text as a `Vec<char>`).
    fn words_reference(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut buf = String::new();
        let chars: Vec<char> = text.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            if c.is_alphanumeric() {
                let boundary = match i.checked_sub(1).map(|j| chars[j]) {
                    Some(p) if p.is_alphanumeric() => {
                        (p.is_lowercase() && c.is_uppercase())
                            || (p.is_alphabetic() && c.is_numeric())
                            || (p.is_numeric() && c.is_alphabetic())
                            || (p.is_uppercase()
                                && c.is_uppercase()
                                && chars.get(i + 1).is_some_and(|n| n.is_lowercase()))
                    }
                    _ => false,
                };
                if boundary && !buf.is_empty() {
                    out.push(std::mem::take(&mut buf));
                }
                buf.extend(c.to_lowercase());
            } else if !buf.is_empty() {
                out.push(std::mem::take(&mut buf));
            }
        }
        if !buf.is_empty() {
            out.push(buf);
        }
        out
    }

    #[test]
    fn words_match_the_straightforward_version_on_real_and_unicode_text() {
        let mut texts: Vec<String> = vec![
            "parseHTTPDate XMLHttpRequest2Go ÉCOLE_été straße İstanbul ǅemal ΣΑΣ Ⅻx 1½ a".into(),
            String::new(),
            "HTTPServer".into(),
        ];
        for name in ["find.rs", "index.rs", "text.rs", "map.rs"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src")
                .join(name);
            texts.push(std::fs::read_to_string(path).unwrap());
        }
        for text in &texts {
            let mut fast = Vec::new();
            for_each_word(text, |w| fast.push(w.to_owned()));
            assert_eq!(fast, words_reference(text));
        }
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
