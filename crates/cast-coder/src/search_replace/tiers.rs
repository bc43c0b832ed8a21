//! The matching tiers: how a SEARCH line may differ from the file's line and still match.

use std::borrow::Cow;

pub use crate::tier::Tier;

/// The tiers that compare lines for equality, in order.
pub(crate) const EQUALITY_TIERS: [Tier; 6] = [
    Tier::Exact,
    Tier::TrailingWhitespace,
    Tier::BlankLines,
    Tier::Indentation,
    Tier::Whitespace,
    Tier::Punctuation,
];

impl Tier {
    /// Whether REPLACE is re-indented to the file's indentation at this tier.
    pub(crate) fn reindents(self) -> bool {
        self >= Tier::Indentation
    }

    /// The form of a line this tier compares.
    pub(crate) fn normalize(self, line: &str) -> Cow<'_, str> {
        match self {
            Tier::Exact => Cow::Borrowed(line),
            Tier::TrailingWhitespace | Tier::BlankLines => Cow::Borrowed(line.trim_end()),
            Tier::Indentation | Tier::Fuzzy => Cow::Borrowed(line.trim()),
            Tier::Whitespace => collapse_whitespace(line),
            Tier::Punctuation => {
                let ascii = ascii_punctuation(line);
                Cow::Owned(collapse_whitespace(&ascii).into_owned())
            }
        }
    }
}

/// Trims, and turns every run of whitespace into one space.
fn collapse_whitespace(line: &str) -> Cow<'_, str> {
    let trimmed = line.trim();
    let needs = trimmed
        .as_bytes()
        .windows(2)
        .any(|w| w[0].is_ascii_whitespace() && w[1].is_ascii_whitespace())
        || trimmed.chars().any(|c| c.is_whitespace() && c != ' ');
    if !needs {
        return Cow::Borrowed(trimmed);
    }
    let mut out = String::with_capacity(trimmed.len());
    let mut space = false;
    for c in trimmed.chars() {
        if c.is_whitespace() {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    Cow::Owned(out)
}

/// Typographic punctuation as ASCII (as Codex's apply_patch does).
fn ascii_punctuation(line: &str) -> Cow<'_, str> {
    if line.is_ascii() {
        return Cow::Borrowed(line);
    }
    Cow::Owned(
        line.chars()
            .map(|c| match c {
                '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
                '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
                | '\u{00BB}' => '"',
                '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
                | '\u{2212}' => '-',
                '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
                '\u{2026}' => '.',
                c => c,
            })
            .collect(),
    )
}

/// Every place where `needle` matches `hay` line for line (already normalised).
pub(crate) fn find_all<S: AsRef<str>>(hay: &[S], needle: &[S]) -> Vec<usize> {
    let k = needle.len();
    if k == 0 || k > hay.len() {
        return Vec::new();
    }
    let first = needle[0].as_ref();
    (0..=hay.len() - k)
        .filter(|&i| {
            hay[i].as_ref() == first
                && hay[i + 1..i + k]
                    .iter()
                    .zip(&needle[1..])
                    .all(|(a, b)| a.as_ref() == b.as_ref())
        })
        .collect()
}

/// Every place where the non-blank lines of `needle` match consecutive non-blank lines of
/// `hay` (lines compared without trailing whitespace), as `(first, end)` line ranges of `hay`
/// from the first to past the last matched line. Empty when `needle` has no non-blank line.
pub(crate) fn find_ignoring_blank_lines<S: AsRef<str>>(
    hay: &[S],
    needle: &[S],
) -> Vec<(usize, usize)> {
    let kept: Vec<(usize, &str)> = hay
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.as_ref().trim_end()))
        .filter(|(_, l)| !l.trim_start().is_empty())
        .collect();
    let wanted: Vec<&str> = needle
        .iter()
        .map(|l| l.as_ref().trim_end())
        .filter(|l| !l.trim_start().is_empty())
        .collect();
    let lines: Vec<&str> = kept.iter().map(|(_, l)| *l).collect();
    find_all(&lines, &wanted)
        .into_iter()
        .map(|at| (kept[at].0, kept[at + wanted.len() - 1].0 + 1))
        .collect()
}

/// How the places of several pieces (a SEARCH split at `...` lines) chain in order.
pub(crate) enum Chain {
    /// Some piece is found nowhere.
    Missing,
    /// No in-order placement.
    None,
    /// Exactly one: the start of each piece.
    One(Vec<usize>),
    /// Several; the first two placements' first pieces and their total count (capped).
    Many { starts: Vec<usize>, count: usize },
}

