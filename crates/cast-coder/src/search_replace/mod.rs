//! SEARCH/REPLACE blocks: parsing, the matching tiers, and planning an edit.
//!
//! Blocks apply in order, each to the text the blocks before it produced. A block's SEARCH is
//! looked for tier by tier ([`Tier`]); the first tier that finds it anywhere decides, and it
//! must find exactly one place. A line of only `...` in both SEARCH and REPLACE (the same
//! number of them) elides unchanged lines: the pieces between them must occur in order, in
//! exactly one way, and each REPLACE piece replaces its SEARCH piece.

mod fuzzy;
mod parse;
mod reindent;
mod tiers;

use serde::Serialize;
use similar::{Algorithm, DiffOp};

pub use parse::{
    Block, FileEditSection, has_block_markers, has_file_edit_tags, parse_blocks, parse_reply,
};
pub use tiers::Tier;

use crate::refusal::{Candidate, DifferingLine, LineRange, Reason, Refusal};
use crate::text::{Lines, is_blank};
use reindent::Reindent;
use tiers::{Chain, EQUALITY_TIERS, chain, find_all};

/// How one block was applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlockReport {
    /// The block (1-based).
    pub block: usize,
    /// The tier that found it.
    pub tier: Tier,
    /// The lines it replaced, numbered in the text as it was when the block applied.
    pub lines: LineRange,
    /// The similarity, for the fuzzy tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// Whether SEARCH used `...` lines to elide unchanged lines.
    pub elided: bool,
    /// Whether line-number prefixes (`12 | `) were stripped from SEARCH and REPLACE.
    pub line_numbers_stripped: bool,
}

/// Applies blocks to `text` (LF line ends): the new text, or the refusal of the first block
/// that cannot apply.
pub(crate) fn plan(blocks: &[Block], text: &str) -> Result<(String, Vec<BlockReport>), Refusal> {
    let mut doc = Lines::split(text);
    let total = blocks.len();
    let mut reports = Vec::with_capacity(total);
    if let Some(pos) = blocks.iter().position(|b| b.search.is_empty()) {
        if total > 1 {
            return Err(Refusal::malformed(
                crate::Format::SearchReplace,
                format!(
                    "block {} has an empty SEARCH, which replaces the whole file; it must be \
                     the only block of its edit",
                    pos + 1
                ),
                Some(blocks[pos].edit_line).filter(|&l| l > 0),
            ));
        }
        let block = &blocks[pos];
        let final_newline = doc.lines.is_empty() || doc.final_newline;
        reports.push(BlockReport {
            block: 1,
            tier: Tier::Exact,
            lines: LineRange::from_index(0, doc.lines.len()),
            similarity: None,
            elided: false,
            line_numbers_stripped: false,
        });
        let new = Lines {
            lines: block.replace.clone(),
            final_newline,
        };
        return Ok((new.join(), reports));
    }
    let mut done = vec![false; total];
    for (i, block) in blocks.iter().enumerate() {
        if done[i] {
            continue;
        }
        // k identical blocks whose SEARCH occurs exactly k times: every order of applying
        // them gives the same file, so each place gets one.
        let twins: Vec<usize> = (i..total)
            .filter(|&j| {
                let b = &blocks[j];
                !done[j]
                    && (&b.search, &b.replace, b.exact_only)
                        == (&block.search, &block.replace, block.exact_only)
            })
            .collect();
        if twins.len() > 1
            && let Some(all) = place_every(block, &twins, total, &doc.lines)?
        {
            for placed in all.into_iter().rev() {
                doc.lines
                    .splice(placed.start..placed.end, placed.replacement);
                reports.push(placed.report);
            }
            for j in twins {
                done[j] = true;
            }
            continue;
        }
        let placed = place(block, i + 1, total, &doc.lines)?;
        doc.lines
            .splice(placed.start..placed.end, placed.replacement);
        reports.push(placed.report);
    }
    reports.sort_by_key(|r| r.block);
    Ok((doc.join(), reports))
}

