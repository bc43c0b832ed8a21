//! Building and refreshing the index: walk, stat, hash, parse what changed, resolve, rank.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, UNIX_EPOCH};

use cast_parser::{
    DEFAULT_MAX_FILESIZE, ParsedFile, Reference, Registry, SourceText, SymbolKind, WalkOptions,
};
use cast_workspace::{LiveWatch, WalkWatch, WatchRecorder};
use rayon::prelude::*;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::codec::{self, Reader, put_varint};
use crate::history::{self, HistoryError};
use crate::modpath::{self, Family};
use crate::rank;
use crate::resolve::Catalog;
use crate::store::{
    self, FLAG_LOSSY, FLAG_SKIPPED, FLAG_SYNTAX_ERRORS, FileTerms, SKIPPED_FILES, State,
    SymbolTerms, db_err,
};
use crate::{AnalyzerError, Result};

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
    /// Set by [`Index::answer_many`]: the kernel may watch the tree, and a search matches files
    /// and symbols on two connections.
    pub(crate) answer_many: bool,
    /// The second connection of [`Index::answer_many`] (a mutex only to be `Sync`: one query
    /// at a time uses it, from the thread it lends it to).
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

pub(crate) fn kind_code(k: SymbolKind) -> i64 {
    i64::from(k.code())
}

pub(crate) fn kind_of(c: i64) -> SymbolKind {
    u8::try_from(c)
        .ok()
        .and_then(SymbolKind::from_code)
        .unwrap_or(SymbolKind::Block)
}

struct Listed {
    path: PathBuf,
    rel: String,
    size: u64,
    mtime_ns: i64,
}

impl Listed {
    /// The file at `path` with its size and mtime now; `None` when it cannot be stat'ed.
    fn stat(path: PathBuf, rel: String) -> Option<Listed> {
        let meta = std::fs::metadata(&path).ok()?;
        Some(Listed::of(path, rel, &meta))
    }

    fn of(path: PathBuf, rel: String, meta: &std::fs::Metadata) -> Listed {
        Listed {
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            path,
            rel,
        }
    }
}

/// The source files a walk found, each with its size and mtime.
struct Listing {
    listed: Vec<Listed>,
    /// Folders the walk could not read.
    warnings: Vec<String>,
    source: ListingSource,
}

/// How a [`Listing`] was made.
enum ListingSource {
    /// By walking, with the watch of that walk when it could be watched.
    Walked(Option<WalkWatch>),
    /// From the paths stored at the last walk, whose watch said nothing changed since.
    Watched,
}

fn list(root: &Path, walk: &WalkOptions, registry: &Registry) -> Listing {
    list_recording(root, walk, registry, true)
}

/// [`list`], recording a watch of the walk only when `record` is set (recording costs more
/// than the walk on a large tree: a `stat` per folder and three per folder for ignore files).
fn list_recording(root: &Path, walk: &WalkOptions, registry: &Registry, record: bool) -> Listing {
    let recorder = WatchRecorder::new();
    let (found, walk_errors) =
        cast_parser::source_files_watched(root, walk, registry, record.then_some(&recorder));
    let warnings: Vec<String> = walk_errors
        .into_iter()
        .filter_map(|e| e.result.err().map(|err| err.to_string()))
        .collect();
    // A folder that could not be read may become readable without its mtime changing.
    let watch = if record && warnings.is_empty() {
        recorder.finish(root, walk)
    } else {
        None
    };
    let listed = found
        .into_par_iter()
        .filter_map(|(path, rel)| Listed::stat(path, rel))
        .collect();
    Listing {
        listed,
        warnings,
        source: ListingSource::Walked(watch),
    }
}

/// The stored watch and the paths it listed, if there is one for this walk and these languages.
fn stored_watch(
    conn: &Connection,
    walk: &WalkOptions,
    registry: &Registry,
) -> Option<(WalkWatch, Vec<String>)> {
    store::get_meta(conn, WALK_WATCH)
        .ok()
        .flatten()
        .and_then(|b| decode_watch(&b, walk, registry))
}

/// A listing by walking, as an explicit refresh (`cast index`) makes it: it always walks (what
/// a watch cannot see, such as a change hidden by a skewed clock, is found here), but records a
/// new watch only when the stored one no longer holds or listed other paths.
fn list_walking(
    conn: &Connection,
    root: &Path,
    walk: &WalkOptions,
    registry: &Registry,
) -> Listing {
    let holds = stored_watch(conn, walk, registry).filter(|(watch, _)| watch.unchanged());
    let mut listing = list_recording(root, walk, registry, holds.is_none());
    if let Some((_, paths)) = holds
        && listing.warnings.is_empty()
        && listing.listed.iter().map(|l| &l.rel).eq(paths.iter())
    {
        // The same paths as the stored watch's: it stays.
        listing.source = ListingSource::Watched;
    }
    listing
}

