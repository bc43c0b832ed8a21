//! Searching a workspace the way ripgrep does, for agents.
//!
//! This crate will own `grep` (regex or literal, case sensitivity, include/exclude globs,
//! gitignore-aware, binary files skipped, results capped in a deterministic order), `glob`
//! (file patterns and fuzzy file names), `read` (a whole file or a line range, numbered) and
//! `list_dir` (a tree drawing with sizes), built on ripgrep's own crates: `ignore`, `globset`,
//! `grep-searcher`, `grep-regex`. It is a leaf: it depends on no other CAST crate.
//!
//! It is filled by the searcher issue.