/// Places the identical blocks `twins` (1-based numbers are `twins[n] + 1`) at every place
/// their SEARCH occurs, when the first equality tier that finds it finds exactly as many
/// places, none overlapping: the placements in file order, one per block. `None` when the
/// count differs (the block is then placed, or refused, on its own).
fn place_every(
    block: &Block,
    twins: &[usize],
    total: usize,
    lines: &[String],
) -> Result<Option<Vec<Placed>>, Refusal> {
    let single = Pieces {
        search: vec![block.search.as_slice()],
        replace: vec![block.replace.as_slice()],
    };
    let tiers: &[Tier] = if block.exact_only {
        &[Tier::Exact]
    } else {
        &EQUALITY_TIERS
    };
    for &tier in tiers {
        let ranges: Vec<(usize, usize)> = if tier == Tier::BlankLines {
            tiers::find_ignoring_blank_lines(lines, &block.search)
        } else {
            let hay: Vec<_> = lines.iter().map(|l| tier.normalize(l)).collect();
            let needle: Vec<_> = block.search.iter().map(|l| tier.normalize(l)).collect();
            find_all(&hay, &needle)
                .into_iter()
                .map(|s| (s, s + needle.len()))
                .collect()
        };
        if ranges.is_empty() {
            continue;
        }
        let apart = ranges.windows(2).all(|w| w[0].1 <= w[1].0);
        if ranges.len() != twins.len() || !apart {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(ranges.len());
        for (&(start, end), &j) in ranges.iter().zip(twins) {
            let mut placed = if tier == Tier::BlankLines {
                build_ignoring_blank_lines(
                    &block.search,
                    &block.replace,
                    (start, end),
                    j + 1,
                    lines,
                    false,
                )
            } else {
                build(&single, &[start], tier, None, (j + 1, total), lines, false)?
            };
            placed.report.block = j + 1;
            out.push(placed);
        }
        return Ok(Some(out));
    }
    Ok(None)
}

struct Placed {
    start: usize,
    end: usize,
    replacement: Vec<String>,
    report: BlockReport,
}

/// A block's SEARCH and REPLACE split at `...` lines (one piece when there are none).
struct Pieces<'a> {
    search: Vec<&'a [String]>,
    replace: Vec<&'a [String]>,
}

fn is_dots(line: &str) -> bool {
    line.trim() == "..."
}

fn split_dots(lines: &[String]) -> Vec<&[String]> {
    lines.split(|l| is_dots(l)).collect()
}

fn pieces(block: &Block) -> Result<Option<Pieces<'_>>, String> {
    let s = block.search.iter().filter(|l| is_dots(l)).count();
    let r = block.replace.iter().filter(|l| is_dots(l)).count();
    if s == 0 || s != r {
        return Ok(None);
    }
    let mut out = Pieces {
        search: Vec::new(),
        replace: Vec::new(),
    };
    for (sp, rp) in split_dots(&block.search)
        .into_iter()
        .zip(split_dots(&block.replace))
    {
        if sp.is_empty() {
            if rp.is_empty() {
                continue;
            }
            return Err(
                "REPLACE has lines next to a `...` line where SEARCH has none, so they cannot be \
                 placed; put unchanged lines from the file on both sides of every `...` line"
                    .to_owned(),
            );
        }
        out.search.push(sp);
        out.replace.push(rp);
    }
    if out.search.is_empty() {
        return Ok(None);
    }
    Ok(Some(out))
}

/// Places one block: the literal text, then each equality tier over each reading of the block,
/// then the similarity tier; else the refusal that says where the nearest text is.
fn place(block: &Block, index: usize, total: usize, lines: &[String]) -> Result<Placed, Refusal> {
    // The literal text first: a `...` line may be Python's Ellipsis.
    if let Some(placed) = place_literally(block, index, total, lines) {
        return placed;
    }
    if block.exact_only {
        return Err(refuse_exact_only(block, index, total, lines));
    }
    let elided = pieces(block).map_err(|message| {
        Refusal::malformed(
            crate::Format::SearchReplace,
            format!("block {index}: {message}"),
            Some(block.edit_line).filter(|&l| l > 0),
        )
    })?;
    let stripped = stripped_line_numbers(block);
    let readings = readings(block, elided.as_ref(), stripped.as_ref());
    if let Some(placed) = place_by_equality(&readings, index, total, lines) {
        return placed;
    }
    // Similarity, for blocks without `...` elision (the block as written when it has none,
    // and the block without line numbers).
    let mut candidates: Vec<(&Block, bool)> = Vec::with_capacity(2);
    if elided.is_none() {
        candidates.push((block, false));
    }
    if let Some(stripped) = &stripped {
        candidates.push((stripped, true));
    }
    let closest = match place_by_similarity(&candidates, index, total, lines) {
        Similarity::Placed(placed) => return placed,
        Similarity::Closest(closest) => closest,
    };
    Err(not_found(
        block,
        elided.as_ref(),
        closest,
        index,
        total,
        lines,
    ))
}

/// The block's SEARCH exactly as written: `None` when it is nowhere in the file.
fn place_literally(
    block: &Block,
    index: usize,
    total: usize,
    lines: &[String],
) -> Option<Result<Placed, Refusal>> {
    let exact = find_all(lines, &block.search);
    match exact.len() {
        0 => None,
        1 => {
            let literal = Pieces {
                search: vec![block.search.as_slice()],
                replace: vec![block.replace.as_slice()],
            };
            Some(build(
                &literal,
                &exact,
                Tier::Exact,
                None,
                (index, total),
                lines,
                false,
            ))
        }
        _ => Some(Err(ambiguous(
            index,
            total,
            Tier::Exact,
            &exact,
            block.search.len(),
        ))),
    }
}