/// The listing of `root`, from the paths of the last walk when its stored watch says no folder
/// and no ignore file changed since (a `stat` per folder and per file), else by walking. With
/// `arm`, when the listing comes from the stored watch: a [`LiveWatch`] of its folders too,
/// armed before they are looked at, so it notes any change made while the listing is made.
fn list_watched(
    conn: &Connection,
    root: &Path,
    walk: &WalkOptions,
    registry: &Registry,
    arm: bool,
) -> (Listing, Option<LiveWatch>) {
    if let Some((watch, paths)) = stored_watch(conn, walk, registry) {
        let live = arm.then(|| LiveWatch::arm(&watch).ok()).flatten();
        if !watch.unchanged() {
            return (list(root, walk, registry), None);
        }
        // On this thread alone: the query runs on the other core meanwhile (with the stats
        // spread over both, the query waited for a core: 3–7 ms slower on the stdlib with
        // site-packages, measured).
        let mut hard_linked = false;
        let listed: Option<Vec<Listed>> = paths
            .into_iter()
            .map(|rel| {
                let path = root.join(&rel);
                // A file gone (its folder's mtime should have said so): walk after all.
                let meta = std::fs::metadata(&path).ok()?;
                hard_linked |= links(&meta) > 1;
                Some(Listed::of(path, rel, &meta))
            })
            .collect();
        // A file with another name elsewhere can be written through it unseen by the watch of
        // this folder.
        let live = live.filter(|_| !hard_linked);
        if let Some(listed) = listed {
            let listing = Listing {
                listed,
                warnings: Vec::new(),
                source: ListingSource::Watched,
            };
            return (listing, live);
        }
    }
    (list(root, walk, registry), None)
}

/// How many names a file has.
fn links(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        1
    }
}

/// The `meta` key of the last walk's [`WalkWatch`], with the walk options and languages it
/// holds for and the relative paths it listed.
const WALK_WATCH: &str = "walk_watch";

/// The walk options as stored (`meta` key `walk`) and compared.
fn walk_text(walk: &WalkOptions) -> String {
    format!(
        "{},{},{},{}",
        u8::from(walk.hidden),
        u8::from(walk.no_ignore),
        u8::from(walk.follow_links),
        walk.max_filesize.unwrap_or(DEFAULT_MAX_FILESIZE)
    )
}

fn encode_watch(
    walk: &WalkOptions,
    registry: &Registry,
    watch: &WalkWatch,
    listed: &[Listed],
) -> Vec<u8> {
    let mut out = Vec::new();
    codec::put_str(&mut out, WATCH_FORMAT);
    codec::put_str(&mut out, &walk_text(walk));
    codec::put_str(&mut out, &registry.extensions().join(","));
    let watch = watch.encode();
    put_varint(&mut out, watch.len() as u64);
    out.extend_from_slice(&watch);
    codec::put_front_coded(&mut out, listed.iter().map(|l| l.rel.as_str()));
    out
}

/// Opens a stored watch: one written in another layout is not read (and a walk replaces it).
const WATCH_FORMAT: &str = "watch/2";

/// The stored watch and paths, if they were stored for this walk and these languages (a new
/// version of CAST that parses more languages lists more files from the same folders).
fn decode_watch(
    bytes: &[u8],
    walk: &WalkOptions,
    registry: &Registry,
) -> Option<(WalkWatch, Vec<String>)> {
    let mut r = Reader::new(bytes);
    if r.str()? != WATCH_FORMAT
        || r.str()? != walk_text(walk)
        || r.str()? != registry.extensions().join(",")
    {
        return None;
    }
    let n = r.varint()? as usize;
    let watch = WalkWatch::decode(r.bytes(n)?)?;
    let paths = r.front_coded()?;
    r.at_end().then_some((watch, paths))
}

