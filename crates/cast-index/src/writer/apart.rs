//! A new index's largest tables, each written on a thread of its own.
//!
//! In a cold build, inserting the symbols' rows and the full-text rows (FTS5 cuts each field
//! into tokens, hashes them, flushes and merges segments) was most of the writer thread's CPU,
//! and the writer thread is what a build cannot spread over more cores. So a cold build writes
//! `symbols`, `symbol_terms` and `file_terms` each into a scratch SQLite file of its own, on its
//! own thread, from what the writer hands on with the ids it gave (a new index numbers its
//! symbols from 1 in the order they are written, as SQLite would); at the end the writer copies
//! the tables into the index within its transaction ([`store::copy_apart`]), which costs a
//! fraction of the inserts. The rows, their ids and the order they are inserted in are the
//! writer's, so the tables hold what inserting them in place would have held, and every query
//! answers the same.
//!
//! A refresh of an existing index writes its few changed rows in place: the copy fills an empty
//! table.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use cast_parser::ParsedFile;
use rusqlite::{Connection, Statement};

use super::parse::Blobs;
use super::write::{joined_decorators, symbol_record};
use crate::store::{self, Apart, TermTable, build};
use crate::text::{FileTerms, SymbolTerms};
use crate::{IndexError, Result};

/// The page cache of each scratch file's connection, in KiB: its writes append (FTS5's pending
/// terms are held apart from it).
const SCRATCH_CACHE_KIB: i64 = 4096;

/// A parsed file's symbols, to be written under the ids `first_id..`.
struct FileSymbols {
    file_id: i64,
    first_id: i64,
    file: Box<ParsedFile>,
    /// Each symbol's [`SymbolTerms::name_split`], in the parse's order.
    name_splits: Vec<String>,
}

/// A new index's symbols and full-text tables, being written beside the writer.
pub(super) struct ApartBuild {
    symbols: TableBuild<FileSymbols>,
    symbol_terms: TableBuild<Vec<(i64, SymbolTerms)>>,
    file_terms: TableBuild<(i64, FileTerms)>,
    /// The id the next symbol gets.
    next_symbol_id: i64,
}

impl ApartBuild {
    /// Starts one thread per table, each writing a fresh scratch file beside `db`, with up to
    /// `queued` files waiting for it ([`crate::MemoryBudget`]). The index's own `symbols` (read
    /// through `conn`) is empty: its first id is the next.
    pub(super) fn start(conn: &Connection, db: &Path, queued: usize) -> Result<ApartBuild> {
        let next_symbol_id = build::next_symbol_id(conn).map_err(store::db_err(db))?;
        Ok(ApartBuild {
            symbols: TableBuild::start(db, Apart::Symbols, queued, insert_symbols)?,
            symbol_terms: TableBuild::start(
                db,
                Apart::Terms(TermTable::Symbols),
                queued,
                |insert, rows| {
                    for (id, terms) in rows {
                        store::insert_symbol_terms_with(insert, id, &terms)?;
                    }
                    Ok(())
                },
            )?,
            file_terms: TableBuild::start(
                db,
                Apart::Terms(TermTable::Files),
                queued,
                |insert, (id, terms)| store::insert_file_terms_with(insert, id, &terms),
            )?,
            next_symbol_id,
        })
    }

    /// The id the next symbol written will have; [`ApartBuild::add`] moves it past a file's.
    pub(super) fn next_symbol_id(&mut self) -> &mut i64 {
        &mut self.next_symbol_id
    }

    /// Hands on one parsed file's symbols and terms, under the ids the writer gave the file and
    /// its symbols (`symbol_ids`, in the parse's order, from [`ApartBuild::next_symbol_id`]).
    /// The parse is freed on the symbols' thread too.
    pub(super) fn add(
        &mut self,
        file_id: i64,
        file: Box<ParsedFile>,
        symbol_ids: &[i64],
        blobs: Blobs,
    ) {
        let Blobs {
            file_terms,
            mut symbol_terms,
            ..
        } = blobs;
        self.file_terms.send((file_id, file_terms));
        let name_splits = symbol_terms
            .iter_mut()
            .map(|t| std::mem::take(&mut t.name_split))
            .collect();
        if let Some(&first_id) = symbol_ids.first() {
            let rows: Vec<(i64, SymbolTerms)> =
                symbol_ids.iter().copied().zip(symbol_terms).collect();
            self.symbol_terms.send(rows);
            self.symbols.send(FileSymbols {
                file_id,
                first_id,
                file,
                name_splits,
            });
        }
    }

