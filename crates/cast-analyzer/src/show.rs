//! L3: the exact source of a symbol (by qualified name, or the symbol enclosing `FILE:LINE`),
//! where it is defined, what it references and who references it.

use std::collections::HashMap;
use std::path::Path;

use cast_parser::{RefKind, SymbolKind};
use serde::Serialize;

use crate::reader::Reader;
use cast_index::graph::resolve::{How, RawEdge, decode_edges_raw};

/// How many references of each list are shown.
const MAX_LISTED: usize = 50;
use crate::{AnalyzerError, Result};
pub(crate) use cast_index::rows::SymRow;

/// One resolved reference to or from the shown symbol.
#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    /// Where the reference is written (file and line).
    pub path: String,
    pub line: u32,
    /// The symbol on the other side (its qualified name); `None` for module-level code.
    pub symbol: Option<String>,
    /// Where that symbol is defined.
    pub symbol_path: String,
    pub symbol_line: u32,
    pub kind: RefKind,
    pub how: How,
    /// 1/k when the name had k candidates (resolved by name alone), else 1.
    pub weight: f64,
}

/// The source of one symbol, with its references.
#[derive(Debug, Clone, Serialize)]
pub struct SymbolSource {
    pub path: String,
    /// `None` when the line is module-level code outside any definition.
    pub kind: Option<SymbolKind>,
    pub qualname: String,
    pub signature: String,
    /// First line shown (the first decorator's line for a decorated definition).
    pub start_line: u32,
    pub end_line: u32,
    /// The exact text of those lines.
    pub source: String,
    /// Who references this symbol, resolved (through a scope, an import, `self`, `super()` or
    /// an attribute of a known module or class), at most 50, one per (place, referrer).
    pub referenced_by: Vec<Reference>,
    /// How many resolved references there are in all.
    pub referenced_by_total: usize,
    /// References matched by name alone (a call on a receiver of unknown type, a name with no
    /// binding): guesses, not evidence; at most 50, none at a place already resolved.
    pub referenced_by_name: Vec<Reference>,
    /// How many name-only references there are in all.
    pub referenced_by_name_total: usize,
    /// What this symbol references (resolved), at most 50.
    pub references: Vec<Reference>,
    /// What this symbol may reference by name alone (guesses), at most 50.
    pub references_by_name: Vec<Reference>,
    /// Other symbols the query also matched (`path:line qualname`), best first.
    pub others: Vec<String>,
}

impl SymbolSource {
    /// The text a model reads: a header, numbered source lines, then the references.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{}:{}-{} {} {}\n",
            self.path,
            self.start_line,
            self.end_line,
            self.kind.map_or("module code", |k| k.as_str()),
            self.qualname
        );
        let width = self.end_line.to_string().len();
        for (i, line) in self.source.lines().enumerate() {
            out.push_str(&format!(
                "{:>width$} | {line}\n",
                self.start_line as usize + i
            ));
        }
        let list = |out: &mut String, title: &str, refs: &[Reference], total: usize| {
            if refs.is_empty() {
                out.push_str(&format!("{title}: none resolved\n"));
                return;
            }
            out.push_str(&format!("{title} ({total}):\n"));
            list_refs(out, refs, total);
        };
        let guesses = |out: &mut String, title: &str, refs: &[Reference], total: usize| {
            if !refs.is_empty() {
                out.push_str(&format!(
                    "{title} by name only ({total}; guesses: the receiver's type or the name's \
                     binding is unknown):\n"
                ));
                list_refs(out, refs, total);
            }
        };
        list(
            &mut out,
            "Referenced by",
            &self.referenced_by,
            self.referenced_by_total,
        );
        guesses(
            &mut out,
            "Referenced",
            &self.referenced_by_name,
            self.referenced_by_name_total,
        );
        list(
            &mut out,
            "References",
            &self.references,
            self.references.len(),
        );
        guesses(
            &mut out,
            "References",
            &self.references_by_name,
            self.references_by_name.len(),
        );
        if !self.others.is_empty() {
            out.push_str(&format!("Also matching: {}\n", self.others.join(", ")));
        }
        out
    }
}

