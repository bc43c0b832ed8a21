//! Typed reads of single rows and small sets of `files` and `symbols`, for search (`find.rs`
//! and its second stage, `bodies.rs`): each statement is written here once and gives its rows
//! as types, never as columns read back by position at the call site.
//!
//! Statements are prepared through the connection's cache (`prepare_cached`), so a read made
//! once per candidate costs a cache lookup, not a parse.

use rusqlite::{Connection, OptionalExtension};

use super::PARSED_FILES;
use crate::index::kind_of;
use cast_parser::SymbolKind;

/// A file as a search result shows it.
#[derive(Debug, Clone)]
pub(crate) struct FileRow {
    pub(crate) path: String,
    pub(crate) description: Option<String>,
    pub(crate) lines: u32,
}

/// A symbol as a search result shows it.
#[derive(Debug, Clone)]
pub(crate) struct SymbolRow {
    pub(crate) id: i64,
    pub(crate) kind: SymbolKind,
    pub(crate) qualname: String,
    pub(crate) signature: String,
    pub(crate) doc: Option<String>,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
}

/// What tells a symbol's kind of code apart: its qualified name (a `tests` scope) and its
/// decorators as stored, one per line (`#[test]`).
#[derive(Debug, Clone)]
pub(crate) struct SymbolNaming {
    pub(crate) qualname: String,
    pub(crate) decorators: Option<String>,
}

/// A definition found by its name.
#[derive(Debug, Clone)]
pub(crate) struct NamedSymbol {
    pub(crate) id: i64,
    pub(crate) file: i64,
    pub(crate) qualname: String,
}

/// One stored definition of a file, with what the second stage of search scores it by.
#[derive(Debug, Clone)]
pub(crate) struct StoredSymbol {
    pub(crate) id: i64,
    pub(crate) name: String,
    pub(crate) qualname: String,
    pub(crate) signature: String,
    pub(crate) docstring: Option<String>,
    pub(crate) start_byte: usize,
    pub(crate) end_byte: usize,
    pub(crate) parent_id: Option<i64>,
    pub(crate) name_split: Option<String>,
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
    conn.prepare_cached("SELECT qualname, decorators FROM symbols WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(SymbolNaming {
                qualname: r.get(0)?,
                decorators: r.get(1)?,
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

/// The ids of file `file`'s symbols.
pub(crate) fn symbols_of_file(conn: &Connection, file: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare_cached("SELECT id FROM symbols WHERE file_id = ?1")?
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
