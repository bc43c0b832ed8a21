//! The open index: opening it, keeping it current with the files, and reading it.
//!
//! The check for changes runs beside a query ([`Index::query_current`]); a refresh is the
//! writer's (`writer/`); a query reads one [`Snapshot`] ([`Index::read`]).

use std::path::{Path, PathBuf};

use cast_parser::{Registry, WalkOptions};
use cast_workspace::LiveWatch;
use rusqlite::Connection;

use crate::MemoryBudget;
use crate::listing::{
    Listing, ListingSource, StatShare, WALK_WATCH, encode_watch, is_current, list, list_watched,
};
use crate::snapshot::Snapshot;
use crate::store::{self, State, db_err};
use crate::writer::IndexWriter;
pub use crate::writer::{IndexReport, Phases, Progress};
use crate::{IndexError, Result};

/// When opening an index refreshes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Refresh {
    /// Stat every file and re-parse what changed (the default: answers are always current).
    #[default]
    Always,
    /// Build the index when there is none; otherwise use it as it is.
    IfMissing,
    /// Never write: fail if there is no index.
    Never,
}

/// How to open an index.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Which files the walk visits. `None`: as the index was built last time (stored in the
    /// database), or ripgrep's rules for a new index.
    pub walk: Option<WalkOptions>,
    /// Where the database is; `ROOT/.cast/index.sqlite` by default.
    pub db_path: Option<PathBuf>,
    pub refresh: Refresh,
    /// What a build or refresh through this handle may buffer ([`MemoryBudget`]).
    pub memory: MemoryBudget,
}

/// An open index of one code base. See the crate documentation.
pub struct Index {
    pub(crate) root: PathBuf,
    pub(crate) db_path: PathBuf,
    pub(crate) conn: Connection,
    pub(crate) registry: Registry,
    /// What a build or refresh may buffer.
    pub(crate) memory: MemoryBudget,
    report: Option<IndexReport>,
    /// Set by [`Index::answer_many`]: the kernel may watch the tree.
    pub(crate) answer_many: bool,
    /// Whether a query has every core to itself (a kept index, or a one-shot query with no
    /// check beside it): a search then matches files and symbols on two connections and cuts
    /// the candidate files on all cores.
    pub(crate) all_cores: bool,
    /// The second connection of such a query (a mutex only to be `Sync`: one query at a time
    /// uses it, from the thread it lends it to).
    pub(crate) second: Option<std::sync::Mutex<Connection>>,
    /// The tree's live watch, armed by the last check that found the index current.
    live: Option<Live>,
    /// Decoded `meta` blobs, kept while the database is unchanged.
    pub(crate) memo: crate::memo::Memo,
}

/// A [`LiveWatch`] and the walk it holds for.
struct Live {
    walk: WalkOptions,
    watch: LiveWatch,
}

// An index can move to another thread (a tool server's worker); it is not shared between threads.
const _: fn() = || {
    fn send<T: Send>() {}
    send::<Index>();
};

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("root", &self.root)
            .field("db_path", &self.db_path)
            .finish()
    }
}

impl Index {
    /// Opens the index of `root`, building it or refreshing it as needed (see [`Refresh`]).
    pub fn open(root: &Path) -> Result<Index> {
        Index::open_with(root, &IndexOptions::default(), &mut |_| {})
    }

