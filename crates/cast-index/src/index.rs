//! The open index: building and refreshing it (list the files ([`crate::listing`]), hash and
//! parse what changed, write it, resolve, rank ([`crate::graph::stored`])) and reading it
//! ([`Index::read`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cast_parser::{DEFAULT_MAX_FILESIZE, ParsedFile, Reference, Registry, SourceText, WalkOptions};
use cast_workspace::LiveWatch;
use rusqlite::Connection;
use serde::Serialize;

use crate::codec;
use crate::graph::modpath::{self, Family};
use crate::graph::resolve::Catalog;
use crate::graph::stored::rank_and_store;
use crate::history::{self, HistoryError};
use crate::listing::{
    LISTING_DIGEST, Listed, Listing, ListingSource, StatShare, WALK_WATCH, encode_watch,
    is_current, list, list_walking, list_watched, walk_text,
};
use crate::snapshot::Snapshot;
use crate::store::{
    self, FLAG_LOSSY, FLAG_SKIPPED, FLAG_SYNTAX_ERRORS, State, build, db_err, rows,
};
use crate::store::{kind_code, kind_of};
use crate::text::{FileTerms, SymbolTerms};
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
}

/// What a build or refresh did, for the summary line and for benchmarks.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    /// Built from nothing (no index, another schema version, or a corrupt file).
    pub cold: bool,
    /// Files in the index now (parsed or skipped).
    pub files: usize,
    pub added: usize,
    /// Files whose content changed and were re-parsed.
    pub changed: usize,
    pub deleted: usize,
    /// Files whose size or mtime changed but whose content hash did not.
    pub touched: usize,
    pub unchanged: usize,
    /// Files not parsed (binary, too large, unreadable); the reasons are in `warnings`.
    pub skipped: usize,
    pub symbols: usize,
    /// Resolved references between symbols.
    pub edges: usize,
    /// Resolved imports between files.
    pub file_edges: usize,
    /// Files whose references were resolved this time.
    pub resolved_files: usize,
    pub rank_iterations: usize,
    /// Past commits stored as search evidence ([`crate::history`]); 0 outside a git repository.
    pub commits: usize,
    pub seconds: f64,
    /// Seconds spent in each phase: listing and statting, reading + hashing + parsing +
    /// writing (parsing runs on all cores while one thread writes), resolving references,
    /// PageRank, storing the git history, and the final commit.
    pub phases: Phases,
    pub db_bytes: u64,
    pub warnings: Vec<String>,
}

/// Seconds per phase of a build or refresh.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Phases {
    pub walk: f64,
    pub parse_and_write: f64,
    pub load_catalog: f64,
    pub resolve: f64,
    pub rank: f64,
    /// Storing the git history (reading it runs beside the parse on a new index).
    pub history: f64,
    pub commit: f64,
}

/// Progress of a build or refresh, for a progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Listing and statting files.
    Walking,
    /// Reading and parsing changed files.
    Parsing {
        done: usize,
        total: usize,
    },
    /// Resolving references of this many files.
    Resolving {
        files: usize,
    },
    Ranking,
}