    /// Waits for the two full-text tables' threads in turn and copies each into the index
    /// through `conn`, inside its write transaction. The symbols are left for
    /// [`ApartBuild::finish_symbols_into`]: their thread is the last to finish (it builds the
    /// index of names after its last row), and copying the others first gives it a core
    /// meanwhile. The scratch files stay attached until the transaction ends ([`clean_up`]).
    pub(super) fn finish_terms_into(&mut self, conn: &Connection, db: &Path) -> Result<()> {
        // Every thread is given its last rows first: the symbols' would otherwise wait for
        // them through both copies.
        self.symbols.end_input();
        self.symbol_terms.end_input();
        self.file_terms.end_input();
        copy_in(conn, db, self.file_terms.finish()?)?;
        copy_in(conn, db, self.symbol_terms.finish()?)
    }

    /// After [`ApartBuild::finish_terms_into`]: waits for the symbols' thread and copies its
    /// table in.
    pub(super) fn finish_symbols_into(mut self, conn: &Connection, db: &Path) -> Result<()> {
        copy_in(conn, db, self.symbols.finish()?)
    }
}

/// Copies a finished scratch table into the index ([`store::copy_apart`]).
fn copy_in(conn: &Connection, db: &Path, (table, path): (Apart, PathBuf)) -> Result<()> {
    store::copy_apart(conn, table, &path).map_err(store::db_err(db))
}

/// Writes one file's symbols' rows, numbered from `first_id` in the parse's order.
fn insert_symbols(insert: &mut Statement<'_>, rows: FileSymbols) -> rusqlite::Result<()> {
    let ids: Vec<i64> = (rows.first_id..).take(rows.file.symbols.len()).collect();
    for (ord, (s, id)) in rows.file.symbols.iter().zip(&ids).enumerate() {
        let decorators = joined_decorators(s);
        let name_split = rows.name_splits.get(ord).map(String::as_str);
        let row = symbol_record(
            rows.file_id,
            ord,
            s,
            &ids,
            decorators.as_deref(),
            name_split,
        );
        build::insert_symbol_with(insert, *id, &row)?;
    }
    Ok(())
}

/// After the write transaction ended, committed or not: detaches the scratch files and removes
/// them (none is no error), so a failed build leaves nothing behind either.
pub(super) fn clean_up(conn: &Connection, db: &Path) {
    store::detach_apart(conn);
    for table in Apart::ALL {
        store::remove_files(&table.scratch_path(db));
    }
}

/// Files handed to a table's thread at a time. One at a time, each file woke the thread
/// again (three wake-ups per file, a few percent of a cold build's CPU in the kernel).
const BATCH: usize = 16;

/// One table written by one thread into its scratch file.
struct TableBuild<T> {
    table: Apart,
    path: PathBuf,
    /// What is not sent yet: up to [`BATCH`] files' rows.
    pending: Vec<T>,
    sender: Option<SyncSender<Vec<T>>>,
    thread: Option<JoinHandle<rusqlite::Result<()>>>,
}

