//! The writer: one refresh of the index as a write transaction.
//!
//! [`IndexWriter::write`] lists the files (or takes a listing made a moment ago), reads, hashes
//! and parses what changed on every core while this thread writes the results in path order
//! ([`parse`], [`write`]), deletes what went away, re-resolves what the changes touch
//! ([`catalog`], [`crate::graph::resolve`]), ranks when an edge changed, stores the git
//! history of a new index, and commits. Readers keep reading the previous state meanwhile
//! (WAL); a second writer waits for the lock.

mod apart;
mod catalog;
mod parse;
mod write;

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use cast_parser::{DEFAULT_MAX_FILESIZE, RefKind, Registry, WalkOptions};
use rusqlite::Connection;
use serde::Serialize;

use crate::budget::Workers;
use crate::graph::stored::rank_and_store;
use crate::history::{self, HistoryError};
use crate::listing::{
    LISTING_DIGEST, Listed, Listing, ListingSource, WALK_WATCH, encode_watch, list_walking,
    walk_text,
};
use crate::roles::RoleCounts;
use crate::store::{self, State, build, db_err, rows};
use crate::{MemoryBudget, Result};
use apart::ApartBuild;
use catalog::load_refs;
pub(crate) use catalog::{load_catalog, load_catalog_while};
use parse::{OldFile, Outcome, read_and_parse};
use write::Writer;

use crate::codec::FileRefs;
use crate::graph::resolve::{Catalog, Resolved};

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
    /// The files by role (source, test, stub, example, installed, generated).
    pub roles: RoleCounts,
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
    /// In a new index, copying in the tables written apart too.
    pub parse_and_write: f64,
    /// In a new index, read while the tables written apart are finished, before the copy.
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

/// Writes one refresh of the index through a connection the open [`crate::Index`] lends it.
pub(crate) struct IndexWriter<'a> {
    pub(crate) conn: &'a Connection,
    pub(crate) root: &'a Path,
    pub(crate) db_path: &'a Path,
    pub(crate) registry: &'a Registry,
    pub(crate) memory: MemoryBudget,
    /// The threads it parses and resolves on, as many as the budget allows at most.
    pub(crate) workers: Workers,
}

