//! What resolution reads back of the index: files, symbols, imports and stored edges, in
//! memory ([`crate::graph::resolve::Catalog`]), and each file's references.

use std::path::Path;

use cast_parser::RefKind;
use rusqlite::Connection;

use crate::codec::{self, FileRefs};
use crate::graph::resolve::{Catalog, Edge};
use crate::store::{self, build, kind_of, rows};
use cast_parser::modules::ModuleFamily as Family;
use cast_parser::modules::manifests;
use cast_parser::modules::paths as modpath;

/// Files, symbols, imports and stored imports between files in memory, with each file's stored
/// inheritance edges (the base classes resolution looks through); the other edges stay in the
/// index. `sizes`, the number of files and of symbols when the caller knows them (else the
/// stored counts), sizes its tables up front.
pub(crate) fn load_catalog(
    conn: &Connection,
    root: &Path,
    sizes: Option<(usize, usize)>,
) -> rusqlite::Result<Catalog> {
    let mut builder = CatalogBuilder::new(stored_sizes(conn, sizes)?);
    build::for_each_catalog_row(conn, |row| builder.add(&row))?;
    let mut cat = builder.finish(root);
    add_stored_inherits(conn, &mut cat)?;
    Ok(cat)
}

/// [`load_catalog`], running `meanwhile` on this thread (a new index copies its scratch tables
/// in) while the catalog is built on another from the rows this thread read: building is most
/// of the time, and done before or after the copy it left a core idle at the end of a build.
/// What `meanwhile` returns comes back beside the catalog.
pub(crate) fn load_catalog_while<R>(
    conn: &Connection,
    root: &Path,
    sizes: Option<(usize, usize)>,
    meanwhile: impl FnOnce() -> R,
) -> rusqlite::Result<(Catalog, R)> {
    let sizes = stored_sizes(conn, sizes)?;
    let (mut cat, done) = std::thread::scope(|scope| {
        // Unbounded: the rows wait here only as long as the builder is behind, and they are
        // the catalog's encoded form, smaller than what it builds of them.
        let (rows, received) = std::sync::mpsc::channel::<Vec<OwnedRow>>();
        let builder = scope.spawn(move || {
            let mut builder = CatalogBuilder::new(sizes);
            for row in received.into_iter().flatten() {
                builder.add(&row.as_row());
            }
            builder.finish(root)
        });
        let read = (|| {
            let mut batch = Vec::with_capacity(ROWS_PER_SEND);
            build::for_each_catalog_row(conn, |row| {
                batch.push(OwnedRow::of(&row));
                if batch.len() == ROWS_PER_SEND {
                    // A builder that stopped has panicked: the join below says so.
                    let _ = rows.send(std::mem::replace(
                        &mut batch,
                        Vec::with_capacity(ROWS_PER_SEND),
                    ));
                }
            })?;
            let _ = rows.send(batch);
            Ok::<_, rusqlite::Error>(())
        })();
        drop(rows);
        // Run even when the read failed: the caller's work (a copy) may hold its own error.
        let done = meanwhile();
        let cat = builder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        read.map(|()| (cat, done))
    })?;
    add_stored_inherits(conn, &mut cat)?;
    Ok((cat, done))
}

/// `sizes`, or the stored counts of files and symbols.
fn stored_sizes(
    conn: &Connection,
    sizes: Option<(usize, usize)>,
) -> rusqlite::Result<Option<(usize, usize)>> {
    match sizes {
        Some(sizes) => Ok(Some(sizes)),
        None => store::counts(conn).map(|c| c.map(|c| (c.files, c.symbols))),
    }
}

/// Each file's stored inheritance edges. Edges name symbols by id: decoded once every symbol is
/// known.
fn add_stored_inherits(conn: &Connection, cat: &mut Catalog) -> rusqlite::Result<()> {
    let mut inherits: Vec<(u32, Vec<Edge>)> = Vec::new();
    build::for_each_file_edges(conn, |id, blob| {
        let Some(fi) = cat.file_by_id.get(id) else {
            return;
        };
        let mut edges = blob.and_then(|b| cat.decode_edges(b)).unwrap_or_default();
        edges.retain(|e| e.kind == RefKind::Inherit);
        if !edges.is_empty() {
            inherits.push((fi, edges));
        }
    })?;
    for (fi, edges) in inherits {
        cat.files[fi as usize].inherits = edges;
    }
    Ok(())
}