impl<T: Send + 'static> TableBuild<T> {
    fn start(
        db: &Path,
        table: Apart,
        queued: usize,
        insert: fn(&mut Statement<'_>, T) -> rusqlite::Result<()>,
    ) -> Result<TableBuild<T>> {
        let path = table.scratch_path(db);
        // What an interrupted build left there is of no use.
        store::remove_files(&path);
        let conn = open_scratch(&path, table).map_err(store::db_err(&path))?;
        // `queued` files in all: whole batches waiting, and the one being filled.
        let (sender, receiver) = sync_channel(queued.saturating_sub(BATCH).div_ceil(BATCH).max(1));
        let thread = std::thread::Builder::new()
            .name(format!("cast {}", table.table()))
            .spawn(move || write_all(&conn, table, receiver, insert))
            .map_err(|e| IndexError::ScratchTable {
                path: path.clone(),
                reason: format!("cannot start its thread: {e}"),
            })?;
        Ok(TableBuild {
            table,
            path,
            pending: Vec::with_capacity(BATCH),
            sender: Some(sender),
            thread: Some(thread),
        })
    }

    fn send(&mut self, item: T) {
        self.pending.push(item);
        if self.pending.len() >= BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let batch = std::mem::replace(&mut self.pending, Vec::with_capacity(BATCH));
        if let Some(sender) = &self.sender {
            // A thread that stopped on an error has dropped its receiver; the error is
            // reported by `finish`.
            let _ = sender.send(batch);
        }
    }

    /// Sends what is pending and tells the thread that nothing more comes.
    fn end_input(&mut self) {
        self.flush();
        self.sender = None;
    }

    /// Ends the input and waits for the thread: the table and its file, or why it failed.
    fn finish(&mut self) -> Result<(Apart, PathBuf)> {
        self.end_input();
        let panicked = || IndexError::ScratchTable {
            path: self.path.clone(),
            reason: "the thread writing it panicked".into(),
        };
        let thread = self.thread.take().ok_or_else(panicked)?;
        match thread.join() {
            Ok(Ok(())) => Ok((self.table, self.path.clone())),
            Ok(Err(e)) => Err(store::db_err(&self.path)(e)),
            Err(_) => Err(panicked()),
        }
    }
}

impl<T> Drop for TableBuild<T> {
    /// A build that failed before [`ApartBuild::finish_symbols_into`] still stops its threads.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A scratch file for one table: written once and copied, so neither journaled nor synced.
fn open_scratch(path: &Path, table: Apart) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    store::set_new_page_size(&conn)?;
    conn.execute_batch(&format!(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-{SCRATCH_CACHE_KIB};"
    ))?;
    table.create(&conn)?;
    Ok(conn)
}

/// Inserts every item `receiver` gives, then builds the table's deferred indexes, in one
/// transaction.
fn write_all<T>(
    conn: &Connection,
    table: Apart,
    receiver: Receiver<Vec<T>>,
    insert: fn(&mut Statement<'_>, T) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN")?;
    // Prepared once for all the rows ([`store::insert_symbol_terms_with`] says why).
    let mut statement = conn.prepare(table.insert_sql())?;
    for item in receiver.into_iter().flatten() {
        insert(&mut statement, item)?;
    }
    drop(statement);
    table.index(conn)?;
    conn.execute_batch("COMMIT")
}

#[cfg(test)]
mod tests {
    use crate::{Index, TermTable};
    use cast_parser::WalkOptions;

    fn rows_with(index: &Index, table: TermTable, term: &str) -> Vec<i64> {
        index
            .read(|s| s.rows_with_term(table, term))
            .expect("a readable index")
    }

    #[test]
    fn a_cold_build_writes_its_full_text_apart_and_leaves_no_scratch_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("dates.py"),
            "\"\"\"Parsing of HTTP dates.\"\"\"\n\ndef parse_http_date(text):\n    \"\"\"Read an RFC 1123 date.\"\"\"\n    return text\n",
        )
        .unwrap();
        std::fs::write(
            root.join("retry.py"),
            "class Backoff:\n    def retry_request(self, request):\n        return request\n",
        )
        .unwrap();
        let mut index = Index::open(root).unwrap();
        assert!(index.report().unwrap().cold);
        let state = root.join(".cast");
        let mut left: Vec<String> = std::fs::read_dir(&state)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [".gitignore", "index.sqlite"]);
        assert_eq!(rows_with(&index, TermTable::Files, "rfc").len(), 1);
        assert_eq!(rows_with(&index, TermTable::Symbols, "backoff").len(), 2);
        let named = index.read(|s| s.sym_rows_named("parse_http_date")).unwrap();
        assert_eq!(named.len(), 1);
        let db = rusqlite::Connection::open(index.db_path()).unwrap();
        let name_index: i64 = db
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'symbols_name'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(
            name_index, 1,
            "the index of names is copied in with the symbols"
        );

        // A refresh writes in place, on top of the copied tables.
        std::fs::write(
            root.join("rfc.py"),
            "def rfc_date():\n    \"\"\"Another RFC helper.\"\"\"\n",
        )
        .unwrap();
        let report = index.refresh(&WalkOptions::default(), &mut |_| {}).unwrap();
        assert!(!report.cold);
        assert_eq!(rows_with(&index, TermTable::Files, "rfc").len(), 2);
        assert_eq!(rows_with(&index, TermTable::Symbols, "backoff").len(), 2);
    }
}
