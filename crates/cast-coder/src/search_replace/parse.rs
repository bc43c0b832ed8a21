//! Reading SEARCH/REPLACE blocks, and `<file-edit filePath="…">` sections of a model's reply.

use serde::{Deserialize, Serialize};

use crate::Format;
use crate::refusal::Refusal;
use crate::text::normalize_edit_text;

/// One SEARCH/REPLACE block: lines to find, lines to put in their place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// The lines to find (no line ends). Empty: replace the whole file.
    pub search: Vec<String>,
    /// The lines to put in their place. Empty: delete them.
    pub replace: Vec<String>,
    /// The 1-based line of the edit text where the block's SEARCH marker stands (0 when the
    /// block was built in code).
    #[serde(default)]
    pub edit_line: usize,
    /// Only an exact match may place this block (the JSON form's `exact_match_only`): no
    /// looser tier, no `...` elision, no line-number stripping.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exact_only: bool,
}

impl Block {
    /// A block from SEARCH and REPLACE texts (a final newline does not add a line).
    pub fn new(search: &str, replace: &str) -> Block {
        Block {
            search: crate::text::fragment_lines(&normalize_edit_text(search)),
            replace: crate::text::fragment_lines(&normalize_edit_text(replace)),
            edit_line: 0,
            exact_only: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Search,
    Divider,
    Replace,
}

/// `^-{7,} SEARCH>?$`, `^<{7,} SEARCH>?$`, `^={7,}$`, `^\+{7,} REPLACE>?$`, `^>{7,} REPLACE>?$`
/// (surrounding whitespace ignored).
fn marker(line: &str) -> Option<Marker> {
    let line = line.trim();
    let run = |ch: char| line.chars().take_while(|&c| c == ch).count();
    let word = |n: usize| {
        let rest = &line[n..];
        let rest = rest.strip_suffix('>').unwrap_or(rest);
        rest.strip_prefix(' ').map(str::trim_start)
    };
    let first = line.chars().next()?;
    let n = run(first);
    if n < 7 {
        return None;
    }
    match first {
        '=' if n == line.len() => Some(Marker::Divider),
        '-' | '<' if word(n) == Some("SEARCH") => Some(Marker::Search),
        '+' | '>' if word(n) == Some("REPLACE") => Some(Marker::Replace),
        _ => None,
    }
}

/// Reads every SEARCH/REPLACE block of an edit. Text outside blocks (prose, code fences) is
/// ignored.
pub fn parse_blocks(text: &str) -> Result<Vec<Block>, Refusal> {
    parse_blocks_at(&normalize_edit_text(text), 0)
}

fn malformed(message: String, line: usize) -> Refusal {
    Refusal::malformed(Format::SearchReplace, message, Some(line))
}

fn parse_blocks_at(text: &str, first_line: usize) -> Result<Vec<Block>, Refusal> {
    let mut blocks = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    let mut i = 0;
    while i < lines.len() {
        let line_no = first_line + i + 1;
        match marker(lines[i]) {
            None => i += 1,
            Some(Marker::Divider) => {
                // A lone `=======` outside a block is ordinary text (an RST underline), unless
                // a REPLACE marker follows before any SEARCH marker: then SEARCH was forgotten.
                let next = lines[i + 1..].iter().find_map(|l| marker(l));
                if next == Some(Marker::Replace) {
                    return Err(malformed(
                        format!(
                            "block {}: `=======` without a `------- SEARCH` line before it",
                            blocks.len() + 1
                        ),
                        line_no,
                    ));
                }
                i += 1;
            }
            Some(Marker::Replace) => {
                return Err(malformed(
                    format!(
                        "block {}: `+++++++ REPLACE` without a `------- SEARCH` line and \
                         `=======` before it",
                        blocks.len() + 1
                    ),
                    line_no,
                ));
            }
            Some(Marker::Search) => {
                let start = i + 1;
                let mut dividers = Vec::new();
                let mut end = None;
                let mut j = start;
                while j < lines.len() {
                    match marker(lines[j]) {
                        Some(Marker::Divider) => dividers.push(j),
                        Some(Marker::Replace) => {
                            end = Some(j);
                            break;
                        }
                        Some(Marker::Search) => {
                            return Err(malformed(
                                format!(
                                    "block {} has no `+++++++ REPLACE` line before the next \
                                     `------- SEARCH` (line {})",
                                    blocks.len() + 1,
                                    first_line + j + 1
                                ),
                                line_no,
                            ));
                        }
                        None => {}
                    }
                    j += 1;
                }
                let Some(end) = end else {
                    return Err(malformed(
                        format!(
                            "block {} is not closed by a `+++++++ REPLACE` line (was the reply \
                             cut off?)",
                            blocks.len() + 1
                        ),
                        line_no,
                    ));
                };
                // With several `=======` lines (an RST heading inside the text), the divider
                // is the middle one: SEARCH and REPLACE then hold as many of them each.
                let divider = match dividers.len() {
                    0 => {
                        return Err(malformed(
                            format!(
                                "block {} has no `=======` line between SEARCH and REPLACE",
                                blocks.len() + 1
                            ),
                            line_no,
                        ));
                    }
                    n if n % 2 == 1 => dividers[n / 2],
                    n => {
                        return Err(malformed(
                            format!(
                                "block {} has {n} `=======` lines; it cannot be told which one \
                                 divides SEARCH from REPLACE. Use a block whose text has no \
                                 line of only `=` signs",
                                blocks.len() + 1
                            ),
                            line_no,
                        ));
                    }
                };
                blocks.push(Block {
                    search: lines[start..divider]
                        .iter()
                        .map(|s| s.to_string())
                        .collect(),
                    replace: lines[divider + 1..end]
                        .iter()
                        .map(|s| s.to_string())
                        .collect(),
                    edit_line: line_no,
                    exact_only: false,
                });
                i = end + 1;
            }
        }
    }
    if blocks.is_empty() {
        return Err(Refusal::malformed(
            Format::SearchReplace,
            "no SEARCH/REPLACE block found; write each block as `------- SEARCH`, the exact \
             lines to find, `=======`, the new lines, `+++++++ REPLACE`",
            None,
        ));
    }
    Ok(blocks)
}

/// One `<file-edit filePath="…">` section of a model's reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEditSection {
    /// The path as the reply wrote it.
    pub path: String,
    /// The section's blocks.
    pub blocks: Vec<Block>,
}

/// Whether a text holds a `------- SEARCH` (or `<<<<<<< SEARCH`) marker line.
pub fn has_block_markers(text: &str) -> bool {
    text.lines().any(|l| marker(l) == Some(Marker::Search))
}

/// Whether a text holds `<file-edit` tags.
pub fn has_file_edit_tags(text: &str) -> bool {
    text.contains("<file-edit")
}

/// Reads every `<file-edit filePath="…">…</file-edit>` section of a reply, ignoring the text
/// around them (prose, `<chat>` text). Sections naming the same path are kept in order.
pub fn parse_reply(text: &str) -> Result<Vec<FileEditSection>, Refusal> {
    let text = normalize_edit_text(text);
    let mut sections = Vec::new();
    let mut rest = text.as_str();
    let mut offset = 0;
    while let Some(open) = rest.find("<file-edit") {
        let after_name = &rest[open + "<file-edit".len()..];
        let line_of = |pos: usize| text[..offset + pos].matches('\n').count() + 1;
        if !after_name.starts_with(|c: char| c.is_whitespace() || c == '>') {
            // `<file-edits` or similar: not our tag.
            offset += open + 1;
            rest = &rest[open + 1..];
            continue;
        }
        let Some(close_angle) = after_name.find('>') else {
            return Err(Refusal::malformed(
                Format::SearchReplace,
                "a `<file-edit` tag is not closed by `>`",
                Some(line_of(open)),
            ));
        };
        let attrs = &after_name[..close_angle];
        let Some(path) = attribute(attrs, "filePath").or_else(|| attribute(attrs, "path")) else {
            return Err(Refusal::malformed(
                Format::SearchReplace,
                "a `<file-edit>` tag has no filePath=\"…\" attribute",
                Some(line_of(open)),
            ));
        };
        let body_start = open + "<file-edit".len() + close_angle + 1;
        let body = &rest[body_start..];
        let Some(end) = body.find("</file-edit>") else {
            return Err(Refusal::malformed(
                Format::SearchReplace,
                format!("the `<file-edit filePath=\"{path}\">` section has no `</file-edit>`"),
                Some(line_of(open)),
            ));
        };
        let first_line = line_of(body_start) - 1;
        let blocks = parse_blocks_at(&body[..end], first_line).map_err(|r| r.with_path(&path))?;
        sections.push(FileEditSection { path, blocks });
        let consumed = body_start + end + "</file-edit>".len();
        offset += consumed;
        rest = &rest[consumed..];
    }
    if sections.is_empty() {
        return Err(Refusal::malformed(
            Format::SearchReplace,
            "no `<file-edit filePath=\"…\">…</file-edit>` section found",
            None,
        ));
    }
    Ok(sections)
}

fn attribute(attrs: &str, name: &str) -> Option<String> {
    let mut rest = attrs;
    while let Some(pos) = rest.find(name) {
        let before_ok = pos == 0 || rest[..pos].ends_with(|c: char| c.is_whitespace());
        let after = rest[pos + name.len()..].trim_start();
        if before_ok && let Some(value) = after.strip_prefix('=') {
            let value = value.trim_start();
            let quote = value.chars().next()?;
            if quote == '"' || quote == '\'' {
                let inner = &value[1..];
                let end = inner.find(quote)?;
                return Some(inner[..end].to_owned());
            }
        }
        rest = &rest[pos + name.len()..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_blocks_among_prose_and_fences() {
        let edit = "Here is the change:\n```python\n------- SEARCH\na = 1\n=======\na = 2\n+++++++ REPLACE\n```\n<<<<<<< SEARCH\nb\n=======\n>>>>>>> REPLACE\n";
        let blocks = parse_blocks(edit).unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].search, ["a = 1"]);
        assert_eq!(blocks[0].replace, ["a = 2"]);
        assert_eq!(blocks[0].edit_line, 3);
        assert_eq!(blocks[1].search, ["b"]);
        assert!(blocks[1].replace.is_empty());
    }

    #[test]
    fn tolerates_trailing_angle_and_long_markers() {
        let edit = "---------- SEARCH>\nx\n==========\ny\n++++++++++ REPLACE>\n";
        let blocks = parse_blocks(edit).unwrap();
        assert_eq!(
            (blocks[0].search.clone(), blocks[0].replace.clone()),
            (vec!["x".to_owned()], vec!["y".to_owned()])
        );
    }

    #[test]
    fn rst_underlines_inside_a_block_pick_the_middle_divider() {
        let edit = "------- SEARCH\nTitle\n=======\n=======\nNew title\n=======\n+++++++ REPLACE\n";
        let blocks = parse_blocks(edit).unwrap();
        assert_eq!(blocks[0].search, ["Title", "======="]);
        assert_eq!(blocks[0].replace, ["New title", "======="]);
    }

    #[test]
    fn unclosed_block_is_malformed() {
        let err = parse_blocks("------- SEARCH\na\n=======\nb\n").unwrap_err();
        assert!(err.to_string().contains("not closed"), "{err}");
        let err = parse_blocks("just prose").unwrap_err();
        assert!(err.to_string().contains("no SEARCH/REPLACE block"), "{err}");
    }

    #[test]
    fn reply_sections_are_read_in_order() {
        let reply = "<chat>I will fix both.</chat>\n<file-edit filePath=\"a.py\">\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n</file-edit>\nand\n<file-edit filePath='b/c.py'>\n------- SEARCH\n=======\nnew\n+++++++ REPLACE\n</file-edit>";
        let sections = parse_reply(reply).unwrap();
        assert_eq!(sections.len(), 2);
        assert_eq!(sections[0].path, "a.py");
        assert_eq!(sections[0].blocks[0].edit_line, 3);
        assert_eq!(sections[1].path, "b/c.py");
        assert!(sections[1].blocks[0].search.is_empty());
    }

    #[test]
    fn reply_without_closing_tag_is_malformed() {
        let err = parse_reply(
            "<file-edit filePath=\"a.py\">\n------- SEARCH\nx\n=======\ny\n+++++++ REPLACE\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("</file-edit>"), "{err}");
    }
}
