//! Writing one parsed file's rows: the file, its symbols (keeping the ids of those that survive
//! an edit), its parse products and its full-text terms.

use std::collections::HashMap;

use cast_parser::roles::FileRoles;
use cast_parser::{ParsedFile, Symbol};
use rusqlite::Connection;

use crate::codec;
use crate::listing::Listed;
use crate::store::{
    self, FLAG_LOSSY, FLAG_SKIPPED, FLAG_SYNTAX_ERRORS, ROLES_SHIFT, build, kind_code,
};

use super::parse::Blobs;

pub(super) struct Writer<'c> {
    pub(super) conn: &'c Connection,
}

impl Writer<'_> {
    pub(super) fn upsert_file(
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
        // A parsed file's roles read its text too; a skipped file's come from its path.
        let roles = blobs.map_or_else(|| FileRoles::of_path(&item.rel), |b| b.roles);
        let flags = flags | i64::from(roles.bits()) << ROLES_SHIFT;
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
        // The parse products, afresh; the edges are resolved later. The terms are written by
        // the caller ([`Writer::insert_terms`], or a cold build's own threads).
        build::put_file_data(self.conn, id, iface, imports, refs)?;
        Ok(id)
    }

    /// Writes a file's symbols, keeping the ids of symbols whose qualified name survived (so
    /// edges from other files into this one stay valid), and returns their ids in the parse's
    /// order. Their terms are the caller's to write, as the file's are.
    pub(super) fn write_symbols(
        &self,
        file_id: i64,
        parsed: Option<(&ParsedFile, &Blobs)>,
        fresh: bool,
    ) -> rusqlite::Result<Vec<i64>> {
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
            let decorators = joined_decorators(s);
            let name_split = terms.get(ord).map(|t| t.name_split.as_str());
            let row = symbol_record(file_id, ord, s, &ids, decorators.as_deref(), name_split);
            let id = match reuse {
                Some(id) => {
                    build::update_symbol(self.conn, id, &row)?;
                    id
                }
                None => build::insert_symbol(self.conn, &row)?,
            };
            ids.push(id);
        }
        for id in old.into_values() {
            build::delete_symbol(self.conn, id)?;
        }
        self.write_symtab(file_id, parsed, &ids)?;
        Ok(ids)
    }

    /// A new index's [`Writer::write_symbols`] when its symbols' rows are written apart
    /// (`super::apart`): the ids they will have, from `next_id` on, and the file's symbol table.
    pub(super) fn number_symbols(
        &self,
        file_id: i64,
        parsed: &ParsedFile,
        next_id: &mut i64,
    ) -> rusqlite::Result<Vec<i64>> {
        let first = *next_id;
        *next_id += parsed.symbols.len() as i64;
        let ids: Vec<i64> = (first..*next_id).collect();
        self.write_symtab(file_id, Some(parsed), &ids)?;
        Ok(ids)
    }

    /// The symbol table resolution reads for the file: each symbol's id, parent, kind, name,
    /// lines, and what a call of it returns.
    fn write_symtab(
        &self,
        file_id: i64,
        parsed: Option<&ParsedFile>,
        ids: &[i64],
    ) -> rusqlite::Result<()> {
        let symbols = parsed.map_or(&[][..], |p| p.symbols.as_slice());
        let python = parsed.is_some_and(|p| p.language == "python");
        let entries: Vec<codec::SymtabEntry> = symbols
            .iter()
            .zip(ids)
            .map(|(s, id)| codec::SymtabEntry {
                id: *id,
                parent: s.parent,
                kind: kind_code(s.kind),
                name: s.name.clone(),
                decorated_line: s.decorated_line,
                header_end_line: s.header_end_line,
                overload: python && s.decorators.iter().any(|d| is_overload(d)),
                returns: s.returns.clone(),
                owner: owner_of(s),
            })
            .collect();
        build::set_symtab(self.conn, file_id, &codec::encode_symtab(&entries))
    }

    /// Writes the full-text rows of a file and of its symbols (`symbol_ids` in the parse's
    /// order, as [`Writer::write_symbols`] returns them).
    pub(super) fn insert_terms(
        &self,
        file_id: i64,
        symbol_ids: &[i64],
        blobs: &Blobs,
    ) -> rusqlite::Result<()> {
        store::insert_file_terms(self.conn, file_id, &blobs.file_terms)?;
        for (id, terms) in symbol_ids.iter().zip(&blobs.symbol_terms) {
            store::insert_symbol_terms(self.conn, *id, terms)?;
        }
        Ok(())
    }
}

/// A symbol's decorators as `symbols.decorators` stores them: one per line, or none.
pub(super) fn joined_decorators(s: &Symbol) -> Option<String> {
    (!s.decorators.is_empty()).then(|| s.decorators.join("\n"))
}

/// Symbol `s`'s row (the `ord`-th of file `file_id`), its parent's id taken from `ids` (the ids
/// of the file's symbols before it), `decorators` as [`joined_decorators`] gives them.
pub(super) fn symbol_record<'a>(
    file_id: i64,
    ord: usize,
    s: &'a Symbol,
    ids: &[i64],
    decorators: Option<&'a str>,
    name_split: Option<&'a str>,
) -> build::SymbolRecord<'a> {
    let (doc_start, doc_end) = s.docstring_lines.unzip();
    build::SymbolRecord {
        file_id,
        ord: ord as i64,
        parent_id: s.parent.and_then(|p| ids.get(p).copied()),
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
        decorators,
        start_byte: s.start_byte as i64,
        end_byte: s.end_byte as i64,
        name_split: name_split.filter(|t| !t.is_empty()),
    }
}

/// Whether a Python decorator (as written, without the `@`) is `typing.overload`:
/// `overload`, `typing.overload`, `t.overload`, `typing_extensions.overload`.
fn is_overload(decorator: &str) -> bool {
    let d = decorator.trim();
    d == "overload" || d.ends_with(".overload")
}

/// The type a method defined outside it belongs to, from its qualified name: a top-level
/// method qualified by its receiver (`Server.Start` in Go; `Foo::bar` for C++'s `void
/// Foo::bar() {}`) belongs to `Server`, `Foo`.
fn owner_of(s: &cast_parser::Symbol) -> Option<String> {
    if s.parent.is_some() || s.qualname == s.name {
        return None;
    }
    let before = s.qualname.strip_suffix(s.name.as_str())?;
    let before = before.trim_end_matches(['.', ':']);
    let owner = before.rsplit(['.', ':']).next()?;
    (!owner.is_empty()).then(|| owner.to_owned())
}
