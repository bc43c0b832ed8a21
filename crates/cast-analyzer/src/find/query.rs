//! What a query says: its terms (the rarest of a long one), and the identifiers and file names
//! written in it.

use cast_index::{Snapshot, TermTable};

use super::blend::MAX_TERMS;
use crate::Result;

/// An identifier written in the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ident {
    /// A (possibly dotted) name: `Session.send` → name `send`, qualifier `Session`.
    Name {
        name: String,
        dotted: Option<String>,
    },
    /// A file name: `client.py`, `utils/http.py`.
    File(String),
}

/// The extensions of the files CAST parses, with the dot (`.py`, `.tsx`): a query word ending
/// in one is a file name. Each language states its own; read once from the default registry.
fn file_extensions() -> &'static [String] {
    static EXTENSIONS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    EXTENSIONS.get_or_init(|| {
        cast_parser::Registry::default()
            .extensions()
            .into_iter()
            .map(|e| format!(".{e}"))
            .collect()
    })
}

/// Words of the query that are written as identifiers: with `_`, an inner capital
/// (`CliRunner`, `parseDate`), dots between names, `()` after them, in backticks, or file names.
pub(super) fn query_identifiers(query: &str) -> Vec<Ident> {
    let mut out: Vec<Ident> = Vec::new();
    let mut push = |i: Ident| {
        if !out.contains(&i) {
            out.push(i);
        }
    };
    // A query of one word is a name, however it is written (`Reader`, `tokenize`): that is
    // what someone typing a single word looks for first.
    let single = query.split_whitespace().nth(1).is_none();
    let mut in_ticks = false;
    for (n, piece) in query.split('`').enumerate() {
        in_ticks = n % 2 == 1;
        for raw in piece.split(|c: char| c.is_whitespace() || ",;:()[]{}<>'\"=!?".contains(c)) {
            let called = piece.contains(&format!("{raw}("));
            let word = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
            if word.len() < 3 || !word.starts_with(|c: char| c.is_alphabetic() || c == '_') {
                continue;
            }
            let lower = word.to_lowercase();
            if let Some(ext) = file_extensions()
                .iter()
                .find(|e| lower.ends_with(e.as_str()))
            {
                if word.len() > ext.len() {
                    push(Ident::File(word.to_owned()));
                }
                continue;
            }
            let last = word.rsplit('.').next().unwrap_or(word);
            if last.len() < 3 {
                continue;
            }
            let b = last.as_bytes();
            let inner_capital = b.iter().skip(1).any(u8::is_ascii_uppercase)
                && b.iter().any(u8::is_ascii_lowercase);
            let dotted = word.contains('.') && word.split('.').all(|p| !p.is_empty());
            let ident_like =
                last.contains('_') || inner_capital || dotted || called || in_ticks || single;
            if !ident_like || cast_index::text::is_stopword(&lower) {
                continue;
            }
            push(Ident::Name {
                name: last.to_owned(),
                dotted: word.rsplit_once('.').map(|(q, _)| q.to_owned()),
            });
        }
    }
    let _ = in_ticks;
    out
}

/// The query's terms: unique, and for a long query the rarest [`MAX_TERMS`] that occur.
pub(super) fn select_terms(snap: &Snapshot, query: &str) -> Result<Vec<String>> {
    let mut terms: Vec<String> = Vec::new();
    cast_index::text::terms(query, |t| {
        if !terms.iter().any(|x| x == t) {
            terms.push(t.to_owned());
        }
    });
    if terms.is_empty() {
        // A query of stop words only: search for them rather than for nothing.
        cast_index::text::for_each_word(query, |w| {
            if !terms.iter().any(|x| x == w) {
                terms.push(w.to_owned());
            }
        });
    }
    if terms.len() > MAX_TERMS {
        let (df, _) = snap.doc_freqs(TermTable::Files, &terms)?;
        terms.retain(|t| df.contains_key(t));
        terms.sort_by_key(|t| df.get(t).copied().unwrap_or(0));
        terms.truncate(MAX_TERMS);
    }
    Ok(terms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(q: &str) -> Vec<String> {
        query_identifiers(q)
            .into_iter()
            .map(|i| match i {
                Ident::Name { name, dotted } => match dotted {
                    Some(d) => format!("{d}.{name}"),
                    None => name,
                },
                Ident::File(f) => format!("file:{f}"),
            })
            .collect()
    }

    #[test]
    fn identifiers_are_the_words_written_as_code() {
        assert_eq!(
            names("Fix Session.send when parse_header sees a CliRunner in client.py"),
            vec![
                "Session.send",
                "parse_header",
                "CliRunner",
                "file:client.py"
            ]
        );
        assert_eq!(
            names("Add support of `edit` and call wrap()"),
            vec!["edit", "wrap"]
        );
        // Plain words, a capitalised first word and acronyms are not identifiers.
        assert_eq!(
            names("Fix the HTTP date parsing in Python"),
            Vec::<String>::new()
        );
        // A query of one word is a name, unless it is too short or a stop word.
        assert_eq!(names("Reader"), vec!["Reader"]);
        assert_eq!(names("  tokenize "), vec!["tokenize"]);
        assert_eq!(names("the"), Vec::<String>::new());
        assert_eq!(names("io"), Vec::<String>::new());
    }
}