/// An open index of one code base. See the crate documentation.
pub struct Index {
    pub(crate) root: PathBuf,
    pub(crate) db_path: PathBuf,
    pub(crate) conn: Connection,
    pub(crate) registry: Registry,
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

/// Parse results that may wait, ahead of the one being written (a slow file holds the rest of
/// them in memory meanwhile).
const PARSE_WINDOW: usize = 512;

struct OldFile {
    id: i64,
    /// Listed by this walk (an indexed file that is not is deleted).
    listed: bool,
    size: u64,
    mtime_ns: i64,
    hash: Vec<u8>,
    iface: Option<Vec<u8>>,
}

/// What is stored for a parsed file, encoded on the parsing thread.
struct Blobs {
    iface: Vec<u8>,
    imports: Vec<u8>,
    refs: Vec<u8>,
    /// The full-text fields of the file and of each symbol, in the parse's order.
    file_terms: FileTerms,
    symbol_terms: Vec<SymbolTerms>,
}

enum Outcome {
    /// Same content as indexed: only the stat changed.
    Touched,
    Parsed {
        hash: Vec<u8>,
        file: Box<ParsedFile>,
        blobs: Box<Blobs>,
    },
    Skipped {
        hash: Vec<u8>,
        reason: String,
    },
}

fn read_and_parse(
    registry: &Registry,
    item: &Listed,
    old_hash: Option<&[u8]>,
    max_size: u64,
) -> Outcome {
    if item.size > max_size {
        return Outcome::Skipped {
            hash: Vec::new(),
            reason: format!(
                "{} bytes, over the {max_size}-byte limit for parsing",
                item.size
            ),
        };
    }
    let bytes = match std::fs::read(&item.path) {
        Ok(b) => b,
        Err(err) => {
            return Outcome::Skipped {
                hash: Vec::new(),
                reason: format!("cannot read: {err}"),
            };
        }
    };
    let hash = blake3::hash(&bytes).as_bytes().to_vec();
    if old_hash == Some(hash.as_slice()) {
        return Outcome::Touched;
    }
    let Some(language) = registry.for_path(&item.path) else {
        return Outcome::Skipped {
            hash,
            reason: "no parser for this file type".into(),
        };
    };
    let parsed = SourceText::from_bytes(&item.path, bytes).and_then(|source| {
        let mut parsed = language.parse(&source.text)?;
        parsed.lossy_utf8 = source.lossy;
        let terms = crate::text::search_terms(&item.rel, &source.text, &parsed);
        Ok((parsed, terms))
    });
    match parsed {
        Ok((file, (file_terms, symbol_terms))) => Outcome::Parsed {
            hash,
            blobs: Box::new(Blobs {
                iface: interface_hash(&file),
                imports: codec::encode_imports(&file.imports),
                refs: codec::encode_refs(&file.references),
                file_terms,
                symbol_terms,
            }),
            file: Box::new(file),
        },
        Err(err) => Outcome::Skipped {
            hash,
            reason: err.to_string(),
        },
    }
}

/// The shape of a file other files can see: its definitions and its imports. When it is the
/// same after an edit, references elsewhere resolve as before and only this file is re-resolved.
fn interface_hash(file: &ParsedFile) -> Vec<u8> {
    let mut h = blake3::Hasher::new();
    for s in &file.symbols {
        h.update(s.qualname.as_bytes());
        h.update(&[kind_code(s.kind) as u8, 0]);
        h.update(&s.parent.map_or(0u64, |p| p as u64 + 1).to_le_bytes());
        h.update(&s.decorated_line.to_le_bytes());
        h.update(&s.header_end_line.to_le_bytes());
    }
    h.update(b"\x01imports");
    h.update(&codec::encode_imports(&file.imports));
    h.finalize().as_bytes().to_vec()
}

struct Writer<'c> {
    conn: &'c Connection,
}

