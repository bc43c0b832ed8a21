//! The report of a syntax error an edit would bring into a file: a leaf type that the refusal
//! reasons and the change reports both name (the checking itself is in `syntax.rs`).

use std::fmt;

use serde::Serialize;

/// A syntax error an edit brings into a file that parsed before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NewSyntaxError {
    /// The 1-based line of the first error, in the edited file.
    pub line: u32,
    /// The parser's message.
    pub message: String,
    /// A re-indentation of one block's REPLACE with which the file would parse, when one was
    /// found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reindent: Option<ReindentHint>,
}

/// A block's REPLACE, re-indented so that the edited file parses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReindentHint {
    /// The block (1-based).
    pub block: usize,
    /// The re-indented REPLACE lines.
    pub replace: Vec<String>,
}

impl fmt::Display for NewSyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)?;
        if let Some(hint) = &self.reindent {
            write!(
                f,
                "\nRe-indented like this (after `| `), the REPLACE text of block {} would parse:",
                hint.block
            )?;
            for line in &hint.replace {
                write!(f, "\n| {line}")?;
            }
        }
        Ok(())
    }
}
