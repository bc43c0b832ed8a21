//! A query's view of one snapshot of the index.

use cast_index::Snapshot;

/// A query's view of one snapshot: the methods of search (`find.rs`, `bodies.rs`), the map
/// (`map.rs`) and `show` (`show.rs`) are its own, so each can use the others'.
pub(crate) struct Reader<'s> {
    pub(crate) snap: &'s Snapshot<'s>,
}
