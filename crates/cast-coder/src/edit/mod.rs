//! Edits in their four formats, and planning one against a text: pure, no I/O.

mod operations;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::dmp::{self, DmpPatch};
use crate::lazy;
use crate::ops::{self, Op};
use crate::refusal::{Reason, Refusal};
use crate::search_replace::{self, Block, BlockReport};
use crate::text::normalize_edit_text;

/// The four edit formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `------- SEARCH` / `=======` / `+++++++ REPLACE` blocks.
    SearchReplace,
    /// A JSON array of insert / replace / delete ops by original line number.
    Op,
    /// diff-match-patch patch text (`patch_toText`).
    Dmp,
    /// The new text with unchanged runs collapsed to `... existing code ...` marker lines.
    Lazy,
}

impl Format {
    /// Every format, in the order they are documented.
    pub const ALL: [Format; 4] = [Format::SearchReplace, Format::Op, Format::Dmp, Format::Lazy];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Format::SearchReplace => "search-replace",
            Format::Op => "op",
            Format::Dmp => "dmp",
            Format::Lazy => "lazy",
        }
    }
}

impl Format {
    /// Tells an edit's format from its text: JSON is `op` (or `search-replace` when every
    /// operation is a `search_replace` one), SEARCH markers or `<file-edit>` sections are
    /// `search-replace`, `@@ -A,B +C,D @@` headers are `dmp`, and `... existing code ...`
    /// marker lines are `lazy`. `None` when the text shows none of these.
    pub fn detect(text: &str) -> Option<Format> {
        if let Some(value) = operations::json_value(text) {
            return Some(if operations::all_search_replace(&value) {
                Format::SearchReplace
            } else {
                Format::Op
            });
        }
        if search_replace::has_file_edit_tags(text) || search_replace::has_block_markers(text) {
            return Some(Format::SearchReplace);
        }
        if text.lines().any(dmp::is_patch_header) {
            return Some(Format::Dmp);
        }
        if text.lines().any(lazy::is_marker) {
            return Some(Format::Lazy);
        }
        None
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!("unknown edit format {s:?}; expected search-replace, op, dmp or lazy")
            })
    }
}

/// A parsed edit to one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "kebab-case")]
pub enum Edit {
    /// SEARCH/REPLACE blocks, applied in order.
    SearchReplace {
        /// The blocks.
        blocks: Vec<Block>,
    },
    /// Line ops by original line number.
    Op {
        /// The ops, in any order.
        ops: Vec<Op>,
    },
    /// diff-match-patch patches.
    Dmp {
        /// The decoded patches, in order.
        patches: Vec<DmpPatch>,
    },
    /// A lazy sketch.
    Lazy {
        /// The sketch text.
        sketch: String,
    },
}

/// One part of an edit's text, with the file it names when it names one: an op's or a JSON
/// operation's `file_path`, or a `<file-edit filePath="…">` section of a reply.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedEdit {
    /// The file the text names (as written), if any.
    pub path: Option<String>,
    /// Which part of the text this is (`operation 2`, `<file-edit> section 1`), for messages.
    pub what: String,
    /// The edit.
    pub edit: Edit,
}

impl Edit {
    /// Parses the text of an edit to one file. A malformed edit is a [`Refusal`] whose message
    /// says what to fix. A text that names a file (an op's `file_path`, a `<file-edit>`
    /// section) is refused here, since nothing checks that name against the file edited: use
    /// [`Edit::parse_for`] (one target) or [`crate::FileEdit::parse_named`] (the files named).
    pub fn parse(format: Format, text: &str) -> Result<Edit, Refusal> {
        Edit::parse_for(format, text, "the file edited", |_| false)
    }

    /// Parses the text of an edit to `target` (as shown in messages). Every file the text
    /// names must be the target (`is_target(name)`); an edit naming another file is refused,
    /// so it is never applied to the wrong file. Parts for the target are joined: blocks in
    /// order, ops together.
    pub fn parse_for(
        format: Format,
        text: &str,
        target: &str,
        is_target: impl Fn(&str) -> bool,
    ) -> Result<Edit, Refusal> {
        let parts = Edit::parse_named(format, text)?;
        for part in &parts {
            if let Some(name) = &part.path
                && !is_target(name)
            {
                return Err(Refusal::new(Reason::BadChangeSet {
                    message: format!(
                        "{} names the file {name}, but the edit is for {target}. Give the edit \
                         for the file it names, or name {target} in it.",
                        part.what
                    ),
                }));
            }
        }
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else {
            return Err(Refusal::malformed(format, "the edit is empty", None));
        };
        let mut edit = first.edit;
        for part in parts {
            match (&mut edit, part.edit) {
                (Edit::SearchReplace { blocks }, Edit::SearchReplace { blocks: more }) => {
                    blocks.extend(more)
                }
                (Edit::Op { ops }, Edit::Op { ops: more }) => ops.extend(more),
                _ => {
                    return Err(Refusal::malformed(
                        format,
                        "the edit mixes line ops (numbered in the original file) with \
                         search_replace operations for one file; send them as two edits",
                        None,
                    ));
                }
            }
        }
        Ok(edit)
    }

