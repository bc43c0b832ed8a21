//! The similarity tier: the window of the file most like the SEARCH lines.
//!
//! A window has the SEARCH block's line count. Its similarity is `1 − D / M`, where `D` sums
//! the Levenshtein distances (strsim, over characters) of each SEARCH line and the file line
//! at the same offset, both trimmed, and `M` sums the longer length of each pair. Every window
//! of the file is scored exactly where it matters: a cheap lower bound on each pair's distance
//! (length difference, and shared characters by a 64-bucket histogram) bounds each window's
//! similarity from above, windows are scored in order of that bound, and scoring stops once no
//! unscored window can reach the second best found. The result is the exact best and second
//! best window, at a fraction of the cost of scoring them all.

use std::collections::HashMap;

/// A scored window: its first line (0-based) and its similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored {
    pub start: usize,
    pub similarity: f64,
}

/// The best and second-best windows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct Ranking {
    pub best: Option<Scored>,
    pub second: Option<Scored>,
}

const BUCKETS: usize = 64;

struct Profile {
    len: u32,
    hist: [u16; BUCKETS],
}

fn profile(s: &str) -> Profile {
    let mut hist = [0u16; BUCKETS];
    let mut len = 0u32;
    for c in s.chars() {
        len += 1;
        let b = (c as usize) % BUCKETS;
        hist[b] = hist[b].saturating_add(1);
    }
    Profile { len, hist }
}

/// A lower bound on the Levenshtein distance of two strings from their profiles: an alignment
/// keeps at most as many characters as the two have in common.
fn lower_bound(a: &Profile, b: &Profile) -> u32 {
    let common: u32 = a
        .hist
        .iter()
        .zip(&b.hist)
        .map(|(x, y)| u32::from(*x.min(y)))
        .sum();
    a.len.max(b.len) - common.min(a.len.max(b.len))
}

/// Ranks every window of `hay` (already trimmed lines) against `needle` (trimmed lines).
pub(crate) fn rank(hay: &[&str], needle: &[&str]) -> Ranking {
    let k = needle.len();
    let n = hay.len();
    if k == 0 || k > n || needle.iter().all(|l| l.is_empty()) {
        return Ranking::default();
    }
    // Distinct file lines, so each pair is bounded and scored once.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut uniq: Vec<&str> = Vec::new();
    let hay_ids: Vec<u32> = hay
        .iter()
        .map(|l| {
            *ids.entry(l).or_insert_with(|| {
                uniq.push(l);
                (uniq.len() - 1) as u32
            })
        })
        .collect();
    let u = uniq.len();
    if k.saturating_mul(u) > MAX_PAIRS {
        return Ranking::default();
    }
    let needle_profiles: Vec<Profile> = needle.iter().map(|l| profile(l)).collect();
    let uniq_profiles: Vec<Profile> = uniq.iter().map(|l| profile(l)).collect();
    // bound[i * u + id], longest[i * u + id]
    let mut bound = vec![0u32; k * u];
    let mut longest = vec![0u32; k * u];
    for (i, np) in needle_profiles.iter().enumerate() {
        for (id, up) in uniq_profiles.iter().enumerate() {
            bound[i * u + id] = lower_bound(np, up);
            longest[i * u + id] = np.len.max(up.len);
        }
    }
    // Upper bound of every window's similarity.
    let windows = n - k + 1;
    let mut order: Vec<(f64, usize)> = (0..windows)
        .filter_map(|w| {
            let (mut lb, mut m) = (0u64, 0u64);
            for i in 0..k {
                let id = hay_ids[w + i] as usize;
                lb += u64::from(bound[i * u + id]);
                m += u64::from(longest[i * u + id]);
            }
            (m > 0).then(|| (1.0 - lb as f64 / m as f64, w))
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));

    let mut distance: Vec<u32> = vec![u32::MAX; k * u];
    let mut ranking = Ranking::default();
    for (upper, w) in order {
        if let Some(second) = ranking.second
            && upper < second.similarity
        {
            break;
        }
        let (mut d, mut m) = (0u64, 0u64);
        for i in 0..k {
            let id = hay_ids[w + i] as usize;
            let slot = &mut distance[i * u + id];
            if *slot == u32::MAX {
                *slot = distance_of(needle[i], uniq[id]);
            }
            d += u64::from(*slot);
            m += u64::from(longest[i * u + id]);
        }
        let scored = Scored {
            start: w,
            similarity: 1.0 - d as f64 / m as f64,
        };
        match ranking.best {
            Some(best) if !better(&scored, &best) => {
                if ranking.second.is_none_or(|s| better(&scored, &s)) {
                    ranking.second = Some(scored);
                }
            }
            _ => {
                ranking.second = ranking.best;
                ranking.best = Some(scored);
            }
        }
    }
    ranking
}