impl Writer<'_> {
    fn upsert_file(
        &self,
        old: Option<i64>,
        item: &Listed,
        hash: &[u8],
        parsed: Option<(&ParsedFile, &Blobs)>,
        error: Option<&str>,
    ) -> rusqlite::Result<i64> {
        let blobs = parsed.map(|(_, b)| b);
        let parsed = parsed.map(|(p, _)| p);
        let flags = match parsed {
            Some(p) => {
                (if p.has_syntax_errors() {
                    FLAG_SYNTAX_ERRORS
                } else {
                    0
                }) | (if p.lossy_utf8 { FLAG_LOSSY } else { 0 })
            }
            None => FLAG_SKIPPED,
        };
        // A parsed file's first syntax error, for the map; a skipped file's reason.
        let syntax_error = parsed
            .and_then(|p| p.syntax_error.as_ref())
            .map(store::encode_syntax_error);
        let error = error.or(syntax_error.as_deref());
        let iface = blobs.map(|b| b.iface.as_slice());
        let imports = blobs.map(|b| b.imports.as_slice());
        let refs = blobs.map(|b| b.refs.as_slice());
        let record = build::FileRecord {
            rel: &item.rel,
            size: item.size as i64,
            mtime_ns: item.mtime_ns,
            hash,
            language: parsed.map(|p| p.language),
            line_count: parsed.map_or(0, |p| i64::from(p.line_count)),
            description: parsed.and_then(|p| p.description.as_deref()),
            flags,
            error,
        };
        let id = match old {
            Some(id) => {
                build::update_file(self.conn, id, &record)?;
                store::delete_file_terms(self.conn, id)?;
                id
            }
            None => build::insert_file(self.conn, &record)?,
        };
        // The parse products, afresh; the edges are resolved later.
        build::put_file_data(self.conn, id, iface, imports, refs)?;
        if let Some(b) = blobs {
            store::insert_file_terms(self.conn, id, &b.file_terms)?;
        }
        Ok(id)
    }

    /// Writes a file's symbols, keeping the ids of symbols whose qualified name survived (so
    /// edges from other files into this one stay valid).
    fn write_symbols(
        &self,
        file_id: i64,
        parsed: Option<(&ParsedFile, &Blobs)>,
        fresh: bool,
    ) -> rusqlite::Result<()> {
        let terms = parsed.map_or(&[][..], |(_, b)| b.symbol_terms.as_slice());
        let parsed = parsed.map(|(p, _)| p);
        let mut old: HashMap<(String, u32), i64> = HashMap::new();
        if !fresh {
            let mut seen: HashMap<String, u32> = HashMap::new();
            for (id, q) in build::symbol_qualnames(self.conn, file_id)? {
                let n = seen.entry(q.clone()).or_insert(0);
                old.insert((q, *n), id);
                *n += 1;
            }
            // Every old row leaves the full-text index; the symbols are indexed afresh below.
            for id in old.values() {
                store::delete_symbol_terms(self.conn, *id)?;
            }
        }
        let symbols = parsed.map_or(&[][..], |p| p.symbols.as_slice());
        let mut ids: Vec<i64> = Vec::with_capacity(symbols.len());
        let mut seen: HashMap<&str, u32> = HashMap::new();
        for (ord, s) in symbols.iter().enumerate() {
            let n = seen.entry(s.qualname.as_str()).or_insert(0);
            let key = (s.qualname.clone(), *n);
            *n += 1;
            let reuse = old.remove(&key);
            let parent = s.parent.and_then(|p| ids.get(p).copied());
            let decorators = (!s.decorators.is_empty()).then(|| s.decorators.join("\n"));
            let (doc_start, doc_end) = s.docstring_lines.unzip();
            let name_split = terms
                .get(ord)
                .map(|t| t.name_split.as_str())
                .filter(|t| !t.is_empty());
            let row = build::SymbolRecord {
                file_id,
                ord: ord as i64,
                parent_id: parent,
                kind: kind_code(s.kind),
                name: &s.name,
                qualname: &s.qualname,
                signature: &s.signature,
                docstring: s.docstring.as_deref(),
                start_line: s.start_line,
                end_line: s.end_line,
                decorated_line: s.decorated_line,
                header_end_line: s.header_end_line,
                doc_start,
                doc_end,
                decorators: decorators.as_deref(),
                start_byte: s.start_byte as i64,
                end_byte: s.end_byte as i64,
                name_split,
            };
            let id = match reuse {
                Some(id) => {
                    build::update_symbol(self.conn, id, &row)?;
                    id
                }
                None => build::insert_symbol(self.conn, &row)?,
            };
            ids.push(id);
            if let Some(t) = terms.get(ord) {
                store::insert_symbol_terms(self.conn, id, t)?;
            }
        }
        for id in old.into_values() {
            build::delete_symbol(self.conn, id)?;
        }
        let entries: Vec<codec::SymtabEntry> = symbols
            .iter()
            .zip(&ids)
            .map(|(s, id)| codec::SymtabEntry {
                id: *id,
                parent: s.parent,
                kind: kind_code(s.kind),
                name: s.name.clone(),
                decorated_line: s.decorated_line,
                header_end_line: s.header_end_line,
            })
            .collect();
        build::set_symtab(self.conn, file_id, &codec::encode_symtab(&entries))?;
        Ok(())
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
        let report = match self.refresh_once(walk, progress, listing) {
            Err(IndexError::Db { source, .. }) if store::is_corruption(&source) => {
                store::remove_files(&self.db_path);
                let (conn, _) = store::open(&self.db_path)?;
                self.conn = conn;
                // It read the file just removed.
                if self.all_cores {
                    self.second = self.second_connection();
                }
                self.refresh_once(walk, progress, None)?
            }
            other => other?,
        };
        self.report = Some(report.clone());
        Ok(report)
    }

    fn refresh_once(
        &self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
    ) -> Result<IndexReport> {
        let err = db_err(&self.db_path);
        // A new file, or an unusable one emptied first, is filled without the WAL (every page
        // written once, not twice).
        store::empty_unusable(&self.conn).map_err(&err)?;
        let bulk = store::begin_bulk(&self.conn).map_err(&err)?;
        let result = build::begin_write(&self.conn)
            .map_err(&err)
            .and_then(|()| self.update(walk, progress, listing));
        // Whatever was decoded may have been rewritten, committed or not.
        self.memo.clear();
        let result = match result {
            Ok(mut report) => {
                let t = Instant::now();
                let committed = build::commit(&self.conn).map_err(&err);
                if committed.is_ok() && report.cold && !bulk {
                    // A new index leaves a WAL as large as the database; fold it in now.
                    build::checkpoint(&self.conn);
                }
                report.phases.commit = t.elapsed().as_secs_f64();
                report.seconds += report.phases.commit;
                report.db_bytes = db_bytes(&self.db_path);
                committed.map(|()| report)
            }
            Err(e) => {
                build::rollback(&self.conn);
                Err(e)
            }
        };
        if bulk {
            // What was built is committed either way; a connection that cannot switch back now
            // (a reader kept the file busy past the timeout) leaves it to the next `connect`,
            // which asks for the WAL again.
            let _ = store::end_bulk(&self.conn);
        }
        result
    }

    fn update(
        &self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
    ) -> Result<IndexReport> {
        let started = Instant::now();
        let err = db_err(&self.db_path);
        let conn = &self.conn;
        let mut report = IndexReport::default();
        // Another writer may have finished while we waited for the lock: look again.
        if store::re_state(conn).map_err(&err)? != State::Ready {
            store::reset(conn).map_err(&err)?;
            report.cold = true;
        }

        let mut phase = Instant::now();
        let lap = |phase: &mut Instant| {
            let t = phase.elapsed().as_secs_f64();
            *phase = Instant::now();
            t
        };
        // A new index reads the git log on a thread of its own while the files are parsed.
        let history_read = report.cold.then(|| {
            let root = self.root.clone();
            std::thread::spawn(move || history::log(&root))
        });
        progress(Progress::Walking);
        let listing =
            listing.unwrap_or_else(|| list_walking(conn, &self.root, walk, &self.registry));
        let digest = listing.digest();
        // A new walk replaces the stored watch (or drops it, when it could not be watched); a
        // listing made from the watch leaves it, since it found the same folders.
        let watch = match &listing.source {
            ListingSource::Walked(Some(w)) => {
                Some(Some(encode_watch(walk, &self.registry, w, &listing.listed)))
            }
            ListingSource::Walked(None) => Some(None),
            ListingSource::Watched => None,
        };
        let Listing {
            listed, warnings, ..
        } = listing;
        report.warnings.extend(warnings);

        // The stat columns of every file come from a covering index (a no-change refresh reads
        // nothing else); the hash and interface only of files whose stat changed.
        let mut old: rustc_hash::FxHashMap<String, OldFile> = rustc_hash::FxHashMap::default();
        old.reserve(listed.len());
        build::for_each_file_stat(conn, |id, path, size, mtime_ns| {
            old.insert(
                path.to_owned(),
                OldFile {
                    id,
                    listed: false,
                    size: size as u64,
                    mtime_ns,
                    hash: Vec::new(),
                    iface: None,
                },
            );
        })
        .map_err(&err)?;

        let mut to_read: Vec<Listed> = Vec::new();
        {
            for item in listed {
                let o = old.get_mut(&item.rel);
                match o {
                    Some(o) if o.size == item.size && o.mtime_ns == item.mtime_ns => {
                        o.listed = true;
                        report.unchanged += 1;
                    }
                    Some(o) => {
                        o.listed = true;
                        // Listed by the stat scan a moment ago, in the same transaction.
                        let indexed = build::indexed_content(conn, o.id)
                            .and_then(|row| row.ok_or(rusqlite::Error::QueryReturnedNoRows))
                            .map_err(&err)?;
                        (o.hash, o.iface) = (indexed.hash, indexed.iface);
                        to_read.push(item);
                    }
                    None => to_read.push(item),
                }
            }
        }

        report.phases.walk = lap(&mut phase);
        let total = to_read.len();
        let max = walk.max_filesize.unwrap_or(DEFAULT_MAX_FILESIZE);
        let registry = &self.registry;
        let mut structure_changed = false;
        let mut parsed_ids: Vec<i64> = Vec::new();
        // Edges and deps of re-parsed files as they were, to tell whether the graph changed.
        let mut old_graph: HashMap<i64, (Vec<u8>, Vec<u8>)> = HashMap::new();
        let writer = Writer { conn };

        // Parsed on every core, written in the listing's order (by path): the same tree always
        // gets the same file and symbol ids, whichever parse finishes first.
        let threads = rayon::current_num_threads();
        let mut done = 0;
        let write_result: Result<()> = cast_workspace::ordered::for_each_in_order(
            &to_read,
            threads,
            PARSE_WINDOW,
            |item| {
                let old_hash = old.get(&item.rel).map(|o| o.hash.as_slice());
                // A panic while one file is read, parsed or cut into terms (a bug) costs that
                // file, not the whole index (`LanguageParser::parse` already catches the
                // parsers' own).
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    read_and_parse(registry, item, old_hash, max)
                }))
                .unwrap_or_else(|_| Outcome::Skipped {
                    hash: Vec::new(),
                    reason: cast_parser::ParseError::Panicked.to_string(),
                })
            },
            |i, outcome| {
                done += 1;
                if done % 64 == 0 || done == total {
                    progress(Progress::Parsing { done, total });
                }
                let item = &to_read[i];
                let prev = old.get(&item.rel);
                match outcome {
                    Outcome::Touched => {
                        report.touched += 1;
                        if let Some(p) = prev {
                            build::set_file_stat(conn, p.id, item.size as i64, item.mtime_ns)
                                .map_err(&err)?;
                        }
                    }
                    Outcome::Parsed { hash, file, blobs } => {
                        if prev.is_some() {
                            report.changed += 1;
                        } else {
                            report.added += 1;
                        }
                        if prev.and_then(|p| p.iface.as_ref()) != Some(&blobs.iface) {
                            structure_changed = true;
                        }
                        if let Some(p) = prev {
                            let before = build::file_graph_blobs(conn, p.id).map_err(&err)?;
                            if let Some(b) = before {
                                old_graph.insert(p.id, b);
                            }
                        }
                        let id = writer
                            .upsert_file(
                                prev.map(|p| p.id),
                                item,
                                &hash,
                                Some((&file, &blobs)),
                                None,
                            )
                            .map_err(&err)?;
                        writer
                            .write_symbols(id, Some((&file, &blobs)), prev.is_none())
                            .map_err(&err)?;
                        parsed_ids.push(id);
                    }
                    Outcome::Skipped { hash, reason } => {
                        report
                            .warnings
                            .push(format!("skipped {}: {reason}", item.rel));
                        if prev.is_some_and(|p| p.iface.is_some()) || prev.is_none() {
                            structure_changed = true;
                        }
                        let id = writer
                            .upsert_file(prev.map(|p| p.id), item, &hash, None, Some(&reason))
                            .map_err(&err)?;
                        writer
                            .write_symbols(id, None, prev.is_none())
                            .map_err(&err)?;
                    }
                }
                Ok(())
            },
        );
        write_result?;
        report.phases.parse_and_write = lap(&mut phase);
        report.deleted = self.delete_missing(&old)?;
        if report.deleted > 0 {
            structure_changed = true;
        }
        let content_changed = report.added + report.changed + report.deleted > 0 || report.cold;
        // Counting scans whole tables (the files' rows hold large blobs): counted when the
        // content changed and kept in `meta`, read back otherwise (a no-change refresh is what
        // every query pays).
        let stored_counts = if content_changed {
            None
        } else {
            store::counts(conn).map_err(&err)?
        };
        let counts = match stored_counts {
            Some(c) => c,
            None => {
                let c = store::count_rows(conn).map_err(&err)?;
                store::set_counts(conn, c).map_err(&err)?;
                c
            }
        };
        (report.files, report.skipped, report.symbols) =
            (counts.files, counts.skipped, counts.symbols);
        if content_changed {
            let mut catalog = load_catalog(conn, &self.root).map_err(&err)?;
            report.phases.load_catalog = lap(&mut phase);
            let targets: Vec<i64> = if structure_changed || report.cold {
                catalog.files.iter().map(|f| f.id).collect()
            } else {
                parsed_ids.clone()
            };
            progress(Progress::Resolving {
                files: targets.len(),
            });
            let refs = load_refs(conn, &catalog, &targets).map_err(&err)?;
            report.resolved_files = refs.len();
            catalog.resolve_files(&refs);
            let mut graph_changed = structure_changed || report.cold;
            {
                for (f, _) in &refs {
                    let edges = catalog.encode_edges(*f);
                    let deps = catalog.encode_deps(*f);
                    let before = &old_graph.get(&catalog.files[*f as usize].id);
                    if before.is_none_or(|(e, d)| e != &edges || d != &deps) {
                        graph_changed = true;
                    }
                    let id = catalog.files[*f as usize].id;
                    build::set_file_graph(conn, id, &edges, &deps).map_err(&err)?;
                }
            }
            report.phases.resolve = lap(&mut phase);
            // Same edges as before (an edit that changed no reference): the ranks stand.
            if graph_changed {
                progress(Progress::Ranking);
                report.rank_iterations = rank_and_store(conn, &catalog).map_err(&err)?;
            }
            report.phases.rank = lap(&mut phase);
            report.edges = catalog.files.iter().map(|f| f.edges.len()).sum();
            report.file_edges = catalog.files.iter().map(|f| f.deps.len()).sum();
            store::set_meta(conn, "edges", report.edges.to_string().as_bytes()).map_err(&err)?;
            store::set_meta(conn, "file_edges", report.file_edges.to_string().as_bytes())
                .map_err(&err)?;
        } else {
            report.edges = meta_count(conn, "edges").map_err(&err)?;
            report.file_edges = meta_count(conn, "file_edges").map_err(&err)?;
        }
        if content_changed {
            // Timed on its own: the lap since the last phase also holds freeing the catalog.
            let started_history = Instant::now();
            let read = match history_read {
                Some(thread) => thread
                    .join()
                    .unwrap_or_else(|_| Err(HistoryError::Failed("git log reader panicked".into())))
                    .map(Some),
                None => self.read_history_if_moved().map_err(&err)?,
            };
            self.store_history(read, &mut report.warnings)
                .map_err(&err)?;
            report.phases.history = started_history.elapsed().as_secs_f64();
        }
        report.commits = store::commit_rows(conn).map_err(&err)?;
        store::set_meta(conn, "root", self.root.to_string_lossy().as_bytes()).map_err(&err)?;
        store::set_meta(conn, "walk", walk_text(walk).as_bytes()).map_err(&err)?;
        match watch {
            // Written only when it changed: it is a large value (a path per file and folder).
            Some(Some(bytes))
                if store::get_meta(conn, WALK_WATCH).map_err(&err)?.as_deref()
                    != Some(bytes.as_slice()) =>
            {
                store::set_meta(conn, WALK_WATCH, &bytes).map_err(&err)?
            }
            Some(Some(_)) => {}
            Some(None) => store::delete_meta(conn, WALK_WATCH).map_err(&err)?,
            None => {}
        }
        // Every listed file now has its listed size and mtime in the index.
        store::set_meta(conn, LISTING_DIGEST, &digest).map_err(&err)?;
        store::set_meta(conn, "complete", b"1").map_err(&err)?;
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// The git history when `HEAD` moved since it was stored (`Ok(None)` when it did not).
    fn read_history_if_moved(
        &self,
    ) -> rusqlite::Result<Result<Option<history::Log>, HistoryError>> {
        let stored = store::history_head(&self.conn)?;
        Ok(match history::head(&self.root) {
            Ok(head) if stored.as_deref() == Some(head.as_str()) => Ok(None),
            Ok(head) => {
                history::read(&self.root).map(|commits| Some(history::Log { head, commits }))
            }
            Err(e) => Err(e),
        })
    }

    /// Stores what [`Self::read_history_if_moved`] or the build's reader found (nothing new
    /// keeps what is stored); no history clears what was stored.
    fn store_history(
        &self,
        read: Result<Option<history::Log>, HistoryError>,
        warnings: &mut Vec<String>,
    ) -> rusqlite::Result<()> {
        let conn = &self.conn;
        match read {
            Ok(Some(log)) => store::set_history(conn, &log.head, &log.commits),
            Ok(None) => Ok(()),
            Err(e) => {
                if let HistoryError::Failed(message) = e {
                    warnings.push(format!("git history not used for search: {message}"));
                }
                // Cleared only when something is stored (a tree outside git stays as it was).
                if store::history_head(conn)?.is_some_and(|h| !h.is_empty()) {
                    store::set_history(conn, "", &[])?;
                }
                Ok(())
            }
        }
    }

    /// Deletes files that are in the index but were not listed by this walk.
    fn delete_missing(&self, old: &rustc_hash::FxHashMap<String, OldFile>) -> Result<usize> {
        let err = db_err(&self.db_path);
        let mut deleted = 0;
        for f in old.values() {
            if f.listed {
                continue;
            }
            for id in rows::symbols_of_file(&self.conn, f.id).map_err(&err)? {
                store::delete_symbol_terms(&self.conn, id).map_err(&err)?;
            }
            store::delete_file_terms(&self.conn, f.id).map_err(&err)?;
            build::delete_file(&self.conn, f.id).map_err(&err)?;
            deleted += 1;
        }
        Ok(deleted)
    }
}

