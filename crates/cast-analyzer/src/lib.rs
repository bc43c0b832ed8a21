//! CAST's three-tier index of a code base — the heart of CAST.
//!
//! This crate will own, on top of [`cast_parser`]:
//! - **L1 logic map**: the project tree, key symbols ranked by PageRank over the call/reference
//!   graph (petgraph), the import graph between files, module descriptions, and an execution heat
//!   map from a trace (a Python traceback or an execution log);
//! - **L2 skeletons**: per file, imports and class/def signatures with docstrings, each line
//!   prefixed with its original line number, bodies elided;
//! - **L3 source**: the exact source of a symbol or a line range, with its references;
//! - **relevance search** over names, signatures, docstrings and content, blended with PageRank;
//! - the **SQLite cache** at `ROOT/.cast/index.sqlite`, re-parsing only what changed.
//!
//! It is filled by the analyzer issue; today it re-exports the parser it builds on.

pub use cast_parser;