/// SEARCH lines × distinct file lines above which the similarity tier is skipped (it would
/// need too much memory); such a block must match at an equality tier.
const MAX_PAIRS: usize = 4_000_000;

/// Characters of a line compared exactly; beyond them only the length difference counts, so a
/// minified line of 100 kB cannot stall the scan.
const MAX_CHARS: usize = 1_000;

/// Levenshtein distance over characters, on at most [`MAX_CHARS`] of each line.
fn distance_of(a: &str, b: &str) -> u32 {
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la <= MAX_CHARS && lb <= MAX_CHARS {
        return strsim::levenshtein(a, b) as u32;
    }
    let cut = |s: &str| s.char_indices().nth(MAX_CHARS).map_or(s.len(), |(i, _)| i);
    let head = strsim::levenshtein(&a[..cut(a)], &b[..cut(b)]);
    let tail = la
        .saturating_sub(MAX_CHARS)
        .abs_diff(lb.saturating_sub(MAX_CHARS));
    (head + tail) as u32
}

/// Higher similarity first; the earlier window on a tie, so results are deterministic.
fn better(a: &Scored, b: &Scored) -> bool {
    a.similarity > b.similarity || (a.similarity == b.similarity && a.start < b.start)
}

/// The least similarity the fuzzy tier accepts.
pub(crate) const MIN_SIMILARITY: f64 = 0.9;

/// Whether `best` clearly beats `second`: ahead by 5 points of similarity, with at most half
/// its share of differing characters.
pub(crate) fn clearly_ahead(best: f64, second: Option<f64>) -> bool {
    match second {
        None => true,
        Some(second) => best - second >= 0.05 && (1.0 - best) <= 0.5 * (1.0 - second),
    }
}

/// Whether few enough of the block's lines differ from the window for a similarity match:
/// at most half of its non-blank lines (and at least one may). A block whose every line is a
/// little off — copied from another file or an older version of this one — is refused rather
/// than written over text it only resembles. `needle` and `window` are trimmed lines of equal
/// length.
pub(crate) fn few_lines_differ(needle: &[&str], window: &[&str]) -> bool {
    let nonblank = needle.iter().filter(|l| !l.is_empty()).count();
    let differing = needle.iter().zip(window).filter(|(a, b)| a != b).count();
    differing <= (nonblank / 2).max(1)
}

/// The name a line defines — `def NAME`, `class NAME`, `function NAME`, `fn NAME`,
/// `func NAME` / `func (r T) NAME`, `struct`, `enum`, `trait`, `interface`, `type`, `mod` —
/// after modifiers such as `async`, `pub` or `export`. `None` for any other line.
pub(crate) fn defined_name(line: &str) -> Option<&str> {
    const KEYWORDS: [&str; 11] = [
        "def",
        "class",
        "function",
        "fn",
        "func",
        "struct",
        "enum",
        "trait",
        "interface",
        "type",
        "mod",
    ];
    const MODIFIERS: [&str; 16] = [
        "async",
        "pub",
        "export",
        "default",
        "static",
        "public",
        "private",
        "protected",
        "abstract",
        "final",
        "unsafe",
        "extern",
        "const",
        "override",
        "inline",
        "declare",
    ];
    let mut rest = line.trim_start();
    loop {
        let word_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..word_end];
        let after = &rest[word_end..];
        if word == "pub" && after.starts_with('(') {
            rest = after.split_once(')')?.1.trim_start();
        } else if MODIFIERS.contains(&word) && after.starts_with(char::is_whitespace) {
            rest = after.trim_start();
        } else if KEYWORDS.contains(&word) && after.starts_with(char::is_whitespace) {
            let mut name = after.trim_start();
            if word == "func" && name.starts_with('(') {
                name = name.split_once(')')?.1.trim_start();
            }
            let end = name
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(name.len());
            return (end > 0).then(|| &name[..end]);
        } else {
            return None;
        }
    }
}