impl Listing {
    /// A digest of every listed path with its size and mtime, in the walk's order (sorted):
    /// a refresh stores it, and an equal digest later means a refresh would change nothing.
    fn digest(&self) -> [u8; 32] {
        // The bytes are gathered first: one update of the whole is several times faster than
        // four small ones per file, and gives the same digest.
        let mut bytes = Vec::with_capacity(self.listed.iter().map(|l| l.rel.len() + 24).sum());
        for l in &self.listed {
            bytes.extend_from_slice(&(l.rel.len() as u64).to_le_bytes());
            bytes.extend_from_slice(l.rel.as_bytes());
            bytes.extend_from_slice(&l.size.to_le_bytes());
            bytes.extend_from_slice(&l.mtime_ns.to_le_bytes());
        }
        *blake3::hash(&bytes).as_bytes()
    }
}

/// Whether the index in `db` was last refreshed from this very listing (the same files, each
/// with the same size and mtime): then a refresh would change nothing.
fn is_current(conn: &Connection, listing: &Listing) -> rusqlite::Result<bool> {
    let stored = store::get_meta(conn, LISTING_DIGEST)?;
    Ok(stored.as_deref() == Some(listing.digest().as_slice()))
}

/// Parse results that may wait, ahead of the one being written (a slow file holds the rest of
/// them in memory meanwhile).
const PARSE_WINDOW: usize = 512;