    /// Opens with options, reporting progress of a build or refresh.
    pub fn open_with(
        root: &Path,
        options: &IndexOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Index> {
        if !root.is_dir() {
            return Err(IndexError::RootNotFound {
                path: root.to_path_buf(),
            });
        }
        let db_path = options
            .db_path
            .clone()
            .unwrap_or_else(|| store::default_db_path(root));
        let (conn, state) = store::open(&db_path)?;
        let mut index = Index {
            root: root.to_path_buf(),
            db_path,
            conn,
            registry: Registry::default(),
            report: None,
            answer_many: false,
            all_cores: false,
            second: None,
            live: None,
            memo: crate::memo::Memo::default(),
            memory: options.memory,
        };
        let needed = match options.refresh {
            Refresh::Always => true,
            Refresh::IfMissing | Refresh::Never => state != State::Ready,
        };
        if needed {
            if options.refresh == Refresh::Never {
                return Err(IndexError::NoIndex {
                    db: index.db_path.clone(),
                    root: index.root.clone(),
                });
            }
            let walk = match &options.walk {
                Some(w) => w.clone(),
                None => index.stored_walk().unwrap_or_default(),
            };
            index.refresh(&walk, progress)?;
        }
        Ok(index)
    }

    /// Opens the index of `root` and answers `query` from it. With [`Refresh::Always`] the
    /// answer is the one a refresh followed by the query would give, in about the time of the
    /// slower of the two instead of their sum: the query runs on the index as it is while a
    /// second thread walks and stats the files; when they differ from the index, it is
    /// refreshed (from that listing) and the query runs again. With the other modes this is
    /// [`Self::open_with`] and then `query`, which then has both cores (nothing runs beside
    /// it). Either way the index is read as a process that asks once should: by copying pages,
    /// not through the memory map (`store::read_by_copy`).
    pub fn query_current<T, E>(
        root: &Path,
        options: &IndexOptions,
        progress: &mut dyn FnMut(Progress),
        mut query: impl FnMut(&Index) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<IndexError>,
    {
        if options.refresh != Refresh::Always {
            let mut index = Index::open_with(root, options, progress)?;
            // No check runs beside the query: it may use the second core itself (measured on
            // the stdlib with site-packages, `--no-refresh`, 40 queries alternating four
            // rounds: 60.8 → 54.6 ms median).
            index.use_all_cores();
            index.read_by_copy();
            return query(&index);
        }
        let if_missing = IndexOptions {
            refresh: Refresh::IfMissing,
            ..options.clone()
        };
        let mut index = Index::open_with(root, &if_missing, progress)?;
        index.read_by_copy();
        if index.report.is_some() {
            // Built just now.
            return query(&index);
        }
        index.query_fresh(options.walk.as_ref(), progress, query)
    }

    /// Answers `query` from this open index as a refresh followed by the query would (see
    /// [`Self::query_current`]), walking with `walk` or, if `None`, as the index was last built.
    /// A process that answers many queries (an MCP server, an agent) keeps the index open and
    /// asks here: its connection, memory map and page cache stay warm between queries. After
    /// [`Self::answer_many`], a query the kernel reported no change for since the last check
    /// found the index current skips the check.
    pub fn query_fresh<T, E>(
        &mut self,
        walk: Option<&WalkOptions>,
        progress: &mut dyn FnMut(Progress),
        mut query: impl FnMut(&Index) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<IndexError>,
    {
        let walk = match walk {
            Some(w) => w.clone(),
            None => self.stored_walk().unwrap_or_default(),
        };
        if let Some(mut live) = self.live.take() {
            let registry = &self.registry;
            if live.walk == walk && live.watch.unchanged(&|p| registry.for_path(p).is_some()) {
                self.live = Some(live);
                return query(self);
            }
        }
        let arm = self.answer_many;
        let share = StatShare::default();
        let (answer, listing, current, live) = std::thread::scope(|scope| {
            let (root, registry, db) = (&self.root, &self.registry, &self.db_path);
            let (walk, share) = (&walk, &share);
            let check = scope.spawn(move || {
                let Ok(conn) = store::connect(db) else {
                    // The database went away: the refresh reports why.
                    return (list(root, walk, registry), false, None);
                };
                let (listing, live) = list_watched(&conn, root, walk, registry, arm, share);
                let current = is_current(&conn, &listing).unwrap_or(false);
                if current && let ListingSource::Walked(Some(watch)) = &listing.source {
                    // As indexed, but walked: the stored watch was missing or stale (the last
                    // walk came too soon after a change to be watched). This walk's is not;
                    // storing it is best effort and never waits for another writer.
                    let bytes = encode_watch(walk, registry, watch, &listing.listed);
                    let _ = conn
                        .busy_timeout(std::time::Duration::ZERO)
                        .and_then(|()| store::set_meta(&conn, WALK_WATCH, &bytes));
                }
                (listing, current, live)
            });
            let answer = query(self);
            // The query's core would idle until the check is done: it takes some of its stats.
            share.help();
            match check.join() {
                Ok((listing, current, live)) => (answer, Some(listing), current, live),
                Err(_) => (answer, None, false, None),
            }
        });
        // Armed before the check: whatever changed since is noted, so from here on the watch
        // holds for an index made current by the check or the refresh below.
        let live = live.map(|watch| Live {
            walk: walk.clone(),
            watch,
        });
        if current {
            self.live = live;
            return answer;
        }
        self.refresh_listed(&walk, progress, listing)?;
        self.live = live;
        query(self)
    }

    /// Reads without the memory map, as a process that asks one query should
    /// ([`store::read_by_copy`]), on both connections; best effort (a connection that cannot
    /// switch keeps the map).
    fn read_by_copy(&self) {
        let _ = store::read_by_copy(&self.conn);
        if let Some(Ok(second)) = self.second.as_ref().map(|s| s.lock()) {
            let _ = store::read_by_copy(&second);
        }
    }

    /// Readies this index for a process that answers many queries (an MCP server, an agent,
    /// `cast serve`), where nothing else runs beside a query:
    ///
    /// - [`Self::query_fresh`] has the kernel watch the tree's folders (inotify on Linux) once
    ///   a check found the index current, and skips the next checks while it reports no
    ///   change: the check `stat`s every file (40–50 ms of CPU on the 17,000 files of the
    ///   standard library with site-packages), the watch reads what the kernel queued. A
    ///   watch costs a kernel watch per folder (the per-user limit is
    ///   `fs.inotify.max_user_watches`) and is not armed for a walk through links, a tree with
    ///   hard-linked files, or where the system cannot watch (then every query checks, as
    ///   before). Changes the kernel does not report through a folder — a memory-mapped write,
    ///   another machine's write on a network file system — are not seen.
    /// - A search matches the files' full text on a second connection while the symbols' is
    ///   matched on this one, and reads and cuts the candidate files on all cores (as a
    ///   one-query process does only when no check runs on its second core).
    pub fn answer_many(&mut self) {
        self.answer_many = true;
        self.use_all_cores();
    }

    /// Lets a search use every core: the files' match on a second connection beside the
    /// symbols', and the candidate files cut on all cores.
    fn use_all_cores(&mut self) {
        self.all_cores = true;
        self.second = self.second_connection();
    }

    /// A second connection to the database; `None` when it cannot be opened (searches then use
    /// one).
    fn second_connection(&self) -> Option<std::sync::Mutex<Connection>> {
        store::connect(&self.db_path)
            .ok()
            .map(std::sync::Mutex::new)
    }

    /// Whether the tree is watched now (see [`Self::answer_many`]).
    pub fn is_tree_watched(&self) -> bool {
        self.live.is_some()
    }

    /// The walk options the index was last built with.
    pub fn stored_walk(&self) -> Option<WalkOptions> {
        let v = store::get_meta(&self.conn, "walk").ok().flatten()?;
        let text = String::from_utf8(v).ok()?;
        let mut parts = text.split(',');
        let mut flag = || parts.next().map(|p| p == "1");
        let hidden = flag()?;
        let no_ignore = flag()?;
        let follow_links = flag()?;
        let max_filesize = text.rsplit(',').next()?.parse().ok()?;
        Some(WalkOptions {
            hidden,
            no_ignore,
            follow_links,
            max_filesize: Some(max_filesize),
            ..WalkOptions::default()
        })
    }

    /// The root this index describes.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The parsers, by file extension.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The database file.
    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// Runs `read` on one [`Snapshot`] of the index: one read transaction
    /// ([`store::read_snapshot`]), so everything a query (search, map, show) reads is one
    /// state, even while another process refreshes the index.
    pub fn read<T, E: From<IndexError>>(
        &self,
        read: impl FnOnce(&Snapshot<'_>) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let err = db_err(&self.db_path);
        let snapshot = Snapshot {
            conn: &self.conn,
            second: self.second.as_ref(),
            root: &self.root,
            db_path: &self.db_path,
            registry: &self.registry,
            memo: &self.memo,
            all_cores: self.all_cores,
        };
        store::read_snapshot(&self.conn, |e| E::from(err(e)), || read(&snapshot))
    }

    /// What the last build or refresh through this handle did.
    pub fn report(&self) -> Option<&IndexReport> {
        self.report.as_ref()
    }

    /// Brings the index up to date with the files on disk, under the database's write lock (a
    /// second writer waits; readers keep reading the previous state). A corrupt file is deleted
    /// and rebuilt.
    pub fn refresh(
        &mut self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<IndexReport> {
        self.refresh_listed(walk, progress, None)
    }

    /// [`Self::refresh`] from a listing made a moment ago (`None`: walk now).
    fn refresh_listed(
        &mut self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
    ) -> Result<IndexReport> {
        let report = match self.write(walk, progress, listing) {
            Err(IndexError::Db { source, .. }) if store::is_corruption(&source) => {
                store::remove_files(&self.db_path);
                let (conn, _) = store::open(&self.db_path)?;
                self.conn = conn;
                // It read the file just removed.
                if self.all_cores {
                    self.second = self.second_connection();
                }
                self.write(walk, progress, None)?
            }
            other => other?,
        };
        self.report = Some(report.clone());
        Ok(report)
    }
}

impl Index {
    /// One refresh as a write transaction, through the [`IndexWriter`]; what a query had
    /// decoded is forgotten, since it may have been rewritten, committed or not.
    fn write(
        &self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
    ) -> Result<IndexReport> {
        let written = IndexWriter {
            conn: &self.conn,
            root: &self.root,
            db_path: &self.db_path,
            registry: &self.registry,
            memory: self.memory,
            workers: crate::budget::Workers::for_budget(self.memory),
        }
        .write(walk, progress, listing);
        self.memo.clear();
        written
    }
}
