//! What a tool call returns: a text for the model and structured data for programs.

use serde::Serialize;

/// Whether the tool did what was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The tool did what was asked (a search that found nothing is still `ok`).
    Ok,
    /// The tool refused: an edit that does not apply, a missing file, a path outside the
    /// workspace. The file system is unchanged and `text` says why.
    Refused,
}

/// The result of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutput {
    pub status: Status,
    /// What the model reads; capped at [`crate::ToolContext::max_output_bytes`] with a note.
    pub text: String,
    /// The structured result (its shape depends on the tool), for MCP clients and `cast tool`.
    pub data: serde_json::Value,
    /// The text was cut to fit the cap.
    pub truncated: bool,
    /// The files the call changed (or, in a dry run, would change), typed for programs that
    /// keep books of a session (the agent); `data` says the same in JSON.
    #[serde(skip)]
    pub change: Option<ChangeSummary>,
    /// The file the call read, typed likewise.
    #[serde(skip)]
    pub read: Option<ReadSummary>,
}

/// What an edit, a deletion or a change set did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeSummary {
    /// The files, relative to the workspace root.
    pub paths: Vec<String>,
    /// The unified diff of the whole change (a deletion says so in one line).
    pub diff: String,
    /// A preview: nothing was written.
    pub dry_run: bool,
}

/// What a read showed of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadSummary {
    /// The file, relative to the workspace root.
    pub path: String,
    /// Every line of the file was shown (not a line range, not held back by the size guard).
    pub whole: bool,
}

impl ToolOutput {
    /// A successful result.
    pub fn ok(text: impl Into<String>, data: impl Serialize) -> Self {
        Self::with_status(Status::Ok, text, data)
    }

    /// A refusal: nothing changed, and `text` says why and what to do instead.
    pub fn refused(text: impl Into<String>, data: impl Serialize) -> Self {
        Self::with_status(Status::Refused, text, data)
    }

    fn with_status(status: Status, text: impl Into<String>, data: impl Serialize) -> Self {
        ToolOutput {
            status,
            text: text.into(),
            data: serde_json::to_value(data).unwrap_or(serde_json::Value::Null),
            truncated: false,
            change: None,
            read: None,
        }
    }

    /// The same output, saying which files it changed.
    pub fn with_change(mut self, change: ChangeSummary) -> Self {
        self.change = Some(change);
        self
    }

    /// The same output, saying which file it read.
    pub fn with_read(mut self, read: ReadSummary) -> Self {
        self.read = Some(read);
        self
    }

    /// Cuts `text` to at most `max` bytes (on a line boundary when one is near), saying so.
    pub fn capped(mut self, max: usize) -> Self {
        if self.text.len() <= max {
            return self;
        }
        let mut cut = max;
        while !self.text.is_char_boundary(cut) {
            cut -= 1;
        }
        if let Some(nl) = self.text[..cut].rfind('\n')
            && nl > cut / 2
        {
            cut = nl + 1;
        }
        let total = self.text.len();
        self.text.truncate(cut);
        self.text.push_str(&format!(
            "\n[output cut at {cut} of {total} bytes; ask for less, e.g. a line range or a narrower pattern]"
        ));
        self.truncated = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capping_cuts_on_a_line_and_says_so() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let out = ToolOutput::ok(text, ()).capped(100);
        assert!(out.truncated);
        assert!(out.text.starts_with("line 0\n"));
        assert!(out.text.contains("[output cut at"));
        let before_note = out.text.split("\n[output cut").next().unwrap();
        assert!(before_note.len() <= 100 && before_note.ends_with('\n'));
    }

    #[test]
    fn short_text_is_untouched() {
        let out = ToolOutput::ok("short", ()).capped(100);
        assert!(!out.truncated);
        assert_eq!(out.text, "short");
    }
}
