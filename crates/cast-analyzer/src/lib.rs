//! What CAST's index answers — the heart of CAST.
//!
//! `cast-analyzer` reads the index that [`cast_index`] builds and answers, through the
//! [`Queries`] it adds to [`Index`]:
//! - **L1**, the logic map ([`Queries::map`]): the tree, key symbols by PageRank, import
//!   dependencies and module descriptions within a token budget, optionally as an execution
//!   heat map of a trace ([`trace`]);
//! - **L2**, skeletons ([`skeleton`], [`Queries::skeleton`]): imports, signatures, decorators
//!   and docstrings with their original line numbers, bodies elided;
//! - **L3**, source ([`Queries::show`]): the exact text of a symbol, with who references it;
//! - **relevance search** ([`Queries::find`]) over names, signatures, docstrings and content,
//!   blended with PageRank, the graphs and the repository's history.
//!
//! Each answer reads one [`Snapshot`] of the index and never writes it.
//!
//! ```
//! use cast_analyzer::{Index, MapOptions, Queries};
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

mod description;
mod error;
mod find;
mod map;
mod queries;
mod reader;
mod scope;
mod show;
pub mod skeleton;
mod test_code;
pub mod trace;

pub use cast_index::{
    self, GraphEdge, Index, IndexError, IndexOptions, IndexReport, IndexStats, KeptIndex,
    MemoryBudget, Phases, Progress, RankedFile, RankedSymbol, Refresh, SCHEMA_VERSION, Snapshot,
    default_db_path,
};
pub use cast_parser;
/// Which files a search covers ([`Queries::find_in`]).
pub use cast_workspace::{Scope, ScopeError, relative_pattern};
pub use error::{AnalyzerError, Result};
pub use find::{FindMode, FindOptions, Found, Hit, HitKind, Scores, Searched};
pub use map::{LogicMap, MAX_UNPARSED, MapError, MapFile, MapOptions, MapSymbol, UnparsedFile};
pub use queries::Queries;
pub use show::{Reference as ShownReference, SymbolSource};
pub use skeleton::{Skeleton, SkeletonLine};

/// Estimated tokens of a text: bytes / 4, rounded up (the usual rule of thumb for English and
/// code with BPE tokenizers; good to about ±20%).
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// `one` for 1, else `many`: the word a count is written with.
pub(crate) fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}