/// The refusal of a block that asked for an exact match and has none, with the closest text.
fn refuse_exact_only(block: &Block, index: usize, total: usize, lines: &[String]) -> Refusal {
    let trimmed_hay: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    let needle: Vec<&str> = block.search.iter().map(|l| l.trim()).collect();
    let closest = fuzzy::rank(&trimmed_hay, &needle)
        .best
        .filter(|b| b.similarity >= 0.5)
        .map(|b| candidate_at(lines, &block.search, b.start, b.similarity));
    Refusal::new(Reason::NoMatch {
        block: index,
        blocks: total,
        piece: None,
        closest,
        replace_present: replace_present(block, lines),
        exact_only: true,
    })
}

/// The ways the equality tiers read a block, in order: as written (literally, then with `...`
/// elision), then without line numbers. Each with whether line numbers were stripped.
fn readings<'a>(
    block: &'a Block,
    elided: Option<&Pieces<'a>>,
    stripped: Option<&'a Block>,
) -> Vec<(Pieces<'a>, bool)> {
    let mut readings = vec![(
        Pieces {
            search: vec![block.search.as_slice()],
            replace: vec![block.replace.as_slice()],
        },
        false,
    )];
    if let Some(p) = elided {
        readings.push((
            Pieces {
                search: p.search.clone(),
                replace: p.replace.clone(),
            },
            false,
        ));
    }
    if let Some(stripped) = stripped {
        readings.push((
            match pieces(stripped) {
                Ok(Some(p)) => p,
                _ => Pieces {
                    search: vec![stripped.search.as_slice()],
                    replace: vec![stripped.replace.as_slice()],
                },
            },
            true,
        ));
    }
    readings
}

