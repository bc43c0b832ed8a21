//! Words for search: how code and queries are cut into the terms the full-text index holds.
//!
//! One rule for both sides, so a query term meets the same term in the index:
//! - text is cut into alphanumeric runs; each run is split further on camelCase and on
//!   letter/digit boundaries (`parseHTTPDate` → `parse http date`, `http2time` → `http 2 time`);
//! - words are lower-cased and lightly stemmed (`parsing`, `parses`, `parse` → `par`);
//! - common English words and one-letter words are dropped;
//! - an identifier made of several words also yields itself, lower-cased and joined
//!   (`parse_header` → `par header parseheader`), so a query naming the identifier meets its
//!   exact uses more strongly than the words apart;
//! - a definition's name written as one lower-case word also yields the words it joins when its
//!   file writes them apart elsewhere ([`FileWords`]: `isoformat` → `isoformat iso format` in a
//!   file that says `ISO` and `format`), so a query in words meets names that run words
//!   together, as Python's standard library writes them.
//!
//! It knows no language: it reads code as text, which is what keeps the index language-agnostic.

use std::hash::Hasher;

use crate::graph::texts::Texts;
use cast_parser::ParsedFile;
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

/// The full-text fields of one symbol, each a space-separated string of terms
/// ([`crate::text`]). Columns of `symbol_terms`, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SymbolTerms {
    /// The symbol's name (with [`SymbolTerms::name_split`] at its end).
    pub name: String,
    /// The terms the name adds for the words it runs together (stored in `symbols` too: the
    /// second stage reads them there).
    pub name_split: String,
    /// The module path and the enclosing classes and functions.
    pub context: String,
    /// The parameters and annotations of the signature.
    pub signature: String,
    /// The docstring.
    pub doc: String,
}

/// The full-text fields of one file. Columns of `file_terms`, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileTerms {
    /// The path's words (folders, module name).
    pub path: String,
    /// The module docstring (or an HTML title).
    pub doc: String,
    /// Every term of the file, each counted at most a few times.
    pub body: String,
}

/// How often one term may repeat in a file's body field.
const FILE_BODY_CAP: u32 = 4;
/// Longer terms are left out of bags (a long joined identifier is nearly always generated data).
pub const MAX_BAG_TERM: usize = 40;
/// Characters of a docstring that are indexed.
const DOC_CHARS: usize = 4000;
/// Files larger than this give no [`FileWords`], so their names are not split (nearly always
/// generated code, as for [`crate::bodies::MAX_BODY_FILE`]).
const MAX_WORDS_FILE: usize = 1 << 20;
/// A name's word is split only when it is this long at least, into parts this long at least, and
/// at most this many: shorter parts (`up` + `date`) split real words far more often than joined
/// ones (measured on the stdlib's names, see `docs/analyzer.md`).
const MIN_SPLIT_WORD: usize = 6;
const MIN_SPLIT_PART: usize = 3;
const MAX_SPLIT_PARTS: usize = 3;
/// Longer words are never split (nor recorded as a file's words).
const MAX_SPLIT_WORD: usize = 32;

/// Common English words left out of the index and of queries, sorted (binary search: this is
/// asked for every word of every file indexed).
pub const STOPWORDS: &[&str] = &[
    "a", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "do", "does", "for", "from", "get", "given", "had", "has", "have", "how", "i", "if", "in",
    "into", "is", "it", "its", "me", "more", "my", "no", "not", "of", "on", "one", "only", "or",
    "our", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "to", "use", "using", "via", "was", "way", "we", "were",
    "what", "when", "where", "which", "will", "with", "would", "you", "your",
];

/// Whether `word` (lower-case) is one of [`STOPWORDS`].
pub fn is_stopword(word: &str) -> bool {
    // Asked for every word of every file indexed: the words are packed into integers once and
    // put in an open-addressed table, so a probe is a multiply and (nearly always) one load.
    static TABLE: std::sync::OnceLock<[u64; STOPWORD_SLOTS]> = std::sync::OnceLock::new();
    if word.len() > STOPWORD_MAX_LEN {
        return false;
    }
    let table = TABLE.get_or_init(|| {
        let mut t = [0u64; STOPWORD_SLOTS];
        for w in STOPWORDS {
            let key = pack(w);
            let mut i = stopword_slot(key);
            while t[i] != 0 {
                i = (i + 1) % STOPWORD_SLOTS;
            }
            t[i] = key;
        }
        t
    });
    let key = pack(word);
    let mut i = stopword_slot(key);
    // Every key is non-zero (its length is in the low byte), so 0 marks an empty slot.
    while table[i] != 0 {
        if table[i] == key {
            return true;
        }
        i = (i + 1) % STOPWORD_SLOTS;
    }
    false
}

/// Slots of the stopword table: a power of two, about three times the words.
const STOPWORD_SLOTS: usize = 256;

fn stopword_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % STOPWORD_SLOTS
}

/// The bytes of a word of at most 7 bytes as one integer, its length in the low byte (so no
/// two words share a value).
fn pack(word: &str) -> u64 {
    let mut b = [0u8; 8];
    b[..word.len()].copy_from_slice(word.as_bytes());
    (u64::from_be_bytes(b)) | word.len() as u64
}