/// Rows handed to the catalog's builder at a time.
const ROWS_PER_SEND: usize = 256;

/// A [`build::CatalogRow`] that can cross to the builder's thread.
struct OwnedRow {
    id: i64,
    path: String,
    language: Option<String>,
    imports: Option<Vec<u8>>,
    deps: Option<Vec<u8>>,
    symtab: Option<Vec<u8>>,
}

impl OwnedRow {
    fn of(row: &build::CatalogRow<'_>) -> OwnedRow {
        OwnedRow {
            id: row.id,
            path: row.path.to_owned(),
            language: row.language.map(str::to_owned),
            imports: row.imports.map(<[u8]>::to_vec),
            deps: row.deps.map(<[u8]>::to_vec),
            symtab: row.symtab.map(<[u8]>::to_vec),
        }
    }

    fn as_row(&self) -> build::CatalogRow<'_> {
        build::CatalogRow {
            id: self.id,
            path: &self.path,
            language: self.language.as_deref(),
            imports: self.imports.as_deref(),
            deps: self.deps.as_deref(),
            symtab: self.symtab.as_deref(),
        }
    }
}

/// A catalog being built from the stored rows, in id order: files, symbols, imports between
/// files, then the module tables ([`Catalog::finish`]); stored edges are added after.
struct CatalogBuilder {
    cat: Catalog,
    /// Each file's stored deps blob, decoded once every file is known.
    deps: Vec<Option<Vec<u8>>>,
}

impl CatalogBuilder {
    fn new(sizes: Option<(usize, usize)>) -> CatalogBuilder {
        let mut cat = Catalog::default();
        if let Some((files, symbols)) = sizes {
            cat.reserve(files, symbols);
        }
        CatalogBuilder {
            cat,
            deps: Vec::new(),
        }
    }

    fn add(&mut self, row: &build::CatalogRow<'_>) {
        let cat = &mut self.cat;
        let imports = row
            .imports
            .and_then(codec::decode_imports)
            .unwrap_or_default();
        let file = cat.add_file(row.id, row.path, row.language, imports);
        let symtab = row
            .symtab
            .and_then(codec::decode_symtab)
            .unwrap_or_default();
        let mut dense: Vec<u32> = Vec::with_capacity(symtab.len());
        for e in symtab {
            let parent = e.parent.and_then(|p| dense.get(p).copied());
            let idx = cat.add_sym(file, parent, kind_of(e.kind), &e);
            dense.push(idx);
        }
        self.deps.push(row.deps.map(<[u8]>::to_vec));
    }

    fn finish(self, root: &Path) -> Catalog {
        let CatalogBuilder { mut cat, deps } = self;
        for (i, d) in deps.into_iter().enumerate() {
            cat.files[i].deps = d.and_then(|b| cat.decode_deps(&b)).unwrap_or_default();
        }
        cat.set_rust_crate_names(rust_crate_names(root, &cat));
        cat.set_go_modules(go_modules(root, &cat));
        cat.finish();
        cat
    }
}

/// The Rust crates of the tree whose `Cargo.toml` names them otherwise than their folder
/// (`[lib] name`, else `[package] name`): folder name → declared name. A missing or
/// unreadable manifest leaves the folder's name.
pub(super) fn rust_crate_names(
    root: &Path,
    cat: &Catalog,
) -> rustc_hash::FxHashMap<String, String> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut names = rustc_hash::FxHashMap::default();
    for f in cat.files.iter().filter(|f| f.family == Family::Rust) {
        let Some((dir, folder_name)) = modpath::rust_crate_dir(&f.rel) else {
            continue;
        };
        if !seen.insert(dir.clone()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(root.join(&dir).join(manifests::CARGO_MANIFEST))
        else {
            continue;
        };
        if let Some(declared) = manifests::rust_crate_name(&text)
            && declared != folder_name
        {
            names.insert(folder_name, declared);
        }
    }
    names
}

