//! Typed reads of `files`, `symbols` and `file_data` for the queries: search (cast-analyzer's
//! `find/`, with its second stage in `find/bodies.rs`), the map, `show` and the graph API (`graph.rs`); single rows,
//! small sets and a few whole-table passes (given to a callback row by row where the rows are
//! many). Each statement is written here once and gives its rows as types, never as columns
//! read back by position at the call site. What a build writes is in `build.rs`.
//!
//! Statements are prepared through the connection's cache (`prepare_cached`), so a read made
//! once per candidate costs a cache lookup, not a parse.

use rusqlite::{Connection, OptionalExtension};

use super::PARSED_FILES;
use super::kind_of;
use cast_parser::SymbolKind;

/// A file as a search result shows it.
#[derive(Debug, Clone)]
pub struct FileRow {
    pub path: String,
    pub description: Option<String>,
    pub lines: u32,
}

/// A symbol as a search result shows it.
#[derive(Debug, Clone)]
pub struct SymbolRow {
    pub id: i64,
    pub kind: SymbolKind,
    pub qualname: String,
    pub signature: String,
    pub doc: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
}

/// What tells a symbol's kind of code apart: its qualified name (a `tests` scope) and its
/// decorators as stored, one per line (`#[test]`).
#[derive(Debug, Clone)]
pub struct SymbolNaming {
    pub kind: SymbolKind,
    pub qualname: String,
    pub decorators: Option<String>,
}

/// A definition found by its name.
#[derive(Debug, Clone)]
pub struct NamedSymbol {
    pub id: i64,
    pub file: i64,
    pub qualname: String,
}

/// One stored definition of a file, with what the second stage of search scores it by.
#[derive(Debug, Clone)]
pub struct StoredSymbol {
    pub id: i64,
    pub name: String,
    pub qualname: String,
    pub signature: String,
    pub docstring: Option<String>,
    pub start_byte: usize,
    pub end_byte: usize,
    pub parent_id: Option<i64>,
    pub name_split: Option<String>,
}

/// Calls `f` with every parsed file's id and path, in one pass over the table.
pub(crate) fn for_each_parsed_file(
    conn: &Connection,
    mut f: impl FnMut(i64, &str),
) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT id, path FROM files WHERE {PARSED_FILES}"))?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        f(row.get(0)?, row.get_ref(1)?.as_str()?);
    }
    Ok(())
}

/// The id of the parsed file at `path`.
pub(crate) fn parsed_file_id(conn: &Connection, path: &str) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(&format!(
        "SELECT id FROM files WHERE path = ?1 AND {PARSED_FILES}"
    ))?
    .query_row([path], |r| r.get(0))
    .optional()
}

/// The path of file `id`, if it is a parsed file.
pub(crate) fn parsed_file_path(conn: &Connection, id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(&format!(
        "SELECT path FROM files WHERE id = ?1 AND {PARSED_FILES}"
    ))?
    .query_row([id], |r| r.get(0))
    .optional()
}

/// The path of file `id`, parsed or not.
pub(crate) fn file_path(conn: &Connection, id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT path FROM files WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()
}

/// The path and size of file `id`.
pub(crate) fn file_path_and_size(
    conn: &Connection,
    id: i64,
) -> rusqlite::Result<Option<(String, i64)>> {
    conn.prepare_cached("SELECT path, size FROM files WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
}

/// File `id` as a result shows it.
pub(crate) fn file_row(conn: &Connection, id: i64) -> rusqlite::Result<Option<FileRow>> {
    conn.prepare_cached("SELECT path, description, line_count FROM files WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(FileRow {
                path: r.get(0)?,
                description: r.get(1)?,
                lines: r.get(2)?,
            })
        })
        .optional()
}