/// Counts the in-order placements of pieces, piece `j` starting at or after the end of piece
/// `j - 1`.
pub(crate) fn chain(places: &[Vec<usize>], lens: &[usize]) -> Chain {
    if places.iter().any(Vec::is_empty) {
        return Chain::Missing;
    }
    const CAP: usize = 1000;
    // counts[j][p]: placements of pieces 0..=j with piece j at places[j][p].
    let mut counts: Vec<Vec<usize>> = vec![vec![1; places[0].len()]];
    for j in 1..places.len() {
        let prev = &places[j - 1];
        let prev_counts = &counts[j - 1];
        let mut row = Vec::with_capacity(places[j].len());
        for &pos in &places[j] {
            let total: usize = prev
                .iter()
                .zip(prev_counts)
                .filter(|(p, _)| **p + lens[j - 1] <= pos)
                .map(|(_, c)| *c)
                .fold(0, |a, c| (a + c).min(CAP));
            row.push(total);
        }
        counts.push(row);
    }
    let last = places.len() - 1;
    let total = counts[last].iter().fold(0, |a, c| (a + c).min(CAP));
    if total == 0 {
        return Chain::None;
    }
    if total > 1 {
        // The first pieces of placements, for the message.
        let mut starts: Vec<usize> = Vec::new();
        for (p, &pos) in places[0].iter().enumerate() {
            if reaches_end(places, lens, &counts, 0, p) {
                starts.push(pos);
            }
        }
        if starts.len() < 2 {
            // All placements share the first piece; report the last pieces instead.
            starts = places[last]
                .iter()
                .zip(&counts[last])
                .filter(|(_, c)| **c > 0)
                .map(|(p, _)| *p)
                .collect();
        }
        return Chain::Many {
            starts,
            count: total,
        };
    }
    // Exactly one: walk back from the last piece.
    let mut chosen = vec![0; places.len()];
    let Some(p) = counts[last].iter().position(|&c| c > 0) else {
        return Chain::None;
    };
    chosen[last] = places[last][p];
    for j in (0..last).rev() {
        let next = chosen[j + 1];
        let Some(p) = places[j]
            .iter()
            .zip(&counts[j])
            .position(|(pos, c)| *c > 0 && *pos + lens[j] <= next)
        else {
            return Chain::None;
        };
        chosen[j] = places[j][p];
    }
    Chain::One(chosen)
}

/// Every in-order placement of the pieces, or `None` when there are more than `cap`.
pub(crate) fn all_chains(
    places: &[Vec<usize>],
    lens: &[usize],
    cap: usize,
) -> Option<Vec<Vec<usize>>> {
    fn walk(
        places: &[Vec<usize>],
        lens: &[usize],
        j: usize,
        from: usize,
        current: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
        cap: usize,
    ) -> bool {
        if j == places.len() {
            out.push(current.clone());
            return out.len() <= cap;
        }
        for &pos in places[j].iter().filter(|&&p| p >= from) {
            current.push(pos);
            let ok = walk(places, lens, j + 1, pos + lens[j], current, out, cap);
            current.pop();
            if !ok {
                return false;
            }
        }
        true
    }
    let mut out = Vec::new();
    walk(places, lens, 0, 0, &mut Vec::new(), &mut out, cap).then_some(out)
}

fn reaches_end(
    places: &[Vec<usize>],
    lens: &[usize],
    counts: &[Vec<usize>],
    j: usize,
    p: usize,
) -> bool {
    if j + 1 == places.len() {
        return true;
    }
    let end = places[j][p] + lens[j];
    places[j + 1].iter().enumerate().any(|(q, &pos)| {
        pos >= end && counts[j + 1][q] > 0 && reaches_end(places, lens, counts, j + 1, q)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_forms() {
        assert_eq!(Tier::TrailingWhitespace.normalize("  a \t"), "  a");
        assert_eq!(Tier::Indentation.normalize("\t a  b "), "a  b");
        assert_eq!(Tier::Whitespace.normalize("\t a  \tb "), "a b");
        assert_eq!(
            Tier::Punctuation.normalize("“a” – ‘b’\u{a0}c"),
            "\"a\" - 'b' c"
        );
    }

    #[test]
    fn chains_count_in_order_placements() {
        let one = chain(&[vec![0, 5], vec![3]], &[1, 1]);
        assert!(matches!(one, Chain::One(ref v) if v == &[0, 3]));
        let many = chain(&[vec![0, 1], vec![3]], &[1, 1]);
        assert!(matches!(many, Chain::Many { count: 2, .. }));
        assert!(matches!(chain(&[vec![4], vec![3]], &[1, 1]), Chain::None));
        assert!(matches!(chain(&[vec![4], vec![]], &[1, 1]), Chain::Missing));
    }
}