/// The equality tiers over each reading: the first tier that finds a reading decides (one
/// place, or a refusal as ambiguous). `None` when no tier finds any reading.
fn place_by_equality(
    readings: &[(Pieces<'_>, bool)],
    index: usize,
    total: usize,
    lines: &[String],
) -> Option<Result<Placed, Refusal>> {
    for (reading, numbers_stripped) in readings {
        for tier in EQUALITY_TIERS {
            if tier == Tier::Exact && reading.search.len() == 1 && !numbers_stripped {
                continue; // done by place_literally
            }
            if tier == Tier::BlankLines {
                // Blocks with `...` elision are not read this way.
                let ([search], [replace]) = (&reading.search[..], &reading.replace[..]) else {
                    continue;
                };
                let ranges = tiers::find_ignoring_blank_lines(lines, search);
                match ranges.as_slice() {
                    [] => continue,
                    [(start, end)] => {
                        return Some(Ok(build_ignoring_blank_lines(
                            search,
                            replace,
                            (*start, *end),
                            index,
                            lines,
                            *numbers_stripped,
                        )));
                    }
                    _ => {
                        return Some(Err(Refusal::new(Reason::Ambiguous {
                            block: index,
                            blocks: total,
                            tier,
                            locations: ranges
                                .iter()
                                .take(10)
                                .map(|&(s, e)| LineRange::from_index(s, e - s))
                                .collect(),
                            count: ranges.len(),
                        })));
                    }
                }
            }
            let hay: Vec<_> = lines.iter().map(|l| tier.normalize(l)).collect();
            let places: Vec<Vec<usize>> = reading
                .search
                .iter()
                .map(|p| {
                    let needle: Vec<_> = p.iter().map(|l| tier.normalize(l)).collect();
                    find_all(&hay, &needle)
                })
                .collect();
            let lens: Vec<usize> = reading.search.iter().map(|p| p.len()).collect();
            match chain(&places, &lens) {
                Chain::One(starts) => {
                    return Some(build(
                        reading,
                        &starts,
                        tier,
                        None,
                        (index, total),
                        lines,
                        *numbers_stripped,
                    ));
                }
                Chain::Many { starts, count } => {
                    // Placements that differ only where REPLACE keeps SEARCH (an unchanged
                    // anchor piece) give the same file: then there is nothing to choose.
                    if let Some(placed) = same_result(
                        reading,
                        &places,
                        &lens,
                        tier,
                        (index, total),
                        lines,
                        *numbers_stripped,
                    ) {
                        return Some(Ok(placed));
                    }
                    let mut r = ambiguous(index, total, tier, &starts, lens[0]);
                    if let Reason::Ambiguous { count: c, .. } = &mut *r.reason {
                        *c = count.max(starts.len());
                    }
                    return Some(Err(r));
                }
                Chain::Missing | Chain::None => {}
            }
        }
    }
    None
}

/// What the similarity tier decided.
enum Similarity {
    /// Placed, or refused with a reason of its own (a tie, a renamed definition).
    Placed(Result<Placed, Refusal>),
    /// Not placed: the closest text seen, if any was close enough to name.
    Closest(Option<Candidate>),
}

/// The similarity tier over the candidate blocks (each with whether line numbers were
/// stripped): a window clearly ahead of the rest and differing in few lines is placed.
fn place_by_similarity(
    candidates: &[(&Block, bool)],
    index: usize,
    total: usize,
    lines: &[String],
) -> Similarity {
    let trimmed_hay: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
    let mut closest = None;
    for &(candidate, numbers_stripped) in candidates {
        let needle: Vec<&str> = candidate.search.iter().map(|l| l.trim()).collect();
        let ranking = fuzzy::rank(&trimmed_hay, &needle);
        let Some(best) = ranking.best else { continue };
        let window = &trimmed_hay[best.start..best.start + needle.len()];
        if best.similarity >= fuzzy::MIN_SIMILARITY && fuzzy::few_lines_differ(&needle, window) {
            let second = ranking.second.map(|s| s.similarity);
            if fuzzy::clearly_ahead(best.similarity, second) {
                if let Some((i, wrote, _)) = fuzzy::renamed_definition(&needle, window) {
                    let line = best.start + i;
                    return Similarity::Placed(Err(Refusal::new(Reason::NearMatchRenames {
                        block: index,
                        blocks: total,
                        closest: candidate_at(
                            lines,
                            &candidate.search,
                            best.start,
                            best.similarity,
                        ),
                        wrote: wrote.to_owned(),
                        line: line + 1,
                        file: lines[line].clone(),
                    })));
                }
                let single = Pieces {
                    search: vec![candidate.search.as_slice()],
                    replace: vec![candidate.replace.as_slice()],
                };
                return Similarity::Placed(build(
                    &single,
                    &[best.start],
                    Tier::Fuzzy,
                    Some(best.similarity),
                    (index, total),
                    lines,
                    numbers_stripped,
                ));
            }
            if let Some(runner_up) = ranking.second {
                return Similarity::Placed(Err(Refusal::new(Reason::FuzzyTie {
                    block: index,
                    blocks: total,
                    best: candidate_at(lines, &candidate.search, best.start, best.similarity),
                    runner_up: candidate_at(
                        lines,
                        &candidate.search,
                        runner_up.start,
                        runner_up.similarity,
                    ),
                })));
            }
        }
        if closest.is_none() && best.similarity >= 0.5 {
            closest = Some(candidate_at(
                lines,
                &candidate.search,
                best.start,
                best.similarity,
            ));
        }
    }
    Similarity::Closest(closest)
}

/// The refusal of a block found nowhere: where the nearest text is (for an elided block, the
/// first piece that is missing and its nearest text), and whether REPLACE is already there.
fn not_found(
    block: &Block,
    elided: Option<&Pieces<'_>>,
    mut closest: Option<Candidate>,
    index: usize,
    total: usize,
    lines: &[String],
) -> Refusal {
    let mut piece = None;
    if let Some(p) = elided {
        let hay: Vec<&str> = lines.iter().map(|l| l.trim()).collect();
        for (j, sp) in p.search.iter().enumerate() {
            let needle: Vec<&str> = sp.iter().map(|l| l.trim()).collect();
            if find_all(&hay, &needle).is_empty() {
                piece = Some(j + 1);
                closest = fuzzy::rank(&hay, &needle)
                    .best
                    .filter(|b| b.similarity >= 0.5)
                    .map(|b| candidate_at(lines, sp, b.start, b.similarity));
                break;
            }
        }
    }
    Refusal::new(Reason::NoMatch {
        block: index,
        blocks: total,
        piece,
        closest,
        replace_present: replace_present(block, lines),
        exact_only: false,
    })
}

/// When every placement of an ambiguous block yields the same text, the first placement.
fn same_result(
    reading: &Pieces<'_>,
    places: &[Vec<usize>],
    lens: &[usize],
    tier: Tier,
    block: (usize, usize),
    lines: &[String],
    numbers_stripped: bool,
) -> Option<Placed> {
    const CAP: usize = 64;
    let chains = tiers::all_chains(places, lens, CAP)?;
    let mut first: Option<(Placed, Vec<String>)> = None;
    for starts in chains {
        let placed = build(reading, &starts, tier, None, block, lines, numbers_stripped).ok()?;
        let mut result = lines[..placed.start].to_vec();
        result.extend(placed.replacement.iter().cloned());
        result.extend(lines[placed.end..].iter().cloned());
        match &first {
            None => first = Some((placed, result)),
            Some((_, r)) if *r == result => {}
            Some(_) => return None,
        }
    }
    first.map(|(p, _)| p)
}

fn ambiguous(index: usize, total: usize, tier: Tier, starts: &[usize], len: usize) -> Refusal {
    Refusal::new(Reason::Ambiguous {
        block: index,
        blocks: total,
        tier,
        locations: starts
            .iter()
            .take(10)
            .map(|&s| LineRange::from_index(s, len))
            .collect(),
        count: starts.len(),
    })
}

fn candidate_at(lines: &[String], search: &[String], start: usize, similarity: f64) -> Candidate {
    let text: Vec<String> = lines[start..start + search.len()].to_vec();
    let differing = search
        .iter()
        .zip(&text)
        .enumerate()
        .filter(|(_, (s, f))| s.trim() != f.trim())
        .map(|(i, (s, f))| DifferingLine {
            wrote: s.clone(),
            line: start + i + 1,
            file: f.clone(),
        })
        .collect();
    Candidate {
        lines: LineRange::from_index(start, search.len()),
        similarity: (similarity * 1000.0).round() / 1000.0,
        text,
        differing,
    }
}

/// Where the REPLACE text already stands, when SEARCH was not found.
fn replace_present(block: &Block, lines: &[String]) -> Option<LineRange> {
    if block.replace.is_empty()
        || block.replace.iter().all(|l| is_blank(l))
        || block.replace == block.search
    {
        return None;
    }
    for tier in [Tier::Exact, Tier::TrailingWhitespace, Tier::Indentation] {
        let hay: Vec<_> = lines.iter().map(|l| tier.normalize(l)).collect();
        let needle: Vec<_> = block.replace.iter().map(|l| tier.normalize(l)).collect();
        if let Some(&at) = find_all(&hay, &needle).first() {
            return Some(LineRange::from_index(at, block.replace.len()));
        }
    }
    None
}

/// Builds the replacement of a placed block.
fn build(
    pieces: &Pieces<'_>,
    starts: &[usize],
    tier: Tier,
    similarity: Option<f64>,
    (index, total): (usize, usize),
    lines: &[String],
    numbers_stripped: bool,
) -> Result<Placed, Refusal> {
    let first = starts[0];
    let last = starts.len() - 1;
    let end = starts[last] + pieces.search[last].len();
    let reindent = if tier.reindents() {
        let pairs = pieces.search.iter().zip(starts).flat_map(|(p, &s)| {
            lines[s..s + p.len()]
                .iter()
                .map(String::as_str)
                .zip(p.iter().map(String::as_str))
        });
        reindent::learn(pairs).map_err(|message| {
            Refusal::new(Reason::Reindent {
                block: index,
                blocks: total,
                lines: LineRange::from_index(first, end - first),
                message,
            })
        })?
    } else {
        Reindent::Same
    };
    let mut replacement = Vec::new();
    for (j, (sp, rp)) in pieces.search.iter().zip(&pieces.replace).enumerate() {
        let start = starts[j];
        if tier.reindents() {
            // At the normalising tiers, lines REPLACE keeps from SEARCH stay as the file has
            // them (they differ only in whitespace or punctuation). At the similarity tier
            // REPLACE is written as given: it says what the model wants the lines to be.
            let mut keep: Vec<Option<usize>> = vec![None; rp.len()];
            let diff = if tier == Tier::Fuzzy {
                Vec::new()
            } else {
                similar::capture_diff_slices(Algorithm::Myers, sp, rp)
            };
            for op in diff {
                if let DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } = op
                {
                    for d in 0..len {
                        keep[new_index + d] = Some(start + old_index + d);
                    }
                }
            }
            for (line, kept) in rp.iter().zip(keep) {
                match kept {
                    Some(at) => replacement.push(lines[at].clone()),
                    None => replacement.push(reindent.apply(line).map_err(|message| {
                        Refusal::new(Reason::Reindent {
                            block: index,
                            blocks: total,
                            lines: LineRange::from_index(first, end - first),
                            message,
                        })
                    })?),
                }
            }
        } else {
            replacement.extend(rp.iter().cloned());
        }
        if j < last {
            replacement.extend(lines[start + sp.len()..starts[j + 1]].iter().cloned());
        }
    }
    Ok(Placed {
        start: first,
        end,
        replacement,
        report: BlockReport {
            block: index,
            tier,
            lines: LineRange::from_index(first, end - first),
            similarity: similarity.map(|s| (s * 1000.0).round() / 1000.0),
            elided: pieces.search.len() > 1,
            line_numbers_stripped: numbers_stripped,
        },
    })
}

/// Builds the replacement of a block placed by the blank-line tier at the file lines
/// `start..end` (from its first to its last non-blank line). SEARCH's blank lines at its ends
/// stand for the file's blank lines outside the range: as many of them as REPLACE repeats are
/// left out of it. Inside, where REPLACE keeps a non-blank SEARCH line and writes SEARCH's
/// blank lines next to it unchanged, the file's blank lines there are written instead; lines
/// REPLACE keeps are written as the file has them.
fn build_ignoring_blank_lines(
    search: &[String],
    replace: &[String],
    (start, end): (usize, usize),
    index: usize,
    lines: &[String],
    numbers_stripped: bool,
) -> Placed {
    let leading = |l: &[String]| l.iter().take_while(|x| is_blank(x)).count();
    let trailing = |l: &[String]| l.iter().rev().take_while(|x| is_blank(x)).count();
    let (sl, st) = (leading(search), trailing(search));
    let search = &search[sl..search.len() - st];
    let (rl, rt) = (leading(replace).min(sl), trailing(replace).min(st));
    let replace = if rl + rt >= replace.len() {
        &replace[..0]
    } else {
        &replace[rl..replace.len() - rt]
    };
    // The file line each non-blank SEARCH line matched, in order.
    let file_nonblank: Vec<usize> = (start..end).filter(|&i| !is_blank(&lines[i])).collect();
    let search_nonblank: Vec<usize> = (0..search.len())
        .filter(|&i| !is_blank(&search[i]))
        .collect();
    let mut file_of = vec![None; search.len()];
    for (s, f) in search_nonblank.iter().zip(&file_nonblank) {
        file_of[*s] = Some(*f);
    }
    // Which SEARCH line each REPLACE line keeps.
    let mut kept: Vec<Option<usize>> = vec![None; replace.len()];
    let mut kept_at: Vec<Option<usize>> = vec![None; search.len()];
    for op in similar::capture_diff_slices(Algorithm::Myers, search, replace) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for d in 0..len {
                kept[new_index + d] = Some(old_index + d);
                kept_at[old_index + d] = Some(new_index + d);
            }
        }
    }
    // The blank runs of REPLACE that stand for a gap of SEARCH (between two consecutive
    // non-blank SEARCH lines), with the file's lines for that gap: (from, to, file lines).
    let mut swaps: Vec<(usize, usize, std::ops::Range<usize>)> = Vec::new();
    for pair in search_nonblank.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let gap = b - a - 1;
        let (Some(fa), Some(fb)) = (file_of[a], file_of[b]) else {
            continue;
        };
        let run = if let Some(ra) = kept_at[a] {
            let n = replace[ra + 1..].iter().take_while(|l| is_blank(l)).count();
            (ra + 1, ra + 1 + n)
        } else if let Some(rb) = kept_at[b] {
            let n = replace[..rb]
                .iter()
                .rev()
                .take_while(|l| is_blank(l))
                .count();
            (rb - n, rb)
        } else {
            continue;
        };
        if run.1 - run.0 == gap && !swaps.iter().any(|(f, t, _)| (*f, *t) == run) {
            swaps.push((run.0, run.1, fa + 1..fb));
        }
    }
    swaps.sort_by_key(|(f, _, _)| *f);
    let mut replacement = Vec::with_capacity(replace.len() + 4);
    let mut swaps = swaps.into_iter().peekable();
    let mut r = 0;
    while r <= replace.len() {
        if let Some((_, to, file_lines)) = swaps.next_if(|(f, _, _)| *f == r) {
            replacement.extend(lines[file_lines].iter().cloned());
            r = to;
            continue;
        }
        let Some(line) = replace.get(r) else { break };
        match kept[r].and_then(|s| file_of[s]) {
            Some(f) => replacement.push(lines[f].clone()),
            None => replacement.push(line.clone()),
        }
        r += 1;
    }
    Placed {
        start,
        end,
        replacement,
        report: BlockReport {
            block: index,
            tier: Tier::BlankLines,
            lines: LineRange::from_index(start, end - start),
            similarity: None,
            elided: false,
            line_numbers_stripped: numbers_stripped,
        },
    }
}