impl IndexWriter<'_> {
    /// Brings the index up to date with the files on disk in one write transaction (a new
    /// or unusable file is filled without the WAL), committed whole or rolled back.
    pub(crate) fn write(
        &self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
    ) -> Result<IndexReport> {
        let err = db_err(self.db_path);
        // The writer reads its own rows by copying pages through the bounded page cache, not
        // through the memory map: every mapped page it touched would stay in its resident
        // memory, which would then grow with the database (a cold build of the stdlib with
        // site-packages touches most of its 177 MB). Readers keep the map. One read is left
        // on the connection's map, if it has one: the scan of the stored files that the
        // listing is compared with ([`Self::update`] turns the map off after it). A refresh
        // that finds nothing changed is little more than that scan, and copying the `files`
        // table's pages into fresh page-cache memory made it about 4 ms slower (of 95 ms on
        // the stdlib with site-packages, 60 alternating pairs) for 4 MB less resident.
        //
        // Its page cache is the budget's; readers keep theirs.
        let mapped = store::mmap_size(self.conn).map_err(&err)?;
        let cache = store::cache_size(self.conn).map_err(&err)?;
        store::set_cache_kib(self.conn, self.memory.page_cache_kib()).map_err(&err)?;
        let written = self.write_in_budget(walk, progress, listing);
        let restored = store::set_mmap_size(self.conn, mapped)
            .and_then(|()| store::set_cache_size(self.conn, cache))
            .map_err(&err);
        written.and_then(|report| restored.map(|()| report))
    }

    fn write_in_budget(
        &self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
    ) -> Result<IndexReport> {
        let err = db_err(self.db_path);
        // A new file, or an unusable one emptied first, is filled without the WAL (every page
        // written once, not twice).
        store::empty_unusable(self.conn).map_err(&err)?;
        let bulk = store::begin_bulk(self.conn).map_err(&err)?;
        // Whether this build made scratch files (`apart`), to be removed whatever the outcome.
        let mut made_scratch = false;
        let result = build::begin_write(self.conn)
            .map_err(&err)
            .and_then(|()| self.update(walk, progress, listing, &mut made_scratch));
        let result = match result {
            Ok(mut report) => {
                let t = Instant::now();
                let committed = build::commit(self.conn).map_err(&err);
                if made_scratch {
                    apart::clean_up(self.conn, self.db_path);
                }
                if committed.is_ok() && report.cold && !bulk {
                    // A new index leaves a WAL as large as the database; fold it in now.
                    build::checkpoint(self.conn);
                }
                report.phases.commit = t.elapsed().as_secs_f64();
                report.seconds += report.phases.commit;
                report.db_bytes = store::db_bytes(self.db_path);
                committed.map(|()| report)
            }
            Err(e) => {
                build::rollback(self.conn);
                if made_scratch {
                    apart::clean_up(self.conn, self.db_path);
                }
                Err(e)
            }
        };
        if bulk {
            // What was built is committed either way; a connection that cannot switch back now
            // (a reader kept the file busy past the timeout) leaves it to the next `connect`,
            // which asks for the WAL again.
            let _ = store::end_bulk(self.conn);
        }
        result
    }

    /// One build or refresh: list the files, compare them with what is stored, parse and write
    /// what changed, count, resolve and rank when the content changed, read the history, and
    /// mark the index complete. Each phase is a method below, timed into `report.phases`.
    fn update(
        &self,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        listing: Option<Listing>,
        made_scratch: &mut bool,
    ) -> Result<IndexReport> {
        let started = Instant::now();
        let err = db_err(self.db_path);
        let conn = self.conn;
        let mut report = IndexReport::default();
        // Another writer may have finished while we waited for the lock: look again.
        if store::re_state(conn).map_err(&err)? != State::Ready {
            store::reset(conn).map_err(&err)?;
            report.cold = true;
        }
        let mut phase = Instant::now();
        // A new index reads the git log on a thread of its own while the files are parsed.
        let history_read = report.cold.then(|| {
            let root = self.root.to_path_buf();
            std::thread::spawn(move || history::log(&root))
        });
        progress(Progress::Walking);
        let listing = listing.unwrap_or_else(|| list_walking(conn, self.root, walk, self.registry));
        let digest = listing.digest();
        // A new walk replaces the stored watch (or drops it, when it could not be watched); a
        // listing made from the watch leaves it, since it found the same folders.
        let watch = match &listing.source {
            ListingSource::Walked(Some(w)) => {
                Some(Some(encode_watch(walk, self.registry, w, &listing.listed)))
            }
            ListingSource::Walked(None) => Some(None),
            ListingSource::Watched => None,
        };
        let Listing {
            listed, warnings, ..
        } = listing;
        report.warnings.extend(warnings);
        let (old, to_read) = self.compare_with_stored(listed, &mut report)?;
        // Every later read copies ([`Self::write`] says why).
        store::set_mmap_size(conn, 0).map_err(&err)?;
        report.phases.walk = lap(&mut phase);

        // A new index's symbols and full-text tables are written beside this thread, and
        // copied in here.
        *made_scratch = report.cold;
        let mut apart = report
            .cold
            .then(|| {
                ApartBuild::start(
                    conn,
                    self.db_path,
                    self.memory.apart_queue(self.workers.threads()),
                )
            })
            .transpose()?;
        let mut written =
            self.parse_and_write(&to_read, &old, walk, progress, &mut report, apart.as_mut())?;
        report.phases.parse_and_write = lap(&mut phase);
        // A new index reads its catalog (from `files` alone) while its symbols are copied in.
        let mut catalog = None;
        if let Some(mut apart) = apart {
            // A new index numbers symbols from 1: the next id is one past their count.
            let sizes = (
                to_read.len(),
                usize::try_from(*apart.next_symbol_id() - 1).unwrap_or(0),
            );
            // The symbols' thread is the last to finish: the full-text tables are copied in
            // while it writes its last rows and its index of names, then the symbols are
            // copied while the catalog is built from the rows read (both are serial, and
            // apart they left a core idle). Reading the rows first instead started the
            // catalog's builder on the core the symbols' thread needed, which then finished
            // alone. The copies count with the writing; the rest of the span with the catalog.
            let t = Instant::now();
            apart.finish_terms_into(conn, self.db_path)?;
            let mut copy_seconds = t.elapsed().as_secs_f64();
            let (read, copy) = self.read_catalog_while(Some(sizes), || {
                let t = Instant::now();
                let copied = apart.finish_symbols_into(conn, self.db_path);
                (copied, t.elapsed().as_secs_f64())
            })?;
            let (copied, symbols_seconds) = copy;
            copied?;
            copy_seconds += symbols_seconds;
            catalog = Some(read);
            report.phases.parse_and_write += copy_seconds;
            report.phases.load_catalog = (lap(&mut phase) - copy_seconds).max(0.0);
        }
        report.deleted = self.delete_missing(&old)?;
        if report.deleted > 0 {
            written.structure_changed = true;
        }
        let content_changed = report.added + report.changed + report.deleted > 0 || report.cold;
        self.count(content_changed, &mut report)?;
        if content_changed {
            self.resolve_and_rank(&written, catalog, progress, &mut phase, &mut report)?;
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
        } else {
            report.edges = meta_count(conn, "edges").map_err(&err)?;
            report.file_edges = meta_count(conn, "file_edges").map_err(&err)?;
        }
        report.commits = store::commit_rows(conn).map_err(&err)?;
        self.mark_complete(walk, watch, &digest)?;
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }

    /// The stored state of every file (by path), and the listed files to read: new ones, and
    /// those whose size or mtime changed. The stat columns of every file come from a covering
    /// index (a no-change refresh reads nothing else); the hash and interface only of files
    /// whose stat changed.
    fn compare_with_stored(
        &self,
        listed: Vec<Listed>,
        report: &mut IndexReport,
    ) -> Result<(rustc_hash::FxHashMap<String, OldFile>, Vec<Listed>)> {
        let err = db_err(self.db_path);
        let conn = self.conn;
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
        for item in listed {
            match old.get_mut(&item.rel) {
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
        Ok((old, to_read))
    }

    /// Reads, parses and writes `to_read`: parsed on every core, written in the listing's order
    /// (by path), so the same tree always gets the same file and symbol ids, whichever parse
    /// finishes first.
    fn parse_and_write(
        &self,
        to_read: &[Listed],
        old: &rustc_hash::FxHashMap<String, OldFile>,
        walk: &WalkOptions,
        progress: &mut dyn FnMut(Progress),
        report: &mut IndexReport,
        mut apart: Option<&mut ApartBuild>,
    ) -> Result<Written> {
        let err = db_err(self.db_path);
        let conn = self.conn;
        let total = to_read.len();
        let max = walk.max_filesize.unwrap_or(DEFAULT_MAX_FILESIZE);
        let registry = self.registry;
        let mut written = Written::default();
        let writer = Writer { conn };
        let threads = self.workers.threads();
        let mut done = 0;
        cast_workspace::ordered::for_each_in_order(
            to_read,
            threads,
            self.memory.parse_window(),
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
                        let inherits = file
                            .references
                            .iter()
                            .any(|r| r.kind == cast_parser::RefKind::Inherit);
                        if prev.is_some() {
                            report.changed += 1;
                        } else {
                            report.added += 1;
                        }
                        if prev.and_then(|p| p.iface.as_ref()) != Some(&blobs.iface) {
                            written.structure_changed = true;
                        }
                        if let Some(p) = prev {
                            let before = build::file_graph_blobs(conn, p.id).map_err(&err)?;
                            if let Some(b) = before {
                                written.old_graph.insert(p.id, b);
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
                        match apart.as_deref_mut() {
                            Some(apart) => {
                                let symbol_ids = writer
                                    .number_symbols(id, &file, apart.next_symbol_id())
                                    .map_err(&err)?;
                                apart.add(id, file, &symbol_ids, *blobs);
                            }
                            None => {
                                let symbol_ids = writer
                                    .write_symbols(id, Some((&file, &blobs)), prev.is_none())
                                    .map_err(&err)?;
                                writer.insert_terms(id, &symbol_ids, &blobs).map_err(&err)?;
                            }
                        }
                        written.parsed_ids.push(id);
                        if inherits {
                            written.inheriting.insert(id);
                        }
                    }
                    Outcome::Skipped { hash, reason } => {
                        report
                            .warnings
                            .push(format!("skipped {}: {reason}", item.rel));
                        if prev.is_some_and(|p| p.iface.is_some()) || prev.is_none() {
                            written.structure_changed = true;
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
        )?;
        Ok(written)
    }

    /// The counts of files, skipped files, symbols and roles into `report`. Counting scans
    /// whole tables (the files' rows hold large blobs): counted when the content changed and
    /// kept in `meta`, read back otherwise (a no-change refresh is what every query pays).
    fn count(&self, content_changed: bool, report: &mut IndexReport) -> Result<()> {
        let err = db_err(self.db_path);
        let stored_counts = if content_changed {
            None
        } else {
            store::counts(self.conn).map_err(&err)?
        };
        let counts = match stored_counts {
            Some(c) => c,
            None => {
                let c = store::count_rows(self.conn).map_err(&err)?;
                store::set_counts(self.conn, c).map_err(&err)?;
                c
            }
        };
        (report.files, report.skipped, report.symbols, report.roles) =
            (counts.files, counts.skipped, counts.symbols, counts.roles);
        Ok(())
    }

    /// Resolves the references of the files that need it (every file when a definition
    /// changed, else the re-parsed ones), stores each file's edges and dependencies, and ranks
    /// again when the graph changed.
    fn resolve_and_rank(
        &self,
        written: &Written,
        catalog: Option<Catalog>,
        progress: &mut dyn FnMut(Progress),
        phase: &mut Instant,
        report: &mut IndexReport,
    ) -> Result<()> {
        let err = db_err(self.db_path);
        let (conn, workers) = (self.conn, &self.workers);
        let mut catalog = match catalog {
            Some(catalog) => catalog,
            None => {
                let catalog = self.read_catalog(None)?;
                report.phases.load_catalog = lap(phase);
                catalog
            }
        };
        let targets: Vec<i64> = if written.structure_changed || report.cold {
            catalog.files.iter().map(|f| f.id).collect()
        } else {
            written.parsed_ids.clone()
        };
        progress(Progress::Resolving {
            files: targets.len(),
        });
        // The references of a batch of files at a time, not of the whole tree: they are read
        // twice (once per pass) but never all held at once. A batch is enough files to keep
        // every core busy, few enough that the whole tree's references are never in memory
        // together.
        let batch_size = self.memory.resolve_batch();
        // Each pass takes the files in batches; each batch is resolved on the other cores while
        // this thread (the one connection's) reads the next and writes the last: reading and
        // writing the blobs overlap the resolution instead of adding to it. The first pass
        // resolves base classes only, so only those references are built.
        // In a cold build nothing is stored yet, and the files without a base-class reference
        // have nothing for the first pass: it reads only the others (a third of the standard
        // library's). A refresh keeps every target: a file's stored bases may have to go.
        let first_pass: Vec<i64> = if report.cold {
            targets
                .iter()
                .copied()
                .filter(|id| written.inheriting.contains(id))
                .collect()
        } else {
            targets.clone()
        };
        let mut batches = first_pass.chunks(batch_size);
        let mut loaded = read_batch(
            conn,
            &catalog,
            workers,
            batches.next(),
            Some(RefKind::Inherit),
        )
        .map_err(&err)?;
        while let Some(refs) = loaded.take() {
            let cat = &catalog;
            let (inherits, read) = std::thread::scope(|scope| {
                let resolving =
                    scope.spawn(move || workers.install(|| cat.resolve_inherits(&refs)));
                let read = read_batch(conn, cat, workers, batches.next(), Some(RefKind::Inherit));
                (joined(resolving), read)
            });
            loaded = read.map_err(&err)?;
            for (f, edges) in inherits {
                catalog.set_inherits(f, edges);
            }
        }
        catalog.rebuild_bases();
        let mut graph_changed = written.structure_changed || report.cold;
        let mut batches = targets.chunks(batch_size);
        let mut loaded = read_batch(conn, &catalog, workers, batches.next(), None).map_err(&err)?;
        let mut resolved: Vec<Resolved> = Vec::new();
        // Every file's edges are stored again when every file is resolved: their count is then
        // known without reading them back to rank.
        let every_file = targets.len() == catalog.files.len();
        let mut stored = Stored::default();
        while let Some(refs) = loaded.take() {
            report.resolved_files += refs.len();
            let cat = &catalog;
            let (next, stored_now, read) = std::thread::scope(|scope| {
                // The references are freed there too.
                let resolving = scope.spawn(move || workers.install(|| cat.resolve_rest(&refs)));
                let stored_now = store_resolved(conn, cat, &resolved, &written.old_graph);
                let read = read_batch(conn, cat, workers, batches.next(), None);
                (joined(resolving), stored_now, read)
            });
            stored.add(stored_now.map_err(&err)?);
            loaded = read.map_err(&err)?;
            resolved = next;
            for r in &mut resolved {
                catalog.set_deps(r.file, std::mem::take(&mut r.deps));
            }
        }
        stored.add(store_resolved(conn, &catalog, &resolved, &written.old_graph).map_err(&err)?);
        graph_changed |= stored.changed;
        drop(resolved);
        report.phases.resolve = lap(phase);
        catalog.release_lookups();
        // Same edges as before (an edit that changed no reference): the ranks, and the count
        // of edges, stand.
        if graph_changed {
            progress(Progress::Ranking);
            let known = every_file.then_some(stored.edges);
            let ranked = rank_and_store(conn, &catalog, workers, known).map_err(&err)?;
            (report.rank_iterations, report.edges) = (ranked.iterations, ranked.edges);
        } else {
            report.edges = meta_count(conn, "edges").map_err(&err)?;
        }
        report.phases.rank = lap(phase);
        report.file_edges = catalog.files.iter().map(|f| f.deps.len()).sum();
        store::set_meta(conn, "edges", report.edges.to_string().as_bytes()).map_err(&err)?;
        store::set_meta(conn, "file_edges", report.file_edges.to_string().as_bytes())
            .map_err(&err)?;
        Ok(())
    }

    /// The catalog resolution reads (see [`load_catalog`]), read once the page cache the parse
    /// results were written through has given way to it.
    fn read_catalog(&self, sizes: Option<(usize, usize)>) -> Result<Catalog> {
        let err = db_err(self.db_path);
        store::shrink_cache(self.conn, self.memory.resolve_cache_kib()).map_err(&err)?;
        load_catalog(self.conn, self.root, sizes).map_err(&err)
    }

    /// [`Self::read_catalog`], running `meanwhile` on this thread while another builds it
    /// ([`load_catalog_while`]).
    fn read_catalog_while<R>(
        &self,
        sizes: Option<(usize, usize)>,
        meanwhile: impl FnOnce() -> R,
    ) -> Result<(Catalog, R)> {
        let err = db_err(self.db_path);
        store::shrink_cache(self.conn, self.memory.resolve_cache_kib()).map_err(&err)?;
        load_catalog_while(self.conn, self.root, sizes, meanwhile).map_err(&err)
    }

    /// What the next refresh compares with (the root, the walk's options, its watch and the
    /// listing's digest), and the mark that the index is complete.
    fn mark_complete(
        &self,
        walk: &WalkOptions,
        watch: Option<Option<Vec<u8>>>,
        digest: &[u8],
    ) -> Result<()> {
        let err = db_err(self.db_path);
        let conn = self.conn;
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
        store::set_meta(conn, LISTING_DIGEST, digest).map_err(&err)?;
        store::set_meta(conn, "complete", b"1").map_err(&err)?;
        Ok(())
    }

    /// The git history when `HEAD` moved since it was stored (`Ok(None)` when it did not).
    fn read_history_if_moved(
        &self,
    ) -> rusqlite::Result<Result<Option<history::Log>, HistoryError>> {
        let stored = store::history_head(self.conn)?;
        Ok(match history::head(self.root) {
            Ok(head) if stored.as_deref() == Some(head.as_str()) => Ok(None),
            Ok(head) => {
                history::read(self.root).map(|commits| Some(history::Log { head, commits }))
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
        let conn = self.conn;
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
        let err = db_err(self.db_path);
        let mut deleted = 0;
        for f in old.values() {
            if f.listed {
                continue;
            }
            for id in rows::symbols_of_file(self.conn, f.id).map_err(&err)? {
                store::delete_symbol_terms(self.conn, id).map_err(&err)?;
            }
            store::delete_file_terms(self.conn, f.id).map_err(&err)?;
            build::delete_file(self.conn, f.id).map_err(&err)?;
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

/// What writing the parsed files found, for resolution to use.
#[derive(Default)]
struct Written {
    /// A file's interface (what it defines or exports) changed, or a file came or went: every
    /// file's references are resolved again.
    structure_changed: bool,
    /// The files parsed and written.
    parsed_ids: Vec<i64>,
    /// Those of them with a base-class reference: in a cold build, the only files the first
    /// pass of resolution reads.
    inheriting: std::collections::HashSet<i64>,
    /// Edges and deps of re-parsed files as they were, to tell whether the graph changed.
    old_graph: HashMap<i64, (Vec<u8>, Vec<u8>)>,
}

/// The references of a batch of files (with `only`, of that kind only), when there is one.
fn read_batch(
    conn: &Connection,
    catalog: &crate::graph::resolve::Catalog,
    workers: &Workers,
    batch: Option<&[i64]>,
    only: Option<cast_parser::RefKind>,
) -> rusqlite::Result<Option<Vec<(u32, FileRefs)>>> {
    batch
        .map(|ids| load_refs(conn, catalog, workers, ids, only))
        .transpose()
}

/// What a scoped thread returned; its panic goes on here.
fn joined<T>(thread: std::thread::ScopedJoinHandle<'_, T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Writes the edges and imports of files resolved, and says whether any differs from what the
/// file had before this build (`old_graph`: the re-parsed files'; a file absent there is new
/// or was not re-parsed, and counts as changed).
fn store_resolved(
    conn: &Connection,
    catalog: &crate::graph::resolve::Catalog,
    resolved: &[Resolved],
    old_graph: &HashMap<i64, (Vec<u8>, Vec<u8>)>,
) -> rusqlite::Result<Stored> {
    let mut stored = Stored::default();
    for r in resolved {
        let id = catalog.files[r.file as usize].id;
        if old_graph
            .get(&id)
            .is_none_or(|(e, d)| e != &r.edges || d != &r.deps_blob)
        {
            stored.changed = true;
        }
        stored.edges += crate::graph::stored::edge_count(&r.edges);
        build::set_file_graph(conn, id, &r.edges, &r.deps_blob)?;
    }
    Ok(stored)
}

/// What [`store_resolved`] stored.
#[derive(Debug, Default, Clone, Copy)]
struct Stored {
    /// Some file's edges or dependencies differ from what it had.
    changed: bool,
    /// The edges of the files stored, in all.
    edges: usize,
}

impl Stored {
    fn add(&mut self, more: Stored) {
        self.changed |= more.changed;
        self.edges += more.edges;
    }
}

/// Seconds since `phase`, which restarts now.
fn lap(phase: &mut Instant) -> f64 {
    let t = phase.elapsed().as_secs_f64();
    *phase = Instant::now();
    t
}
