//! What a query reads: one state of the index, through typed reads.
//!
//! A [`Snapshot`] is handed out by [`crate::Index::read`] for the length of one read transaction, so
//! everything a search, a map or `show` reads is one state of the database even while a
//! writer refreshes it. Its reads give rows as types ([`crate::rows`]); the SQL behind them is
//! in the store, the one place that knows the schema.

use std::any::Any;
use std::path::Path;
use std::sync::Arc;

use cast_parser::{Registry, SyntaxError};

use crate::graph::stored::{RankedTable, Ranks, StoredFileGraph, decode_file_graph};
use crate::memo::Memo;
use crate::roles::{FileRolesById, RoleCounts};
use crate::store::rows::{
    FileBlob, FileRow, MappedFile, NamedSymbol, StoredSymbol, SymRow, SymbolInfo, SymbolNaming,
    SymbolRow,
};
use crate::store::{self, CommitMatch, Counts, TermTable, db_err, rows};
use crate::{IndexError, Result};

/// Rows of a full-text match with their scores, best first.
pub type Matches = Vec<(i64, f64)>;

/// One state of an open index, for the length of a read. See the module documentation.
pub struct Snapshot<'i> {
    pub(crate) conn: &'i rusqlite::Connection,
    /// A second connection a match may run on beside this one (see [`crate::Index::answer_many`]).
    pub(crate) second: Option<&'i std::sync::Mutex<rusqlite::Connection>>,
    pub(crate) root: &'i Path,
    pub(crate) db_path: &'i Path,
    pub(crate) registry: &'i Registry,
    pub(crate) memo: &'i Memo,
    pub(crate) all_cores: bool,
}

impl std::fmt::Debug for Snapshot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("root", &self.root)
            .finish()
    }
}

