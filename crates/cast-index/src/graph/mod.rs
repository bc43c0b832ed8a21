//! The resolved graphs and ranks as plain records, for tests, tools and inspection.
//!
//! The graph's own parts: resolution of references and imports to edges ([`resolve`], which
//! names modules by each family's rules in [`cast_parser::modules::paths`]), PageRank
//! ([`rank`]) and the ranks and file graph as the index stores them ([`stored`]).

pub mod rank;
pub mod resolve;
pub(crate) mod stored;
pub(crate) mod texts;

use std::collections::HashMap;

use cast_parser::{RefKind, SymbolKind};
use serde::Serialize;

use crate::Result;
use crate::index::Index;
use crate::store::{db_err, rows};
use resolve::{How, decode_deps_raw, decode_edges_raw};

/// A resolved reference between two symbols.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphEdge {
    pub src_path: String,
    /// The referring symbol; `None` for module-level code.
    pub src: Option<String>,
    pub dst_path: String,
    pub dst: String,
    pub kind: RefKind,
    pub how: How,
    /// 1/k for a name with k candidates, else 1.
    pub weight: f64,
    pub line: u32,
}

/// A symbol with its PageRank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedSymbol {
    pub path: String,
    pub kind: SymbolKind,
    pub qualname: String,
    pub line: u32,
    pub rank: f64,
}

/// A file with its PageRank and the files it imports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedFile {
    pub path: String,
    pub rank: f64,
    pub imports: Vec<String>,
}

/// Counts of what the index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct IndexStats {
    pub files: usize,
    pub symbols: usize,
    pub edges: usize,
    pub file_edges: usize,
    pub db_bytes: u64,
}

impl Index {
    fn symbol_names(&self) -> Result<HashMap<i64, (String, String, SymbolKind, u32)>> {
        let mut out = HashMap::new();
        rows::for_each_symbol_place(&self.conn, |p| {
            out.insert(p.id, (p.path, p.qualname, p.kind, p.line));
        })
        .map_err(db_err(&self.db_path))?;
        Ok(out)
    }

    /// Every resolved reference between symbols, in file order. Loads the whole graph: meant
    /// for small trees, tests and exports.
    pub fn edges(&self) -> Result<Vec<GraphEdge>> {
        let err = db_err(&self.db_path);
        let names = self.symbol_names()?;
        let mut out = Vec::new();
        rows::for_each_file_edges(&self.conn, true, |_, path, blob| {
            for e in decode_edges_raw(blob).unwrap_or_default() {
                let Some((dst_path, dst, _, _)) = names.get(&e.dst) else {
                    continue;
                };
                out.push(GraphEdge {
                    src_path: path.to_owned(),
                    src: names.get(&e.src).map(|n| n.1.clone()),
                    dst_path: dst_path.clone(),
                    dst: dst.clone(),
                    kind: e.kind,
                    how: e.how,
                    weight: 1.0 / f64::from(e.k.max(1)),
                    line: e.line,
                });
            }
        })
        .map_err(&err)?;
        Ok(out)
    }

    /// The `limit` symbols of highest PageRank, best first.
    pub fn top_symbols(&self, limit: usize) -> Result<Vec<RankedSymbol>> {
        let names = self.symbol_names()?;
        let ranks = self.read(|snap| snap.ranks(stored::RankedTable::Symbols))?;
        let mut ranked: Vec<RankedSymbol> = ranks
            .sorted
            .iter()
            .filter_map(|(id, rank)| {
                names.get(&id).map(|(path, q, kind, line)| RankedSymbol {
                    path: path.clone(),
                    kind: *kind,
                    qualname: q.clone(),
                    line: *line,
                    rank,
                })
            })
            .collect();
        ranked.sort_by(|a, b| {
            b.rank
                .total_cmp(&a.rank)
                .then(a.path.cmp(&b.path))
                .then(a.line.cmp(&b.line))
        });
        ranked.truncate(limit);
        Ok(ranked)
    }

    /// Files by PageRank over the import graph, best first, with what each imports.
    pub fn top_files(&self, limit: usize) -> Result<Vec<RankedFile>> {
        let err = db_err(&self.db_path);
        let ranks = self.read(|snap| snap.ranks(stored::RankedTable::Files))?;
        let all = rows::files_with_deps(&self.conn).map_err(&err)?;
        let paths: HashMap<i64, String> = all.iter().map(|f| (f.id, f.path.clone())).collect();
        let mut out: Vec<RankedFile> = all
            .into_iter()
            .map(|rows::FileDeps { id, path, deps }| RankedFile {
                rank: ranks.sorted.get(id).unwrap_or(0.0),
                imports: deps
                    .and_then(|d| decode_deps_raw(&d))
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|(d, _)| paths.get(&d).cloned())
                    .collect(),
                path,
            })
            .collect();
        out.sort_by(|a, b| b.rank.total_cmp(&a.rank).then(a.path.cmp(&b.path)));
        out.truncate(limit);
        Ok(out)
    }

    /// What the index holds.
    pub fn stats(&self) -> Result<IndexStats> {
        let err = db_err(&self.db_path);
        let crate::store::Counts { files, symbols, .. } =
            crate::store::count_rows(&self.conn).map_err(&err)?;
        let meta = |key: &str| -> Result<usize> {
            Ok(crate::store::get_meta(&self.conn, key)
                .map_err(&err)?
                .and_then(|v| String::from_utf8(v).ok())
                .and_then(|s| s.parse().ok())
                .unwrap_or(0))
        };
        Ok(IndexStats {
            files,
            symbols,
            edges: meta("edges")?,
            file_edges: meta("file_edges")?,
            db_bytes: crate::store::db_bytes(&self.db_path),
        })
    }
}