/// The longest of [`STOPWORDS`].
const STOPWORD_MAX_LEN: usize = 6;

/// Strips common English suffixes, at most twice, keeping three letters.
#[cfg(test)]
pub fn stem(word: &str) -> String {
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
pub fn for_each_word(text: &str, f: impl FnMut(&str)) {
    for_each_word_in(text, &mut String::new(), f)
}

/// [`for_each_word`], lower-casing into `buf` (a caller that cuts many short texts keeps one).
fn for_each_word_in(text: &str, buf: &mut String, mut f: impl FnMut(&str)) {
    // Every file indexed and every candidate of a query goes through here. Words never span an
    // ASCII character that is not a letter or digit, so the text is cut at those first; a run of
    // ASCII letters and digits (nearly all of code) is split by bytes, any other by chars.
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii() && !bytes[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let start = i;
        let mut ascii = true;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || !bytes[i].is_ascii()) {
            ascii &= bytes[i].is_ascii();
            i += 1;
        }
        // Both ends are ASCII bytes (or the text's ends), so this is on char boundaries.
        let run = &text[start..i];
        if ascii {
            ascii_words(run, buf, &mut f);
        } else {
            unicode_words(run, buf, &mut f);
        }
    }
}

/// [`for_each_word`] of a run of ASCII letters and digits.
fn ascii_words(text: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    let run = text.as_bytes();
    let mut from = 0;
    for i in 1..run.len() {
        let (p, c) = (run[i - 1], run[i]);
        let boundary = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
            || (p.is_ascii_alphabetic() && c.is_ascii_digit())
            || (p.is_ascii_digit() && c.is_ascii_alphabetic())
            // the last capital of a run that starts a new word: HTTPDate → HTTP|Date
            || (p.is_ascii_uppercase()
                && c.is_ascii_uppercase()
                && run.get(i + 1).is_some_and(u8::is_ascii_lowercase));
        if boundary {
            emit_lowercase(&text[from..i], buf, f);
            from = i;
        }
    }
    if from < run.len() {
        emit_lowercase(&text[from..], buf, f);
    }
}

/// `f` with `word` (ASCII) lower-cased in `buf`: copied whole, then lower-cased in place.
fn emit_lowercase(word: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    buf.clear();
    buf.push_str(word);
    buf.make_ascii_lowercase();
    f(buf);
}

/// [`for_each_word`] of any text, char by char, with the previous and next char at hand.
fn unicode_words(text: &str, buf: &mut String, f: &mut impl FnMut(&str)) {
    buf.clear();
    let mut chars = text.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() {
            let boundary = match prev {
                Some(p) if p.is_alphanumeric() => {
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_alphabetic() && c.is_numeric())
                        || (p.is_numeric() && c.is_alphabetic())
                        || (p.is_uppercase()
                            && c.is_uppercase()
                            && chars.peek().is_some_and(|n| n.is_lowercase()))
                }
                _ => false,
            };
            if boundary && !buf.is_empty() {
                f(buf);
                buf.clear();
            }
            if c.is_ascii() {
                buf.push(c.to_ascii_lowercase());
            } else {
                buf.extend(c.to_lowercase());
            }
        } else if !buf.is_empty() {
            f(buf);
            buf.clear();
        }
        prev = Some(c);
    }
    if !buf.is_empty() {
        f(buf);
        buf.clear();
    }
}

/// Calls `f` with every identifier of `text` that holds several words (`parse_header`,
/// `parseHeader`, `HTTPServer`), lower-cased with its separators removed.
fn for_each_compound(text: &str, f: impl FnMut(&str)) {
    for_each_compound_in(text, &mut String::new(), f)
}

