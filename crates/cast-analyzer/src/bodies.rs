//! The second stage of search: the symbols of a query's candidate files, scored with their
//! bodies.
//!
//! The stored index holds a symbol's name, context, signature and docstring, but not the words of
//! its body: indexing every body (a third of the text index's build and most of a query's time
//! on a large tree, measured) is not needed to find *where* to look — a file's body words are
//! indexed with the file. Once the first stage has picked the candidate files, their symbols are
//! cut from the files' current text (the index was refreshed before the query) and indexed with
//! their bodies in an in-memory FTS5 table, which the query's terms then rank with the same
//! BM25F as the stored table plus the body column. A file that cannot be read now, or is larger
//! than [`MAX_BODY_FILE`], gives its symbols without bodies.

use std::collections::HashMap;

use cast_parser::SourceText;

use crate::index::Index;
use crate::store::{self, TermTable};
use crate::text;

/// Files larger than this give their symbols without bodies (reading and cutting a
/// multi-megabyte generated file would cost more than the rest of the query).
pub const MAX_BODY_FILE: i64 = 1 << 20;

/// One stored definition of a candidate file.
struct StoredSymbol {
    id: i64,
    name: String,
    qualname: String,
    signature: String,
    docstring: Option<String>,
    start_byte: usize,
    end_byte: usize,
    parent_id: Option<i64>,
}

impl Index {
    /// BM25F of every symbol of `files` against `terms`, with the weights given in the
    /// columns' order (name, context, signature, docstring, body); at most `limit`, best first.
    pub(crate) fn score_candidate_symbols(
        &self,
        files: &[i64],
        terms: &[String],
        weights: &[f64],
        limit: usize,
    ) -> rusqlite::Result<Vec<(i64, f64)>> {
        store::reset_candidates(&self.conn)?;
        // One transaction for all rows: FTS5 flushes its pending terms at every commit.
        self.conn.execute_batch("SAVEPOINT candidates")?;
        let filled = self.fill_candidates(files);
        self.conn.execute_batch(if filled.is_ok() {
            "RELEASE candidates"
        } else {
            "ROLLBACK TO candidates; RELEASE candidates"
        })?;
        filled?;
        store::match_terms(&self.conn, TermTable::Candidates, terms, weights, limit)
    }

    fn fill_candidates(&self, files: &[i64]) -> rusqlite::Result<()> {
        let mut file_stmt = self
            .conn
            .prepare_cached("SELECT path, size FROM files WHERE id = ?1")?;
        let mut sym_stmt = self.conn.prepare_cached(
            "SELECT id, name, qualname, signature, docstring, start_byte, end_byte, parent_id
             FROM symbols WHERE file_id = ?1 ORDER BY ord",
        )?;
        for &file in files {
            let Some((path, size)) = file_stmt
                .query_row([file], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })
                .ok()
            else {
                continue;
            };
            let symbols: Vec<StoredSymbol> = sym_stmt
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
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
            if symbols.is_empty() {
                continue;
            }
            let bodies = if size <= MAX_BODY_FILE {
                self.current_text(&path)
                    .map(|text| {
                        let place: HashMap<i64, usize> =
                            symbols.iter().enumerate().map(|(i, s)| (s.id, i)).collect();
                        let spans: Vec<(usize, usize, Option<usize>)> = symbols
                            .iter()
                            .map(|s| {
                                let parent = s.parent_id.and_then(|p| place.get(&p).copied());
                                (s.start_byte, s.end_byte, parent)
                            })
                            .collect();
                        text::own_bodies(&text, &spans)
                    })
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            let context_path = text::terms_string(text::module_path(&path));
            for (i, s) in symbols.iter().enumerate() {
                let fields = text::symbol_terms(
                    &context_path,
                    &s.name,
                    &s.qualname,
                    &s.signature,
                    s.docstring.as_deref(),
                );
                let body = bodies.get(i).map_or("", String::as_str);
                store::insert_candidate(&self.conn, s.id, &fields, body)?;
            }
        }
        Ok(())
    }

    /// The text of an indexed file as the parser read it, or `None` when it cannot be read.
    fn current_text(&self, rel: &str) -> Option<String> {
        let path = self.root.join(rel);
        let bytes = std::fs::read(&path).ok()?;
        SourceText::from_bytes(&path, bytes).ok().map(|s| s.text)
    }
}