    /// Parses an edit's text into its parts, each with the file it names (if any). A
    /// search-replace text may be a reply of `<file-edit filePath="…">` sections, or the JSON
    /// operation form (`{"operation": {"type": "search_replace", …}}`); an op text may give
    /// each op a `file_path`.
    pub fn parse_named(format: Format, text: &str) -> Result<Vec<NamedEdit>, Refusal> {
        let unnamed = |edit: Edit| {
            vec![NamedEdit {
                path: None,
                what: "the edit".to_owned(),
                edit,
            }]
        };
        Ok(match format {
            Format::SearchReplace => {
                if let Some(value) = operations::json_value(text) {
                    operations::parse_json(value, format)?
                } else if search_replace::has_file_edit_tags(text) {
                    search_replace::parse_reply(text)?
                        .into_iter()
                        .enumerate()
                        .map(|(i, section)| NamedEdit {
                            what: format!("the <file-edit> section {}", i + 1),
                            path: Some(section.path),
                            edit: Edit::SearchReplace {
                                blocks: section.blocks,
                            },
                        })
                        .collect()
                } else {
                    unnamed(Edit::SearchReplace {
                        blocks: search_replace::parse_blocks(text)?,
                    })
                }
            }
            Format::Op => match operations::json_value(text) {
                Some(value) => operations::parse_json(value, format)?,
                None => {
                    let body = operations::strip_fence(text);
                    let err = serde_json::from_str::<serde_json::Value>(body)
                        .err()
                        .map_or_else(
                            || "not a JSON array or object".to_owned(),
                            |e| e.to_string(),
                        );
                    return Err(Refusal::malformed(
                        Format::Op,
                        format!("not JSON: {err}"),
                        None,
                    ));
                }
            },
            Format::Dmp => unnamed(Edit::Dmp {
                patches: dmp::parse_patches(text)?,
            }),
            Format::Lazy => {
                let sketch = normalize_edit_text(text);
                if sketch.trim().is_empty() {
                    return Err(Refusal::malformed(
                        Format::Lazy,
                        "the sketch is empty",
                        None,
                    ));
                }
                unnamed(Edit::Lazy { sketch })
            }
        })
    }

    /// Lets every SEARCH/REPLACE block match only exactly (`exact_match_only`); other formats
    /// are unchanged.
    pub fn set_exact_only(&mut self) {
        if let Edit::SearchReplace { blocks } = self {
            for block in blocks {
                block.exact_only = true;
            }
        }
    }

    /// The edit's format.
    pub fn format(&self) -> Format {
        match self {
            Edit::SearchReplace { .. } => Format::SearchReplace,
            Edit::Op { .. } => Format::Op,
            Edit::Dmp { .. } => Format::Dmp,
            Edit::Lazy { .. } => Format::Lazy,
        }
    }

    /// Whether the edit can create a file that does not exist: one block with an empty SEARCH,
    /// or a lazy sketch without markers.
    pub fn can_create(&self) -> bool {
        match self {
            Edit::SearchReplace { blocks } => blocks.len() == 1 && blocks[0].search.is_empty(),
            Edit::Lazy { sketch } => !sketch.lines().any(lazy::is_marker),
            Edit::Op { .. } | Edit::Dmp { .. } => false,
        }
    }
}

/// The result of planning an edit against a text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Planned {
    /// The new text (LF line ends, as the input).
    pub text: String,
    /// For search-replace edits, how each block matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockReport>,
}

/// Plans `edit` against `text` (LF line ends, no BOM): the new text, or why not. Pure: no I/O,
/// and the same input always gives the same answer.
///
/// ```
/// use cast_coder::{Edit, Format, plan};
///
/// let edit = Edit::parse(Format::Op, r#"[{"type":"replace","start_line":2,"end_line":2,"content":["b = 2"]}]"#)?;
/// assert_eq!(plan(&edit, "a = 1\nb = 1\n")?.text, "a = 1\nb = 2\n");
/// # Ok::<(), cast_coder::Refusal>(())
/// ```
pub fn plan(edit: &Edit, text: &str) -> Result<Planned, Refusal> {
    match edit {
        Edit::SearchReplace { blocks } => {
            let (text, blocks) = search_replace::plan(blocks, text)?;
            Ok(Planned { text, blocks })
        }
        Edit::Op { ops } => Ok(Planned {
            text: ops::plan(ops, text)?,
            blocks: Vec::new(),
        }),
        Edit::Dmp { patches } => Ok(Planned {
            text: dmp::plan(patches, text)?,
            blocks: Vec::new(),
        }),
        Edit::Lazy { sketch } => Ok(Planned {
            text: lazy::plan(sketch, text)?,
            blocks: Vec::new(),
        }),
    }
}