/// Files whose path is `name` or ends with `/name` (a file name written in a query:
/// `client.py`, `utils/http.py`), at most `limit` (a negative limit is none).
pub(crate) fn files_named(
    conn: &Connection,
    name: &str,
    limit: i64,
) -> rusqlite::Result<Vec<(i64, String)>> {
    let like = format!(
        "%/{}",
        name.replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    );
    conn.prepare_cached(
        "SELECT id, path FROM files WHERE path = ?1 OR path LIKE ?2 ESCAPE '\\' LIMIT ?3",
    )?
    .query_map(rusqlite::params![name, like, limit], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?
    .collect()
}

/// Symbol `id` as a result shows it.
pub(crate) fn symbol_row(conn: &Connection, id: i64) -> rusqlite::Result<Option<SymbolRow>> {
    conn.prepare_cached(
        "SELECT id, kind, qualname, signature, docstring, start_line, end_line FROM symbols WHERE id = ?1",
    )?
    .query_row([id], |r| {
        Ok(SymbolRow {
            id: r.get(0)?,
            kind: kind_of(r.get(1)?),
            qualname: r.get(2)?,
            signature: r.get(3)?,
            doc: r.get(4)?,
            start_line: r.get(5)?,
            end_line: r.get(6)?,
        })
    })
    .optional()
}

/// Symbol `id`'s qualified name and decorators.
pub(crate) fn symbol_naming(conn: &Connection, id: i64) -> rusqlite::Result<Option<SymbolNaming>> {
    conn.prepare_cached("SELECT kind, qualname, decorators FROM symbols WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(SymbolNaming {
                kind: kind_of(r.get(0)?),
                qualname: r.get(1)?,
                decorators: r.get(2)?,
            })
        })
        .optional()
}

/// The file symbol `id` is in.
pub(crate) fn file_of_symbol(conn: &Connection, id: i64) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached("SELECT file_id FROM symbols WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()
}

/// The definitions named `name`, at most `limit` (a negative limit is none).
pub(crate) fn symbols_named(
    conn: &Connection,
    name: &str,
    limit: i64,
) -> rusqlite::Result<Vec<NamedSymbol>> {
    conn.prepare_cached("SELECT id, file_id, qualname FROM symbols WHERE name = ?1 LIMIT ?2")?
        .query_map(rusqlite::params![name, limit], |r| {
            Ok(NamedSymbol {
                id: r.get(0)?,
                file: r.get(1)?,
                qualname: r.get(2)?,
            })
        })?
        .collect()
}

/// The ids of file `file`'s symbols, in the parse's order.
pub(crate) fn symbols_of_file(conn: &Connection, file: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached("SELECT id FROM symbols WHERE file_id = ?1 ORDER BY ord")?
        .query_map([file], |r| r.get(0))?
        .collect()
}

/// Calls `f` with every symbol's id and file id, in one pass over the table.
pub(crate) fn for_each_symbol_file(
    conn: &Connection,
    mut f: impl FnMut(i64, i64),
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached("SELECT id, file_id FROM symbols")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        f(row.get(0)?, row.get(1)?);
    }
    Ok(())
}

/// File `file`'s stored definitions, in the parse's order.
pub(crate) fn stored_symbols(conn: &Connection, file: i64) -> rusqlite::Result<Vec<StoredSymbol>> {
    conn.prepare_cached(
        "SELECT id, name, qualname, signature, docstring, start_byte, end_byte, parent_id,
                name_split
         FROM symbols WHERE file_id = ?1 ORDER BY ord",
    )?
    .query_map([file], |r| {
        Ok(StoredSymbol {
            id: r.get(0)?,
            name: r.get(1)?,
            qualname: r.get(2)?,
            signature: r.get(3)?,
            docstring: r.get(4)?,
            start_byte: r.get::<_, i64>(5)?.max(0) as usize,
            end_byte: r.get::<_, i64>(6)?.max(0) as usize,
            parent_id: r.get(7)?,
            name_split: r.get(8)?,
        })
    })?
    .collect()
}

/// A parsed file as the map lists it; `deps` is the stored blob of the files it imports.
#[derive(Debug, Clone)]
pub struct MappedFile {
    pub id: i64,
    pub path: String,
    pub description: Option<String>,
    pub lines: u32,
    pub deps: Option<Vec<u8>>,
}