/// [`for_each_compound`], joining into `joined`.
fn for_each_compound_in(text: &str, joined: &mut String, mut f: impl FnMut(&str)) {
    let mut start: Option<usize> = None;
    let bytes = text.as_bytes();
    let mut emit = |s: &str| {
        // A run of lower-case letters (most of code's words) joins no words.
        if s.bytes().all(|c| c.is_ascii_lowercase()) {
            return;
        }
        // `_` trimmed from both ends (ASCII, so the ends stay on char boundaries).
        let first = s.bytes().position(|c| c != b'_').unwrap_or(s.len());
        let last = s.bytes().rposition(|c| c != b'_').map_or(first, |i| i + 1);
        let t = &s[first..last];
        let b = t.as_bytes();
        let several = b.contains(&b'_')
            || b.windows(2).any(|w| {
                (w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
                    || (w[0].is_ascii_alphabetic() && w[1].is_ascii_digit())
            })
            || b.windows(3).any(|w| {
                w[0].is_ascii_uppercase() && w[1].is_ascii_uppercase() && w[2].is_ascii_lowercase()
            });
        if several && t.len() <= 64 {
            // `t` is ASCII letters, digits and `_` only (see the loop below).
            joined.clear();
            joined.extend(
                b.iter()
                    .filter(|&&c| c != b'_')
                    .map(|c| c.to_ascii_lowercase() as char),
            );
            f(joined);
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

/// Calls `f` with each token of `text`: a longest run of ASCII letters, digits, `_` and
/// non-ASCII characters. Words ([`for_each_word`]) and compound identifiers
/// ([`for_each_compound`]) never cross a token's ends, so the [`terms`] of a text are the terms
/// of its tokens, in another order.
pub fn for_each_token<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    // Every byte of every file indexed is asked this: one load from a table rather than four
    // comparisons.
    const IN_TOKEN: [bool; 256] = {
        let mut table = [false; 256];
        let mut b = 0;
        while b < 256 {
            let byte = b as u8;
            table[b] = byte.is_ascii_alphanumeric() || byte == b'_' || !byte.is_ascii();
            b += 1;
        }
        table
    };
    let in_token = |b: u8| IN_TOKEN[usize::from(b)];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !in_token(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && in_token(bytes[i]) {
            i += 1;
        }
        // Both ends are ASCII bytes (or the text's ends), so this is on char boundaries.
        f(&text[start..i]);
    }
}

/// The index terms of `text`, in order: stemmed words (stopwords and one-letter words dropped)
/// and joined compound identifiers.
pub fn terms(text: &str, f: impl FnMut(&str)) {
    terms_seeing_words(text, |_| {}, f)
}

/// [`terms`], calling `word` with each word before it is dropped or stemmed.
fn terms_seeing_words(text: &str, mut word: impl FnMut(&str), mut f: impl FnMut(&str)) {
    let mut stemmed = String::new();
    for_each_word(text, |w| {
        word(w);
        if w.len() < 2 || is_stopword(w) {
            return;
        }
        stem_into(w, &mut stemmed);
        f(&stemmed);
    });
    for_each_compound(text, f);
}

/// The words a file's text spells (lower-case, as [`for_each_word`] cuts them), by hash: what a
/// name of the file that runs words together ([`name_split_terms`]) is split with. A word the file
/// never writes on its own is not taken for a part of a name, which keeps `update` whole in a
/// file that never says `up`, and a file's own vocabulary is what its names are made of.
#[derive(Debug, Default)]
pub struct FileWords(FxHashSet<u64>);

impl FileWords {
    /// The words of `text` (none for a text larger than [`MAX_WORDS_FILE`]); the index collects
    /// them while it cuts the file ([`bag_and_words`]).
    pub fn of(text: &str) -> FileWords {
        let mut words = FileWords::default();
        if text.len() <= MAX_WORDS_FILE {
            for_each_word(text, |w| words.insert(w));
        }
        words
    }

    fn insert(&mut self, word: &str) {
        if (MIN_SPLIT_PART..=MAX_SPLIT_WORD).contains(&word.len()) {
            self.0.insert(word_hash(word));
        }
    }

    fn contains(&self, word: &str) -> bool {
        self.0.contains(&word_hash(word))
    }
}

fn word_hash(word: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(word.as_bytes());
    h.finish()
}

/// The parts of `word` (lower-case ASCII letters) as words of `words`: the fewest parts (two or
/// three, each at least [`MIN_SPLIT_PART`] long), the longest first part among equals; `None`
/// when there is no such split.
fn split_word<'w>(word: &'w str, words: &FileWords) -> Option<Vec<&'w str>> {
    let n = word.len();
    if !(MIN_SPLIT_WORD..=MAX_SPLIT_WORD).contains(&n)
        || !word.bytes().all(|b| b.is_ascii_lowercase())
    {
        return None;
    }
    // best[i]: the fewest parts that cut word[i..], and where the first of them ends.
    let mut best: Vec<Option<(usize, usize)>> = vec![None; n + 1];
    best[n] = Some((0, n));
    for i in (0..n).rev() {
        // Longest first part first, so among equal counts the longest wins (strict `<`).
        for j in (i + MIN_SPLIT_PART..=n).rev() {
            let Some((rest, _)) = best[j] else { continue };
            if (i, j) == (0, n) || !words.contains(&word[i..j]) {
                continue;
            }
            if best[i].is_none_or(|(parts, _)| rest + 1 < parts) {
                best[i] = Some((rest + 1, j));
            }
        }
    }
    let (parts, _) = best[0]?;
    if !(2..=MAX_SPLIT_PARTS).contains(&parts) {
        return None;
    }
    let mut out = Vec::with_capacity(parts);
    let mut i = 0;
    while i < n {
        let (_, j) = best[i]?;
        out.push(&word[i..j]);
        i = j;
    }
    Some(out)
}

/// The terms a definition's name adds for the words it runs together: for each of its words
/// that joins several of its file's words ([`FileWords`]), the terms of those words, space
/// separated (empty when there are none). The index stores them with the symbol
/// (`symbols.name_split`), so the second stage reads them instead of cutting the file again.
pub fn name_split_terms(name: &str, words: &FileWords) -> String {
    let mut out = String::new();
    if words.0.is_empty() {
        return out;
    }
    let mut stemmed = String::new();
    for_each_word(name, |w| {
        split_terms(w, words, &mut stemmed, &mut |t: &str| {
            push_term(&mut out, t)
        })
    });
    out
}

/// The terms of the parts of `word` (see [`split_word`]), each part split again in turn
/// (`fromisoformat` → `from isoformat` → `isoformat iso format`); a part is shorter than its
/// word, so this ends.
fn split_terms(word: &str, words: &FileWords, stemmed: &mut String, f: &mut impl FnMut(&str)) {
    for part in split_word(word, words).into_iter().flatten() {
        if !is_stopword(part) {
            stem_into(part, stemmed);
            f(stemmed);
        }
        split_terms(part, words, stemmed, f);
    }
}

/// Appends `term` to a space-separated column of terms.
fn push_term(out: &mut String, term: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(term);
}

/// The terms of `text` as one space-separated string, for a full-text column.
pub fn terms_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() / 2);
    terms(text, |t| push_term(&mut out, t));
    out
}