/// The block without line-number prefixes copied from a numbered listing (`  12 | x`,
/// `12\tx`, `12→x`), when every non-blank SEARCH line has one and the numbers run on.
fn stripped_line_numbers(block: &Block) -> Option<Block> {
    fn split(line: &str) -> Option<(usize, &str)> {
        let t = line.trim_start();
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            return None;
        }
        let n: usize = t[..digits].parse().ok()?;
        let rest = &t[digits..];
        let body = if let Some(r) = rest.strip_prefix('\t').or_else(|| rest.strip_prefix('→')) {
            r
        } else {
            let r = rest.trim_start_matches(' ');
            let r = r.strip_prefix('|').or_else(|| r.strip_prefix(':'))?;
            r.strip_prefix(' ').unwrap_or(r)
        };
        Some((n, body))
    }
    let mut numbers = Vec::new();
    let mut search = Vec::new();
    for line in &block.search {
        match split(line) {
            Some((n, body)) => {
                numbers.push(n);
                search.push(body.to_owned());
            }
            None if is_blank(line) => search.push(String::new()),
            None => return None,
        }
    }
    if numbers.len() < 2.min(block.search.len()) || numbers.windows(2).any(|w| w[1] != w[0] + 1) {
        return None;
    }
    let replace = block
        .replace
        .iter()
        .map(|l| split(l).map_or_else(|| l.clone(), |(_, b)| b.to_owned()))
        .collect();
    Some(Block {
        search,
        replace,
        edit_line: block.edit_line,
        exact_only: block.exact_only,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(
        text: &str,
        search: &str,
        replace: &str,
    ) -> Result<(String, Vec<BlockReport>), Refusal> {
        plan(&[Block::new(search, replace)], text)
    }

    #[test]
    fn exact_unique_match_applies() {
        let (out, r) = apply("a\nb\nc\n", "b\n", "B\n").unwrap();
        assert_eq!(out, "a\nB\nc\n");
        assert_eq!(r[0].tier, Tier::Exact);
        assert_eq!(r[0].lines, LineRange { start: 2, end: 2 });
    }

    #[test]
    fn duplicate_is_refused_with_locations() {
        let err = apply("x\nb\ny\nb\n", "b", "B").unwrap_err();
        assert!(
            matches!(*err.reason, Reason::Ambiguous { count: 2, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("line 2, line 4"), "{err}");
    }

    #[test]
    fn trailing_whitespace_tier_writes_replace_as_given() {
        let (out, r) = apply(
            "def f():  \n    return 1\n",
            "def f():\n    return 1",
            "def f():  \n    return 2",
        )
        .unwrap();
        assert_eq!(out, "def f():  \n    return 2\n");
        assert_eq!(r[0].tier, Tier::TrailingWhitespace);
    }

    #[test]
    fn dedented_search_reindents_replace() {
        let text = "class A:\n    def f(self):\n        return 1\n";
        let (out, r) = apply(
            text,
            "def f(self):\n    return 1",
            "def f(self):\n    x = 2\n    return x",
        )
        .unwrap();
        assert_eq!(
            out,
            "class A:\n    def f(self):\n        x = 2\n        return x\n"
        );
        assert_eq!(r[0].tier, Tier::Indentation);
    }

    #[test]
    fn fuzzy_match_with_clear_winner() {
        let text = "alpha = 1\nbeta = compute_the_value(alpha, 'first')\ngamma = 3\n";
        let (out, r) = apply(
            text,
            "beta = compute_the_value(alpha, \"first\")",
            "beta = 2",
        )
        .unwrap();
        assert_eq!(out, "alpha = 1\nbeta = 2\ngamma = 3\n");
        assert_eq!(r[0].tier, Tier::Fuzzy);
    }

    #[test]
    fn missing_text_reports_closest_and_already_present() {
        let text = "def total(items):\n    return sum(items)\n";
        let err = apply(
            text,
            "def total(items):\n    return sum(item for item in items)",
            "def total(items):\n    return sum(items)",
        )
        .unwrap_err();
        let Reason::NoMatch {
            replace_present,
            closest,
            ..
        } = &*err.reason
        else {
            panic!("{err:?}")
        };
        assert_eq!(*replace_present, Some(LineRange { start: 1, end: 2 }));
        assert_eq!(closest.as_ref().map(|c| c.lines.start), Some(1));
        assert!(err.to_string().contains("already present"), "{err}");
    }

    #[test]
    fn elided_search_keeps_the_middle() {
        let text = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n";
        let (out, r) = apply(
            text,
            "def f():\n...\n    return a",
            "def f():\n...\n    return a + 1",
        )
        .unwrap();
        assert_eq!(
            out,
            "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a + 1\n"
        );
        assert!(r[0].elided);
    }

    #[test]
    fn elided_block_with_a_repeated_unchanged_anchor_applies() {
        // The top piece occurs twice before the unique bottom piece, but it is unchanged, so
        // every reading gives the same file.
        let text = "    try:\n        a()\n    try:\n        b()\n        target = 1\n";
        let (out, _) = apply(
            text,
            "    try:\n...\n        target = 1",
            "    try:\n...\n        target = 2",
        )
        .unwrap();
        assert_eq!(
            out,
            "    try:\n        a()\n    try:\n        b()\n        target = 2\n"
        );
    }

    #[test]
    fn elided_block_whose_changed_piece_is_ambiguous_is_refused() {
        let text = "x = 1\nend\nx = 1\nend\n";
        let err = apply(text, "x = 1\n...\nend", "x = 2\n...\nend").unwrap_err();
        assert!(matches!(*err.reason, Reason::Ambiguous { .. }), "{err:?}");
    }

    #[test]
    fn regression_literal_ellipsis_in_a_docstring_with_blank_line_whitespace() {
        // A docstring's own `...` line is text, not an elision, even when SEARCH only matches
        // after ignoring trailing whitespace.
        let text = "    \"\"\"Example::\n\n        ctx.push()\n        ...\n        ctx.pop()\n    \"\"\"\n";
        let search = "    \"\"\"Example::\n    \n        ctx.push()\n        ...\n        ctx.pop()\n    \"\"\"";
        let replace = "    \"\"\"Example::\n\n        with ctx:\n            ...\n    \"\"\"";
        let (out, r) = apply(text, search, replace).unwrap();
        assert_eq!(out, format!("{replace}\n"));
        assert!(!r[0].elided);
    }

    #[test]
    fn ellipsis_as_python_code_is_matched_literally() {
        let text = "def f():\n    ...\n\ndef g():\n    pass\n";
        let (out, _) = apply(text, "def f():\n    ...", "def f():\n    return 1").unwrap();
        assert_eq!(out, "def f():\n    return 1\n\ndef g():\n    pass\n");
    }

    #[test]
    fn line_number_prefixes_are_stripped() {
        let text = "a = 1\nb = 2\nc = 3\n";
        let (out, r) = apply(
            text,
            "  2 | b = 2\n  3 | c = 3",
            "  2 | b = 20\n  3 | c = 3",
        )
        .unwrap();
        assert_eq!(out, "a = 1\nb = 20\nc = 3\n");
        assert!(r[0].line_numbers_stripped);
    }

    #[test]
    fn empty_search_replaces_the_whole_file_and_must_be_alone() {
        let (out, _) = apply("old\n", "", "new\n").unwrap();
        assert_eq!(out, "new\n");
        let two = [Block::new("", "x"), Block::new("old", "y")];
        assert!(plan(&two, "old\n").is_err());
    }

    #[test]
    fn blank_line_tier_keeps_the_files_blank_lines() {
        let text = "a = 1\n\nb = 2\n\n\nc = 3\nd = 4\n";
        // SEARCH drops both gaps; REPLACE changes the line between them.
        let (out, r) = apply(text, "a = 1\nb = 2\nc = 3", "a = 1\nb = 20\nc = 3").unwrap();
        assert_eq!(out, "a = 1\n\nb = 20\n\n\nc = 3\nd = 4\n");
        assert_eq!(r[0].tier, Tier::BlankLines);
        assert_eq!(r[0].lines, LineRange { start: 1, end: 6 });
        // Deleting the middle line leaves one gap, not two.
        let (out, _) = apply(text, "a = 1\nb = 2\nc = 3", "a = 1\nc = 3").unwrap();
        assert_eq!(out, "a = 1\n\nc = 3\nd = 4\n");
        // Blank lines REPLACE adds where SEARCH had none are written as asked.
        let (out, _) = apply(text, "c = 3\n\nd = 4", "c = 3\n\n\nd = 4").unwrap();
        assert_eq!(out, "a = 1\n\nb = 2\n\n\nc = 3\n\n\nd = 4\n");
        // SEARCH's blank lines at its ends stand for the file's, which stay outside.
        let (out, r) = apply(text, "\nb = 2\nc = 3\n", "\nb = 2\nc = 30\n").unwrap();
        assert_eq!(out, "a = 1\n\nb = 2\n\n\nc = 30\nd = 4\n");
        assert_eq!(r[0].lines, LineRange { start: 3, end: 6 });
    }

    #[test]
    fn blank_line_tier_requires_a_unique_place() {
        let text = "x = 1\n\ny = 2\n\nx = 1\ny = 2\n\nx = 1\n\n\ny = 2\n";
        let err = apply(text, "x = 1\n\n\n\ny = 2", "z").unwrap_err();
        assert!(
            matches!(
                *err.reason,
                Reason::Ambiguous {
                    tier: Tier::BlankLines,
                    count: 3,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn identical_blocks_need_exactly_as_many_places() {
        let text = "f(1)\ng()\nf(1)\nh()\nf(1)\n";
        let block = Block::new("f(1)", "f(2)");
        let (out, reports) = plan(&[block.clone(), block.clone(), block.clone()], text).unwrap();
        assert_eq!(out, "f(2)\ng()\nf(2)\nh()\nf(2)\n");
        assert_eq!(
            reports.iter().map(|r| r.block).collect::<Vec<_>>(),
            [1, 2, 3]
        );
        let err = plan(&[block.clone(), block], text).unwrap_err();
        assert!(
            matches!(*err.reason, Reason::Ambiguous { count: 3, .. }),
            "{err:?}"
        );
        // Overlapping places are not k distinct places.
        let err = plan(
            &[Block::new("a\na", "b"), Block::new("a\na", "b")],
            "a\na\na\n",
        )
        .unwrap_err();
        assert!(matches!(*err.reason, Reason::Ambiguous { .. }), "{err:?}");
    }

    #[test]
    fn blocks_apply_in_order() {
        let blocks = [Block::new("a", "b"), Block::new("b\nc", "d")];
        let (out, _) = plan(&blocks, "a\nc\n").unwrap();
        assert_eq!(out, "d\n");
    }
}
