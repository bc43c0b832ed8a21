//! A query's view of one snapshot of the index, and the reads every query shares.

use std::sync::Arc;

use cast_index::{RankedTable, Ranks, Snapshot};

use crate::Result;

/// A query's view of one snapshot: the methods of search (`find/`), the map (`map/`) and
/// `show` (`show.rs`) are its own, so each can use the others'.
pub(crate) struct Reader<'s> {
    pub(crate) snap: &'s Snapshot<'s>,
}

impl Reader<'_> {
    /// The stored PageRank of every symbol or file, decoded once while the database is
    /// unchanged (search and the map read the same).
    pub(crate) fn stored_ranks(&self, table: RankedTable) -> Result<Arc<Ranks>> {
        Ok(self.snap.ranks(table)?)
    }
}