/// A bag of the terms of `text`, each repeated at most `cap` times, as one string: term
/// frequency saturates in BM25 anyway, and the cap keeps large files cheap to index. (The index
/// cuts its files with [`bag_and_words`]; tests read a bag alone.)
pub fn bag_string(text: &str, cap: u32) -> String {
    bag_and_words(text, cap).0
}

/// [`bag_string`], and the text's [`FileWords`] (cut in the same pass).
///
/// Code writes the same names over and over, so each distinct token ([`for_each_token`]) is
/// cut once and its terms numbered; a token met again only counts its terms again. The terms
/// of a text are its tokens' (words, then compound identifiers: [`terms`]), so the bag is the
/// one cutting the whole text gives, term for term and in the same order: the words' terms in
/// the order they first appear, then the compound identifiers' that are new.
fn bag_and_words(text: &str, cap: u32) -> (String, FileWords) {
    let (bag, words, _) = cut_text(text, cap);
    (bag, words)
}

/// [`bag_and_words`], and the text's tokens cut into terms, for its definitions' fields
/// ([`TokenTerms::terms_string`]).
fn cut_text(text: &str, cap: u32) -> (String, FileWords, TokenTerms<'_>) {
    let distinct = distinct_tokens_about(text.len());
    let mut cut = TokenTerms::with_capacity(distinct);
    let record = text.len() <= MAX_WORDS_FILE;
    let mut file_words = FileWords(FxHashSet::with_capacity_and_hasher(
        if record { distinct } else { 0 },
        Default::default(),
    ));
    // Per distinct token (numbered in the order tokens first appear): how often it was met.
    let mut times: Vec<u32> = Vec::with_capacity(distinct);
    for_each_token(text, |token| {
        let t = cut.token(token, |w| {
            if record {
                file_words.insert(w)
            }
        }) as usize;
        if t == times.len() {
            times.push(0);
        }
        times[t] += 1;
    });
    // Per term: how often it was met and where it first came; then the terms in that order.
    // A term first comes with the first token to hold it, and tokens are numbered in the
    // order they first come: going over the distinct tokens in number order meets the terms
    // in the order going over every token would.
    let mut count: Vec<u32> = vec![0; cut.names.len()];
    let mut order: Vec<u32> = Vec::with_capacity(cut.names.len());
    let names = &cut.names;
    let mut meet = |n: u32, k: u32| {
        if names.get(n).len() > MAX_BAG_TERM {
            return;
        }
        let c = &mut count[n as usize];
        if *c == 0 {
            order.push(n);
        }
        *c += k;
    };
    for (&(from, to, _), &k) in cut.tokens.iter().zip(&times) {
        cut.terms[from as usize..to as usize]
            .iter()
            .for_each(|&n| meet(n, k));
    }
    for (&(_, from, to), &k) in cut.tokens.iter().zip(&times) {
        cut.terms[from as usize..to as usize]
            .iter()
            .for_each(|&n| meet(n, k));
    }
    // Allocated at its length: the bag is the largest string cut from a file, and growing it
    // copied it over and over.
    let len = order
        .iter()
        .map(|&n| count[n as usize].min(cap) as usize * (cut.names.get(n).len() + 1))
        .sum();
    let mut out = String::with_capacity(len);
    for n in order {
        for _ in 0..count[n as usize].min(cap) {
            push_term(&mut out, cut.names.get(n));
        }
    }
    (out, file_words, cut)
}

/// About how many distinct tokens a text of `len` bytes holds: code repeats its names, so they
/// grow more slowly than the text (a few hundred in 8 KiB of Python, two thousand in 128 KiB).
fn distinct_tokens_about(len: usize) -> usize {
    2 * len.isqrt() + len / 64
}

/// The distinct tokens of one text, each cut into its terms once: per token, its word terms
/// and then its compound identifiers' as ranges of `terms`; terms are numbered, and named by
/// their number in `names` (a bag leaves out those longer than [`MAX_BAG_TERM`]).
#[derive(Default)]
struct TokenTerms<'t> {
    /// The numbers of the tokens of at most 8 bytes (most of code's: `self`, `return`, `name`),
    /// by their bytes as one number ([`packed`]): found without hashing or comparing strings.
    by_packed: FxHashMap<u64, u32>,
    /// The numbers of the longer tokens.
    by_text: FxHashMap<&'t str, u32>,
    /// Per token: its words' terms at `terms[.0 .. .1]`, its compounds' at `terms[.1 .. .2]`.
    tokens: Vec<(u32, u32, u32)>,
    terms: Vec<u32>,
    /// The terms by number, end to end in one buffer (two boxed copies of each were a tenth of
    /// the cutting's time, in allocations).
    names: Texts,
    stemmed: String,
    /// Buffers the cutting of each new token reuses.
    word: String,
    joined: String,
    /// Buffers [`TokenTerms::terms_string`] writes a field's terms in before it copies them
    /// out at their length (a field's string grown term by term was a tenth of the cutting).
    field: String,
    compounds: String,
}