/// The Go modules of the tree: each `go.mod` beside or above a Go package folder, as (its
/// folder, the module path its `module` line declares). An import of `github.com/x/y/sub`
/// then finds folder `sub` of the module `github.com/x/y`, the module's root package too.
pub(super) fn go_modules(root: &Path, cat: &Catalog) -> Vec<(String, String)> {
    let mut folders: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    for f in cat.files.iter().filter(|f| f.family == Family::Go) {
        let mut dir = f.rel.rsplit_once('/').map_or("", |(d, _)| d);
        while folders.insert(dir) && !dir.is_empty() {
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
        }
    }
    let mut out = Vec::new();
    for dir in folders {
        let Ok(text) = std::fs::read_to_string(root.join(dir).join(manifests::GO_MANIFEST)) else {
            continue;
        };
        if let Some(module) = manifests::go_module_path(&text) {
            out.push((dir.to_owned(), module));
        }
    }
    out.sort();
    out
}

/// The stored references of the files `ids` (with `only`, of that kind only) and every fact.
pub(super) fn load_refs(
    conn: &Connection,
    cat: &Catalog,
    workers: &crate::budget::Workers,
    ids: &[i64],
    only: Option<cast_parser::RefKind>,
) -> rusqlite::Result<Vec<(u32, FileRefs)>> {
    use rayon::prelude::*;
    // Read in turn (one connection), decoded on every core.
    let mut blobs = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(f) = cat.file_by_id.get(*id) else {
            continue;
        };
        blobs.push((f, rows::file_blob(conn, *id, rows::FileBlob::Refs)?));
    }
    Ok(workers.install(|| {
        blobs
            .into_par_iter()
            .map(|(f, blob)| {
                let refs = blob
                    .and_then(|b| {
                        codec::decode_refs_where(&b, |kind| only.is_none_or(|o| o == kind))
                    })
                    .unwrap_or_default();
                (f, refs)
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::{load_catalog, load_catalog_while};
    use crate::Index;

    #[test]
    fn a_catalog_built_beside_other_work_is_the_catalog_built_in_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let files = [
            ("shop/__init__.py", "from shop.cart import Cart\n"),
            (
                "shop/cart.py",
                "from shop.prices import total\n\nclass Cart:\n    def checkout(self):\n        return total(self)\n",
            ),
            ("shop/prices.py", "def total(cart):\n    return 0\n"),
            (
                "tools/Cargo.toml",
                "[package]\nname = \"shop-tools\"\n\n[lib]\nname = \"shop_tools\"\n",
            ),
            ("tools/src/lib.rs", "pub mod report;\npub fn run() {}\n"),
            ("tools/src/report.rs", "pub struct Report;\n"),
        ];
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        // Enough files that the rows cross to the builder in more than one batch.
        for i in 0..600 {
            std::fs::write(
                root.join(format!("shop/item_{i}.py")),
                format!("from shop.cart import Cart\n\nclass Item{i}(Cart):\n    pass\n"),
            )
            .unwrap();
        }
        let index = Index::open(root).unwrap();
        let conn = rusqlite::Connection::open(index.db_path()).unwrap();
        let in_line = load_catalog(&conn, root, None).unwrap();
        let (beside, ran) = load_catalog_while(&conn, root, None, || "copied").unwrap();
        assert_eq!(ran, "copied");
        assert_eq!(in_line.files.len(), 605);
        assert!(in_line.syms.len() > 600);
        assert!(in_line.files.iter().any(|f| !f.inherits.is_empty()));
        assert_eq!(contents(&in_line), contents(&beside));
    }

    /// Everything the catalog holds but its generation (unique to each catalog built).
    fn contents(cat: &crate::graph::resolve::Catalog) -> String {
        let all = format!("{cat:?}");
        match all.split_once(", files: ") {
            Some((_, rest)) => rest.to_owned(),
            None => panic!(
                "the catalog's Debug form changed: {}",
                &all[..80.min(all.len())]
            ),
        }
    }
}
