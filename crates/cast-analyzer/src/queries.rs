//! The queries an index answers ([`Queries`]), each on one [`cast_index::Snapshot`] through a
//! [`Reader`].

use cast_index::Index;
use cast_workspace::Scope;

use crate::Result;
use crate::find::{FindMode, FindOptions, Found};
use crate::map::{LogicMap, MapOptions};
use crate::reader::Reader;
use crate::show::SymbolSource;
use crate::skeleton::Skeleton;

/// What an open [`Index`] answers: search, the map, `show` and skeletons. Each answer reads one
/// snapshot of the index (one read transaction) and writes nothing.
pub trait Queries {
    /// Relevance search over symbols and files: at most `top` symbols and 5 files, best first.
    fn find(&self, query: &str, top: usize) -> Result<Found> {
        self.find_with(query, top, FindMode::Symbols)
    }

    /// Relevance search in either mode (see [`FindMode`]).
    fn find_with(&self, query: &str, top: usize, mode: FindMode) -> Result<Found> {
        self.find_in(query, top, mode, &Scope::whole_tree())
    }

    /// [`Queries::find_with`], among the files of `scope` only (`src/http`, `*.rs`): every
    /// evidence is taken from them, so a narrow scope gets its own best hits, not what is left
    /// of the whole tree's.
    fn find_in(&self, query: &str, top: usize, mode: FindMode, scope: &Scope) -> Result<Found>;

    /// The search `options` describe: [`Queries::find_in`] with them.
    fn search(&self, options: &FindOptions) -> Result<Found> {
        let FindOptions {
            query,
            top,
            mode,
            scope,
        } = options;
        self.find_in(query, (*top).max(1), *mode, scope)
    }

    /// L1: the logic map (see [`MapOptions`]).
    fn map(&self, options: &MapOptions) -> Result<LogicMap>;

    /// L3: the source of a symbol (`QUALNAME`, a name, or `FILE:LINE`), with its references.
    fn show(&self, target: &str) -> Result<SymbolSource>;

    /// L2: the skeleton of `file` (relative to the root, or absolute inside it).
    fn skeleton(&self, file: &str) -> Result<Skeleton>;
}

impl Queries for Index {
    fn find_in(&self, query: &str, top: usize, mode: FindMode, scope: &Scope) -> Result<Found> {
        self.read(|snap| Reader { snap }.find_in(query, top, mode, scope))
    }

    fn map(&self, options: &MapOptions) -> Result<LogicMap> {
        self.read(|snap| Reader { snap }.map(options))
    }

    fn show(&self, target: &str) -> Result<SymbolSource> {
        self.read(|snap| Reader { snap }.show(target))
    }

    fn skeleton(&self, file: &str) -> Result<Skeleton> {
        crate::skeleton::skeleton_in(self.root(), self.registry(), file)
    }
}
