//! The files and symbols of a [`Scope`] by id ([`InScope`]): what search (`cast find --in`) and
//! the map (`cast map --in`) keep to.

use cast_index::Snapshot;
use cast_workspace::Scope;
use rustc_hash::FxHashSet;

use crate::Result;

/// The files and symbols of a [`Scope`], by id.
pub(crate) struct InScope {
    pub(crate) files: FxHashSet<i64>,
    pub(crate) symbols: FxHashSet<i64>,
}

impl InScope {
    /// Past this many files, the symbols are found by one pass over the table rather than a
    /// lookup per file.
    const LOOKUPS: usize = 2000;

    pub(crate) fn of(snap: &Snapshot, scope: &Scope) -> Result<InScope> {
        let mut files = FxHashSet::default();
        snap.for_each_parsed_file(|id, path| {
            if scope.contains(path) {
                files.insert(id);
            }
        })?;
        Self::with_symbols(snap, files)
    }

    /// The scope of these `files` (ids of parsed files), with their symbols.
    pub(crate) fn with_symbols(snap: &Snapshot, files: FxHashSet<i64>) -> Result<InScope> {
        let mut symbols = FxHashSet::default();
        if files.len() <= Self::LOOKUPS {
            for f in &files {
                symbols.extend(snap.symbols_of_file(*f)?);
            }
        } else {
            snap.for_each_symbol_file(|id, file| {
                if files.contains(&file) {
                    symbols.insert(id);
                }
            })?;
        }
        Ok(InScope { files, symbols })
    }
}
