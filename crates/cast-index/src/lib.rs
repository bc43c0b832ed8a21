//! CAST's code index: building it, storing it and reading it back.
//!
//! `cast-index` owns, on top of [`cast_parser`]:
//! - the **build** ([`Index::refresh`], through the crate's writer): list the files, read, hash
//!   and parse what changed on every core, cut the full-text terms ([`text`]), write files,
//!   symbols, parse products and terms (a new index's symbols and terms on threads of their
//!   own, copied in at the end), resolve references and imports into the call and import
//!   graphs ([`graph::resolve`]), rank both with PageRank ([`graph::rank`]);
//! - the **store**: SQLite at `ROOT/.cast/index.sqlite` (schema, typed rows, FTS5 tables, meta
//!   blobs); the only module that writes SQL;
//! - **freshness**: whether the files changed since the last refresh (a `stat` per file, or the
//!   kernel's word for a process that keeps the index open: [`KeptIndex`]), re-parsing only
//!   what did;
//! - **reads**: a [`Snapshot`] ([`Index::read`]) is one state of the index with typed reads, the
//!   only way a query sees it. What the reads answer — search, the map, `show` — is
//!   `cast-analyzer`'s, which never writes.
//!
//! ```
//! use cast_index::{Index, RankedTable};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::write(dir.path().join("app.py"), "def main():\n    return helper()\n\ndef helper():\n    return 1\n")?;
//! let index = Index::open(dir.path())?; // builds .cast/index.sqlite
//! assert_eq!(index.report().map(|r| r.symbols), Some(2));
//! let helper = index.read(|snap| {
//!     let named = snap.symbols_named("helper", 10)?;
//!     let ranks = snap.ranks(RankedTable::Symbols)?;
//!     Ok::<_, cast_index::IndexError>(ranks.sorted.get(named[0].id))
//! })?;
//! assert!(helper.is_some_and(|rank| rank > 0.0));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod budget;
mod codec;
mod error;
pub mod graph;
mod history;
mod index;
mod kept;
mod listing;
mod memo;
pub mod roles;
mod snapshot;
mod store;
pub mod text;
mod writer;

pub use budget::MemoryBudget;
pub use cast_parser;
pub use error::{IndexError, Result};
pub use graph::stored::{FilePositions, RankedTable, Ranks, SortedRanks, StoredFileGraph};
pub use graph::{GraphEdge, IndexStats, RankedFile, RankedSymbol};
pub use index::{Index, IndexOptions, IndexReport, Phases, Progress, Refresh};
pub use kept::KeptIndex;
pub use snapshot::Snapshot;
pub use store::{CommitMatch, Counts, SCHEMA_VERSION, TermTable, default_db_path};

/// The rows a [`Snapshot`] reads, as types.
pub mod rows {
    pub use crate::store::rows::{
        FileBlob, FileRow, MappedFile, NamedSymbol, StoredSymbol, SymRow, SymbolInfo, SymbolNaming,
        SymbolRow,
    };
}