/// The first line pair (SEARCH line, file line) whose defined names differ — a definition
/// renamed, or a definition where the other has none. `needle` and `window` have equal length.
pub(crate) fn renamed_definition<'a>(
    needle: &[&'a str],
    window: &[&'a str],
) -> Option<(usize, &'a str, &'a str)> {
    needle
        .iter()
        .zip(window)
        .enumerate()
        .find(|(_, (a, b))| defined_name(a) != defined_name(b))
        .map(|(i, (a, b))| (i, *a, *b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defined_names_are_read_across_languages() {
        let cases = [
            ("def test_a(self):", Some("test_a")),
            ("    async def fetch(url):", Some("fetch")),
            ("class Cart(Base):", Some("Cart")),
            ("export default function render(props) {", Some("render")),
            ("pub(crate) async fn run<T>(x: T) {", Some("run")),
            (
                "func (s *Server) Serve(l net.Listener) error {",
                Some("Serve"),
            ),
            ("type Config struct {", Some("Config")),
            ("return define(x)", None),
            ("deflate(x)", None),
            ("function (x) {", None),
        ];
        for (line, want) in cases {
            assert_eq!(defined_name(line), want, "{line}");
        }
        assert_eq!(
            renamed_definition(&["def test_a():", "x = 1"], &["def test_b():", "x = 1"]),
            Some((0, "def test_a():", "def test_b():"))
        );
        assert_eq!(renamed_definition(&["def f(a):"], &["def f(a, b):"]), None);
    }

    #[test]
    fn regression_a_block_whose_every_line_differs_is_not_a_near_miss() {
        let needle = ["'u'  # 0x75 -> U", "'v'  # 0x76 -> V", "'w'  # 0x77 -> W"];
        let stale = [
            "'u'  # 0x0075 -> U",
            "'v'  # 0x0076 -> V",
            "'w'  # 0x0077 -> W",
        ];
        assert!(!few_lines_differ(&needle, &stale));
        let one_typo = ["'u'  # 0x75 -> U", "'v'  # 0x76 -> V", "'w'  # 0x77 -> w"];
        assert!(few_lines_differ(&needle, &one_typo));
        assert!(few_lines_differ(&["return x"], &["return y"]));
    }

    fn naive(hay: &[&str], needle: &[&str]) -> Vec<(usize, f64)> {
        let k = needle.len();
        let mut all: Vec<(usize, f64)> = (0..=hay.len() - k)
            .filter_map(|w| {
                let (mut d, mut m) = (0usize, 0usize);
                for i in 0..k {
                    d += strsim::levenshtein(needle[i], hay[w + i]);
                    m += needle[i].chars().count().max(hay[w + i].chars().count());
                }
                (m > 0).then(|| (w, 1.0 - d as f64 / m as f64))
            })
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        all
    }

    #[test]
    fn pruned_ranking_equals_scoring_every_window() {
        let hay: Vec<String> = (0..300)
            .map(|i| format!("value_{} = compute({}, {})", i % 37, i % 11, i % 7))
            .collect();
        let hay: Vec<&str> = hay.iter().map(String::as_str).collect();
        let needle = [
            "value_5 = compute(5, 5)",
            "value_6 = compute(6, 6)",
            "value_7 = compute(7, 0)",
        ];
        let r = rank(&hay, &needle);
        let all = naive(&hay, &needle);
        assert_eq!(r.best.map(|s| (s.start, s.similarity)), Some(all[0]));
        assert_eq!(r.second.map(|s| (s.start, s.similarity)), Some(all[1]));
    }

    #[test]
    fn margins() {
        assert!(clearly_ahead(0.97, Some(0.80)));
        assert!(!clearly_ahead(0.97, Some(0.95)));
        assert!(clearly_ahead(0.95, None));
    }
}
