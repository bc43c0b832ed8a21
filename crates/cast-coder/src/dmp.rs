//! diff-match-patch patches (`patch_toText` form), placed exactly or refused.
//!
//! The patch text is decoded by diff-match-patch-rs. Each patch carries a few characters of
//! context and the position it was made at; patches apply in order, each to the text the ones
//! before it produced, as the library does. A patch is placed where its old text (context and
//! deletions) occurs: if it occurs once, there; if several times, at the occurrence whose drift
//! from the recorded position equals the drift of the patch before it or of the next patch that
//! places unambiguously (text inserted above a patch moves it, and every patch below, by the
//! same amount); when that does not single out one occurrence, or the old text is nowhere, the
//! whole edit is refused. The library's own fuzzy placement (bitap within a distance) is not
//! used: after drift it may land on a similar place that is the wrong one, and a wrong
//! application is worse than a refusal.

use diff_match_patch_rs::{Compat, DiffMatchPatch, Ops};
use serde::{Deserialize, Serialize};

use crate::Format;
use crate::refusal::{LineRange, Reason, Refusal};

/// One decoded patch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmpPatch {
    /// Where the patch was made, in characters of the text with the patches before it applied.
    pub start: usize,
    /// The text it expects: context and deleted characters.
    pub old: String,
    /// The text it leaves: context and inserted characters.
    pub new: String,
}

/// Decodes `patch_toText` output.
pub fn parse_patches(text: &str) -> Result<Vec<DmpPatch>, Refusal> {
    let text = crate::text::normalize_edit_text(text);
    let text = text.trim_matches('\n');
    let malformed = |m: String, line: Option<usize>| Refusal::malformed(Format::Dmp, m, line);
    if text.trim().is_empty() {
        return Err(malformed("the patch is empty".into(), None));
    }
    // Check what the library would otherwise panic on or reject without a reason: headers, and
    // percent escapes that must decode to UTF-8.
    let mut starts = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        if line.starts_with("@@") {
            let start = header_start(line).ok_or_else(|| {
                malformed(
                    format!("{line:?} is not a patch header like `@@ -12,5 +12,6 @@`"),
                    Some(i + 1),
                )
            })?;
            starts.push(start);
            continue;
        }
        if starts.is_empty() {
            return Err(malformed(
                "the patch must start with a header like `@@ -12,5 +12,6 @@`".into(),
                Some(i + 1),
            ));
        }
        let sign = line.as_bytes()[0];
        if !matches!(sign, b' ' | b'+' | b'-') {
            return Err(malformed(
                format!("line {line:?} must start with ' ', '+', '-' or '@@'"),
                Some(i + 1),
            ));
        }
        percent_decode(&line[1..]).ok_or_else(|| {
            malformed(
                format!("line {line:?} has a % escape that is not UTF-8 text"),
                Some(i + 1),
            )
        })?;
    }
    let dmp = DiffMatchPatch::new();
    let patches = dmp
        .patch_from_text::<Compat>(text)
        .map_err(|e| malformed(format!("diff-match-patch cannot read it ({e:?})"), None))?;
    if patches.len() != starts.len() {
        return Err(malformed(
            format!(
                "{} headers but {} patches were read",
                starts.len(),
                patches.len()
            ),
            None,
        ));
    }
    Ok(patches
        .iter()
        .zip(starts)
        .map(|(p, start)| {
            let (mut old, mut new) = (String::new(), String::new());
            for d in p.diffs() {
                let s: String = d.data().iter().collect();
                match d.op() {
                    Ops::Equal => {
                        old.push_str(&s);
                        new.push_str(&s);
                    }
                    Ops::Delete => old.push_str(&s),
                    Ops::Insert => new.push_str(&s),
                }
            }
            DmpPatch { start, old, new }
        })
        .collect())
}

/// Whether a line is a patch header `@@ -a,b +c,d @@` (for telling formats apart).
pub(crate) fn is_patch_header(line: &str) -> bool {
    header_start(line.trim_end()).is_some()
}

