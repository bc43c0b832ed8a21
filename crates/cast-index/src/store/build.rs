//! What a build or refresh of the index (`index.rs`) writes, and reads back of its own rows:
//! files and their parse products, symbols (keeping the ids of those that survive an edit),
//! the resolved graph, deletions, counts and the write transaction. Each statement is written
//! here once and takes or gives its rows as types.
//!
//! Statements are prepared through the connection's cache (`prepare_cached`): the writer calls
//! these once per file and per symbol, and a cached statement costs a lookup, not a parse.

use rusqlite::{Connection, OptionalExtension, ToSql, params};

/// A file's row as a build writes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileRecord<'a> {
    pub(crate) rel: &'a str,
    pub(crate) size: i64,
    pub(crate) mtime_ns: i64,
    pub(crate) hash: &'a [u8],
    pub(crate) language: Option<&'a str>,
    pub(crate) line_count: i64,
    pub(crate) description: Option<&'a str>,
    pub(crate) flags: i64,
    pub(crate) error: Option<&'a str>,
}

/// A new file's row; its id.
pub(crate) fn insert_file(conn: &Connection, f: &FileRecord) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO files(path, size, mtime_ns, hash, language, line_count, description, flags, error) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)",
    )?
    .execute(file_values(f).as_slice())?;
    Ok(conn.last_insert_rowid())
}

/// File `id`'s row rewritten; what it imports is resolved again later (`deps` cleared).
pub(crate) fn update_file(conn: &Connection, id: i64, f: &FileRecord) -> rusqlite::Result<()> {
    let mut values = file_values(f);
    values.push(&id);
    conn.prepare_cached(
        "UPDATE files SET path=?1, size=?2, mtime_ns=?3, hash=?4, language=?5, line_count=?6, description=?7, flags=?8, error=?9, deps=NULL WHERE id=?10",
    )?
    .execute(values.as_slice())?;
    Ok(())
}

/// A file record's values in the order of the statements above (`?1` … `?9`).
fn file_values<'a>(f: &'a FileRecord) -> Vec<&'a dyn ToSql> {
    vec![
        &f.rel,
        &f.size,
        &f.mtime_ns,
        &f.hash,
        &f.language,
        &f.line_count,
        &f.description,
        &f.flags,
        &f.error,
    ]
}

/// File `id`'s parse products, afresh (its edges and symbol table are written later).
pub(crate) fn put_file_data(
    conn: &Connection,
    id: i64,
    iface: Option<&[u8]>,
    imports: Option<&[u8]>,
    refs: Option<&[u8]>,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO file_data(id, iface, imports, refs) VALUES (?1,?2,?3,?4)",
    )?
    .execute(params![id, iface, imports, refs])?;
    Ok(())
}

/// File `id`'s new stat, its content unchanged.
pub(crate) fn set_file_stat(
    conn: &Connection,
    id: i64,
    size: i64,
    mtime_ns: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE files SET size=?1, mtime_ns=?2 WHERE id=?3")?
        .execute(params![size, mtime_ns, id])?;
    Ok(())
}

/// Calls `f` with every file's id, path, size and mtime, from the covering index alone (a
/// refresh that finds nothing changed reads nothing else).
pub(crate) fn for_each_file_stat(
    conn: &Connection,
    mut f: impl FnMut(i64, &str, i64, i64),
) -> rusqlite::Result<()> {
    let mut stmt =
        conn.prepare_cached("SELECT id, path, size, mtime_ns FROM files INDEXED BY files_stat")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get_ref(1)?.as_str()?, r.get(2)?, r.get(3)?);
    }
    Ok(())
}

/// What a refresh compares a changed file with: its content hash and interface blob as
/// indexed.
#[derive(Debug, Clone)]
pub(crate) struct IndexedContent {
    pub(crate) hash: Vec<u8>,
    pub(crate) iface: Option<Vec<u8>>,
}

/// File `id`'s content as indexed.
pub(crate) fn indexed_content(
    conn: &Connection,
    id: i64,
) -> rusqlite::Result<Option<IndexedContent>> {
    conn.prepare_cached(
        "SELECT hash, iface FROM files LEFT JOIN file_data USING (id) WHERE id = ?1",
    )?
    .query_row([id], |r| {
        Ok(IndexedContent {
            hash: r.get(0)?,
            iface: r.get(1)?,
        })
    })
    .optional()
}