impl<'t> TokenTerms<'t> {
    /// Room for about `distinct` tokens and as many terms: growing the tables as a file is cut
    /// was a quarter of the cutting's time.
    fn with_capacity(distinct: usize) -> TokenTerms<'t> {
        TokenTerms {
            by_packed: FxHashMap::with_capacity_and_hasher(distinct, Default::default()),
            by_text: FxHashMap::with_capacity_and_hasher(distinct / 2, Default::default()),
            tokens: Vec::with_capacity(distinct),
            terms: Vec::with_capacity(distinct * 2),
            names: Texts::with_capacity(distinct, distinct * 8),
            stemmed: String::new(),
            word: String::new(),
            joined: String::new(),
            field: String::new(),
            compounds: String::new(),
        }
    }

    /// The number of `token`, cutting it if it is new (`word` sees each of its words then).
    fn token(&mut self, token: &'t str, mut word: impl FnMut(&str)) -> u32 {
        let packed = packed(token);
        if let Some(t) = self.number(token, packed) {
            return t;
        }
        let from = self.terms.len() as u32;
        let mut stemmed = std::mem::take(&mut self.stemmed);
        let mut buf = std::mem::take(&mut self.word);
        for_each_word_in(token, &mut buf, |w| {
            word(w);
            if w.len() < 2 || is_stopword(w) {
                return;
            }
            stem_into(w, &mut stemmed);
            self.push(&stemmed);
        });
        (self.stemmed, self.word) = (stemmed, buf);
        let mid = self.terms.len() as u32;
        let mut joined = std::mem::take(&mut self.joined);
        for_each_compound_in(token, &mut joined, |c| self.push(c));
        self.joined = joined;
        let t = self.tokens.len() as u32;
        self.tokens.push((from, mid, self.terms.len() as u32));
        match packed {
            Some(key) => self.by_packed.insert(key, t),
            None => self.by_text.insert(token, t),
        };
        t
    }

    /// The number of `token`, if it was cut.
    fn find(&self, token: &str) -> Option<u32> {
        self.number(token, packed(token))
    }

    /// [`Self::find`], given the token's [`packed`] number.
    fn number(&self, token: &str, packed: Option<u64>) -> Option<u32> {
        match packed {
            Some(key) => self.by_packed.get(&key),
            None => self.by_text.get(token),
        }
        .copied()
    }

    fn push(&mut self, term: &str) {
        let n = self.names.intern(term);
        self.terms.push(n);
    }

    /// [`terms_string`] of `text`, from the terms of its tokens where this text holds them all
    /// (a definition's name, parameters and docstring are nearly always written in its file):
    /// the words' terms token by token, then the compound identifiers', which is the order
    /// [`terms`] gives them in. A text with a token the file does not hold (a docstring cut
    /// mid-word) is cut anew.
    fn terms_string(&mut self, text: &str) -> String {
        self.field.clear();
        // The compounds' terms, appended after every word's (most fields have none).
        self.compounds.clear();
        let mut missing = false;
        for_each_token(text, |token| match self.find(token) {
            Some(t) if !missing => {
                let (from, mid, to) = self.tokens[t as usize];
                for &n in &self.terms[from as usize..mid as usize] {
                    push_term(&mut self.field, self.names.get(n));
                }
                for &n in &self.terms[mid as usize..to as usize] {
                    push_term(&mut self.compounds, self.names.get(n));
                }
            }
            _ => missing = true,
        });
        if missing {
            return terms_string(text);
        }
        if !self.compounds.is_empty() {
            push_term(&mut self.field, &self.compounds);
        }
        self.field.as_str().to_owned()
    }
}

/// A token of at most 8 bytes as one number: its bytes, little-endian, padded with zeros. No
/// token holds a zero byte ([`for_each_token`]), so no two tokens share a number.
fn packed(token: &str) -> Option<u64> {
    let bytes = token.as_bytes();
    if bytes.len() > 8 {
        return None;
    }
    // Byte by byte rather than through a copy of a variable length (a call to `memcpy`).
    Some(
        bytes
            .iter()
            .rev()
            .fold(0u64, |word, &b| (word << 8) | u64::from(b)),
    )
}