/// The `meta` key of [`Listing::digest`] as of the last refresh.
const LISTING_DIGEST: &str = "listing";

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

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
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
        let iface = blobs.map(|b| &b.iface);
        let imports = blobs.map(|b| &b.imports);
        let refs = blobs.map(|b| &b.refs);
        let values = params![
            item.rel,
            item.size as i64,
            item.mtime_ns,
            hash,
            parsed.map(|p| p.language),
            parsed.map_or(0, |p| i64::from(p.line_count)),
            parsed.and_then(|p| p.description.as_deref()),
            flags,
            error,
        ];
        let id = match old {
            Some(id) => {
                let mut stmt = self.conn.prepare_cached(
                    "UPDATE files SET path=?1, size=?2, mtime_ns=?3, hash=?4, language=?5, line_count=?6, description=?7, flags=?8, error=?9, deps=NULL WHERE id=?10",
                )?;
                let mut all: Vec<&dyn rusqlite::ToSql> = values.to_vec();
                all.push(&id);
                stmt.execute(all.as_slice())?;
                store::delete_file_terms(self.conn, id)?;
                id
            }
            None => {
                let mut stmt = self.conn.prepare_cached(
                    "INSERT INTO files(path, size, mtime_ns, hash, language, line_count, description, flags, error) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
                )?;
                stmt.execute(values)?;
                self.conn.last_insert_rowid()
            }
        };
        // The parse products, afresh; the edges are resolved later.
        self.conn
            .prepare_cached(
                "INSERT OR REPLACE INTO file_data(id, iface, imports, refs) VALUES (?1,?2,?3,?4)",
            )?
            .execute(params![id, iface, imports, refs])?;
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
            let mut stmt = self
                .conn
                .prepare_cached("SELECT id, qualname FROM symbols WHERE file_id=?1 ORDER BY ord")?;
            let rows = stmt.query_map([file_id], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })?;
            let mut seen: HashMap<String, u32> = HashMap::new();
            for row in rows {
                let (id, q) = row?;
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
        let mut insert = self.conn.prepare_cached(
            "INSERT INTO symbols(id, file_id, ord, parent_id, kind, name, qualname, signature, docstring, start_line, end_line, decorated_line, header_end_line, doc_start, doc_end, decorators, start_byte, end_byte, name_split) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)",
        )?;
        let mut update = self.conn.prepare_cached(
            "UPDATE symbols SET file_id=?2, ord=?3, parent_id=?4, kind=?5, name=?6, qualname=?7, signature=?8, docstring=?9, start_line=?10, end_line=?11, decorated_line=?12, header_end_line=?13, doc_start=?14, doc_end=?15, decorators=?16, start_byte=?17, end_byte=?18, name_split=?19 WHERE id=?1",
        )?;
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
            let row = params![
                reuse,
                file_id,
                ord as i64,
                parent,
                kind_code(s.kind),
                s.name,
                s.qualname,
                s.signature,
                s.docstring,
                s.start_line,
                s.end_line,
                s.decorated_line,
                s.header_end_line,
                doc_start,
                doc_end,
                decorators,
                s.start_byte as i64,
                s.end_byte as i64,
                name_split,
            ];
            let id = match reuse {
                Some(id) => {
                    update.execute(row)?;
                    id
                }
                None => {
                    insert.execute(row)?;
                    self.conn.last_insert_rowid()
                }
            };
            ids.push(id);
            if let Some(t) = terms.get(ord) {
                store::insert_symbol_terms(self.conn, id, t)?;
            }
        }
        let mut delete = self
            .conn
            .prepare_cached("DELETE FROM symbols WHERE id=?1")?;
        for id in old.into_values() {
            delete.execute([id])?;
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
        self.conn
            .prepare_cached("UPDATE file_data SET symtab=?1 WHERE id=?2")?
            .execute(params![codec::encode_symtab(&entries), file_id])?;
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
            return Err(AnalyzerError::RootNotFound {
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
                return Err(AnalyzerError::NoIndex {
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
    /// [`Self::open_with`] and then `query`.
    pub fn query_current<T, E>(
        root: &Path,
        options: &IndexOptions,
        progress: &mut dyn FnMut(Progress),
        mut query: impl FnMut(&Index) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E>
    where
        E: From<AnalyzerError>,
    {
        if options.refresh != Refresh::Always {
            let index = Index::open_with(root, options, progress)?;
            return query(&index);
        }
        let if_missing = IndexOptions {
            refresh: Refresh::IfMissing,
            ..options.clone()
        };
        let mut index = Index::open_with(root, &if_missing, progress)?;
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
        E: From<AnalyzerError>,
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
        let (answer, listing, current, live) = std::thread::scope(|scope| {
            let (root, registry, db) = (&self.root, &self.registry, &self.db_path);
            let walk = &walk;
            let check = scope.spawn(move || {
                let Ok(conn) = store::connect(db) else {
                    // The database went away: the refresh reports why.
                    return (list(root, walk, registry), false, None);
                };
                let (listing, live) = list_watched(&conn, root, walk, registry, arm);
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
    ///   matched on this one, and reads and cuts the candidate files on all cores (a one-query
    ///   process runs the check on its second core instead).
    pub fn answer_many(&mut self) {
        self.answer_many = true;
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

    /// The database file.
    pub fn db_path(&self) -> &Path {
        &self.db_path
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
            Err(AnalyzerError::Db { source, .. }) if store::is_corruption(&source) => {
                store::remove_files(&self.db_path);
                let (conn, _) = store::open(&self.db_path)?;
                self.conn = conn;
                // It read the file just removed.
                if self.answer_many {
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
        self.conn.execute_batch("BEGIN IMMEDIATE").map_err(&err)?;
        let result = self.update(walk, progress, listing);
        // Whatever was decoded may have been rewritten, committed or not.
        self.memo.clear();
        match result {
            Ok(mut report) => {
                let t = Instant::now();
                self.conn.execute_batch("COMMIT").map_err(&err)?;
                if report.cold {
                    // A new index leaves a WAL as large as the database; fold it in now.
                    let _ = self
                        .conn
                        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
                }
                report.phases.commit = t.elapsed().as_secs_f64();
                report.seconds += report.phases.commit;
                report.db_bytes = db_bytes(&self.db_path);
                Ok(report)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
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
        {
            let mut stmt = conn
                .prepare("SELECT id, path, size, mtime_ns FROM files INDEXED BY files_stat")
                .map_err(&err)?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(1)?,
                        OldFile {
                            id: r.get(0)?,
                            listed: false,
                            size: r.get::<_, i64>(2)? as u64,
                            mtime_ns: r.get(3)?,
                            hash: Vec::new(),
                            iface: None,
                        },
                    ))
                })
                .map_err(&err)?;
            for row in rows {
                let (path, f) = row.map_err(&err)?;
                old.insert(path, f);
            }
        }

        let mut to_read: Vec<Listed> = Vec::new();
        {
            let mut stmt = conn
                .prepare_cached(
                    "SELECT hash, iface FROM files LEFT JOIN file_data USING (id) WHERE id = ?1",
                )
                .map_err(&err)?;
            for item in listed {
                let o = old.get_mut(&item.rel);
                match o {
                    Some(o) if o.size == item.size && o.mtime_ns == item.mtime_ns => {
                        o.listed = true;
                        report.unchanged += 1;
                    }
                    Some(o) => {
                        o.listed = true;
                        (o.hash, o.iface) = stmt
                            .query_row([o.id], |r| Ok((r.get(0)?, r.get(1)?)))
                            .map_err(&err)?;
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
        let write_result: Result<()> = crate::ordered::for_each_in_order(
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
                            conn.prepare_cached(
                                "UPDATE files SET size=?1, mtime_ns=?2 WHERE id=?3",
                            )
                            .and_then(|mut s| {
                                s.execute(params![item.size as i64, item.mtime_ns, p.id])
                            })
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
                            let before: Option<(Vec<u8>, Vec<u8>)> = conn
                                .prepare_cached("SELECT edges, deps FROM files LEFT JOIN file_data USING (id) WHERE id=?1")
                                .and_then(|mut s| {
                                    s.query_row([p.id], |r| {
                                        Ok((
                                            r.get::<_, Option<Vec<u8>>>(0)?.unwrap_or_default(),
                                            r.get::<_, Option<Vec<u8>>>(1)?.unwrap_or_default(),
                                        ))
                                    })
                                    .optional()
                                })
                                .map_err(&err)?;
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
                let c = store::Counts {
                    files: count(conn, "SELECT COUNT(*) FROM files").map_err(&err)?,
                    skipped: count(
                        conn,
                        &format!("SELECT COUNT(*) FROM files WHERE {SKIPPED_FILES}"),
                    )
                    .map_err(&err)?,
                    symbols: count(conn, "SELECT COUNT(*) FROM symbols").map_err(&err)?,
                };
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
                let mut set_edges = conn
                    .prepare_cached("UPDATE file_data SET edges=?1 WHERE id=?2")
                    .map_err(&err)?;
                let mut set_deps = conn
                    .prepare_cached("UPDATE files SET deps=?1 WHERE id=?2")
                    .map_err(&err)?;
                for (f, _) in &refs {
                    let edges = catalog.encode_edges(*f);
                    let deps = catalog.encode_deps(*f);
                    let before = &old_graph.get(&catalog.files[*f as usize].id);
                    if before.is_none_or(|(e, d)| e != &edges || d != &deps) {
                        graph_changed = true;
                    }
                    let id = catalog.files[*f as usize].id;
                    set_edges.execute(params![edges, id]).map_err(&err)?;
                    set_deps.execute(params![deps, id]).map_err(&err)?;
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
        report.commits = count(conn, "SELECT COUNT(*) FROM commits").map_err(&err)?;
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
        let mut del_file = self
            .conn
            .prepare_cached("DELETE FROM files WHERE id=?1")
            .map_err(&err)?;
        let mut del_data = self
            .conn
            .prepare_cached("DELETE FROM file_data WHERE id=?1")
            .map_err(&err)?;
        let mut del_syms = self
            .conn
            .prepare_cached("DELETE FROM symbols WHERE file_id=?1")
            .map_err(&err)?;
        let mut sym_ids = self
            .conn
            .prepare_cached("SELECT id FROM symbols WHERE file_id=?1")
            .map_err(&err)?;
        for f in old.values() {
            if f.listed {
                continue;
            }
            let ids: Vec<i64> = sym_ids
                .query_map([f.id], |r| r.get(0))
                .and_then(|rows| rows.collect())
                .map_err(&err)?;
            for id in ids {
                store::delete_symbol_terms(&self.conn, id).map_err(&err)?;
            }
            store::delete_file_terms(&self.conn, f.id).map_err(&err)?;
            del_syms.execute([f.id]).map_err(&err)?;
            del_file.execute([f.id]).map_err(&err)?;
            del_data.execute([f.id]).map_err(&err)?;
            deleted += 1;
        }
        Ok(deleted)
    }
}

fn count(conn: &Connection, sql: &str) -> rusqlite::Result<usize> {
    conn.query_row(sql, [], |r| r.get::<_, i64>(0))
        .map(|n| n as usize)
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
    {
        let mut stmt = conn.prepare(
            "SELECT id, path, language, imports, edges, deps, symtab FROM files LEFT JOIN file_data USING (id) ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let id: i64 = r.get(0)?;
            let path: String = r.get(1)?;
            let language: Option<String> = r.get(2)?;
            let imports = r
                .get_ref(3)?
                .as_blob_or_null()?
                .and_then(codec::decode_imports)
                .unwrap_or_default();
            let file = cat.add_file(id, &path, language.as_deref(), imports);
            let symtab = r
                .get_ref(6)?
                .as_blob_or_null()?
                .and_then(codec::decode_symtab)
                .unwrap_or_default();
            let mut dense: Vec<u32> = Vec::with_capacity(symtab.len());
            for e in symtab {
                let parent = e.parent.and_then(|p| dense.get(p).copied());
                let idx = cat.add_sym(file, parent, kind_of(e.kind), &e);
                dense.push(idx);
            }
            blobs.push((r.get(4)?, r.get(5)?));
        }
    }
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
    let mut stmt = conn.prepare_cached("SELECT refs FROM file_data WHERE id=?1")?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(&f) = cat.file_by_id.get(id) else {
            continue;
        };
        let blob: Option<Vec<u8>> = stmt.query_row([id], |r| r.get(0)).optional()?.flatten();
        let refs = blob
            .and_then(|b| codec::decode_refs(&b))
            .unwrap_or_default();
        out.push((f, refs));
    }
    Ok(out)
}

/// Ranks as stored: symbol (or file) id → rank.
pub(crate) fn decode_ranks(data: &[u8]) -> rustc_hash::FxHashMap<i64, f64> {
    SortedRanks::decode(data).iter().collect()
}

/// Stored ranks in ascending id order, looked up by binary search: a search, a map or `show`
/// looks up a few hundred of them, which is cheaper than hashing all (300 k on a large tree).
/// Ids and ranks are kept apart, the ranks as stored (`f32`): 12 bytes a symbol rather than 16,
/// since every query decodes all of them.
pub(crate) struct SortedRanks {
    ids: Vec<i64>,
    ranks: Vec<f32>,
}

impl SortedRanks {
    pub(crate) fn decode(data: &[u8]) -> SortedRanks {
        let mut r = Reader::new(data);
        let n = r.varint().unwrap_or(0) as usize;
        let mut ids = Vec::with_capacity(n.min(data.len()));
        let mut ranks = Vec::with_capacity(n.min(data.len()));
        let mut id = 0i64;
        for _ in 0..n {
            let (Some(delta), Some(rank)) = (r.varint(), r.f32()) else {
                // A blob that does not decode gives no ranks.
                return SortedRanks {
                    ids: Vec::new(),
                    ranks: Vec::new(),
                };
            };
            id += delta as i64;
            ids.push(id);
            ranks.push(rank);
        }
        SortedRanks { ids, ranks }
    }

    pub(crate) fn get(&self, id: i64) -> Option<f64> {
        self.ids
            .binary_search(&id)
            .ok()
            .map(|i| f64::from(self.ranks[i]))
    }

    /// Every (id, rank), in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.ids
            .iter()
            .zip(&self.ranks)
            .map(|(id, r)| (*id, f64::from(*r)))
    }

    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Every id, best rank first (ties by id). Only the head is sorted up front: a map reads
    /// a few hundred ids, and the rest is sorted only if a reader gets that far.
    pub(crate) fn best_first(&self) -> impl Iterator<Item = i64> {
        const HEAD: usize = 4096;
        let better = |a: &(i64, f64), b: &(i64, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut head: Vec<(i64, f64)> = self.iter().collect();
        let mut rest = if head.len() > HEAD {
            head.select_nth_unstable_by(HEAD, better);
            head.split_off(HEAD)
        } else {
            Vec::new()
        };
        head.sort_unstable_by(better);
        let rest = std::iter::once(()).flat_map(move |()| {
            rest.sort_unstable_by(better);
            std::mem::take(&mut rest).into_iter()
        });
        head.into_iter().chain(rest).map(|(id, _)| id)
    }
}

fn encode_ranks(mut ranks: Vec<(i64, f64)>) -> Vec<u8> {
    ranks.sort_by_key(|(id, _)| *id);
    let mut out = Vec::with_capacity(ranks.len() * 6);
    put_varint(&mut out, ranks.len() as u64);
    let mut prev = 0i64;
    for (id, rank) in ranks {
        put_varint(&mut out, (id - prev) as u64);
        prev = id;
        out.extend_from_slice(&(rank as f32).to_le_bytes());
    }
    out
}

/// Runs PageRank on the symbol graph and on the file graph and stores both. Returns the number
/// of iterations of the symbol graph.
fn rank_and_store(conn: &Connection, cat: &Catalog) -> rusqlite::Result<usize> {
    let old_syms = store::get_meta(conn, "symbol_ranks")?
        .map(|b| decode_ranks(&b))
        .unwrap_or_default();
    let (sym_ranks, iterations) = symbol_ranks(cat, &old_syms);
    let graph = file_graph(cat);
    let file_ranks = file_ranks(cat, &graph);
    store::set_meta(conn, "symbol_ranks", &encode_ranks(sym_ranks))?;
    store::set_meta(conn, "file_ranks", &encode_ranks(file_ranks))?;
    store::set_meta(conn, "file_graph", &encode_file_graph(cat, &graph))?;
    Ok(iterations)
}

/// Symbol graph: every symbol plus one node per file for module-level code. Edges: resolved
/// references (weight 1/k), and class → member (weight 1), so a used class lends rank to its
/// methods.
pub(crate) fn symbol_ranks(
    cat: &Catalog,
    seed: &rustc_hash::FxHashMap<i64, f64>,
) -> (Vec<(i64, f64)>, usize) {
    let s = cat.syms.len();
    let n = s + cat.files.len();
    let mut g = rank::graph_with_nodes(n);
    for (fi, f) in cat.files.iter().enumerate() {
        for e in &f.edges {
            let src = e.src.map_or(s + fi, |x| x as usize);
            g.add_edge(rank::node(src), rank::node(e.dst as usize), e.weight());
        }
    }
    for (i, sym) in cat.syms.iter().enumerate() {
        if let Some(p) = sym.parent
            && cat.syms[p as usize].kind.is_type()
        {
            g.add_edge(rank::node(p as usize), rank::node(i), 1.0);
        }
    }
    let seed_vec: Option<Vec<f64>> = (!seed.is_empty()).then(|| {
        let uniform = 1.0 / n as f64;
        cat.syms
            .iter()
            .map(|sym| seed.get(&sym.id).copied().unwrap_or(uniform))
            .chain(std::iter::repeat_n(uniform, cat.files.len()))
            .collect()
    });
    let (ranks, iterations) = rank::page_rank(&g, seed_vec.as_deref());
    let out = cat
        .syms
        .iter()
        .zip(&ranks)
        .map(|(sym, r)| (sym.id, *r))
        .collect();
    (out, iterations)
}

/// File graph, by dense file index: imports (weight 1) plus references between files (weight
/// 1/k each, summed per pair of files).
pub(crate) fn file_graph(cat: &Catalog) -> Vec<Vec<(u32, f64)>> {
    cat.files
        .iter()
        .enumerate()
        .map(|(fi, f)| {
            let mut to: HashMap<u32, f64> = HashMap::new();
            for d in &f.deps {
                *to.entry(d.dst).or_default() += 1.0;
            }
            for e in &f.edges {
                let dst_file = cat.syms[e.dst as usize].file;
                if dst_file as usize != fi {
                    *to.entry(dst_file).or_default() += e.weight();
                }
            }
            let mut out: Vec<(u32, f64)> = to.into_iter().collect();
            out.sort_by_key(|(t, _)| *t);
            out
        })
        .collect()
}

/// The file graph as stored: file count, then per file its id, its edge count and each edge's
/// target id and weight.
fn encode_file_graph(cat: &Catalog, graph: &[Vec<(u32, f64)>]) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, graph.len() as u64);
    for (f, edges) in cat.files.iter().zip(graph) {
        put_varint(&mut out, f.id as u64);
        put_varint(&mut out, edges.len() as u64);
        for (t, w) in edges {
            put_varint(&mut out, cat.files[*t as usize].id as u64);
            out.extend_from_slice(&(*w as f32).to_le_bytes());
        }
    }
    out
}

/// Out-edges by dense node index, `(target index, weight)`, all in one list: a node's edges are
/// `edges[offsets[u]..offsets[u + 1]]`. Decoded on every search, so it costs three allocations
/// rather than one per file.
#[derive(Debug, Default)]
pub(crate) struct Adjacency {
    offsets: Vec<usize>,
    edges: Vec<(u32, f32)>,
}

impl crate::rank::Neighbours for Adjacency {
    fn node_count(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn out_edges(&self, u: u32) -> &[(u32, f32)] {
        let u = u as usize;
        match (self.offsets.get(u), self.offsets.get(u + 1)) {
            (Some(&a), Some(&b)) => &self.edges[a..b],
            _ => &[],
        }
    }
}

/// The stored file graph: file ids in order, and by position the `(position, weight)` edges.
pub(crate) fn decode_file_graph(data: &[u8]) -> Option<(Vec<i64>, Adjacency)> {
    // Two passes: the ids first (edges name their targets by id), then the edges by position.
    let mut r = Reader::new(data);
    let n = r.varint()? as usize;
    let mut ids = Vec::with_capacity(n.min(1 << 24));
    let mut edge_count = 0usize;
    for _ in 0..n {
        ids.push(r.varint()? as i64);
        let k = r.varint()? as usize;
        edge_count = edge_count.saturating_add(k);
        for _ in 0..k {
            r.varint()?;
            r.f32()?;
        }
    }
    let pos: rustc_hash::FxHashMap<i64, u32> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| (*id, i as u32))
        .collect();
    let mut adjacency = Adjacency {
        offsets: Vec::with_capacity(n + 1),
        edges: Vec::with_capacity(edge_count.min(data.len())),
    };
    adjacency.offsets.push(0);
    let mut r = Reader::new(data);
    r.varint()?;
    for _ in 0..n {
        r.varint()?;
        let k = r.varint()? as usize;
        for _ in 0..k {
            let (target, weight) = (r.varint()? as i64, r.f32()?);
            if let Some(p) = pos.get(&target) {
                adjacency.edges.push((*p, weight));
            }
        }
        adjacency.offsets.push(adjacency.edges.len());
    }
    Some((ids, adjacency))
}

/// PageRank over the file graph.
pub(crate) fn file_ranks(cat: &Catalog, graph: &[Vec<(u32, f64)>]) -> Vec<(i64, f64)> {
    let mut g = rank::graph_with_nodes(cat.files.len());
    for (fi, edges) in graph.iter().enumerate() {
        for (t, w) in edges {
            g.add_edge(rank::node(fi), rank::node(*t as usize), *w);
        }
    }
    let (ranks, _) = rank::page_rank(&g, None);
    cat.files
        .iter()
        .zip(ranks)
        .map(|(f, r)| (f.id, r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_tree_is_listed_from_its_watch_and_a_changed_one_is_walked() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/a.py"), "A = 1\n").unwrap();
        let mut index = Index::open(root).unwrap();
        // Opening made `.cast/` in the root just now: the walk that built the index came too
        // soon after that change to be watched. Once everything is old, a refresh stores one.
        cast_test_support::age_tree(root);
        let walk = WalkOptions::default();
        index.refresh(&walk, &mut |_| {}).unwrap();
        let listing = list_watched(&index.conn, root, &walk, &index.registry, false).0;
        assert!(matches!(listing.source, ListingSource::Watched));
        assert_eq!(listing.listed.len(), 1);
        assert!(is_current(&index.conn, &listing).unwrap());
        // A watch stored in another layout (as the one before `WATCH_FORMAT`, which had no
        // format) is not read: the tree is walked.
        let stored = store::get_meta(&index.conn, WALK_WATCH).unwrap().unwrap();
        let older = &stored[1 + WATCH_FORMAT.len()..];
        store::set_meta(&index.conn, WALK_WATCH, older).unwrap();
        let listing = list_watched(&index.conn, root, &walk, &index.registry, false).0;
        assert!(matches!(listing.source, ListingSource::Walked(_)));
        store::set_meta(&index.conn, WALK_WATCH, &stored).unwrap();
        // Other walk options: the watch does not hold for them.
        let hidden = WalkOptions {
            hidden: true,
            ..WalkOptions::default()
        };
        let listing = list_watched(&index.conn, root, &hidden, &index.registry, false).0;
        assert!(matches!(listing.source, ListingSource::Walked(_)));
        // A new file: its folder changed, so the tree is walked (and, just changed, not
        // watched).
        std::fs::write(root.join("pkg/b.py"), "B = 1\n").unwrap();
        let listing = list_watched(&index.conn, root, &walk, &index.registry, false).0;
        assert!(matches!(listing.source, ListingSource::Walked(None)));
        assert_eq!(listing.listed.len(), 2);
        assert!(!is_current(&index.conn, &listing).unwrap());
    }

    #[test]
    fn ranks_best_first_are_a_full_sort_past_the_sorted_head() {
        // More ids than the sorted head, with ties (broken by id) on both sides of its edge.
        let ranks: Vec<(i64, f64)> = (1..=10_000i64)
            .map(|id| (id, f64::from(((id * 7919) % 1000) as u32)))
            .collect();
        let blob = encode_ranks(ranks.clone());
        let sorted = SortedRanks::decode(&blob);
        let mut expected = ranks;
        // Stored as f32, so compare in that precision.
        for r in &mut expected {
            r.1 = f64::from(r.1 as f32);
        }
        expected.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let got: Vec<i64> = sorted.best_first().collect();
        assert_eq!(got, expected.iter().map(|(id, _)| *id).collect::<Vec<_>>());
        assert_eq!(sorted.get(42), Some(f64::from(((42 * 7919) % 1000) as f32)));
        assert_eq!(sorted.get(10_001), None);
    }
}