/// File `id`'s stored edges and dependencies (empty where there are none).
pub(crate) fn file_graph_blobs(
    conn: &Connection,
    id: i64,
) -> rusqlite::Result<Option<(Vec<u8>, Vec<u8>)>> {
    conn.prepare_cached("SELECT edges, deps FROM files LEFT JOIN file_data USING (id) WHERE id=?1")?
        .query_row([id], |r| {
            Ok((
                r.get::<_, Option<Vec<u8>>>(0)?.unwrap_or_default(),
                r.get::<_, Option<Vec<u8>>>(1)?.unwrap_or_default(),
            ))
        })
        .optional()
}

/// File `id`'s resolved edges and dependencies.
pub(crate) fn set_file_graph(
    conn: &Connection,
    id: i64,
    edges: &[u8],
    deps: &[u8],
) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE file_data SET edges=?1 WHERE id=?2")?
        .execute(params![edges, id])?;
    conn.prepare_cached("UPDATE files SET deps=?1 WHERE id=?2")?
        .execute(params![deps, id])?;
    Ok(())
}

/// File `id`'s rows gone: its symbols, its row and its parse products (its full-text rows are
/// deleted by the caller, by id).
pub(crate) fn delete_file(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM symbols WHERE file_id=?1")?
        .execute([id])?;
    conn.prepare_cached("DELETE FROM files WHERE id=?1")?
        .execute([id])?;
    conn.prepare_cached("DELETE FROM file_data WHERE id=?1")?
        .execute([id])?;
    Ok(())
}

/// A symbol's row as a build writes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SymbolRecord<'a> {
    pub(crate) file_id: i64,
    pub(crate) ord: i64,
    pub(crate) parent_id: Option<i64>,
    pub(crate) kind: i64,
    pub(crate) name: &'a str,
    pub(crate) qualname: &'a str,
    pub(crate) signature: &'a str,
    pub(crate) docstring: Option<&'a str>,
    pub(crate) start_line: u32,
    pub(crate) end_line: u32,
    pub(crate) decorated_line: u32,
    pub(crate) header_end_line: u32,
    pub(crate) doc_start: Option<u32>,
    pub(crate) doc_end: Option<u32>,
    pub(crate) decorators: Option<&'a str>,
    pub(crate) start_byte: i64,
    pub(crate) end_byte: i64,
    pub(crate) name_split: Option<&'a str>,
}

/// A symbol's row, its id given (`?1`) or chosen by SQLite (`NULL`).
pub(crate) const INSERT_SYMBOL: &str = "INSERT INTO symbols(id, file_id, ord, parent_id, kind, name, qualname, signature, docstring, start_line, end_line, decorated_line, header_end_line, doc_start, doc_end, decorators, start_byte, end_byte, name_split) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)";

/// A new symbol's row; its id.
pub(crate) fn insert_symbol(conn: &Connection, s: &SymbolRecord) -> rusqlite::Result<i64> {
    write_symbol(conn, INSERT_SYMBOL, None, s)?;
    Ok(conn.last_insert_rowid())
}

/// The id SQLite would give the next symbol: one past the largest.
pub(crate) fn next_symbol_id(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM symbols", [], |r| {
        r.get(0)
    })
}

/// A new symbol's row under the id `id` (a new index's symbols written apart, numbered by the
/// writer), through `insert`: [`INSERT_SYMBOL`] prepared once by the thread that writes them.
pub(crate) fn insert_symbol_with(
    insert: &mut rusqlite::Statement<'_>,
    id: i64,
    s: &SymbolRecord,
) -> rusqlite::Result<()> {
    execute_symbol(insert, Some(id), s)
}

/// Symbol `id`'s row rewritten (its id kept, so edges into it stay valid).
pub(crate) fn update_symbol(conn: &Connection, id: i64, s: &SymbolRecord) -> rusqlite::Result<()> {
    write_symbol(
        conn,
        "UPDATE symbols SET file_id=?2, ord=?3, parent_id=?4, kind=?5, name=?6, qualname=?7, signature=?8, docstring=?9, start_line=?10, end_line=?11, decorated_line=?12, header_end_line=?13, doc_start=?14, doc_end=?15, decorators=?16, start_byte=?17, end_byte=?18, name_split=?19 WHERE id=?1",
        Some(id),
        s,
    )
}