/// Every parsed file as the map lists it.
pub(crate) fn mapped_files(conn: &Connection) -> rusqlite::Result<Vec<MappedFile>> {
    conn.prepare_cached(&format!(
        "SELECT id, path, description, line_count, deps FROM files WHERE {PARSED_FILES}"
    ))?
    .query_map([], |r| {
        Ok(MappedFile {
            id: r.get(0)?,
            path: r.get(1)?,
            description: r.get(2)?,
            lines: r.get(3)?,
            deps: r.get(4)?,
        })
    })?
    .collect()
}

/// A symbol as the map shows it.
#[derive(Debug, Clone)]
pub struct SymbolInfo {
    pub id: i64,
    pub file_id: i64,
    pub parent: Option<i64>,
    pub kind: SymbolKind,
    pub qualname: String,
    pub signature: String,
    pub line: u32,
    pub end_line: u32,
    /// As stored: one per line.
    pub decorators: Option<String>,
}

/// Symbol `id` as the map shows it.
pub(crate) fn symbol_info(conn: &Connection, id: i64) -> rusqlite::Result<Option<SymbolInfo>> {
    conn.prepare_cached(
        "SELECT id, file_id, parent_id, kind, qualname, signature, start_line, end_line, decorators FROM symbols WHERE id = ?1",
    )?
    .query_row([id], |r| {
        Ok(SymbolInfo {
            id: r.get(0)?,
            file_id: r.get(1)?,
            parent: r.get(2)?,
            kind: kind_of(r.get(3)?),
            qualname: r.get(4)?,
            signature: r.get(5)?,
            line: r.get(6)?,
            end_line: r.get(7)?,
            decorators: r.get(8)?,
        })
    })
    .optional()
}

