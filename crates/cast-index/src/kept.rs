//! An index kept open by a process that answers many queries: the MCP server, the agent,
//! `cast serve`.
//!
//! Opening an index for every query pays for a new connection, a new memory map and a cold
//! page cache each time, and its check for changes `stat`s every file. A [`KeptIndex`] opens
//! it once (building it when there is none), reopens it when the database file is no longer
//! the one opened (deleted, or replaced by another process), drops it after an error so the
//! next query starts afresh, and has the kernel watch the tree ([`Index::answer_many`]), so a
//! query made while nothing changed does not look at the files at all.
//!
//! ```no_run
//! use cast_index::KeptIndex;
//!
//! let kept = KeptIndex::default();
//! for name in ["parse_date", "quote"] {
//!     let defined = kept.query("/usr/lib/python3.11".as_ref(), |index| {
//!         index.read(|snap| snap.symbols_named(name, 10))
//!     })?;
//!     println!("{name}: {} definitions", defined.len());
//! }
//! # Ok::<(), cast_index::IndexError>(())
//! ```

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::{Index, IndexError, IndexOptions, Refresh};

/// An index kept open between queries, shared by its clones. See the module documentation.
#[derive(Clone, Default)]
pub struct KeptIndex(Arc<Mutex<Option<OpenIndex>>>);

struct OpenIndex {
    index: Index,
    /// The database file's identity when it was opened.
    file: Option<FileId>,
}

/// Device and inode: what tells a file replaced under the same name.
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).ok().map(|_| (0, 0))
    }
}

impl std::fmt::Debug for KeptIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = self.0.lock().map(|o| o.is_some()).unwrap_or(false);
        f.debug_struct("KeptIndex").field("open", &open).finish()
    }
}

impl KeptIndex {
    /// Answers `query` from the index of `root`, current with the files on disk (see
    /// [`Index::query_fresh`]), opening or building it when none is open, the one open is of
    /// another root, or its database file changed. An index that failed is dropped, so the next call opens afresh.
    pub fn query<T, E: From<IndexError>>(
        &self,
        root: &Path,
        mut query: impl FnMut(&Index) -> Result<T, E>,
    ) -> Result<T, E> {
        // A poisoned lock only means a query panicked while holding it: start afresh.
        let mut slot = self.0.lock().unwrap_or_else(|poisoned| {
            let mut slot = poisoned.into_inner();
            *slot = None;
            slot
        });
        let mut open = match slot.take() {
            Some(open)
                if open.index.root() == root && file_id(open.index.db_path()) == open.file =>
            {
                open
            }
            _ => {
                let options = IndexOptions {
                    refresh: Refresh::IfMissing,
                    ..IndexOptions::default()
                };
                let mut index = Index::open_with(root, &options, &mut |_| {})?;
                // Calls come one after another: the kernel's notes of changes spare each the
                // check of every file while none came.
                index.answer_many();
                let open = OpenIndex {
                    file: file_id(index.db_path()),
                    index,
                };
                if open.index.report().is_some() {
                    // Built just now: current by construction.
                    let answer = query(&open.index);
                    *slot = Some(open);
                    return answer;
                }
                open
            }
        };
        let answer = open.index.query_fresh(None, &mut |_| {}, &mut query);
        if answer.is_ok() {
            *slot = Some(open);
        }
        answer
    }
}
