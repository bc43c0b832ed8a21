//! Applying model-written edits exactly, or refusing them and touching nothing.
//!
//! `cast-coder` owns CAST's four edit formats under one rule: an edit applies whole (every
//! block, op or patch) or not at all, and a refused edit leaves the file byte for byte as it
//! was, with a [`Refusal`] that says why in words a model can act on — which block failed, the
//! closest lines in the file with their line numbers and similarity, the places an ambiguous
//! block matched, or that the REPLACE text is already there.
//!
//! - **search-replace** ([`Format::SearchReplace`]): `------- SEARCH` / `=======` /
//!   `+++++++ REPLACE` blocks (Aider's `<<<<<<<`/`>>>>>>>` markers too), matched through the
//!   tiers of [`Tier`] — exact, trailing whitespace, blank lines, indentation (re-applied to
//!   REPLACE), whitespace, typographic punctuation, similarity (never across a renamed
//!   definition) — each requiring a unique match (k identical blocks take k places); `...`
//!   lines elide unchanged lines; `<file-edit filePath="…">` replies edit several files at once
//!   ([`FileEdit::from_reply`]); the design's JSON operation form is read too, with
//!   `exact_match_only`.
//! - **op** ([`Format::Op`]): JSON insert / replace / delete [`Op`]s by original line number,
//!   in any order, applied bottom-up; overlaps and stale `old_content` are refused.
//! - **dmp** ([`Format::Dmp`]): diff-match-patch patch text, placed exactly (with drift).
//! - **lazy** ([`Format::Lazy`]): the new file with unchanged runs collapsed to
//!   `... existing code ...` comment lines, merged by anchoring each part on its first and last
//!   lines; ambiguous or destructive sketches are refused.
//!
//! Two layers: [`plan`] is pure (text in, new text or [`Refusal`] out); [`Coder`] reads the
//! files of a workspace, plans every edit of a change set, and writes them all atomically
//! (temporary file and rename, permissions kept; BOM, CRLF and final newline kept) after saving
//! the old bytes to the undo journal in `ROOT/.cast/undo/` — or writes nothing.
//!
//! ```
//! use cast_coder::{Coder, Edit, FileEdit, Format};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.py"), "def greet():\n    return 'hi'\n")?;
//! let edit = Edit::parse(
//!     Format::SearchReplace,
//!     "------- SEARCH\n    return 'hi'\n=======\n    return 'hello'\n+++++++ REPLACE\n",
//! )?;
//! let coder = Coder::new(dir.path());
//! let applied = coder.apply(&[FileEdit::new("app.py", edit.clone())])?;
//! assert_eq!(applied.files[0].hunks[0].new_start, 2);
//! assert_eq!(std::fs::read_to_string(dir.path().join("app.py"))?, "def greet():\n    return 'hello'\n");
//!
//! // The same edit again: its SEARCH text is gone, so it is refused and nothing changes.
//! let refused = coder.apply(&[FileEdit::new("app.py", edit)]).unwrap_err();
//! assert!(refused.to_string().contains("already present at line 2"));
//!
//! coder.undo(1, false)?;
//! assert_eq!(std::fs::read_to_string(dir.path().join("app.py"))?, "def greet():\n    return 'hi'\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod diff;
mod dmp;
mod edit;
mod error;
mod fsio;
mod journal;
mod lazy;
mod ops;
mod refusal;
pub mod search_replace;
mod syntax;
mod syntax_error;
mod text;
mod tier;
mod workspace;

pub use diff::{Hunk, hunks, unified_diff};
pub use dmp::{DmpPatch, parse_patches};
pub use edit::{Edit, Format, NamedEdit, Planned, plan};
pub use error::CoderError;
pub use fsio::write_atomic;
pub use journal::{JournalEntry, JournalFile, KEEP as JOURNAL_KEEP};
pub use lazy::is_marker;
pub use ops::{Content, Op};
pub use refusal::{Candidate, DifferingLine, LineRange, Reason, Refusal};
pub use search_replace::{Block, BlockReport, Tier};
pub use syntax_error::{NewSyntaxError, ReindentHint};
pub use text::{Document, LineEnding, MAX_FILE_BYTES};
pub use workspace::{ChangeSet, Coder, FileChange, FileEdit, find_root, names_file, plan_bytes};