/// One line per reference; a name-only one is marked `?` with its number of candidates.
fn list_refs(out: &mut String, refs: &[Reference], total: usize) {
    for r in refs {
        let guess = r.how == How::Name;
        out.push_str(&format!(
            "  {}{}:{}  {} ({}:{})  [{}, {}{}]\n",
            if guess { "? " } else { "" },
            r.path,
            r.line,
            r.symbol.as_deref().unwrap_or("<module>"),
            r.symbol_path,
            r.symbol_line,
            format!("{:?}", r.kind).to_lowercase(),
            r.how.as_str(),
            if r.weight < 1.0 {
                format!(", 1 of {} candidates", (1.0 / r.weight).round())
            } else {
                String::new()
            }
        ));
    }
    if total > refs.len() {
        out.push_str(&format!("  … and {} more\n", total - refs.len()));
    }
}

/// The edges between two symbols at one place, reduced to one: a resolved edge wins over a
/// name-only guess, so a place is listed once, in the list it belongs to.
fn one_per_place<K: Ord>(edges: impl IntoIterator<Item = (K, RawEdge)>) -> Vec<(K, RawEdge)> {
    let mut best: std::collections::BTreeMap<K, RawEdge> = std::collections::BTreeMap::new();
    for (key, e) in edges {
        match best.entry(key) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(e);
            }
            std::collections::btree_map::Entry::Occupied(mut o) => {
                if o.get().how == How::Name && e.how != How::Name {
                    o.insert(e);
                }
            }
        }
    }
    best.into_iter().collect()
}

/// A path given by a user, relative to the root (absolute and `./` forms accepted).
pub(crate) fn relative_path(root: &Path, path: &str) -> String {
    let p = std::path::Path::new(path);
    let rel = match p.strip_prefix(root) {
        Ok(r) => r.to_string_lossy().into_owned(),
        Err(_) => {
            let canon_root = std::fs::canonicalize(root).ok();
            let canon = std::fs::canonicalize(p).ok();
            match (canon_root, canon) {
                (Some(r), Some(c)) if c.starts_with(&r) => c
                    .strip_prefix(&r)
                    .map(|x| x.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| path.to_owned()),
                _ => path.to_owned(),
            }
        }
    };
    let rel = rel.replace('\\', "/");
    rel.trim_start_matches("./").to_owned()
}