/// The 0-based start of `@@ -a,b +c,d @@` in the new-text coordinates, as diff-match-patch
/// reads it (`c,0` means after character `c`; otherwise `c` is 1-based).
fn header_start(line: &str) -> Option<usize> {
    let inner = line.strip_prefix("@@ -")?.strip_suffix(" @@")?;
    let (old, new) = inner.split_once(" +")?;
    let coord = |s: &str| -> Option<(usize, Option<usize>)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, Some(b.parse().ok()?))),
            None => Some((s.parse().ok()?, None)),
        }
    };
    coord(old)?;
    let (c, d) = coord(new)?;
    Some(match d {
        Some(0) => c,
        _ => c.checked_sub(1)?,
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Applies patches to `text` (LF line ends; positions count characters).
pub(crate) fn plan(patches: &[DmpPatch], text: &str) -> Result<String, Refusal> {
    let mut chars: Vec<char> = text.chars().collect();
    let total = patches.len();
    let olds: Vec<Vec<char>> = patches.iter().map(|p| p.old.chars().collect()).collect();
    let news: Vec<Vec<char>> = patches.iter().map(|p| p.new.chars().collect()).collect();
    // Drift of the last placed patch: where it was found minus where it was made.
    let mut drift: Option<isize> = None;
    for (i, patch) in patches.iter().enumerate() {
        let old = &olds[i];
        let start = patch.start as isize;
        let line_of = |chars: &[char], at: usize| {
            chars[..at.min(chars.len())]
                .iter()
                .filter(|&&c| c == '\n')
                .count()
                + 1
        };
        let fail = |chars: &[char], message: String, locations: Vec<LineRange>| {
            Refusal::new(Reason::PatchFailed {
                patch: i + 1,
                patches: total,
                expected_line: line_of(chars, patch.start),
                message,
                locations,
            })
        };
        let pos = if old.is_empty() {
            if !chars.is_empty() {
                return Err(fail(
                    &chars,
                    "it has no context to anchor it; only an empty file takes a patch without \
                     context"
                        .into(),
                    Vec::new(),
                ));
            }
            0
        } else {
            let found = occurrences(&chars, old);
            match found.len() {
                0 => {
                    return Err(fail(
                        &chars,
                        format!(
                            "its text {:?} is not in the file (the file changed since the \
                             patch was made)",
                            shorten(&patch.old)
                        ),
                        Vec::new(),
                    ));
                }
                1 => found[0],
                _ => {
                    let mut drifts: Vec<isize> = drift.into_iter().collect();
                    if let Some(d) = lookahead_drift(&chars, patches, &olds, &news, i) {
                        drifts.push(d);
                    }
                    if drifts.is_empty() {
                        drifts.push(0);
                    }
                    let fits: Vec<usize> = found
                        .iter()
                        .copied()
                        .filter(|&p| drifts.contains(&(p as isize - start)))
                        .collect();
                    if fits.len() != 1 {
                        let locations = found
                            .iter()
                            .take(10)
                            .map(|&p| LineRange {
                                start: line_of(&chars, p),
                                end: line_of(&chars, p),
                            })
                            .collect();
                        return Err(fail(
                            &chars,
                            format!(
                                "its text occurs {} times and its position does not tell which \
                                 one is meant.",
                                found.len()
                            ),
                            locations,
                        ));
                    }
                    fits[0]
                }
            }
        };
        chars.splice(pos..pos + old.len(), news[i].iter().copied());
        drift = Some(pos as isize - start);
    }
    Ok(chars.into_iter().collect())
}

/// The drift of the next patch whose old text occurs exactly once in the current text,
/// measured in the current text's coordinates.
fn lookahead_drift(
    chars: &[char],
    patches: &[DmpPatch],
    olds: &[Vec<char>],
    news: &[Vec<char>],
    i: usize,
) -> Option<isize> {
    let mut shift: isize = 0; // growth of the patches between i and j, not yet applied
    for j in i..patches.len() {
        if j > i {
            let found = if olds[j].is_empty() {
                Vec::new()
            } else {
                occurrences(chars, &olds[j])
            };
            if found.len() == 1 {
                let expected = patches[j].start as isize - shift;
                return Some(found[0] as isize - expected);
            }
        }
        shift += news[j].len() as isize - olds[j].len() as isize;
    }
    None
}

fn occurrences(hay: &[char], needle: &[char]) -> Vec<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    let first = needle[0];
    (0..=hay.len() - needle.len())
        .filter(|&i| hay[i] == first && hay[i..i + needle.len()] == *needle)
        .collect()
}

fn shorten(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 80 {
        s.to_owned()
    } else {
        format!("{}…", chars[..80].iter().collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use diff_match_patch_rs::PatchInput;

    fn make(old: &str, new: &str) -> String {
        let dmp = DiffMatchPatch::new();
        let patches = dmp
            .patch_make::<Compat>(PatchInput::new_text_text(old, new))
            .unwrap();
        dmp.patch_to_text(&patches)
    }

    #[test]
    fn patches_made_by_the_library_apply() {
        let old = "def f():\n    return 1\n\ndef g():\n    return 2\n";
        let new = "def f():\n    return 10\n\ndef g():\n    return 20\n";
        let patches = parse_patches(&make(old, new)).unwrap();
        assert_eq!(plan(&patches, old).unwrap(), new);
    }

    #[test]
    fn drift_moves_every_patch_alike() {
        let old = "x = 1\ny = 1\nx = 1\ny = 1\nz = 1\n";
        let new = "x = 1\ny = 1\nx = 1\ny = 2\nz = 1\n";
        let patches = parse_patches(&make(old, new)).unwrap();
        let drifted = format!("# header\n{old}");
        assert_eq!(
            plan(&patches, &drifted).unwrap(),
            format!("# header\n{new}")
        );
    }

    #[test]
    fn missing_context_is_refused() {
        let patches = parse_patches(&make("hello world\n", "hello there\n")).unwrap();
        let err = plan(&patches, "something else\n").unwrap_err();
        assert!(
            matches!(*err.reason, Reason::PatchFailed { patch: 1, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn malformed_patches_are_refused_not_panicked_on() {
        for bad in [
            "",
            "nonsense",
            "@@ -1,3 +1,3 @@\n %FF%FE\n",
            "@@ -x +1 @@\n a\n",
            "@@ -1 +1 @@\n*a\n",
        ] {
            assert!(parse_patches(bad).is_err(), "{bad:?}");
        }
    }
}