fn write_symbol(
    conn: &Connection,
    sql: &str,
    id: Option<i64>,
    s: &SymbolRecord,
) -> rusqlite::Result<()> {
    execute_symbol(&mut *conn.prepare_cached(sql)?, id, s)
}

/// Runs `statement` ([`INSERT_SYMBOL`] or an update of the same parameters) for one row.
fn execute_symbol(
    statement: &mut rusqlite::Statement<'_>,
    id: Option<i64>,
    s: &SymbolRecord,
) -> rusqlite::Result<()> {
    statement.execute(params![
        id,
        s.file_id,
        s.ord,
        s.parent_id,
        s.kind,
        s.name,
        s.qualname,
        s.signature,
        s.docstring,
        s.start_line,
        s.end_line,
        s.decorated_line,
        s.header_end_line,
        s.doc_start,
        s.doc_end,
        s.decorators,
        s.start_byte,
        s.end_byte,
        s.name_split,
    ])?;
    Ok(())
}

/// Symbol `id`'s row gone.
pub(crate) fn delete_symbol(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM symbols WHERE id=?1")?
        .execute([id])?;
    Ok(())
}

/// File `file`'s symbols' ids and qualified names, in the parse's order.
pub(crate) fn symbol_qualnames(
    conn: &Connection,
    file: i64,
) -> rusqlite::Result<Vec<(i64, String)>> {
    conn.prepare_cached("SELECT id, qualname FROM symbols WHERE file_id=?1 ORDER BY ord")?
        .query_map([file], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// File `file`'s symbol table blob (what resolution reads of its symbols).
pub(crate) fn set_symtab(conn: &Connection, file: i64, symtab: &[u8]) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE file_data SET symtab=?1 WHERE id=?2")?
        .execute(params![symtab, file])?;
    Ok(())
}

/// One file as resolution loads it: its row and parse products, blobs borrowed from the row.
pub(crate) struct CatalogRow<'r> {
    pub(crate) id: i64,
    pub(crate) path: &'r str,
    pub(crate) language: Option<&'r str>,
    pub(crate) imports: Option<&'r [u8]>,
    pub(crate) deps: Option<&'r [u8]>,
    pub(crate) symtab: Option<&'r [u8]>,
}

/// Calls `f` with every file as resolution loads it, in id order.
pub(crate) fn for_each_catalog_row(
    conn: &Connection,
    mut f: impl FnMut(CatalogRow<'_>),
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, path, language, imports, deps, symtab FROM files LEFT JOIN file_data USING (id) ORDER BY id",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(CatalogRow {
            id: r.get(0)?,
            path: r.get_ref(1)?.as_str()?,
            language: r.get_ref(2)?.as_str_or_null()?,
            imports: r.get_ref(3)?.as_blob_or_null()?,
            deps: r.get_ref(4)?.as_blob_or_null()?,
            symtab: r.get_ref(5)?.as_blob_or_null()?,
        });
    }
    Ok(())
}

/// Every file's stored edges (`file_data.edges`, `None` where a file has none), in file id
/// order: ranking reads them back in one scan.
pub(crate) fn for_each_file_edges(
    conn: &Connection,
    mut f: impl FnMut(i64, Option<&[u8]>),
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached("SELECT id, edges FROM file_data ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        f(r.get(0)?, r.get_ref(1)?.as_blob_or_null()?);
    }
    Ok(())
}

/// Opens the build's write transaction, waiting for another writer (`BEGIN IMMEDIATE`).
pub(crate) fn begin_write(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("BEGIN IMMEDIATE")
}

/// Commits the build's write transaction.
pub(crate) fn commit(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch("COMMIT")
}

/// Folds the WAL into the database file and empties it (after a cold build, whose WAL is as
/// large as the database); best effort.
pub(crate) fn checkpoint(conn: &Connection) {
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
}

/// Rolls the build's write transaction back (best effort: the caller reports its own error).
pub(crate) fn rollback(conn: &Connection) {
    let _ = conn.execute_batch("ROLLBACK");
}