impl Reader<'_> {
    pub(crate) fn file_id(&self, rel: &str) -> Result<Option<(i64, u32)>> {
        Ok(self.snap.file_id_and_lines(rel)?)
    }

    /// Symbols whose qualified name (or `module.qualname`) ends with `query`, best first, and
    /// the other symbols of the name `query` ends in (code before tests, the most central
    /// first): what a query whose qualifier fits none of them may have meant. Each language's
    /// notation is accepted: `mod.Class.method`, `crate::Type::method`, Go's `(T) Method` and
    /// `(*T).Method`.
    pub(crate) fn lookup_symbols(&self, query: &str) -> Result<(Vec<SymRow>, Vec<SymRow>)> {
        let query = normalize_name(query);
        let query = query.as_str();
        let name = query.rsplit('.').next().unwrap_or(query);
        let candidates = self.snap.sym_rows_named(name)?;
        let ranks = self.stored_ranks(cast_index::RankedTable::Symbols)?;
        let file_roles = self.snap.file_roles()?;
        let mut found = Vec::new();
        let mut named = Vec::new();
        for row in candidates {
            let full = normalize_name(&cast_parser::modules::paths::full_name(
                &row.path,
                &row.qualname,
            ));
            let qualname = normalize_name(&row.qualname);
            let exact_full = full == query;
            let exact_qual = qualname == query;
            let suffix = full.ends_with(&format!(".{query}"));
            let rank = ranks.sorted.get(row.id).unwrap_or(0.0);
            let roles = file_roles.of(row.file_id);
            let code = !roles.test;
            if exact_full || exact_qual || suffix {
                found.push(((exact_full, exact_qual, !roles.stub, code), rank, row));
            } else {
                named.push((code, rank, row));
            }
        }
        found.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.path.cmp(&b.2.path))
        });
        named.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(b.1.total_cmp(&a.1))
                .then(a.2.path.cmp(&b.2.path))
        });
        Ok((
            found.into_iter().map(|(_, _, r)| r).collect(),
            named.into_iter().map(|(_, _, r)| r).collect(),
        ))
    }

    /// Reads lines `start..=end` (1-based) of a file under the root.
    pub(crate) fn read_lines(&self, rel: &str, start: u32, end: u32) -> Result<String> {
        let path = self.snap.root().join(rel);
        let text = std::fs::read(&path).map_err(|source| AnalyzerError::Io {
            path: path.clone(),
            source,
        })?;
        let text = String::from_utf8_lossy(&text);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut out = String::new();
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let n = i as u32 + 1;
            if n < start {
                continue;
            }
            if n > end {
                break;
            }
            out.push_str(line);
        }
        if !out.ends_with('\n') && !out.is_empty() {
            out.push('\n');
        }
        Ok(out)
    }

    fn symbol_by_id(&self, id: i64) -> Result<Option<SymRow>> {
        Ok(self.snap.sym_row_of(id)?)
    }

    /// L3: the source of a symbol given by qualified name (`Cart.add`, `shop.cart.Cart.add`)
    /// or by `FILE:LINE` (the innermost definition enclosing that line).
    pub fn show(&self, target: &str) -> Result<SymbolSource> {
        self.show_in_snapshot(target)
    }

    fn show_in_snapshot(&self, target: &str) -> Result<SymbolSource> {
        let target = target.trim();
        if let Some((file, line)) = target.rsplit_once(':')
            && let Ok(line) = line.parse::<u32>()
        {
            return self.show_line(file, line);
        }
        let (found, named) = self.lookup_symbols(target)?;
        let Some(best) = found.first() else {
            return Err(AnalyzerError::SymbolNotFound {
                query: target.to_owned(),
                named: named
                    .iter()
                    .take(5)
                    .map(|r| {
                        let full = cast_parser::modules::paths::full_name(&r.path, &r.qualname);
                        format!("{full} ({}:{})", r.path, r.start_line)
                    })
                    .collect(),
            });
        };
        let others = found
            .iter()
            .skip(1)
            .take(10)
            .map(|r| format!("{}:{} {}", r.path, r.start_line, r.qualname))
            .collect();
        let mut shown = self.source_of(best)?;
        shown.others = others;
        Ok(shown)
    }

    fn show_line(&self, file: &str, line: u32) -> Result<SymbolSource> {
        let rel = relative_path(self.snap.root(), file);
        let Some((file_id, line_count)) = self.file_id(&rel)? else {
            return Err(AnalyzerError::FileNotIndexed {
                path: rel,
                root: self.snap.root().to_path_buf(),
            });
        };
        if line == 0 || line > line_count.max(1) {
            return Err(AnalyzerError::LineOutOfRange {
                path: rel,
                line,
                lines: line_count,
            });
        }
        let row = self.snap.enclosing_sym_row(file_id, line)?;
        match row {
            Some(row) => self.source_of(&row),
            None => {
                let start = line.saturating_sub(10).max(1);
                let end = (line + 10).min(line_count);
                Ok(SymbolSource {
                    source: self.read_lines(&rel, start, end)?,
                    path: rel,
                    kind: None,
                    qualname: "<module>".into(),
                    signature: String::new(),
                    start_line: start,
                    end_line: end,
                    referenced_by: Vec::new(),
                    referenced_by_total: 0,
                    referenced_by_name: Vec::new(),
                    referenced_by_name_total: 0,
                    references: Vec::new(),
                    references_by_name: Vec::new(),
                    others: Vec::new(),
                })
            }
        }
    }

    fn source_of(&self, row: &SymRow) -> Result<SymbolSource> {
        let source = self.read_lines(&row.path, row.decorated_line, row.end_line)?;
        let mut qualnames: HashMap<i64, Option<(String, String, u32)>> = HashMap::new();
        let mut name_of = |id: i64| -> Result<Option<(String, String, u32)>> {
            if let Some(v) = qualnames.get(&id) {
                return Ok(v.clone());
            }
            let v = self
                .symbol_by_id(id)?
                .map(|r| (r.path, r.qualname, r.start_line));
            qualnames.insert(id, v.clone());
            Ok(v)
        };
        // Keyed by place and the symbol on the other side: two calls of the same method on one
        // line (`s.encode() + t.encode()`) are one reference, not two.
        let mut incoming = Vec::new();
        let mut outgoing = Vec::new();
        self.snap
            .for_each_file_edges(false, |file_id, path, blob| {
                let Some(edges) = decode_edges_raw(blob) else {
                    return;
                };
                for e in edges {
                    if e.dst == row.id {
                        incoming.push(((path.to_owned(), e.line, e.src), e));
                    }
                    if file_id == row.file_id && e.src == row.id {
                        outgoing.push(((e.line, e.dst), e));
                    }
                }
            })?;
        let (resolved_in, guessed_in): (Vec<_>, Vec<_>) = one_per_place(incoming)
            .into_iter()
            .partition(|(_, e)| e.how != How::Name);
        let (referenced_by_total, referenced_by_name_total) = (resolved_in.len(), guessed_in.len());
        let mut referrer = |(path, _, _): (String, u32, i64), e: RawEdge| -> Result<Reference> {
            let (symbol, symbol_line) = if e.src == 0 {
                (None, 1)
            } else {
                match name_of(e.src)? {
                    Some((_, q, l)) => (Some(q), l),
                    None => (None, 1),
                }
            };
            Ok(Reference {
                symbol_path: path.clone(),
                path,
                line: e.line,
                symbol,
                symbol_line,
                kind: e.kind,
                how: e.how,
                weight: 1.0 / f64::from(e.k.max(1)),
            })
        };
        let referenced_by = resolved_in
            .into_iter()
            .take(MAX_LISTED)
            .map(|(k, e)| referrer(k, e))
            .collect::<Result<Vec<_>>>()?;
        let referenced_by_name = guessed_in
            .into_iter()
            .take(MAX_LISTED)
            .map(|(k, e)| referrer(k, e))
            .collect::<Result<Vec<_>>>()?;
        let mut references = Vec::new();
        let mut references_by_name = Vec::new();
        for (_, e) in one_per_place(outgoing) {
            let list = if e.how == How::Name {
                &mut references_by_name
            } else {
                &mut references
            };
            if list.len() >= MAX_LISTED {
                continue;
            }
            if let Some((path, q, l)) = name_of(e.dst)? {
                list.push(Reference {
                    path: row.path.clone(),
                    line: e.line,
                    symbol: Some(q),
                    symbol_path: path,
                    symbol_line: l,
                    kind: e.kind,
                    how: e.how,
                    weight: 1.0 / f64::from(e.k.max(1)),
                });
            }
        }
        Ok(SymbolSource {
            path: row.path.clone(),
            kind: Some(row.kind),
            qualname: row.qualname.clone(),
            signature: row.signature.clone(),
            start_line: row.decorated_line,
            end_line: row.end_line,
            source,
            referenced_by,
            referenced_by_total,
            referenced_by_name,
            referenced_by_name_total,
            references,
            references_by_name,
            others: Vec::new(),
        })
    }
}

/// A symbol name in one notation: `a::b::C` → `a.b.C`; Go's `(T) M`, `(*T).M` → `T.M`.
fn normalize_name(name: &str) -> String {
    let name = name.trim().replace("::", ".");
    if let Some(rest) = name.strip_prefix('(')
        && let Some((receiver, method)) = rest.split_once(')')
    {
        let receiver = receiver.trim().trim_start_matches('*');
        let method = method.trim().trim_start_matches('.').trim();
        return format!("{receiver}.{method}");
    }
    name
}