/// Reads of one row or one small set, each a store function over this snapshot's connection.
macro_rules! reads {
    ($( $(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty = $read:path; )*) => {
        impl Snapshot<'_> {
            $(
                $(#[$doc])*
                pub fn $name(&self, $($arg: $ty),*) -> Result<$ret> {
                    $read(self.conn, $($arg),*).map_err(self.db_err())
                }
            )*
        }
    };
}

reads! {
    /// The id of the parsed file at `path`.
    fn parsed_file_id(path: &str) -> Option<i64> = rows::parsed_file_id;
    /// The path of parsed file `id`.
    fn parsed_file_path(id: i64) -> Option<String> = rows::parsed_file_path;
    /// The path of file `id`, parsed or skipped.
    fn file_path(id: i64) -> Option<String> = rows::file_path;
    /// The path and size in bytes of file `id`.
    fn file_path_and_size(id: i64) -> Option<(String, i64)> = rows::file_path_and_size;
    /// File `id` as a search result shows it.
    fn file_row(id: i64) -> Option<FileRow> = rows::file_row;
    /// The files whose name (without extension) is `name`, at most `limit` (negative: all).
    fn files_named(name: &str, limit: i64) -> Vec<(i64, String)> = rows::files_named;
    /// The id and line count of the file at `path`.
    fn file_id_and_lines(path: &str) -> Option<(i64, u32)> = rows::file_id_and_lines;
    /// File `file`'s stored `blob`, if it has one.
    fn file_blob(file: i64, blob: FileBlob) -> Option<Vec<u8>> = rows::file_blob;
    /// Every parsed file as the map lists it.
    fn mapped_files() -> Vec<MappedFile> = rows::mapped_files;
    /// Symbol `id` as a search result shows it.
    fn symbol_row(id: i64) -> Option<SymbolRow> = rows::symbol_row;
    /// What tells symbol `id`'s kind of code apart.
    fn symbol_naming(id: i64) -> Option<SymbolNaming> = rows::symbol_naming;
    /// Symbol `id` as the map shows it.
    fn symbol_info(id: i64) -> Option<SymbolInfo> = rows::symbol_info;
    /// The file symbol `id` is defined in.
    fn file_of_symbol(id: i64) -> Option<i64> = rows::file_of_symbol;
    /// The definitions named `name`, at most `limit` (negative: all).
    fn symbols_named(name: &str, limit: i64) -> Vec<NamedSymbol> = rows::symbols_named;
    /// The ids of file `file`'s symbols, in the file's order.
    fn symbols_of_file(file: i64) -> Vec<i64> = rows::symbols_of_file;
    /// File `file`'s symbols named `name`, with their qualified names.
    fn symbols_named_in_file(file: i64, name: &str) -> Vec<(i64, String)> = rows::symbols_named_in_file;
    /// File `file`'s definitions with what the second stage of search scores them by.
    fn stored_symbols(file: i64) -> Vec<StoredSymbol> = rows::stored_symbols;
    /// Every definition named `name`, with its file's path.
    fn sym_rows_named(name: &str) -> Vec<SymRow> = rows::sym_rows_named;
    /// Symbol `id` with its file's path.
    fn sym_row_of(id: i64) -> Option<SymRow> = rows::sym_row_of;
    /// The innermost symbol of file `file` whose lines hold `line`.
    fn enclosing_sym_row(file: i64, line: u32) -> Option<SymRow> = rows::enclosing_sym_row;
    /// How many files (parsed) and symbols a search looks through.
    fn searchable_counts() -> (usize, usize) = store::searchable_counts;
    /// How many files have each role (a pass over the files).
    fn role_counts() -> RoleCounts = store::role_counts;
    /// The files, skipped files and symbols, counted now (a pass over each table).
    fn count_rows() -> Counts = store::count_rows;
    /// The counts stored at the last change of content.
    fn counts() -> Option<Counts> = store::counts;
    /// The parsed files with syntax errors, by path, each with its first error.
    fn unparsed_files() -> Vec<(String, Option<SyntaxError>)> = store::unparsed_files;
    /// The number of rows of `table` holding each of `terms`, and the table's row count.
    fn doc_freqs(table: TermTable, terms: &[String]) -> (std::collections::HashMap<String, i64>, i64) = store::doc_freqs;
    /// The rows of `table` holding `term`.
    fn rows_with_term(table: TermTable, term: &str) -> Vec<i64> = store::rows_with_term;
    /// The files each of the newest `limit` commits changed, newest first.
    fn recent_commit_files(limit: usize) -> Vec<Vec<String>> = store::recent_commit_files;
    /// The past commits whose messages best match `terms`, best first.
    fn match_commits(terms: &[String], limit: usize) -> Vec<CommitMatch> = store::match_commits;
    /// Rows of `table` matching any of `terms`, best first by BM25F with one weight per column.
    fn match_terms(table: TermTable, terms: &[String], weights: &[f64], limit: usize) -> Vec<(i64, f64)> = store::match_terms;
}

impl Snapshot<'_> {
    fn db_err(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        db_err(self.db_path)
    }

    /// The root the index describes.
    pub fn root(&self) -> &Path {
        self.root
    }

    /// The parsers, by file extension.
    pub fn registry(&self) -> &Registry {
        self.registry
    }

    /// Whether a query has every core to itself (see [`crate::Index::answer_many`]): work over many
    /// files may then run on all of them.
    pub fn all_cores(&self) -> bool {
        self.all_cores
    }

    /// Calls `f` with every parsed file's id and path.
    pub fn for_each_parsed_file(&self, f: impl FnMut(i64, &str)) -> Result<()> {
        rows::for_each_parsed_file(self.conn, f).map_err(self.db_err())
    }

    /// Calls `f` with every symbol's id and file id.
    pub fn for_each_symbol_file(&self, f: impl FnMut(i64, i64)) -> Result<()> {
        rows::for_each_symbol_file(self.conn, f).map_err(self.db_err())
    }

    /// Calls `f` with every file's id, path and resolved-edges blob (`by_path`: in path order).
    pub fn for_each_file_edges(
        &self,
        by_path: bool,
        f: impl FnMut(i64, &str, &[u8]),
    ) -> Result<()> {
        rows::for_each_file_edges(self.conn, by_path, f).map_err(self.db_err())
    }

    /// [`Self::match_terms`] over the files and over the symbols at once: the files' match on a
    /// second connection beside the symbols' when a query has every core to itself.
    pub fn match_files_and_symbols(
        &self,
        terms: &[String],
        files: (&[f64], usize),
        symbols: (&[f64], usize),
    ) -> (Result<Matches>, Result<Matches>) {
        let match_files = |conn: &rusqlite::Connection| {
            store::match_terms(conn, TermTable::Files, terms, files.0, files.1)
        };
        let match_symbols = || self.match_terms(TermTable::Symbols, terms, symbols.0, symbols.1);
        let (file_text, symbol_text) = match self.second {
            Some(second) => std::thread::scope(|scope| {
                // Poisoned only by an earlier match's panic: the files are then matched below,
                // on this snapshot's own connection.
                let files = scope.spawn(|| second.lock().ok().map(|conn| match_files(&conn)));
                let symbols = match_symbols();
                (files.join().ok().flatten(), symbols)
            }),
            None => (None, match_symbols()),
        };
        let file_text = file_text.unwrap_or_else(|| match_files(self.conn));
        (file_text.map_err(self.db_err()), symbol_text)
    }

    /// The stored PageRank of every symbol or file, decoded once while the database is
    /// unchanged (search, the map and `show` read the same).
    pub fn ranks(&self, table: RankedTable) -> Result<Arc<Ranks>> {
        self.memo
            .get(self.conn, table.key(), Ranks::new)
            .map_err(self.db_err())
    }

    /// The stored role of every file, read once while the database is unchanged.
    pub fn file_roles(&self) -> Result<Arc<FileRolesById>> {
        self.memoized("file_roles", || {
            store::file_roles(self.conn).map_err(self.db_err())
        })
    }

    /// The stored file graph (imports, weighted), decoded once while the database is unchanged;
    /// `None` when the index has none.
    pub fn file_graph(&self) -> Result<Arc<Option<StoredFileGraph>>> {
        self.memo
            .get(self.conn, "file_graph", |blob| decode_file_graph(&blob?))
            .map_err(self.db_err())
    }

    /// What `make` reads through this snapshot, made once while the database is unchanged and
    /// kept under `key` (a process that keeps its index open asks the same again and again).
    pub fn memoized<T: Any + Send + Sync, E: From<IndexError>>(
        &self,
        key: &'static str,
        make: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<Arc<T>, E> {
        let err = self.db_err();
        self.memo
            .get_with(self.conn, key, |e| E::from(err(e)), make)
    }
}