fn meta_count(conn: &Connection, key: &str) -> rusqlite::Result<usize> {
    Ok(store::get_meta(conn, key)?
        .and_then(|v| String::from_utf8(v).ok())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

pub(crate) fn db_bytes(db: &Path) -> u64 {
    ["", "-wal"]
        .iter()
        .map(|suffix| {
            let mut p = db.as_os_str().to_owned();
            p.push(suffix);
            std::fs::metadata(PathBuf::from(p)).map_or(0, |m| m.len())
        })
        .sum()
}

type GraphBlobs = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Files, symbols, imports and stored edges, in memory.
pub(crate) fn load_catalog(conn: &Connection, root: &Path) -> rusqlite::Result<Catalog> {
    let mut cat = Catalog::default();
    // Each file's stored (edges, deps) blobs, decoded once every symbol is known.
    let mut blobs: Vec<GraphBlobs> = Vec::new();
    build::for_each_catalog_row(conn, |row| {
        let imports = row
            .imports
            .and_then(codec::decode_imports)
            .unwrap_or_default();
        let file = cat.add_file(row.id, row.path, row.language, imports);
        let symtab = row
            .symtab
            .and_then(codec::decode_symtab)
            .unwrap_or_default();
        let mut dense: Vec<u32> = Vec::with_capacity(symtab.len());
        for e in symtab {
            let parent = e.parent.and_then(|p| dense.get(p).copied());
            let idx = cat.add_sym(file, parent, kind_of(e.kind), &e);
            dense.push(idx);
        }
        blobs.push((row.edges.map(<[u8]>::to_vec), row.deps.map(<[u8]>::to_vec)));
    })?;
    for (i, (edges, deps)) in blobs.into_iter().enumerate() {
        let e = edges.and_then(|b| cat.decode_edges(&b)).unwrap_or_default();
        let d = deps.and_then(|b| cat.decode_deps(&b)).unwrap_or_default();
        cat.files[i].edges = e;
        cat.files[i].deps = d;
    }
    cat.set_rust_crate_names(rust_crate_names(root, &cat));
    cat.finish();
    Ok(cat)
}

/// The Rust crates of the tree whose `Cargo.toml` names them otherwise than their folder
/// (`[lib] name`, else `[package] name`): folder name → declared name. A missing or
/// unreadable manifest leaves the folder's name.
fn rust_crate_names(root: &Path, cat: &Catalog) -> rustc_hash::FxHashMap<String, String> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut names = rustc_hash::FxHashMap::default();
    for f in cat.files.iter().filter(|f| f.family == Family::Rust) {
        let Some((dir, folder_name)) = modpath::rust_crate_dir(&f.rel) else {
            continue;
        };
        if !seen.insert(dir.clone()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&dir).join("Cargo.toml")) else {
            continue;
        };
        let Ok(manifest) = text.parse::<toml::Table>() else {
            continue;
        };
        let declared = ["lib", "package"].iter().find_map(|section| {
            manifest
                .get(*section)
                .and_then(|s| s.get("name"))
                .and_then(toml::Value::as_str)
        });
        if let Some(declared) = declared.map(|n| n.replace('-', "_"))
            && declared != folder_name
        {
            names.insert(folder_name, declared);
        }
    }
    names
}

fn load_refs(
    conn: &Connection,
    cat: &Catalog,
    ids: &[i64],
) -> rusqlite::Result<Vec<(u32, Vec<Reference>)>> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(&f) = cat.file_by_id.get(id) else {
            continue;
        };
        let blob = rows::file_blob(conn, *id, rows::FileBlob::Refs)?;
        let refs = blob
            .and_then(|b| codec::decode_refs(&b))
            .unwrap_or_default();
        out.push((f, refs));
    }
    Ok(out)
}
