//! A new index's full-text tables, each written on a thread of its own.
//!
//! FTS5's inserts (cutting each field into tokens, hashing them, flushing and merging segments)
//! were about half of the writer thread's CPU in a cold build, and the writer thread is what a
//! build cannot spread over more cores. So a cold build writes each full-text table into a
//! scratch SQLite file of its own, on its own thread, from the terms the writer hands on with the
//! ids it gave the rows; at the end the writer copies the tables' shadow tables into the index
//! within its transaction ([`store::copy_built_terms`]), which costs a fraction of the inserts.
//! The rows, their ids and the order they are inserted in are the writer's, so the tables hold
//! what inserting them in place would have held, and every `bm25()` is the same.
//!
//! A refresh of an existing index writes its few changed rows in place: the copy replaces a
//! whole table.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use rusqlite::Connection;

use crate::store::{self, TermTable};
use crate::text::{FileTerms, SymbolTerms};
use crate::{IndexError, Result};

/// Files' terms that may wait for each table's thread: enough to ride out a burst of large
/// files, few enough that what waits stays small (a file's terms are a few KB).
const QUEUED_FILES: usize = 64;

/// The page cache of each scratch file's connection, in KiB: its writes append, and FTS5's
/// pending terms are held apart from it.
const SCRATCH_CACHE_KIB: i64 = 4096;

/// Both full-text tables of a new index, being written beside the writer.
pub(super) struct TermsBuild {
    symbols: TableBuild<Vec<(i64, SymbolTerms)>>,
    files: TableBuild<(i64, FileTerms)>,
}

impl TermsBuild {
    /// Starts one thread per table, each writing a fresh scratch file beside `db`.
    pub(super) fn start(db: &Path) -> Result<TermsBuild> {
        let symbols = TableBuild::start(db, TermTable::Symbols, |conn, batch| {
            for (id, terms) in batch {
                store::insert_symbol_terms(conn, id, &terms)?;
            }
            Ok(())
        })?;
        let files = TableBuild::start(db, TermTable::Files, |conn, (id, terms)| {
            store::insert_file_terms(conn, id, &terms)
        })?;
        Ok(TermsBuild { symbols, files })
    }

    /// Hands on one file's terms, under the ids the writer gave the file and its symbols (in
    /// the parse's order, as `symbol_terms` is).
    pub(super) fn add(
        &self,
        file_id: i64,
        file: FileTerms,
        symbol_ids: &[i64],
        symbols: Vec<SymbolTerms>,
    ) {
        self.files.send((file_id, file));
        let rows: Vec<(i64, SymbolTerms)> = symbol_ids.iter().copied().zip(symbols).collect();
        if !rows.is_empty() {
            self.symbols.send(rows);
        }
    }

    /// Waits for both tables and copies them into the index through `conn`, inside its write
    /// transaction. The scratch files stay attached until the transaction ends
    /// ([`clean_up`]).
    pub(super) fn finish_into(mut self, conn: &Connection, db: &Path) -> Result<()> {
        let built = [self.symbols.finish(), self.files.finish()];
        for table in built {
            let (table, path) = table?;
            store::copy_built_terms(conn, table, &path).map_err(store::db_err(db))?;
        }
        Ok(())
    }
}

/// After the write transaction ended, committed or not: detaches the scratch files and removes
/// them (none is no error), so a failed build leaves nothing behind either.
pub(super) fn clean_up(conn: &Connection, db: &Path) {
    store::detach_built_terms(conn);
    for table in [TermTable::Symbols, TermTable::Files] {
        store::remove_files(&table.scratch_path(db));
    }
}

/// One full-text table written by one thread into its scratch file.
struct TableBuild<T> {
    table: TermTable,
    path: PathBuf,
    sender: Option<SyncSender<T>>,
    thread: Option<JoinHandle<rusqlite::Result<()>>>,
}

impl<T: Send + 'static> TableBuild<T> {
    fn start(
        db: &Path,
        table: TermTable,
        insert: fn(&Connection, T) -> rusqlite::Result<()>,
    ) -> Result<TableBuild<T>> {
        let path = table.scratch_path(db);
        // What an interrupted build left there is of no use.
        store::remove_files(&path);
        let conn = open_scratch(&path, table).map_err(store::db_err(&path))?;
        let (sender, receiver) = sync_channel(QUEUED_FILES);
        let thread = std::thread::Builder::new()
            .name(format!("cast {}", table_name(table)))
            .spawn(move || write_all(&conn, receiver, insert))
            .map_err(|e| IndexError::FullText {
                path: path.clone(),
                reason: format!("cannot start its thread: {e}"),
            })?;
        Ok(TableBuild {
            table,
            path,
            sender: Some(sender),
            thread: Some(thread),
        })
    }

    fn send(&self, item: T) {
        if let Some(sender) = &self.sender {
            // A thread that stopped on an error has dropped its receiver; the error is
            // reported by `finish`.
            let _ = sender.send(item);
        }
    }

    /// Ends the input and waits for the thread: the table and its file, or why it failed.
    fn finish(&mut self) -> Result<(TermTable, PathBuf)> {
        self.sender = None;
        let panicked = || IndexError::FullText {
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
    /// A build that failed before [`TermsBuild::finish_into`] still stops its threads.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn table_name(table: TermTable) -> &'static str {
    match table {
        TermTable::Symbols => "symbol terms",
        TermTable::Files => "file terms",
    }
}

/// A scratch file for one table: written once and copied, so neither journaled nor synced.
fn open_scratch(path: &Path, table: TermTable) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.execute_batch(&format!(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-{SCRATCH_CACHE_KIB};"
    ))?;
    table.create(&conn)?;
    Ok(conn)
}

fn write_all<T>(
    conn: &Connection,
    receiver: Receiver<T>,
    insert: fn(&Connection, T) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN")?;
    for item in receiver {
        insert(conn, item)?;
    }
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
            "the index of names is made again after the symbols"
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