/// The bag as [`bag_and_words`] made it before it cut tokens once: the whole text cut in one
/// pass. What the faster version must give, term for term.
#[cfg(test)]
fn bag_and_words_reference(text: &str, cap: u32) -> (String, FileWords) {
    // term → (first occurrence, count); one allocation per distinct term.
    let mut seen: FxHashMap<Box<str>, (u32, u32)> = FxHashMap::default();
    let mut file_words = FileWords::default();
    let record = text.len() <= MAX_WORDS_FILE;
    terms_seeing_words(
        text,
        |w| {
            if record {
                file_words.insert(w)
            }
        },
        |t| {
            if t.len() > MAX_BAG_TERM {
                return;
            }
            if let Some(e) = seen.get_mut(t) {
                e.1 += 1;
            } else {
                let order = seen.len() as u32;
                seen.insert(t.into(), (order, 1));
            }
        },
    );
    let mut order: Vec<(&str, u32, u32)> = seen.iter().map(|(t, &(o, n))| (&**t, o, n)).collect();
    order.sort_unstable_by_key(|&(_, o, _)| o);
    let mut out = String::with_capacity(order.len() * 8);
    for (t, _, n) in order {
        for _ in 0..n.min(cap) {
            push_term(&mut out, t);
        }
    }
    (out, file_words)
}

/// The text of each stored column of a definition, before it is cut into terms: its name, the
/// names enclosing it (`Outer.method` → `Outer`), its parameters, and the start of its
/// docstring. The stored table and the second stage ([`crate::bodies`]) both read them here.
pub fn symbol_field_texts<'a>(
    name: &'a str,
    qualname: &'a str,
    signature: &'a str,
    docstring: Option<&'a str>,
) -> [&'a str; 4] {
    [
        name,
        qualname.rsplit_once('.').map_or("", |(p, _)| p),
        signature.split_once('(').map_or("", |(_, p)| p),
        prefix(docstring.unwrap_or(""), DOC_CHARS),
    ]
}

/// The indexed fields of one definition.
pub fn symbol_terms(
    name: &str,
    qualname: &str,
    signature: &str,
    docstring: Option<&str>,
    words: &FileWords,
) -> SymbolTerms {
    symbol_terms_cut_by(name, qualname, signature, docstring, words, terms_string)
}

/// [`symbol_terms`], each field cut into terms by `cut` (which gives what [`terms_string`]
/// gives).
fn symbol_terms_cut_by(
    name: &str,
    qualname: &str,
    signature: &str,
    docstring: Option<&str>,
    words: &FileWords,
    mut cut: impl FnMut(&str) -> String,
) -> SymbolTerms {
    let [name, context, signature, doc] = symbol_field_texts(name, qualname, signature, docstring);
    let name_split = name_split_terms(name, words);
    let mut name = cut(name);
    if !name_split.is_empty() {
        push_term(&mut name, &name_split);
    }
    SymbolTerms {
        name,
        name_split,
        context: cut(context),
        signature: cut(signature),
        doc: cut(doc),
    }
}

/// The module path of a file as words for the index: `pkg/http/client.py` → `pkg/http/client`.
pub fn module_path(rel: &str) -> &str {
    rel.rsplit_once('.').map_or(rel, |(stem, _)| stem)
}

/// Each definition's own lines — its span without the spans of the definitions nested in it —
/// as pieces of `text`. `spans` are `(start byte, end byte, index of the parent in spans)`, as
/// the parser reports them; spans past the end of a changed file are cut to it, and a piece that
/// would not start and end on a character is left out.
pub fn own_pieces<'t>(text: &'t str, spans: &[(usize, usize, Option<usize>)]) -> Vec<Vec<&'t str>> {
    let mut children: Vec<Vec<(usize, usize)>> = vec![Vec::new(); spans.len()];
    for &(start, end, parent) in spans {
        if let Some(p) = parent.and_then(|p| children.get_mut(p)) {
            p.push((start, end));
        }
    }
    spans
        .iter()
        .zip(children)
        .map(|(&(start, end, _), mut kids)| {
            let mut own = Vec::with_capacity(kids.len() + 1);
            let mut at = start.min(text.len());
            let end = end.min(text.len());
            kids.sort_unstable();
            for (ks, ke) in kids {
                if let Some(piece) = text.get(at..ks.clamp(at, end)) {
                    own.push(piece);
                }
                at = at.max(ke.min(end));
            }
            if let Some(piece) = text.get(at..end) {
                own.push(piece);
            }
            own
        })
        .collect()
}

fn prefix(text: &str, chars: usize) -> &str {
    // A text of no more bytes than `chars` has no more chars (nearly every docstring): not
    // walked char by char.
    if text.len() <= chars {
        return text;
    }
    text.char_indices()
        .nth(chars)
        .map_or(text, |(i, _)| &text[..i])
}

