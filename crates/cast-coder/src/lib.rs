//! Applying model-written edits exactly, or refusing them and touching nothing.
//!
//! This crate will own four edit formats — search-replace blocks with a cascade of unique-match
//! tiers, JSON line ops, diff-match-patch patches, and lazy `... existing code ...` sketches —
//! under one rule: an edit applies whole or not at all, and a refused edit leaves the file
//! byte-for-byte untouched with a reason a model can act on. Writes are atomic, line endings,
//! BOM and final newline are kept, and every write goes through an undo journal.
//!
//! It is filled by the coder issue.