/// The symbols of file `file` named `name`, with their qualified names.
pub(crate) fn symbols_named_in_file(
    conn: &Connection,
    file: i64,
    name: &str,
) -> rusqlite::Result<Vec<(i64, String)>> {
    conn.prepare_cached("SELECT id, qualname FROM symbols WHERE file_id = ?1 AND name = ?2")?
        .query_map(rusqlite::params![file, name], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect()
}

/// A blob of `file_data` read on its own.
#[derive(Debug, Clone, Copy)]
pub enum FileBlob {
    /// The references the parse found (resolution reads them).
    Refs,
    /// The resolved edges (the map's callees read them).
    Edges,
}

/// File `file`'s stored `blob`, if it has one.
pub(crate) fn file_blob(
    conn: &Connection,
    file: i64,
    blob: FileBlob,
) -> rusqlite::Result<Option<Vec<u8>>> {
    let sql = match blob {
        FileBlob::Refs => "SELECT refs FROM file_data WHERE id = ?1",
        FileBlob::Edges => "SELECT edges FROM file_data WHERE id = ?1",
    };
    Ok(conn
        .prepare_cached(sql)?
        .query_row([file], |r| r.get(0))
        .optional()?
        .flatten())
}

/// A symbol with its file's path, as `show` and trace read it.
#[derive(Debug, Clone)]
pub struct SymRow {
    pub id: i64,
    pub file_id: i64,
    pub path: String,
    pub kind: SymbolKind,
    pub qualname: String,
    pub signature: String,
    pub start_line: u32,
    pub end_line: u32,
    pub decorated_line: u32,
}

const SYM_ROW: &str = "SELECT s.id, s.file_id, f.path, s.kind, s.qualname, s.signature, s.start_line, s.end_line, s.decorated_line FROM symbols s JOIN files f ON f.id = s.file_id";

fn sym_row(r: &rusqlite::Row) -> rusqlite::Result<SymRow> {
    Ok(SymRow {
        id: r.get(0)?,
        file_id: r.get(1)?,
        path: r.get(2)?,
        kind: kind_of(r.get(3)?),
        qualname: r.get(4)?,
        signature: r.get(5)?,
        start_line: r.get(6)?,
        end_line: r.get(7)?,
        decorated_line: r.get(8)?,
    })
}

/// Every definition named `name`, with its file's path.
pub(crate) fn sym_rows_named(conn: &Connection, name: &str) -> rusqlite::Result<Vec<SymRow>> {
    conn.prepare_cached(&format!("{SYM_ROW} WHERE s.name = ?1"))?
        .query_map([name], sym_row)?
        .collect()
}

/// Symbol `id` with its file's path.
pub(crate) fn sym_row_of(conn: &Connection, id: i64) -> rusqlite::Result<Option<SymRow>> {
    conn.prepare_cached(&format!("{SYM_ROW} WHERE s.id = ?1"))?
        .query_row([id], sym_row)
        .optional()
}

/// The innermost symbol of file `file` whose lines (decorators included) hold `line`, with
/// its file's path.
pub(crate) fn enclosing_sym_row(
    conn: &Connection,
    file: i64,
    line: u32,
) -> rusqlite::Result<Option<SymRow>> {
    conn.prepare_cached(&format!(
        "{SYM_ROW} WHERE s.file_id = ?1 AND s.decorated_line <= ?2 AND s.end_line >= ?2 ORDER BY s.end_line - s.decorated_line LIMIT 1"
    ))?
    .query_row(rusqlite::params![file, line], sym_row)
    .optional()
}

/// The id and line count of the file at `path`.
pub(crate) fn file_id_and_lines(
    conn: &Connection,
    path: &str,
) -> rusqlite::Result<Option<(i64, u32)>> {
    conn.prepare_cached("SELECT id, line_count FROM files WHERE path = ?1")?
        .query_row([path], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()
}

/// Calls `f` with each file that has resolved edges: its id, path and edges blob; in path
/// order when `by_path` is set.
pub(crate) fn for_each_file_edges(
    conn: &Connection,
    by_path: bool,
    mut f: impl FnMut(i64, &str, &[u8]),
) -> rusqlite::Result<()> {
    let sql = if by_path {
        "SELECT id, path, edges FROM files JOIN file_data USING (id) WHERE edges IS NOT NULL ORDER BY path"
    } else {
        "SELECT id, path, edges FROM files JOIN file_data USING (id) WHERE edges IS NOT NULL"
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        f(
            row.get(0)?,
            row.get_ref(1)?.as_str()?,
            row.get_ref(2)?.as_blob()?,
        );
    }
    Ok(())
}

/// A symbol's place: its file's path, qualified name, kind and first line.
#[derive(Debug, Clone)]
pub struct SymbolPlace {
    pub id: i64,
    pub path: String,
    pub qualname: String,
    pub kind: SymbolKind,
    pub line: u32,
}

/// Calls `f` with every symbol's place, in one pass over the table.
pub(crate) fn for_each_symbol_place(
    conn: &Connection,
    mut f: impl FnMut(SymbolPlace),
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT s.id, f.path, s.qualname, s.kind, s.start_line FROM symbols s JOIN files f ON f.id = s.file_id",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(SymbolPlace {
            id: r.get(0)?,
            path: r.get(1)?,
            qualname: r.get(2)?,
            kind: kind_of(r.get(3)?),
            line: r.get(4)?,
        });
    }
    Ok(())
}

/// A file and the stored blob of the files it imports.
#[derive(Debug, Clone)]
pub struct FileDeps {
    pub id: i64,
    pub path: String,
    pub deps: Option<Vec<u8>>,
}

/// Every file (parsed or not) with what it imports.
pub(crate) fn files_with_deps(conn: &Connection) -> rusqlite::Result<Vec<FileDeps>> {
    conn.prepare_cached("SELECT id, path, deps FROM files")?
        .query_map([], |r| {
            Ok(FileDeps {
                id: r.get(0)?,
                path: r.get(1)?,
                deps: r.get(2)?,
            })
        })?
        .collect()
}