/// The full-text fields of a parsed file and of each of its symbols (in the parse's order).
pub fn search_terms(rel: &str, text: &str, parsed: &ParsedFile) -> (FileTerms, Vec<SymbolTerms>) {
    let module_path = module_path(rel);
    let (body, words, mut cut) = cut_text(text, FILE_BODY_CAP);
    let file = FileTerms {
        path: terms_string(module_path),
        doc: terms_string(prefix(
            parsed.description.as_deref().unwrap_or(""),
            DOC_CHARS,
        )),
        body,
    };
    // The stored context is the enclosing classes and functions only: the module path is the
    // file's (path column of `file_terms`), and the second stage ([`crate::bodies`]) adds it
    // back to each candidate symbol. Repeated for every symbol, it was a sixth of the postings.
    let symbols = parsed
        .symbols
        .iter()
        .map(|s| {
            symbol_terms_cut_by(
                &s.name,
                &s.qualname,
                &s.signature,
                s.docstring.as_deref(),
                &words,
                |field| cut.terms_string(field),
            )
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

    /// Cutting each distinct token once gives the bag and the words that cutting the whole
    /// text gives: on this crate's own sources, and on text with non-ASCII letters, digits,
    /// compounds, long terms and a repeated term past the cap.
    #[test]
    fn a_bag_cut_by_tokens_is_the_bag_of_the_whole_text() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut texts: Vec<String> = std::fs::read_dir(&src)
            .unwrap()
            .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
            .collect();
        assert!(texts.len() > 5);
        texts.push(
            "parseHTTPDate parse_header parse_header héllo_wörld Straße日本語Mixed x2y \
             HTTPServer http2time _private__name__ a b the of \
             averyveryveryveryveryveryveryveryverylongidentifierthatisnotkept \
             parse parse parse parse parse parse ünïcodeCamelCase"
                .to_owned(),
        );
        texts.push(String::new());
        for text in &texts {
            for cap in [1, 4] {
                let (bag, words) = bag_and_words(text, cap);
                let (want, want_words) = bag_and_words_reference(text, cap);
                assert_eq!(bag, want);
                assert_eq!(words.0, want_words.0);
            }
        }
    }

    /// Tokens of up to 8 bytes pack into numbers no two of them share (whatever their
    /// lengths: a shorter token is padded with zeros, which no token holds); longer ones do not
    /// pack, and are found by their text.
    #[test]
    fn short_tokens_pack_into_numbers_of_their_own() {
        let tokens = [
            "a", "ab", "ba", "a1", "_", "a_", "_a", "self", "return", "abcdefgh", "abcdefg", "é",
            "éa", "aé", "日本", "Straße",
        ];
        let numbers: Vec<u64> = tokens.iter().map(|t| packed(t).unwrap()).collect();
        let distinct: std::collections::HashSet<&u64> = numbers.iter().collect();
        assert_eq!(distinct.len(), tokens.len());
        assert_eq!(packed("self"), Some(u64::from_le_bytes(*b"self\0\0\0\0")));
        assert_eq!(packed("abcdefgh"), Some(u64::from_le_bytes(*b"abcdefgh")));
        assert_eq!(packed("abcdefghi"), None);
        assert_eq!(packed("日本語"), None);
        // Both kinds found again by the file's cut tokens.
        let text = "self abcdefghi self abcdefghi";
        let (_, _, cut) = cut_text(text, 4);
        assert_eq!(cut.find("self"), Some(0));
        assert_eq!(cut.find("abcdefghi"), Some(1));
        assert_eq!(cut.find("other"), None);
        assert_eq!(cut.find("abcdefghij"), None);
    }

    /// A definition's fields cut from its file's tokens are the fields cut anew: on this
    /// crate's sources (Rust) and on Python with a docstring cut mid-word, non-ASCII names,
    /// terms past the bag's length limit and a signature the parser rewrites.
    #[test]
    fn fields_cut_from_the_file_are_the_fields_cut_anew() {
        let registry = cast_parser::Registry::default();
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files: Vec<(String, String)> = std::fs::read_dir(src.join("graph"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                (p.file_name().unwrap().to_string_lossy().into_owned(), text)
            })
            .collect();
        let long_doc = format!(
            "Parses the header.{}",
            " averyveryverylongwordthatgoeson".repeat(200)
        );
        files.push((
            "m.py".to_owned(),
            format!(
                "class HTTPServer_日本(Base):\n    \"\"\"{long_doc}\"\"\"\n\n    def parse_a_very_very_long_identifier_name_that_is_kept(self, x: int=3, *a, **kw) -> 'Straße':\n        \"\"\"Return x2y of héllo_wörld.\"\"\"\n        return x\n\n\ndef isoformat(self):\n    return iso + format\n"
            ),
        ));
        let mut symbols = 0;
        for (rel, text) in &files {
            let language = registry.for_path(std::path::Path::new(rel)).unwrap();
            let parsed = language.parse(text).unwrap();
            let (_, fields) = search_terms(rel, text, &parsed);
            let words = FileWords::of(text);
            for (s, got) in parsed.symbols.iter().zip(&fields) {
                let want = symbol_terms(
                    &s.name,
                    &s.qualname,
                    &s.signature,
                    s.docstring.as_deref(),
                    &words,
                );
                assert_eq!(got, &want, "{rel}: {}", s.qualname);
                symbols += 1;
            }
            assert_eq!(fields.len(), parsed.symbols.len());
        }
        assert!(symbols > 50, "{symbols}");
    }

    #[test]
    fn stopwords_are_sorted_and_short_for_the_binary_search() {
        assert!(STOPWORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(STOPWORDS.iter().all(|w| w.len() <= STOPWORD_MAX_LEN));
        assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
        assert!(!is_stopword("parse") && !is_stopword("shoulder") && !is_stopword(""));
        // The table answers as a search of the list does, for every word of real text.
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/graph/resolve.rs"),
        )
        .unwrap();
        let mut words = 0;
        for_each_word(&text, |w| {
            words += 1;
            assert_eq!(is_stopword(w), STOPWORDS.binary_search(&w).is_ok(), "{w}");
        });
        assert!(words > 1000);
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
        for name in ["graph/resolve.rs", "index.rs", "text.rs", "snapshot.rs"] {
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
    fn the_terms_of_a_text_are_the_terms_of_its_tokens() {
        let mut texts: Vec<String> = vec![
            "parse_HTTPDate(x)+XMLHttpRequest2Go ÉCOLE_été_x straße_İstanbul __init__ a_b".into(),
            "naïve_parseHeader·getX ǅemal_ΣΑΣ Ⅻx 1½_a _ __".into(),
        ];
        for name in ["graph/resolve.rs", "text.rs", "snapshot.rs"] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("src")
                .join(name);
            texts.push(std::fs::read_to_string(path).unwrap());
        }
        for text in &texts {
            let mut whole = all(text);
            let mut by_token = Vec::new();
            for_each_token(text, |token| by_token.extend(all(token)));
            assert!(!whole.is_empty());
            whole.sort();
            by_token.sort();
            assert_eq!(by_token, whole);
        }
    }

    /// The name field of a definition `name` in a file of text `file`.
    fn name_terms_in(name: &str, file: &str) -> Vec<String> {
        let terms = symbol_terms(name, name, "", None, &FileWords::of(file));
        terms.name.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn a_name_that_runs_words_together_yields_the_words_its_file_writes_apart() {
        let file = "def getuser():\n    for name in ('LOGNAME', 'USER'): os.environ.get(name)\n\
                    def isoformat(self): return self.format(iso=True)\n\
                    def fromisoformat(s): ...  # from a string\ndef update(): date = 1\n";
        // `get` is a stopword: the split yields `user` alone, after the name's own terms.
        assert_eq!(name_terms_in("getuser", file), ["getuser", "user"]);
        assert_eq!(
            name_terms_in("isoformat", file),
            ["isoformat", "iso", "format"]
        );
        // The fewest parts, each split again; `from` is dropped as a stopword.
        assert_eq!(
            name_terms_in("fromisoformat", file),
            ["fromisoformat", "isoformat", "iso", "format"]
        );
        // `up` is too short to be a part, and no other file's words count.
        assert_eq!(name_terms_in("update", file), ["updat"]);
        assert_eq!(name_terms_in("isoformat", "nothing else"), ["isoformat"]);
        // Snake and camel names are cut as before; only their one-word runs are split.
        assert_eq!(
            name_terms_in("parse_isoformat", file),
            ["par", "isoformat", "parseisoformat", "iso", "format"]
        );
    }

    #[test]
    fn a_word_splits_into_the_fewest_parts_the_longest_first() {
        let words = FileWords::of("read readl line lines in rea dlines");
        assert_eq!(split_word("readlines", &words), Some(vec!["read", "lines"]));
        // Not the whole word as one part, nor a part shorter than three letters.
        assert_eq!(split_word("readline", &FileWords::of("readline")), None);
        assert_eq!(split_word("inline", &FileWords::of("in line")), None);
        // Too short a word, or one that is not lower-case letters, is left whole.
        assert_eq!(split_word("abcab", &FileWords::of("abc ab cab")), None);
        assert_eq!(split_word("read2lines", &words), None);
        // More than three parts is no split.
        let many = FileWords::of("abc def ghi jkl");
        assert_eq!(
            split_word("abcdefghi", &many),
            Some(vec!["abc", "def", "ghi"])
        );
        assert_eq!(split_word("abcdefghijkl", &many), None);
        // A text larger than the limit gives no words.
        let big = "word ".repeat(MAX_WORDS_FILE / 5 + 1);
        assert!(FileWords::of(&big).0.is_empty());
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
    fn own_pieces_leave_out_nested_definitions() {
        let text =
            "class Till:\n    alpha = 1\n    def open(self):\n        return beta\n    gamma = 2\n";
        let class_end = text.len();
        let open_start = text.find("    def open").unwrap();
        let open_end = text.find("    gamma").unwrap();
        let pieces = own_pieces(
            text,
            &[(0, class_end, None), (open_start, open_end, Some(0))],
        );
        assert_eq!(
            pieces[0],
            vec!["class Till:\n    alpha = 1\n", "    gamma = 2\n"]
        );
        assert_eq!(
            pieces[1],
            vec!["    def open(self):\n        return beta\n"]
        );
        // Spans past the end of a changed file are cut, not a panic.
        assert_eq!(own_pieces("x", &[(5, 90, None)]), vec![vec![""]]);
        // A span that would cut a character in two gives no piece rather than a panic.
        assert_eq!(own_pieces("é", &[(0, 1, None)]), vec![Vec::<&str>::new()]);
    }

    #[test]
    fn packed_stopwords_match_the_list_only() {
        for w in STOPWORDS {
            assert!(is_stopword(w), "{w}");
        }
        for w in ["", "ab", "thes", "whic", "parse", "théé", "a\0"] {
            assert!(!is_stopword(w), "{w:?}");
        }
    }

    #[test]
    fn bags_cap_repeats() {
        assert_eq!(bag_string("a_b a_b a_b a_b x", 2), "ab ab");
        assert_eq!(bag_string("cache cache cache", 2), "cach cach");
    }
}
