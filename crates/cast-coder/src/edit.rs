//! Edits in their four formats, and planning one against a text: pure, no I/O.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::dmp::{self, DmpPatch};
use crate::lazy;
use crate::ops::{self, Op};
use crate::refusal::Refusal;
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

impl Edit {
    /// Parses an edit's text in the given format. A malformed edit is a [`Refusal`] whose
    /// message says what to fix.
    pub fn parse(format: Format, text: &str) -> Result<Edit, Refusal> {
        Ok(match format {
            Format::SearchReplace => Edit::SearchReplace {
                blocks: search_replace::parse_blocks(text)?,
            },
            Format::Op => Edit::Op {
                ops: ops::parse_ops(text)?,
            },
            Format::Dmp => Edit::Dmp {
                patches: dmp::parse_patches(text)?,
            },
            Format::Lazy => {
                let sketch = normalize_edit_text(text);
                if sketch.trim().is_empty() {
                    return Err(Refusal::malformed(
                        Format::Lazy,
                        "the sketch is empty",
                        None,
                    ));
                }
                Edit::Lazy { sketch }
            }
        })
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
