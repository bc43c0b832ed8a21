//! How a SEARCH block was matched (a leaf type: the search-replace matcher produces it, refusals
//! and reports name it).

use serde::{Deserialize, Serialize};

/// How a SEARCH block was matched, from strictest to loosest. Each tier must find exactly one
/// place; the first tier that finds any place decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Byte for byte.
    Exact,
    /// Ignoring whitespace at line ends (REPLACE is written as given).
    TrailingWhitespace,
    /// Also ignoring blank lines that SEARCH dropped or added: its non-blank lines, in order,
    /// must match consecutive non-blank lines of the file. The file's own blank lines stay
    /// where REPLACE keeps the lines around them, and outside the replaced lines.
    BlankLines,
    /// Ignoring indentation; the file's indentation is re-applied to REPLACE.
    Indentation,
    /// Ignoring any difference in whitespace; indentation re-applied.
    Whitespace,
    /// Also treating typographic quotes, dashes and odd spaces as their ASCII forms.
    Punctuation,
    /// The most similar place of the same line count, at least 90% similar and clearly ahead of
    /// the next most similar one.
    Fuzzy,
}

impl Tier {
    /// How the tier compares, for messages ("ignoring indentation").
    pub fn describe(self) -> &'static str {
        match self {
            Tier::Exact => "exactly",
            Tier::TrailingWhitespace => "ignoring trailing whitespace",
            Tier::BlankLines => "ignoring blank lines",
            Tier::Indentation => "ignoring indentation",
            Tier::Whitespace => "ignoring whitespace",
            Tier::Punctuation => "ignoring whitespace and typographic punctuation",
            Tier::Fuzzy => "by similarity",
        }
    }
}
