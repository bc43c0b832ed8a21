//! CAST's three-tier index of a code base — the heart of CAST.
//!
//! `cast-analyzer` owns, on top of [`cast_parser`]:
//! - the **index** ([`Index`]): per-file and per-symbol records, a reference/call graph between
//!   symbols and an import graph between files (resolved through imports where the code says
//!   where a name comes from, by name otherwise; see [`resolve`]), PageRank over both
//!   ([`rank`]), all stored in SQLite at `ROOT/.cast/index.sqlite` and refreshed by re-parsing
//!   only what changed;
//! - **L1**, the logic map ([`Index::map`]): the tree, key symbols by PageRank, import
//!   dependencies and module descriptions within a token budget, optionally as an execution
//!   heat map of a trace ([`trace`]);
//! - **L2**, skeletons ([`skeleton`]): imports, signatures, decorators and docstrings with
//!   their original line numbers, bodies elided;
//! - **L3**, source ([`Index::show`]): the exact text of a symbol, with who references it;
//! - **relevance search** ([`Index::find`]) over names, signatures, docstrings and content,
//!   blended with PageRank.
//!
//! ```
//! use cast_analyzer::{Index, MapOptions};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.py"), "def main():\n    return helper()\n\ndef helper():\n    '''Do the work.'''\n    return 1\n")?;
//! let index = Index::open(dir.path())?;                 // builds .cast/index.sqlite
//! let map = index.map(&MapOptions::default())?;         // L1
//! assert!(map.render().contains("def helper()"));
//! let found = index.find("do the work", 5)?;            // relevance search
//! assert_eq!(found.symbols[0].qualname.as_deref(), Some("helper"));
//! let shown = index.show("helper")?;                    // L3
//! assert_eq!(shown.referenced_by[0].symbol.as_deref(), Some("main"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Token counts are estimates: [`estimate_tokens`] is bytes / 4, rounded up.

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod bodies;
mod codec;
mod error;
mod find;
mod graph;
mod history;
mod index;
mod kept;
mod listing;
mod map;
mod memo;
mod modpath;
pub mod rank;
pub mod resolve;
mod show;
pub mod skeleton;
mod store;
mod stored_ranks;
mod text;
pub mod trace;

pub use cast_parser;
/// Which files a search covers ([`Index::find_in`]).
pub use cast_workspace::{Scope, ScopeError, relative_pattern};
pub use error::{AnalyzerError, Result};
pub use find::{FindMode, Found, Hit, HitKind, Scores, Searched};
pub use graph::{GraphEdge, IndexStats, RankedFile, RankedSymbol};
pub use index::{Index, IndexOptions, IndexReport, Phases, Progress, Refresh};
pub use kept::KeptIndex;
pub use map::{LogicMap, MAX_UNPARSED, MapError, MapFile, MapOptions, MapSymbol, UnparsedFile};
pub use show::{Reference as ShownReference, SymbolSource};
pub use skeleton::{Skeleton, SkeletonLine};
pub use store::{SCHEMA_VERSION, default_db_path};

/// Estimated tokens of a text: bytes / 4, rounded up (the usual rule of thumb for English and
/// code with BPE tokenizers; good to about ±20%).
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}
