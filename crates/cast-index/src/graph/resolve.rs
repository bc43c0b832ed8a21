//! Name resolution: from a file's references and imports to edges between symbols (the
//! reference/call graph) and between files (the import graph).
//!
//! A reference is resolved through what the code says, in this order:
//! 1. **local**: a def or class of the same name in an enclosing scope of the same file;
//! 2. **import**: a name bound by an import (`from m import n as x`, `import a.b as c`), followed
//!    through the module it names (and through one module's re-exports, up to three hops);
//!    `from m import *` makes every top-level name of `m` visible;
//! 3. **self / cls / super()**: a method of the enclosing class or of its base classes (bases are
//!    resolved the same way, first, so `self.method()` finds an inherited method);
//! 4. **module / class attributes**: `mod.func()`, `pkg.mod.Class.method()`, `Class.method()`;
//!    **typed receivers** (Python): `x.m()` and `self.x.m()` where the file says which class
//!    `x` holds (`x = Client()`, `def f(x: Client)`, `x: Optional[Client]`, `with Client() as
//!    x`, `self.x = x` in a method, `x: Client` in the class body; the parser's
//!    [`cast_parser::TypeFact`]s): that class's method, through its bases. Facts that name two
//!    classes, or none of the tree, resolve nothing. In Go, Java, TypeScript and Rust the
//!    facts are the declared types (a receiver, a parameter, `var x T`, `Client c`, `x: T`,
//!    a field of the instance), `x := T{}` / `new T()` / `T::new()`, and what a function's
//!    declared return type gives (`c, err := NewClient()`, `x.Parent().Name()`); a Go method
//!    is found by its receiver in any file of the package;
//! 5. **by name**, only when none of the above applies and the name is not a Python builtin: a
//!    call `f()` goes to every top-level function or class named `f`, a call `obj.m()` on an
//!    unknown receiver to every method named `m` (dunder names excluded), each edge weighted 1/k
//!    for k candidates, and none at all when more than [`MAX_BY_NAME`] candidates exist.
//!
//! Modules are found from paths: `a/b/c.py` is `a.b.c`, `a/b/__init__.py` is `a.b`. An absolute
//! import matches any file whose dotted path ends with the imported name (so `src/` layouts and
//! `site-packages/` work); among several, the one sharing the most leading folders with the
//! importing file wins, then the shallowest, then `.py` over `.pyi`. Relative imports are exact.
//!
//! The other languages follow the same steps with their own module rules (`cast_parser::modules::paths`): Rust
//! `crate::`/`super::`/`mod` paths, Go packages (folders) and Java packages (whose files see
//! each other's names without imports), JavaScript/TypeScript specifiers. `self`, `Self` and
//! `this` reach the enclosing type (for Rust, every `impl` of the type), `super` its bases; a
//! name's candidates by name come from files of the same language family only.

/// Resolution hashes millions of short names and ids; FxHash is several times faster than
/// the default SipHash for them.
type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;

use cast_parser::{Import, RefKind, SymbolKind, TypeFact, TypeSource};

use crate::codec::{FileRefs, Reader, SymtabEntry, put_varint, ref_kind_code, ref_kind_of};
use crate::graph::texts::Texts;
use cast_parser::modules::CommonNames;
use cast_parser::modules::ModuleFamily as Family;
use cast_parser::modules::paths as modpath;

thread_local! {
    /// How deep [`Catalog::class_held`] is in itself on this thread.
    static FACT_DEPTH: std::cell::Cell<u8> = const { std::cell::Cell::new(0) };
}

/// One level of [`FACT_DEPTH`], given back when dropped.
struct Nesting;

impl Nesting {
    const MAX: u8 = 8;

    fn enter() -> Option<Nesting> {
        FACT_DEPTH.with(|d| {
            let depth = d.get();
            (depth < Self::MAX).then(|| {
                d.set(depth + 1);
                Nesting
            })
        })
    }
}

impl Drop for Nesting {
    fn drop(&mut self) {
        FACT_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// A receiver expression's resolution (the class it names and how), cached per scope.
type Receiver = Option<(u32, How)>;

/// The callee of a receiver that is one call (`Client(a, b)` → `Client`), its parentheses
/// balanced; `None` for anything else.
fn called_name(receiver: &str) -> Option<&str> {
    let inner = receiver.strip_suffix(')')?;
    let mut depth = 1u32;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&inner[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// A file's type facts (see [`Catalog::facts_by_target`]).
#[derive(Default)]
struct Facts<'f> {
    /// By (function or class, target).
    by_target: HashMap<(Option<u32>, &'f str), Vec<HeldBy<'f>>>,
    /// The variables (not `self.x`) some fact is about.
    variables: std::collections::HashSet<&'f str, rustc_hash::FxBuildHasher>,
}

/// One fact about what a target holds: where it was written and what it says.
struct HeldBy<'f> {
    scope: Option<u32>,
    source: &'f TypeSource,
    line: u32,
}

/// More candidates than this for a by-name reference resolve to nothing: the name is too common
/// to say anything.
pub const MAX_BY_NAME: usize = 8;

/// Declared modules (`mod m;`) one reference may pass through on its way to a name (a path
/// names each module it passes, so a real chain holds few).
const MAX_MODULE_HOPS: u32 = 8;

/// How an edge was resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum How {
    /// Same file, enclosing scope.
    Local,
    /// Through an import.
    Import,
    /// `self.m` / `cls.m`: the enclosing class or its bases.
    #[serde(rename = "self")]
    SelfRef,
    /// `super().m`: a base class.
    Super,
    /// `module.name` or `Class.name`.
    Attribute,
    /// By name alone (weighted 1/k over k candidates).
    Name,
    /// A program-wide name (C, Ruby, PHP) that nothing else binds and exactly one definition
    /// in the tree has.
    Global,
    /// `x.m()` where what `x` holds is known from the file (`x = Client()`, `x: Client`,
    /// `self.x = x` with `x: Client`): a method of that class.
    Typed,
}

impl How {
    fn code(self) -> u8 {
        match self {
            How::Local => 0,
            How::Import => 1,
            How::SelfRef => 2,
            How::Super => 3,
            How::Attribute => 4,
            How::Name => 5,
            How::Global => 6,
            How::Typed => 7,
        }
    }

    fn from_code(c: u8) -> Option<How> {
        Some(match c {
            0 => How::Local,
            1 => How::Import,
            2 => How::SelfRef,
            3 => How::Super,
            4 => How::Attribute,
            5 => How::Name,
            6 => How::Global,
            7 => How::Typed,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            How::Local => "local",
            How::Import => "import",
            How::SelfRef => "self",
            How::Super => "super",
            How::Attribute => "attribute",
            How::Name => "name",
            How::Global => "global",
            How::Typed => "typed",
        }
    }
}

/// A resolved reference from a symbol (or a file's module level) to a symbol.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Edge {
    /// Dense symbol index of the referring symbol; `None` for module-level code.
    pub src: Option<u32>,
    pub dst: u32,
    pub how: How,
    pub kind: RefKind,
    /// Number of candidates the name had (the edge weighs 1/k).
    pub k: u16,
    pub line: u32,
}

impl Edge {
    pub(crate) fn weight(&self) -> f64 {
        1.0 / f64::from(self.k.max(1))
    }
}

/// An import of one file by another, with the line of the import statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dep {
    pub dst: u32,
    pub line: u32,
}

/// One file's second pass: its edges and imports of other files as they are stored, and the
/// imports themselves.
pub(crate) struct Resolved {
    pub file: u32,
    pub edges: Vec<u8>,
    pub deps_blob: Vec<u8>,
    pub deps: Vec<Dep>,
}

#[derive(Debug, Clone)]
pub(crate) struct CatSym {
    pub id: i64,
    pub file: u32,
    /// The enclosing symbol's index + 1, or 0 at the top of its file: 4 bytes where an
    /// `Option<u32>` takes 8 (a symbol is 32 bytes, not 40).
    parent_plus_one: u32,
    /// Python's `@overload`: a signature, not the definition calls reach.
    overload: bool,
    pub kind: SymbolKind,
    pub name: u32,
    pub decorated_line: u32,
    pub header_end_line: u32,
}

impl CatSym {
    /// The enclosing symbol.
    pub(crate) fn parent(&self) -> Option<u32> {
        self.parent_plus_one.checked_sub(1)
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct CatFile {
    pub id: i64,
    pub rel: String,
    pub family: Family,
    /// The language's standard-library names that are not resolved by name alone.
    pub common: CommonNames,
    /// The module the file is, as `cast_parser::modules::paths::module_name` names it (`a.b.c` for Python).
    pub module: String,
    pub imports: Vec<CatImport>,
    /// Indexes into `imports` (star imports left out) sorted by the name each binds, in source
    /// order among equal names: binding a name searches here instead of scanning every import.
    /// Four bytes an import, where a table by name held a copy of each name and a list per name.
    imports_by_name: Box<[u32]>,
    /// Indexes of the `from m import *` imports, in source order.
    star_imports: Vec<u32>,
    /// Dense symbol indexes in source order.
    pub syms: Vec<u32>,
    /// The file's inheritance edges (what [`Catalog::rebuild_bases`] reads). The other edges
    /// are not held: each file's are written as they are resolved, and ranking reads them back
    /// from the index ([`crate::graph::stored::rank_and_store`]).
    pub inherits: Vec<Edge>,
    pub deps: Vec<Dep>,
}

impl CatFile {
    /// The `from m import *` imports, in source order.
    fn star_imports(&self) -> impl Iterator<Item = &CatImport> + '_ {
        self.star_imports
            .iter()
            .filter_map(|&k| self.imports.get(k as usize))
    }
}

/// An import as resolution holds it, its names interned in [`Catalog::texts`] (28 bytes and no
/// string of its own, where a parsed [`Import`] is 96 and three strings: a large tree has
/// hundreds of thousands of imports, mostly of the same few modules and names).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CatImport {
    module: u32,
    /// The imported name (`from m import name`), or [`Texts::NONE`].
    name: u32,
    /// The name it binds ([`Import::bound_name`]).
    bound: u32,
    aliased: bool,
    /// Leading dots of a relative import (0 for an absolute one).
    level: u32,
    line: u32,
    /// Index of the enclosing symbol in the file, or [`Texts::NONE`].
    scope: u32,
}

impl CatImport {
    fn scope(&self) -> Option<usize> {
        (self.scope != Texts::NONE).then_some(self.scope as usize)
    }

    fn is_star(&self, texts: &Texts) -> bool {
        texts.get_opt(self.name) == Some("*")
    }
}

/// Row id → dense index, for the files' and the symbols' ids. Row ids are nearly always dense
/// (1 to the row count, with the gaps deletions leave), so those are a list indexed by id (four
/// bytes a row, where a hash table takes 17 to 34); an id far past the rows there are goes to a
/// table.
#[derive(Debug, Default)]
pub(crate) struct IdMap {
    dense: Vec<u32>,
    sparse: HashMap<i64, u32>,
    len: usize,
}

impl IdMap {
    const NONE: u32 = u32::MAX;

    /// Room for `n` ids.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.dense
            .reserve_exact((2 * n + 1024).saturating_sub(self.dense.len()));
    }

    pub(crate) fn insert(&mut self, id: i64, index: u32) {
        self.len += 1;
        let slot = usize::try_from(id)
            .ok()
            .filter(|&i| i < 2 * self.len + 1024);
        match slot {
            Some(i) => {
                if i >= self.dense.len() {
                    self.dense.resize(i + 1, Self::NONE);
                }
                self.dense[i] = index;
            }
            None => {
                self.sparse.insert(id, index);
            }
        }
    }

    pub(crate) fn get(&self, id: i64) -> Option<u32> {
        let dense = usize::try_from(id)
            .ok()
            .and_then(|i| self.dense.get(i).copied());
        match dense {
            Some(Self::NONE) | None => self.sparse.get(&id).copied(),
            found => found,
        }
    }
}

/// Which catalog this is, unique in the process: what a per-thread cache of lookups in one
/// catalog is keyed by (see [`Catalog::nearest_module`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Generation(u64);

impl Default for Generation {
    fn default() -> Generation {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Generation(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// The modules found nearest a file, per (file, family, name), on this thread, in one catalog:
/// the files being resolved name the same modules at many references (`os.path.join`,
/// `os.sep`), and finding the nearest is a scan of every module with that tail. At most
/// [`NEAREST_KEPT`] answers are kept (then it starts afresh), so it stays small.
struct NearestCache {
    of: Option<Generation>,
    found: rustc_hash::FxHashMap<(u32, Family, u32), Option<u32>>,
}

const NEAREST_KEPT: usize = 1 << 14;

thread_local! {
    static NEAREST: std::cell::RefCell<NearestCache> = std::cell::RefCell::new(NearestCache {
        of: None,
        found: rustc_hash::FxHashMap::default(),
    });
}

/// Everything resolution and ranking need, in memory: files, symbols, names, edges.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    generation: Generation,
    pub files: Vec<CatFile>,
    pub file_by_id: IdMap,
    pub syms: Vec<CatSym>,
    pub sym_by_id: IdMap,
    /// The symbols' names ([`CatSym::name`]).
    names: Texts,
    /// The strings of imports ([`CatImport`]).
    texts: Texts,
    /// Modules by name, the names interned in `texts` (a name and each of its tails is a
    /// string of its own per file otherwise).
    module_exact: HashMap<(Family, u32), u32>,
    module_suffix: HashMap<(Family, u32), Vec<u32>>,
    /// Go and Java: the files of each package (folder).
    packages: HashMap<(Family, u32), Vec<u32>>,
    /// Python: the folders that are packages (hold an `__init__.py` or `__init__.pyi`).
    python_packages: rustc_hash::FxHashSet<String>,
    /// (file, parent + 1 or 0, name) → first symbol of that name in that scope.
    children: HashMap<(u32, u32, u32), u32>,
    top_by_name: HashMap<(Family, u32), Vec<u32>>,
    methods_by_name: HashMap<(Family, u32), Vec<u32>>,
    /// Rust: the `impl` blocks of each type name.
    impls: HashMap<u32, Vec<u32>>,
    bases: HashMap<u32, Vec<u32>>,
    /// The type each function's return annotation names, as written (interned in `texts`):
    /// functions with one only.
    returns: HashMap<u32, u32>,
    /// (owner, name) → the methods declared outside their type (Go's methods by receiver):
    /// what [`Catalog::member`] finds of a type besides its children.
    owned: HashMap<(u32, u32), Vec<u32>>,
    /// Rust: a crate's name as its path gives it → the name its `Cargo.toml` declares, where
    /// they differ (`crates/matcher/` holds `grep_matcher`).
    rust_crate_names: HashMap<String, String>,
    /// Go: (folder of a `go.mod`, the module path it declares).
    go_modules: Vec<(String, String)>,
}

/// Python's builtins and common exceptions: a call of one is never an in-repository edge by
/// name. Sorted (byte order), for a binary search: it is asked of every reference by name.
const BUILTINS: &[&str] = &[
    "AssertionError",
    "AttributeError",
    "BaseException",
    "Exception",
    "ImportError",
    "IndexError",
    "KeyError",
    "LookupError",
    "NotImplementedError",
    "OSError",
    "RuntimeError",
    "StopIteration",
    "TypeError",
    "ValueError",
    "__import__",
    "abs",
    "aiter",
    "all",
    "anext",
    "any",
    "ascii",
    "bin",
    "bool",
    "breakpoint",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "compile",
    "complex",
    "delattr",
    "dict",
    "dir",
    "divmod",
    "enumerate",
    "eval",
    "exec",
    "filter",
    "float",
    "format",
    "frozenset",
    "getattr",
    "globals",
    "hasattr",
    "hash",
    "help",
    "hex",
    "id",
    "input",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "locals",
    "map",
    "max",
    "memoryview",
    "min",
    "next",
    "object",
    "oct",
    "open",
    "ord",
    "pow",
    "print",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "setattr",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "type",
    "vars",
    "zip",
];

fn common_dirs(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

/// A name's numbers, where it has them: among the symbols' names ([`Catalog::names`]) and
/// among the imports' texts ([`Catalog::texts`]).
#[derive(Clone, Copy)]
struct BindKey {
    symbol: Option<u32>,
    import: Option<u32>,
}

/// What the names of one file bind, each asked once: many references share a scope and a
/// name, and a receiver's first name (`os` of `os.path.join`) is a name like any other.
/// Borrows its keys from the file's references (`'r`).
#[derive(Default)]
struct FileBinds<'r> {
    /// Per scope and name: what it binds, and whether that came from the top of the file.
    in_scope: HashMap<(Option<u32>, &'r str), (Bind, bool)>,
    /// Per name: its numbers, looked up in the catalog's large tables once per file, and what
    /// it binds at the top of the file, which every scope that does not bind it shares.
    names: HashMap<&'r str, (BindKey, Option<Bind>)>,
    /// Per dotted receiver and called name whose first name binds at the top of the file:
    /// what the chain reaches, the same from every scope.
    walks: HashMap<(&'r str, &'r str), Option<u32>>,
}

impl<'r> FileBinds<'r> {
    fn with_capacity(refs: usize) -> FileBinds<'r> {
        FileBinds {
            in_scope: HashMap::with_capacity_and_hasher(refs / 4, Default::default()),
            names: HashMap::with_capacity_and_hasher(refs / 4, Default::default()),
            walks: HashMap::default(),
        }
    }

    /// What `name` binds at `scope` of `file` ([`Catalog::bind`]), and whether it binds
    /// there only through the top of the file.
    fn bind(
        &mut self,
        catalog: &Catalog,
        file: u32,
        scope: Option<u32>,
        name: &'r str,
    ) -> &(Bind, bool) {
        Self::bind_in(
            &mut self.in_scope,
            &mut self.names,
            catalog,
            file,
            scope,
            name,
        )
    }

    /// [`Self::bind`] over the two maps it uses, so that a caller may keep the answer while it
    /// reads and fills [`Self::walks`].
    fn bind_in<'m>(
        in_scope: &'m mut HashMap<(Option<u32>, &'r str), (Bind, bool)>,
        names: &mut HashMap<&'r str, (BindKey, Option<Bind>)>,
        catalog: &Catalog,
        file: u32,
        scope: Option<u32>,
        name: &'r str,
    ) -> &'m (Bind, bool) {
        in_scope.entry((scope, name)).or_insert_with(|| {
            let (key, at_top) = names
                .entry(name)
                .or_insert_with(|| (catalog.bind_key(name), None));
            match catalog.bind_in_scopes(file, scope, name, *key) {
                Some(bind) => (bind, false),
                None => (
                    at_top
                        .get_or_insert_with(|| catalog.bind_in_module(file, name, *key))
                        .clone(),
                    true,
                ),
            }
        })
    }
}

#[derive(Clone)]
enum Bind {
    Sym(u32),
    /// A module by its name (see `cast_parser::modules::paths`); `exact` when it is a full path from the root.
    Module {
        family: Family,
        name: String,
        exact: bool,
    },
    Nothing,
}

impl Catalog {
    /// Room for `files` files and `symbols` symbols, which [`Self::add_file`] and
    /// [`Self::add_sym`] would otherwise grow by doubling (up to twice the room they need).
    pub(crate) fn reserve(&mut self, files: usize, symbols: usize) {
        self.files.reserve_exact(files);
        self.file_by_id.reserve(files);
        self.syms.reserve_exact(symbols);
        self.sym_by_id.reserve(symbols);
    }

    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        self.names.intern(s)
    }

    fn name_id(&self, s: &str) -> Option<u32> {
        self.names.id(s)
    }

    /// The imports of `f` that bind `name` (star imports excluded), in source order.
    fn imports_named<'a>(
        &self,
        f: &'a CatFile,
        name: &str,
    ) -> impl Iterator<Item = &'a CatImport> + 'a {
        Self::imports_bound(f, self.texts.id(name))
    }

    /// [`Self::imports_named`] by the name's number in [`Self::texts`] (`None`: no import
    /// anywhere binds the name), for a caller that asks at many levels.
    fn imports_bound(f: &CatFile, text: Option<u32>) -> impl Iterator<Item = &CatImport> + '_ {
        let found: &[u32] = match text {
            Some(id) => {
                let bound = |k: &u32| f.imports.get(*k as usize).map_or(Texts::NONE, |i| i.bound);
                let start = f.imports_by_name.partition_point(|k| bound(k) < id);
                let tail = &f.imports_by_name[start..];
                &tail[..tail.partition_point(|k| bound(k) == id)]
            }
            None => &[],
        };
        found.iter().filter_map(|&k| f.imports.get(k as usize))
    }

    /// Adds a file; `language` is the parser's name for it (`python`, `rust`, …).
    pub(crate) fn add_file(
        &mut self,
        id: i64,
        rel: &str,
        language: Option<&str>,
        imports: Vec<Import>,
    ) -> u32 {
        let rules = language.map_or_else(
            || cast_parser::languages::module_rules_of_path(rel),
            cast_parser::languages::module_rules,
        );
        let family = rules.family;
        let idx = self.files.len() as u32;
        let imports: Vec<CatImport> = imports
            .iter()
            .map(|imp| CatImport {
                module: self.texts.intern(&imp.module),
                name: self.texts.intern_opt(imp.name.as_deref()),
                bound: self.texts.intern(imp.bound_name()),
                aliased: imp.alias.is_some(),
                level: imp.level,
                line: imp.line,
                scope: imp
                    .scope
                    .and_then(|s| u32::try_from(s).ok())
                    .unwrap_or(Texts::NONE),
            })
            .collect();
        let (star_imports, mut imports_by_name): (Vec<u32>, Vec<u32>) =
            (0..imports.len() as u32).partition(|&k| imports[k as usize].is_star(&self.texts));
        // Stable: source order among imports that bind the same name.
        imports_by_name.sort_by_key(|&k| imports[k as usize].bound);
        self.files.push(CatFile {
            id,
            rel: rel.to_owned(),
            family,
            common: rules.common,
            module: modpath::module_name(family, rel),
            imports,
            imports_by_name: imports_by_name.into_boxed_slice(),
            star_imports,
            ..CatFile::default()
        });
        self.file_by_id.insert(id, idx);
        idx
    }

    /// Adds a symbol of `file`; symbols must come in source order, parents first.
    /// `parent` is the catalog index of the enclosing symbol.
    pub(crate) fn add_sym(
        &mut self,
        file: u32,
        parent: Option<u32>,
        kind: SymbolKind,
        e: &SymtabEntry,
    ) -> u32 {
        let name = self.intern(&e.name);
        let idx = self.syms.len() as u32;
        self.syms.push(CatSym {
            id: e.id,
            file,
            parent_plus_one: parent.map_or(0, |p| p + 1),
            overload: e.overload,
            kind,
            name,
            decorated_line: e.decorated_line,
            header_end_line: e.header_end_line,
        });
        self.sym_by_id.insert(e.id, idx);
        if let Some(f) = self.files.get_mut(file as usize) {
            f.syms.push(idx);
        }
        if let Some(returns) = &e.returns {
            let text = self.texts.intern(returns);
            self.returns.insert(idx, text);
        }
        if let Some(owner) = &e.owner {
            let owner = self.intern(owner);
            self.owned.entry((owner, name)).or_default().push(idx);
        }
        idx
    }

    /// Builds the lookup tables once all files and symbols are in.
    /// Declares Rust crate names that differ from their folder's (read from `Cargo.toml` by
    /// the caller); takes effect at [`Catalog::finish`].
    pub(crate) fn set_rust_crate_names(&mut self, names: HashMap<String, String>) {
        self.rust_crate_names = names;
    }

    /// Declares the tree's Go modules (read from each `go.mod` by the caller); takes effect at
    /// [`Catalog::finish`].
    pub(crate) fn set_go_modules(&mut self, modules: Vec<(String, String)>) {
        self.go_modules = modules;
    }

    pub(crate) fn finish(&mut self) {
        self.module_exact.clear();
        self.module_suffix.clear();
        self.packages.clear();
        self.python_packages = self
            .files
            .iter()
            .filter(|f| f.family == Family::Python)
            .filter_map(|f| {
                let (dir, name) = f.rel.rsplit_once('/').unwrap_or(("", &f.rel));
                matches!(name, "__init__.py" | "__init__.pyi").then(|| dir.to_owned())
            })
            .collect();
        for i in 0..self.files.len() {
            let (family, module) = (self.files[i].family, self.files[i].module.clone());
            if family == Family::Other {
                continue;
            }
            let i = i as u32;
            let key = (family, self.texts.intern(&module));
            match self.module_exact.get(&key) {
                // `.py` over `.pyi`, `x.ts` over `x/index.ts` and `.d.ts`, `lib.rs` over `main.rs`.
                Some(&old)
                    if !modpath::prefer(
                        &self.files[i as usize].rel,
                        &self.files[old as usize].rel,
                    ) => {}
                _ => {
                    self.module_exact.insert(key, i);
                }
            }
            if family.has_packages() {
                self.packages.entry(key).or_default().push(i);
            }
            if family.matches_suffixes() {
                let separator = modpath::separator(family);
                let whole = std::iter::once(module.as_str());
                for tail in whole.chain(modpath::tails(&module, separator)) {
                    let tail = self.texts.intern(tail);
                    self.module_suffix
                        .entry((family, tail))
                        .or_default()
                        .push(i);
                }
            }
        }
        // A Rust crate is imported by its declared name: `grep_matcher::Match`.
        let aliases: Vec<(String, u32)> = self
            .module_exact
            .iter()
            .filter(|((family, _), _)| *family == Family::Rust)
            .filter_map(|(&(_, module), &file)| {
                let module = self.texts.get(module);
                let (krate, rest) = module.split_once('.').unwrap_or((module, ""));
                let declared = self.rust_crate_names.get(krate)?;
                let alias = if rest.is_empty() {
                    declared.clone()
                } else {
                    format!("{declared}.{rest}")
                };
                Some((alias, file))
            })
            .collect();
        for (alias, file) in aliases {
            let key = (Family::Rust, self.texts.intern(&alias));
            self.module_exact.entry(key).or_insert(file);
        }
        // A Go package is imported by its module's path and its folder inside the module (the
        // package's file as its folder's name gives it).
        let mut go_aliases: Vec<(String, u32)> = Vec::new();
        for (dir, module_path) in &self.go_modules {
            for (&(family, folder), &file) in &self.module_exact {
                if family != Family::Go {
                    continue;
                }
                let folder = self.texts.get(folder);
                let inside = if dir.is_empty() {
                    Some(folder)
                } else if folder == dir {
                    Some("")
                } else {
                    folder
                        .strip_prefix(dir.as_str())
                        .and_then(|r| r.strip_prefix('/'))
                };
                if let Some(inside) = inside {
                    let alias = if inside.is_empty() {
                        module_path.clone()
                    } else {
                        format!("{module_path}/{inside}")
                    };
                    go_aliases.push((alias, file));
                }
            }
        }
        go_aliases.sort();
        for (alias, file) in go_aliases {
            let key = (Family::Go, self.texts.intern(&alias));
            self.module_exact.entry(key).or_insert(file);
        }
        self.children.clear();
        // At its size at once: grown by doubling, the old and the new table are held together.
        self.children.reserve(self.syms.len());
        self.top_by_name.clear();
        self.methods_by_name.clear();
        self.impls.clear();
        // Names inside a namespace block (C++, C#) or a Ruby module are also the file's, for a
        // lookup from outside: `using Shop.Store;` then `Store`, `require` then `Store`.
        let open_namespaces = |sym: &CatSym| -> bool {
            let family = self.files[sym.file as usize].family;
            if !family.opens_namespaces() {
                return false;
            }
            let mut parent = sym.parent();
            while let Some(p) = parent {
                let outer = &self.syms[p as usize];
                if outer.kind != SymbolKind::Module {
                    return false;
                }
                parent = outer.parent();
            }
            true
        };
        let file_level: Vec<bool> = self
            .syms
            .iter()
            .map(|s| s.parent_plus_one == 0 || open_namespaces(s))
            .collect();
        for (i, s) in self.syms.iter().enumerate() {
            let i = i as u32;
            if s.parent_plus_one != 0 && file_level[i as usize] {
                self.children.entry((s.file, 0, s.name)).or_insert(i);
            }
            let parent = s.parent_plus_one;
            // The first definition of a name in its scope, but an `@overload` stub gives way
            // to the definition after it that is none: what the call runs.
            let syms = &self.syms;
            self.children
                .entry((s.file, parent, s.name))
                .and_modify(|first| {
                    if syms[*first as usize].overload && !s.overload {
                        *first = i;
                    }
                })
                .or_insert(i);
            let family = self.files[s.file as usize].family;
            match s.kind {
                SymbolKind::Method => self
                    .methods_by_name
                    .entry((family, s.name))
                    .or_default()
                    .push(i),
                SymbolKind::Impl => self.impls.entry(s.name).or_default().push(i),
                SymbolKind::Function
                | SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Trait
                | SymbolKind::Interface
                | SymbolKind::Type
                | SymbolKind::Macro
                    if file_level[i as usize] =>
                {
                    self.top_by_name
                        .entry((family, s.name))
                        .or_default()
                        .push(i)
                }
                _ => {}
            }
        }
        self.rebuild_bases();
    }

    /// Frees what only resolution looks things up in (names, paths, modules, imports, members),
    /// keeping what ranking reads (files' ids and imports between files, symbols and ids):
    /// ranking's own lists then take the memory back instead of adding to the peak.
    pub(crate) fn release_lookups(&mut self) {
        self.names = Texts::default();
        self.texts = Texts::default();
        self.module_exact = HashMap::default();
        self.module_suffix = HashMap::default();
        self.packages = HashMap::default();
        self.python_packages = rustc_hash::FxHashSet::default();
        self.children = HashMap::default();
        self.top_by_name = HashMap::default();
        self.methods_by_name = HashMap::default();
        self.impls = HashMap::default();
        self.bases = HashMap::default();
        self.returns = HashMap::default();
        self.owned = HashMap::default();
        for f in &mut self.files {
            f.rel = String::new();
            f.module = String::new();
            f.syms = Vec::new();
            f.imports = Vec::new();
            f.imports_by_name = Box::default();
            f.star_imports = Vec::new();
            f.inherits = Vec::new();
        }
    }

    /// Base classes from the `Inherit` edges currently held.
    pub(crate) fn rebuild_bases(&mut self) {
        self.bases.clear();
        for f in &self.files {
            for e in &f.inherits {
                if e.kind == RefKind::Inherit
                    && let Some(src) = e.src
                {
                    self.bases.entry(src).or_default().push(e.dst);
                }
            }
        }
    }

    /// The file of module `name` in `family`. Exact names are full paths; others match the
    /// modules they are a tail of (Python, Java, bare JavaScript specifiers) or, for Go, the
    /// longest tail of the import path that is a package of the tree.
    fn module_file(&self, family: Family, name: &str, exact: bool, from: u32) -> Option<u32> {
        if exact {
            return self.module_named(family, name);
        }
        match family {
            Family::Go => {
                let whole = std::iter::once(name);
                return whole
                    .chain(modpath::tails(name, '/'))
                    .find_map(|tail| self.module_named(family, tail));
            }
            Family::Js => {
                // `pkg/sub` is `sub` inside package `pkg` (`@scope/pkg/sub`: two parts).
                let skip = if name.starts_with('@') { 2 } else { 1 };
                let inside = name.splitn(skip + 1, '/').nth(skip);
                let found = self.nearest_module(family, name, from);
                return found.or_else(|| inside.and_then(|n| self.nearest_module(family, n, from)));
            }
            Family::C => {
                // `#include "x.h"`: beside the including file first, then anywhere by suffix.
                let beside = modpath::c_include_beside(&self.files[from as usize].rel, name);
                return beside
                    .and_then(|path| self.module_named(family, &path))
                    .or_else(|| self.nearest_module(family, modpath::c_include_tail(name), from));
            }
            _ => {}
        }
        self.nearest_module(family, name, from)
    }

    /// Whether Python file `c`, whose module `name` is a tail of, can be what an absolute
    /// `import name` gets: the folders its path has above `name` must not form a package (hold
    /// an `__init__.py`), or its name would start with them. `import json` in
    /// `rest_framework/utils/json.py` is the standard library's `json`, not that file (whose name
    /// is `rest_framework.utils.json`); `flask.app` in `src/flask/app.py` is that file (`src/` is
    /// a folder on the path, not a package).
    fn python_importable_as(&self, c: u32, name: &str) -> bool {
        let rel = &self.files[c as usize].rel;
        let stem = rel
            .strip_suffix(".py")
            .or_else(|| rel.strip_suffix(".pyi"))
            .or_else(|| rel.strip_suffix(".pyx"))
            .unwrap_or(rel);
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let depth = name.split('.').count();
        let mut above = stem;
        for _ in 0..depth {
            above = above.rsplit_once('/').map_or("", |(dir, _)| dir);
        }
        above.is_empty() || !self.python_packages.contains(above)
    }

    /// The file of the module whose full name is `name`.
    fn module_named(&self, family: Family, name: &str) -> Option<u32> {
        let name = self.texts.id(name)?;
        self.module_exact.get(&(family, name)).copied()
    }

    /// Among the modules `name` is a tail of, the nearest to `from` (kept for the file being
    /// resolved on this thread: see [`NearestCache`]).
    fn nearest_module(&self, family: Family, name: &str, from: u32) -> Option<u32> {
        let id = self.texts.id(name)?;
        let of = Some(self.generation);
        let key = (from, family, id);
        if let Some(found) = NEAREST.with_borrow(|cache| {
            (cache.of == of)
                .then(|| cache.found.get(&key).copied())
                .flatten()
        }) {
            return found;
        }
        let found = self.find_nearest_module(family, name, id, from);
        NEAREST.with_borrow_mut(|cache| {
            if cache.of != of || cache.found.len() >= NEAREST_KEPT {
                cache.of = of;
                cache.found.clear();
            }
            cache.found.insert(key, found);
        });
        found
    }

    fn find_nearest_module(&self, family: Family, name: &str, id: u32, from: u32) -> Option<u32> {
        let all = self.module_suffix.get(&(family, id))?;
        let kept: Vec<u32>;
        let cands: &[u32] = if family == Family::Python {
            kept = all
                .iter()
                .copied()
                .filter(|&c| self.python_importable_as(c, name))
                .collect();
            &kept
        } else {
            all
        };
        if cands.len() <= 1 {
            return cands.first().copied();
        }
        // The candidate nearest `from`: most folders in common, then the shallowest, a .py over
        // a .pyi, then the first path in order.
        let from_rel = &self.files[from as usize].rel;
        cands.iter().copied().max_by_key(|&c| {
            let rel = &self.files[c as usize].rel;
            (
                common_dirs(from_rel, rel),
                std::cmp::Reverse(memchr::memchr_iter(b'/', rel.as_bytes()).count()),
                !rel.ends_with(".pyi"),
                std::cmp::Reverse(rel),
            )
        })
    }

    /// The other files of `file`'s package (Go, Java), `file` first.
    fn package_of(&self, file: u32) -> impl Iterator<Item = u32> + '_ {
        let f = &self.files[file as usize];
        let others: &[u32] = if f.family.has_packages() {
            self.texts
                .id(&f.module)
                .and_then(|module| self.packages.get(&(f.family, module)))
                .map_or(&[], Vec::as_slice)
        } else {
            &[]
        };
        std::iter::once(file).chain(others.iter().copied().filter(move |&o| o != file))
    }

    fn child(&self, file: u32, parent: Option<u32>, name: u32) -> Option<u32> {
        self.children
            .get(&(file, parent.map_or(0, |p| p + 1), name))
            .copied()
    }

    /// A member of a class, or of its bases (breadth-first, at most 6 levels). A Rust type's
    /// members are in its `impl` blocks, anywhere in the same crate.
    fn member(&self, class: u32, name: u32) -> Option<u32> {
        let mut frontier = vec![class];
        let mut seen = vec![class];
        for _ in 0..6 {
            let mut next = Vec::new();
            for c in frontier {
                let file = self.syms[c as usize].file;
                if let Some(m) = self.child(file, Some(c), name) {
                    return Some(m);
                }
                if let Some(m) = self.impl_member(c, name) {
                    return Some(m);
                }
                if let Some(m) = self.owned_member(c, name) {
                    return Some(m);
                }
                for &b in self.bases.get(&c).map_or(&[][..], |v| v) {
                    if !seen.contains(&b) {
                        seen.push(b);
                        next.push(b);
                    }
                }
            }
            if next.is_empty() {
                return None;
            }
            frontier = next;
        }
        None
    }

    /// A method of the other `impl` blocks of a Rust type (the same crate first).
    fn impl_member(&self, class: u32, name: u32) -> Option<u32> {
        let sym = &self.syms[class as usize];
        let file = &self.files[sym.file as usize];
        if file.family != Family::Rust {
            return None;
        }
        let krate = file.module.split('.').next().unwrap_or("");
        let impls = self.impls.get(&sym.name)?;
        let in_crate = |i: &&u32| {
            let f = &self.files[self.syms[**i as usize].file as usize];
            f.family == Family::Rust && f.module.split('.').next() == Some(krate)
        };
        impls
            .iter()
            .filter(in_crate)
            .filter(|&&i| i != class)
            .find_map(|&i| self.child(self.syms[i as usize].file, Some(i), name))
    }

    /// A method of a type declared outside it: in Go, by its receiver, in a file of the same
    /// package; elsewhere in the type's own file (C++'s `void Foo::bar() {}`).
    fn owned_member(&self, class: u32, name: u32) -> Option<u32> {
        let sym = &self.syms[class as usize];
        let methods = self.owned.get(&(sym.name, name))?;
        let file = &self.files[sym.file as usize];
        methods.iter().copied().find(|&m| {
            let other = self.syms[m as usize].file;
            other == sym.file
                || (file.family.has_packages()
                    && self.files[other as usize].family == file.family
                    && self.files[other as usize].module == file.module)
        })
    }

    /// The module names of Rust's inline `mod` blocks around a symbol, outermost first.
    fn inline_modules(&self, scope: Option<u32>) -> Vec<&str> {
        let mut out = Vec::new();
        let mut cur = scope;
        while let Some(s) = cur {
            let sym = &self.syms[s as usize];
            if sym.kind == SymbolKind::Module {
                out.push(self.names.get(sym.name));
            }
            cur = sym.parent();
        }
        out.reverse();
        out
    }

    /// The module name an import statement refers to, and whether it is exact.
    fn import_base(&self, file: u32, imp: &CatImport) -> Option<(String, bool)> {
        let f = &self.files[file as usize];
        let module = self.texts.get(imp.module);
        match f.family {
            Family::Rust => {
                let scope = imp.scope().and_then(|o| f.syms.get(o).copied());
                let mut current = f.module.clone();
                for inline in self.inline_modules(scope) {
                    current.push('.');
                    current.push_str(inline);
                }
                // A child module: declared by `mod name;` or an inline `mod name { … }`.
                let is_child = |name: &str| {
                    self.imports_named(f, name)
                        .any(|i| self.texts.get(i.module) == "self")
                        || self.name_id(name).is_some_and(|n| {
                            self.child(file, scope, n)
                                .is_some_and(|c| self.syms[c as usize].kind == SymbolKind::Module)
                        })
                };
                return Some((modpath::rust_path(&current, module, is_child), true));
            }
            Family::Js => return Some(modpath::js_path(&f.rel, module)),
            Family::Ruby => return Some(modpath::ruby_path(&f.rel, module)),
            Family::Go
            | Family::Java
            | Family::C
            | Family::CSharp
            | Family::Php
            | Family::Other => return Some((module.to_owned(), false)),
            Family::Python => {}
        }
        if imp.level == 0 {
            return Some((module.to_owned(), false));
        }
        let rel = &self.files[file as usize].rel;
        let mut dirs: Vec<&str> = rel.split('/').collect();
        dirs.pop();
        for _ in 1..imp.level {
            dirs.pop()?;
        }
        let mut name = dirs.join(".");
        if !module.is_empty() {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(module);
        }
        Some((name, true))
    }

    /// What a name bound by `imp` in `file` refers to.
    fn bind_import(&self, file: u32, imp: &CatImport, depth: u32) -> Bind {
        let family = self.files[file as usize].family;
        let Some((base, exact)) = self.import_base(file, imp) else {
            return Bind::Nothing;
        };
        let Some(name) = self.texts.get_opt(imp.name) else {
            // `import a.b.c` binds `a`; `import a.b as x` binds `a.b`; a Go package, a
            // JavaScript namespace or default import binds the module itself.
            let bound = if imp.aliased || family != Family::Python {
                base
            } else {
                base.split('.').next().unwrap_or("").to_owned()
            };
            return Bind::Module {
                family,
                name: bound,
                exact,
            };
        };
        let sub = if base.is_empty() {
            name.to_owned()
        } else {
            format!("{base}.{name}")
        };
        if self.module_file(family, &sub, exact, file).is_some() {
            return Bind::Module {
                family,
                name: sub,
                exact,
            };
        }
        match self.module_file(family, &base, exact, file) {
            Some(g) => self.name_in_module(g, name, depth),
            None => Bind::Nothing,
        }
    }

    /// A top-level name of module file `g` (or of its package): its own definition, or a
    /// name it imports.
    fn name_in_module(&self, g: u32, name: &str, depth: u32) -> Bind {
        let Some(nid) = self.name_id(name) else {
            return Bind::Nothing;
        };
        if let Some(s) = self.package_of(g).find_map(|f| self.child(f, None, nid)) {
            return Bind::Sym(s);
        }
        if depth >= 3 {
            return Bind::Nothing;
        }
        let module = &self.files[g as usize];
        if let Some(imp) = self
            .imports_named(module, name)
            .find(|i| i.scope().is_none())
        {
            return self.bind_import(g, imp, depth + 1);
        }
        for imp in module.star_imports().filter(|i| i.scope().is_none()) {
            if let Some((base, exact)) = self.import_base(g, imp)
                && let Some(h) = self.module_file(module.family, &base, exact, g)
                && h != g
                && let Bind::Sym(s) = self.name_in_module(h, name, depth + 1)
            {
                return Bind::Sym(s);
            }
        }
        Bind::Nothing
    }

    /// What `name` means at a point of `file` inside `scope` (dense symbol index).
    fn bind(&self, file: u32, scope: Option<u32>, name: &str) -> Bind {
        let key = self.bind_key(name);
        self.bind_in_scopes(file, scope, name, key)
            .unwrap_or_else(|| self.bind_in_module(file, name, key))
    }

    /// A name's numbers among the symbols' names and among the imports' texts, looked up once
    /// for all the levels [`Self::bind`] asks at.
    fn bind_key(&self, name: &str) -> BindKey {
        BindKey {
            symbol: self.name_id(name),
            import: self.texts.id(name),
        }
    }

    /// What `name` binds inside the symbols enclosing the point (from `scope` outward, the
    /// module itself not included), if one of them defines or imports it.
    fn bind_in_scopes(
        &self,
        file: u32,
        scope: Option<u32>,
        name: &str,
        key: BindKey,
    ) -> Option<Bind> {
        let f = &self.files[file as usize];
        if key.symbol.is_none()
            && f.family == Family::Rust
            && matches!(name, "crate" | "self" | "super")
        {
            // A path's root: `crate::walk::relative()`.
            let current = f.module.clone();
            let module = modpath::rust_path(&current, name, |_| false);
            return Some(Bind::Module {
                family: Family::Rust,
                name: module,
                exact: true,
            });
        }
        let mut level = scope?;
        loop {
            // A class body is not an enclosing scope for the functions inside it: a method
            // sees the module's names, not its class's (except code in the class body itself),
            // in every language but Java.
            // (A name no symbol has is looked for among the imports of every level, class
            // bodies included.)
            let skip = key.symbol.is_some()
                && Some(level) != scope
                && self.syms[level as usize].kind.is_type()
                && !f.family.class_scope_is_visible();
            if !skip {
                if let Some(s) = key.symbol.and_then(|n| self.child(file, Some(level), n)) {
                    return Some(Bind::Sym(s));
                }
                if let Some(b) = self.bind_import_at(file, Some(level), key.import) {
                    return Some(b);
                }
            }
            level = self.syms[level as usize].parent()?;
        }
    }

    /// What `name` binds at the top of `file`: its own definitions and imports, then (Go and
    /// Java) the other files of its package and the modules it star-imports. The same for
    /// every point of the file that [`Self::bind_in_scopes`] leaves unbound.
    fn bind_in_module(&self, file: u32, name: &str, key: BindKey) -> Bind {
        if let Some(s) = key.symbol.and_then(|n| self.child(file, None, n)) {
            return Bind::Sym(s);
        }
        if let Some(b) = self.bind_import_at(file, None, key.import) {
            return b;
        }
        // No symbol anywhere has this name: nothing else can define it.
        let Some(nid) = key.symbol else {
            return Bind::Nothing;
        };
        // Go and Java: the other files of the package.
        if let Some(s) = self
            .package_of(file)
            .skip(1)
            .find_map(|f| self.child(f, None, nid))
        {
            return Bind::Sym(s);
        }
        let family = self.files[file as usize].family;
        for imp in self.files[file as usize]
            .star_imports()
            .filter(|i| i.scope().is_none())
        {
            if let Some((base, exact)) = self.import_base(file, imp)
                && let Some(g) = self.module_file(family, &base, exact, file)
                && let Bind::Sym(s) = self.name_in_module(g, name, 1)
            {
                return Bind::Sym(s);
            }
        }
        Bind::Nothing
    }

    /// The import of `file` declared at `level` that binds the name numbered `text`.
    fn bind_import_at(&self, file: u32, level: Option<u32>, text: Option<u32>) -> Option<Bind> {
        let f = &self.files[file as usize];
        let imp = Self::imports_bound(f, Some(text?))
            .find(|i| i.scope().and_then(|o| f.syms.get(o).copied()) == level)?;
        Some(self.bind_import(file, imp, 0))
    }

    /// Follows `Class.Inner.name` or `module.sub.Class.name` from a binding.
    fn walk_chain(&self, from: u32, start: &Bind, parts: &[&str], name: &str) -> Option<u32> {
        self.walk_chain_from(from, start, parts, name, 0)
    }

    /// [`Catalog::walk_chain`], `hops` declared modules (`mod m;`) followed so far: following
    /// one consumes no part of the chain, so a module whose file is not found (it binds to
    /// itself) or modules declared in a ring would otherwise be followed forever.
    fn walk_chain_from(
        &self,
        from: u32,
        start: &Bind,
        parts: &[&str],
        name: &str,
        hops: u32,
    ) -> Option<u32> {
        match *start {
            Bind::Nothing => None,
            Bind::Sym(s) if self.syms[s as usize].kind == SymbolKind::Module => {
                // A Rust module: inline (`mod m { … }`) its items are its children; declared
                // (`mod m;`) it is the file its `mod` import names.
                let sym = &self.syms[s as usize];
                let (first, rest) = match parts.split_first() {
                    Some((first, rest)) => (*first, rest),
                    None => (name, &[][..]),
                };
                if let Some(child) = self
                    .name_id(first)
                    .and_then(|n| self.child(sym.file, Some(s), n))
                {
                    return if rest.is_empty() && parts.is_empty() {
                        Some(child)
                    } else {
                        self.walk_chain_from(from, &Bind::Sym(child), rest, name, hops)
                    };
                }
                if hops >= MAX_MODULE_HOPS {
                    return None;
                }
                let module_name = self.names.get(sym.name);
                let imp = self
                    .imports_named(&self.files[sym.file as usize], module_name)
                    .find(|i| self.texts.get(i.module) == "self")?;
                let bound = self.bind_import(sym.file, imp, 0);
                if matches!(bound, Bind::Sym(b) if b == s) {
                    return None;
                }
                self.walk_chain_from(from, &bound, parts, name, hops + 1)
            }
            Bind::Sym(s) => {
                let mut cur = s;
                for p in parts {
                    if !self.syms[cur as usize].kind.is_type() {
                        return None;
                    }
                    cur = self.member(cur, self.name_id(p)?)?;
                }
                if !self.syms[cur as usize].kind.is_type() {
                    return None;
                }
                self.member(cur, self.name_id(name)?)
            }
            Bind::Module {
                family,
                name: ref base,
                exact,
            } => {
                // The longest module prefix that exists, then classes inside it.
                for split in (0..=parts.len()).rev() {
                    let mut module = base.clone();
                    for p in &parts[..split] {
                        module.push('.');
                        module.push_str(p);
                    }
                    let Some(g) = self.module_file(family, &module, exact, from) else {
                        continue;
                    };
                    let rest = &parts[split..];
                    if rest.is_empty() {
                        return match self.name_in_module(g, name, 0) {
                            Bind::Sym(s) => Some(s),
                            _ => None,
                        };
                    }
                    let first = self.name_in_module(g, rest[0], 0);
                    return self.walk_chain_from(from, &first, &rest[1..], name, hops);
                }
                None
            }
        }
    }

    fn enclosing_class(&self, scope: Option<u32>) -> Option<u32> {
        let mut cur = scope;
        while let Some(s) = cur {
            if self.syms[s as usize].kind.is_type() {
                return Some(s);
            }
            cur = self.syms[s as usize].parent();
        }
        None
    }

    /// The definitions a name may mean by name alone, and how many there are; none for a
    /// builtin or, among `methods`, a dunder or one of the language's `common` methods.
    fn by_name(
        &self,
        family: Family,
        common: CommonNames,
        name: &str,
        methods: bool,
    ) -> Option<(&[u32], u16)> {
        // Templates (HTML, Jinja) call into the Python code that renders them.
        let family = if family == Family::Other {
            Family::Python
        } else {
            family
        };
        if (family == Family::Python && BUILTINS.binary_search(&name).is_ok())
            || (methods && (name.starts_with("__") || common.is_common_method(name)))
        {
            return None;
        }
        let nid = self.name_id(name)?;
        let list = if methods {
            self.methods_by_name.get(&(family, nid))?
        } else {
            self.top_by_name.get(&(family, nid))?
        };
        (list.len() <= MAX_BY_NAME && !list.is_empty()).then_some((list, list.len() as u16))
    }

    /// The symbol a decorator or base-class reference belongs to: the child of its scope whose
    /// decorators or header cover the reference's line.
    fn owner(headers: &HashMap<(u32, u32), u32>, scope: Option<u32>, line: u32) -> Option<u32> {
        headers.get(&(scope.map_or(0, |p| p + 1), line)).copied()
    }

    /// (parent + 1 or 0, line) → the symbol of `file` whose decorators or header cover the line.
    fn headers(&self, file: u32) -> HashMap<(u32, u32), u32> {
        let syms = &self.files[file as usize].syms;
        let mut out = HashMap::with_capacity_and_hasher(syms.len() * 2, Default::default());
        for &i in &self.files[file as usize].syms {
            let s = &self.syms[i as usize];
            let parent = s.parent_plus_one;
            for line in s.decorated_line..=s.header_end_line.min(s.decorated_line + 50) {
                out.entry((parent, line)).or_insert(i);
            }
        }
        out
    }

    /// Resolves one file's references. With `inherit_only`, only base classes (the first pass,
    /// so that `self.m()` can then look into bases).
    pub(crate) fn resolve_refs(
        &self,
        file: u32,
        stored: &FileRefs,
        inherit_only: bool,
    ) -> Vec<Edge> {
        let f = &self.files[file as usize];
        let facts = self.facts_by_target(file, &stored.facts);
        let refs = &stored.refs;
        let mut out = Vec::with_capacity(refs.len());
        // Many references share a scope and a name or receiver: resolve each pair once.
        let mut binds = FileBinds::with_capacity(refs.len());
        // Keyed by line too where the receiver is a variable with facts: it holds what its last
        // assignment before the line says.
        let mut receivers: HashMap<(Option<u32>, &str, &str, u32), Receiver> =
            HashMap::with_capacity_and_hasher(refs.len() / 4, Default::default());
        let headers = self.headers(file);
        for r in refs {
            if inherit_only != (r.kind == RefKind::Inherit) {
                continue;
            }
            let name = stored.name(r);
            let scope = r.scope.and_then(|o| f.syms.get(o).copied());
            let src = Self::owner(&headers, scope, r.line).or(scope);
            if r.kind == RefKind::Inherit && src == scope {
                continue; // a base list whose class was not found (broken code)
            }
            // A call of a function to itself (recursion) is an edge like any other call; any
            // other reference of a symbol to itself (its own name in its header, a class's
            // attribute in its body) is not one.
            let push = |out: &mut Vec<Edge>, dst: u32, how: How, k: u16| {
                if Some(dst) != src || r.kind == RefKind::Call {
                    out.push(Edge {
                        src,
                        dst,
                        how,
                        kind: r.kind,
                        k,
                        line: r.line,
                    });
                }
            };
            match stored.receiver(r) {
                None => match &binds.bind(self, file, scope, name).0 {
                    &Bind::Sym(s) => {
                        let how = if self.syms[s as usize].file == file {
                            How::Local
                        } else {
                            How::Import
                        };
                        push(&mut out, s, how, 1);
                    }
                    Bind::Module { .. } => {}
                    // `cls(…)` in a method that does not assign `cls`: the class itself.
                    Bind::Nothing
                        if f.family == Family::Python
                            && r.kind == RefKind::Call
                            && name == "cls"
                            && self
                                .local_class(file, &facts, scope, "cls", r.line)
                                .is_none()
                            && let Some(class) = self.enclosing_class(scope) =>
                    {
                        push(&mut out, class, How::SelfRef, 1);
                    }
                    Bind::Nothing => {
                        let common_type = r.kind == RefKind::Type && f.common.is_common_type(name);
                        if r.kind != RefKind::Attribute
                            && !common_type
                            && let Some((cands, k)) = self.by_name(f.family, f.common, name, false)
                        {
                            let how = if k == 1 && f.family.has_global_names() {
                                How::Global
                            } else {
                                How::Name
                            };
                            for &c in cands {
                                push(&mut out, c, how, k);
                            }
                        }
                    }
                },
                Some(recv) => {
                    let first = recv.split('.').next().unwrap_or(recv);
                    let line = if facts.variables.contains(first) {
                        r.line
                    } else {
                        0
                    };
                    let resolved =
                        *receivers
                            .entry((scope, recv, name, line))
                            .or_insert_with(|| {
                                self.resolve_receiver(
                                    file, scope, recv, name, r.line, &facts, &mut binds,
                                )
                            });
                    match resolved {
                        Some((s, how)) => push(&mut out, s, how, 1),
                        None => {
                            if r.kind == RefKind::Call
                                && let Some((cands, k)) =
                                    self.by_name(f.family, f.common, name, true)
                            {
                                for &c in cands {
                                    push(&mut out, c, How::Name, k);
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_receiver<'r>(
        &self,
        file: u32,
        scope: Option<u32>,
        recv: &'r str,
        name: &'r str,
        line: u32,
        facts: &Facts,
        binds: &mut FileBinds<'r>,
    ) -> Option<(u32, How)> {
        let family = self.files[file as usize].family;
        // PHP's variables: `$this->m()`, `$app->run()`.
        let recv = if family == Family::Php {
            recv.strip_prefix('$').unwrap_or(recv)
        } else {
            recv
        };
        // `super()` (Python), `super` (Java, JavaScript, TypeScript), `base` (C#), `parent`
        // (PHP): a base class.
        let base = match family {
            Family::Rust => false,
            Family::CSharp => recv == "base",
            Family::Php => recv == "parent",
            _ => recv == "super",
        };
        if recv == "super()" || base {
            let class = self.enclosing_class(scope)?;
            let nid = self.name_id(name)?;
            for &b in self.bases.get(&class)? {
                if let Some(m) = self.member(b, nid) {
                    return Some((m, How::Super));
                }
            }
            return None;
        }
        let is_dotted_name = |text: &str| {
            !text.is_empty()
                && text
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b >= 0x80)
        };
        if !is_dotted_name(recv) {
            // `Client(…).send()`, `make_client().send()`, `Client::new().send()`: what the
            // call gives.
            let called = called_name(recv)?;
            // `new Client(…).send()` (Java, JavaScript, TypeScript, C#, PHP): the class.
            let class = match called.strip_prefix("new ") {
                Some(class) if is_dotted_name(class.trim()) => {
                    self.class_named(file, scope, class.trim())?
                }
                _ if is_dotted_name(called) => self.class_returned(file, facts, scope, called)?,
                _ => return None,
            };
            return Some((self.member(class, self.name_id(name)?)?, How::Typed));
        }
        let parts: Vec<&str> = recv.split('.').collect();
        let (first, rest) = parts.split_first()?;
        // The object itself: `self`/`cls` (Python), `self`/`Self` (Rust), `this`.
        let this = match family {
            Family::Python => matches!(*first, "self" | "cls"),
            Family::Rust => matches!(*first, "self" | "Self"),
            Family::Java | Family::Js | Family::C | Family::CSharp => *first == "this",
            Family::Ruby => *first == "self",
            Family::Php => matches!(*first, "this" | "self" | "static"),
            _ => false,
        };
        if this && rest.is_empty() {
            let class = self.enclosing_class(scope)?;
            // `self.__class__(…)`: the class itself.
            if family == Family::Python && name == "__class__" {
                return Some((class, How::SelfRef));
            }
            if let Some(m) = self.name_id(name).and_then(|n| self.member(class, n)) {
                return Some((m, How::SelfRef));
            }
            // `self.x(…)` where the class says `x = SomeClass`: that class.
            let target = format!("{first}.{name}");
            return self
                .class_object_held(file, facts, class, &target)
                .map(|c| (c, How::Typed));
        }
        let typed = |class: u32| Some((self.member(class, self.name_id(name)?)?, How::Typed));
        // `self.x.m()`: what the class's methods put in `self.x`, else what a base class of
        // the same file puts there (the facts of other files are not at hand).
        if this && let [attribute] = rest {
            let class = self.enclosing_class(scope)?;
            return typed(self.field_class(file, facts, class, attribute)?);
        }
        // `x.m()` with `x` a variable of an enclosing function: what it was given.
        if rest.is_empty()
            && let Some(class) = self.local_class(file, facts, scope, first, line)
        {
            return typed(class?);
        }
        // `x.attr.m()` with `x` such a variable: what its class puts in `attr`, where this file
        // says (Go's `s.db.Query()` in a method of `*Server`).
        if let [attribute] = rest
            && family != Family::Python
            && let Some(class) = self.local_class(file, facts, scope, first, line)
        {
            return typed(self.field_class(file, facts, class?, attribute)?);
        }
        let FileBinds {
            in_scope,
            names,
            walks,
        } = binds;
        let (start, at_top) = FileBinds::bind_in(in_scope, names, self, file, scope, first);
        if rest.is_empty() && matches!(start, Bind::Nothing) {
            // A field of the instance named without `this.` (Java, C#, C++).
            if family.implicit_this()
                && let Some(class) = self.enclosing_class(scope)
                && let Some(held) = self.field_class(file, facts, class, first)
            {
                return typed(held);
            }
            // A variable of the module.
            return typed(self.class_held(file, facts, None, first, None, 0)?);
        }
        // Bound at the top of the file, the chain reaches the same symbol from every scope.
        let s = match (*at_top, walks.get(&(recv, name))) {
            (true, Some(&walked)) => walked,
            (true, None) => {
                let walked = self.walk_chain(file, start, rest, name);
                walks.insert((recv, name), walked);
                walked
            }
            (false, _) => self.walk_chain(file, start, rest, name),
        }?;
        Some((s, How::Attribute))
    }

    /// The class an attribute of the instance holds (`self.x`, `this.x`): what the class's
    /// methods and body put there, else what a base class of the same file puts there (the
    /// facts of other files are not at hand). A Rust `impl` reads its struct's fields.
    fn field_class(&self, file: u32, facts: &Facts, class: u32, attribute: &str) -> Option<u32> {
        let target = format!("self.{attribute}");
        let mut holder = Some(class);
        for _ in 0..4 {
            let c = holder?;
            if facts.by_target.contains_key(&(Some(c), target.as_str())) {
                return self.class_held(file, facts, Some(c), &target, None, 0);
            }
            let sym = &self.syms[c as usize];
            holder = if sym.kind == SymbolKind::Impl {
                self.child(file, sym.parent(), sym.name)
                    .filter(|&t| t != c && self.syms[t as usize].kind.is_type())
            } else {
                self.bases
                    .get(&c)
                    .and_then(|bases| bases.first())
                    .copied()
                    .filter(|b| self.syms[*b as usize].file == file)
            };
        }
        None
    }

    /// A file's type facts by where they hold: a variable's by its function (or `None`, the
    /// module), `self.x`'s by its class.
    fn facts_by_target<'f>(&self, file: u32, facts: &'f [TypeFact]) -> Facts<'f> {
        let f = &self.files[file as usize];
        let mut out = Facts::default();
        for fact in facts {
            let scope = fact.scope.and_then(|o| f.syms.get(o).copied());
            let key = if fact.target.starts_with("self.") {
                match self.enclosing_class(scope) {
                    Some(class) => Some(class),
                    None => continue,
                }
            } else {
                scope
            };
            if !fact.target.starts_with("self.") {
                out.variables.insert(fact.target.as_str());
            }
            out.by_target
                .entry((key, fact.target.as_str()))
                .or_default()
                .push(HeldBy {
                    scope,
                    source: &fact.source,
                    line: fact.line,
                });
        }
        out
    }

    /// The class a variable of the functions around `scope` holds: `None` when no enclosing
    /// function has facts about it, `Some(None)` when it has but they name no one class.
    fn local_class(
        &self,
        file: u32,
        facts: &Facts,
        scope: Option<u32>,
        name: &str,
        line: u32,
    ) -> Option<Option<u32>> {
        let mut cur = scope;
        while let Some(s) = cur {
            // A class body is no enclosing scope of its methods' names.
            if !self.syms[s as usize].kind.is_type()
                && facts.by_target.contains_key(&(Some(s), name))
            {
                // In its own function, what the last assignment before the use says; in an
                // enclosing one, what every assignment says.
                let before = (cur == scope).then_some(line);
                return Some(self.class_held(file, facts, Some(s), name, before, 0));
            }
            cur = self.syms[s as usize].parent();
        }
        None
    }

    /// The one class the facts about `target` (kept under `key`) say it holds: with `before`,
    /// the last ones before that line (a variable holds what it was last given), otherwise
    /// every one.
    fn class_held(
        &self,
        file: u32,
        facts: &Facts,
        key: Option<u32>,
        target: &str,
        before: Option<u32>,
        depth: u8,
    ) -> Option<u32> {
        // Facts lead to facts (`c := c.Parent()` reads what `c` held, `x = y.make()` what `y`
        // held): a chain deeper than this, or one that comes back to itself, resolves nothing.
        let _nested = Nesting::enter()?;
        let all = facts.by_target.get(&(key, target))?;
        let last = match before {
            Some(line) => Some(all.iter().filter(|h| h.line < line).map(|h| h.line).max()?),
            None => None,
        };
        let mut found: Option<u32> = None;
        for held in all.iter().filter(|h| last.is_none_or(|l| h.line == l)) {
            let class = match held.source {
                TypeSource::Annotation(t) => self.class_named(file, held.scope, t),
                TypeSource::Call(t) => self.class_returned(file, facts, held.scope, t),
                TypeSource::Same(v) if v == "self" => self.enclosing_class(held.scope),
                // `self.x = x`: what the variable `x` of the same function held there.
                TypeSource::Same(v) if depth < 2 => {
                    self.class_held(file, facts, held.scope, v, Some(held.line), depth + 1)
                }
                TypeSource::Same(_) | TypeSource::Unknown => None,
            }?;
            if found.is_some_and(|c| c != class) {
                return None;
            }
            found = Some(class);
        }
        found
    }

    /// The class object an attribute of the instance holds, where the class's body or methods
    /// give it one (`serializer_class = AuthTokenSerializer`), every fact agreeing.
    fn class_object_held(&self, file: u32, facts: &Facts, class: u32, target: &str) -> Option<u32> {
        let mut found = None;
        for held in facts.by_target.get(&(Some(class), target))? {
            let TypeSource::Same(v) = held.source else {
                return None;
            };
            let c = self.class_named(file, held.scope, v)?;
            if found.is_some_and(|f| f != c) {
                return None;
            }
            found = Some(c);
        }
        found
    }

    /// The type (class, struct, interface, trait, enum) a (dotted) name written in `scope` of
    /// `file` binds, if it is one.
    fn class_named(&self, file: u32, scope: Option<u32>, name: &str) -> Option<u32> {
        let s = self.symbol_named(file, scope, name)?;
        let sym = &self.syms[s as usize];
        if sym.kind.is_type() {
            return Some(s);
        }
        // Inside a class, its name binds its constructor first (Java's `Store(…)`).
        sym.parent().filter(|&p| {
            let class = &self.syms[p as usize];
            class.kind.is_type() && class.name == sym.name
        })
    }

    /// The class a call of a (dotted) name written in `scope` of `file` gives: the class
    /// itself, or the class the called function's return annotation names (read where the
    /// function is defined).
    fn class_returned(
        &self,
        file: u32,
        facts: &Facts,
        scope: Option<u32>,
        name: &str,
    ) -> Option<u32> {
        let Some(s) = self.symbol_named(file, scope, name) else {
            // `x.m()` with `x` a variable whose type is declared (Go, Java, TypeScript, Rust:
            // it keeps its type, so any of its facts): what `m` of that type returns.
            if self.files[file as usize].family != Family::Python
                && let Some((var, method)) = name.split_once('.')
                && !method.contains('.')
                && let Some(Some(class)) = self.local_class(file, facts, scope, var, u32::MAX)
            {
                let m = self.member(class, self.name_id(method)?)?;
                return self.class_given_by(m, Some(class));
            }
            // `self.x()` where the class says `x = SomeClass`: an instance of it.
            let class = self.enclosing_class(scope)?;
            return name
                .starts_with("self.")
                .then(|| self.class_object_held(file, facts, class, name))
                .flatten();
        };
        let sym = &self.syms[s as usize];
        if sym.kind.is_type() {
            return Some(s);
        }
        self.class_given_by(s, None)
    }

    /// The type a call of function `f` gives, by its declared return type (read where `f` is
    /// defined). `Self` is the type the call is made on (`on`), else the one `f` is defined in
    /// (Rust's `Client::new()`: the `impl`'s type).
    fn class_given_by(&self, f: u32, on: Option<u32>) -> Option<u32> {
        let sym = &self.syms[f as usize];
        let returns = self.texts.get(*self.returns.get(&f)?);
        if returns == "Self" {
            return on.or_else(|| self.enclosing_class(sym.parent()));
        }
        self.class_named(sym.file, None, returns)
    }

    /// The symbol a (dotted) name written in `scope` of `file` binds.
    fn symbol_named(&self, file: u32, scope: Option<u32>, name: &str) -> Option<u32> {
        let parts: Vec<&str> = name.split('.').collect();
        let (last, init) = parts.split_last()?;
        match init.split_first() {
            None => match self.bind(file, scope, last) {
                Bind::Sym(s) => Some(s),
                _ => None,
            },
            // `self.make()`: the class's own method.
            Some((&("self" | "cls"), [])) => {
                self.member(self.enclosing_class(scope)?, self.name_id(last)?)
            }
            Some((first, middle)) => {
                let start = self.bind(file, scope, first);
                self.walk_chain(file, &start, middle, last)
            }
        }
    }

    /// The file of a package that defines `name` (Java's `import a.b.C` depends on `C.java`);
    /// `g` itself when none does.
    fn defining_file(&self, g: u32, name: &str) -> u32 {
        self.name_id(name)
            .and_then(|n| {
                self.package_of(g)
                    .find(|&f| self.child(f, None, n).is_some())
            })
            .unwrap_or(g)
    }

    /// The files `file` imports (resolved), first line of each.
    pub(crate) fn resolve_deps(&self, file: u32) -> Vec<Dep> {
        let f = &self.files[file as usize];
        let mut out: Vec<Dep> = Vec::new();
        for imp in &f.imports {
            let Some((base, exact)) = self.import_base(file, imp) else {
                continue;
            };
            let target = match self.texts.get_opt(imp.name) {
                Some(n) if n != "*" => {
                    let sub = if base.is_empty() {
                        n.to_owned()
                    } else {
                        format!("{base}.{n}")
                    };
                    let family = self.files[file as usize].family;
                    self.module_file(family, &sub, exact, file)
                        .or_else(|| self.module_file(family, &base, exact, file))
                        .map(|g| self.defining_file(g, n))
                }
                _ => self.module_file(self.files[file as usize].family, &base, exact, file),
            };
            if let Some(t) = target
                && t != file
                && !out.iter().any(|d| d.dst == t)
            {
                out.push(Dep {
                    dst: t,
                    line: imp.line,
                });
            }
        }
        out
    }

    /// Resolves the given files (dense indexes) from their references: base classes first for
    /// all of them, then everything else.
    /// The first pass of resolution: the inheritance edges of `files` (each with its
    /// references), replacing what they had. Base classes are resolved first because
    /// `self.method()` looks through them; [`Self::rebuild_bases`] then reads these edges. A
    /// file's inheritance edges depend on the catalog and its own references only, so the files
    /// may come in batches.
    /// Reads the catalog only (the edges are kept with [`Self::set_inherits`]), so a batch can
    /// be resolved while the next one is read.
    pub(crate) fn resolve_inherits(&self, files: &[(u32, FileRefs)]) -> Vec<(u32, Vec<Edge>)> {
        use rayon::prelude::*;
        files
            .par_iter()
            .map(|(f, refs)| (*f, self.resolve_refs(*f, refs, true)))
            .collect()
    }

    /// Keeps a file's inheritance edges, as [`Self::resolve_inherits`] found them.
    pub(crate) fn set_inherits(&mut self, file: u32, edges: Vec<Edge>) {
        self.files[file as usize].inherits = edges;
    }

    /// The second pass, after every file's first pass and [`Self::rebuild_bases`], in batches
    /// as the first: each file's other edges and its imports of other files, encoded as they
    /// are stored. Reads the catalog only, so it can run while the last batch is written; its
    /// imports are kept with [`Self::set_deps`].
    pub(crate) fn resolve_rest(&self, files: &[(u32, FileRefs)]) -> Vec<Resolved> {
        use rayon::prelude::*;
        files
            .par_iter()
            .map(|(f, refs)| {
                let edges = self.resolve_refs(*f, refs, false);
                let deps = self.resolve_deps(*f);
                Resolved {
                    file: *f,
                    edges: self.encode_edges(*f, &edges),
                    deps_blob: self.encode_deps(&deps),
                    deps,
                }
            })
            .collect()
    }

    /// Keeps a file's imports of other files, as [`Self::resolve_rest`] found them.
    pub(crate) fn set_deps(&mut self, file: u32, deps: Vec<Dep>) {
        self.files[file as usize].deps = deps;
    }

    /// A file's edges as the index stores them: its inheritance edges, then `rest` (what
    /// [`Self::resolve_rest`] gave it).
    pub(crate) fn encode_edges(&self, file: u32, rest: &[Edge]) -> Vec<u8> {
        let f = &self.files[file as usize];
        let count = f.inherits.len() + rest.len();
        let mut out = Vec::with_capacity(count * 8);
        put_varint(&mut out, count as u64);
        for e in f.inherits.iter().chain(rest) {
            put_varint(
                &mut out,
                e.src.map_or(0, |s| self.syms[s as usize].id as u64),
            );
            put_varint(&mut out, self.syms[e.dst as usize].id as u64);
            out.push(e.how.code() << 4 | ref_kind_code(e.kind));
            put_varint(&mut out, u64::from(e.k));
            put_varint(&mut out, u64::from(e.line));
        }
        out
    }

    pub(crate) fn encode_deps(&self, deps: &[Dep]) -> Vec<u8> {
        let mut out = Vec::with_capacity(deps.len() * 4);
        put_varint(&mut out, deps.len() as u64);
        for d in deps {
            put_varint(&mut out, self.files[d.dst as usize].id as u64);
            put_varint(&mut out, u64::from(d.line));
        }
        out
    }

    /// Decodes stored edges; `None` when the blob is damaged or names unknown symbols.
    pub(crate) fn decode_edges(&self, data: &[u8]) -> Option<Vec<Edge>> {
        let mut r = Reader::new(data);
        let n = r.varint()? as usize;
        let mut out = Vec::with_capacity(n.min(1 << 20));
        for _ in 0..n {
            let src = r.varint()?;
            let dst = r.varint()?;
            let code = r.byte()?;
            let k = u16::try_from(r.varint()?).ok()?;
            let line = r.u32()?;
            let src = if src == 0 {
                None
            } else {
                Some(self.sym_by_id.get(src as i64)?)
            };
            out.push(Edge {
                src,
                dst: self.sym_by_id.get(dst as i64)?,
                how: How::from_code(code >> 4)?,
                kind: ref_kind_of(code & 0x0f)?,
                k,
                line,
            });
        }
        r.at_end().then_some(out)
    }

    pub(crate) fn decode_deps(&self, data: &[u8]) -> Option<Vec<Dep>> {
        let mut r = Reader::new(data);
        let n = r.varint()? as usize;
        let mut out = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let id = r.varint()? as i64;
            let line = r.u32()?;
            out.push(Dep {
                dst: self.file_by_id.get(id)?,
                line,
            });
        }
        r.at_end().then_some(out)
    }
}

/// A stored edge with symbol ids, decoded without a catalog.
#[derive(Debug, Clone, Copy)]
pub struct RawEdge {
    pub src: i64,
    pub dst: i64,
    pub how: How,
    pub kind: RefKind,
    pub k: u16,
    pub line: u32,
}

/// A file's stored edges (`file_data.edges`); `None` when the blob does not decode.
pub fn decode_edges_raw(data: &[u8]) -> Option<Vec<RawEdge>> {
    let mut r = Reader::new(data);
    let n = r.varint()? as usize;
    let mut out = Vec::with_capacity(n.min(1 << 20));
    for _ in 0..n {
        let src = r.varint()? as i64;
        let dst = r.varint()? as i64;
        let code = r.byte()?;
        let k = u16::try_from(r.varint()?).ok()?;
        let line = r.u32()?;
        out.push(RawEdge {
            src,
            dst,
            how: How::from_code(code >> 4)?,
            kind: ref_kind_of(code & 0x0f)?,
            k,
            line,
        });
    }
    r.at_end().then_some(out)
}

/// A file's stored imports of other files (`files.deps`) as (file id, line); `None` when the
/// blob does not decode.
pub fn decode_deps_raw(data: &[u8]) -> Option<Vec<(i64, u32)>> {
    let mut r = Reader::new(data);
    let n = r.varint()? as usize;
    let mut out = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        out.push((r.varint()? as i64, r.u32()?));
    }
    r.at_end().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::{CatImport, CatSym, IdMap, called_name};

    #[test]
    fn a_receiver_that_is_one_call_names_its_callee() {
        assert_eq!(called_name("Client()"), Some("Client"));
        assert_eq!(called_name("httpx.Client(a, f(b))"), Some("httpx.Client"));
        assert_eq!(called_name("make()()"), Some("make()"));
        assert_eq!(called_name("(a)"), Some(""));
        assert_eq!(called_name("f(a"), None);
        assert_eq!(called_name("x"), None);
    }

    #[test]
    fn catalog_rows_stay_small() {
        // A large tree holds hundreds of thousands of each: their size is the catalog's.
        assert!(std::mem::size_of::<CatSym>() <= 32);
        assert!(std::mem::size_of::<CatImport>() <= 28);
    }

    #[test]
    fn an_id_map_finds_dense_and_far_ids_alike() {
        let mut ids = IdMap::default();
        ids.reserve(3);
        // Dense ids with a gap, one far past the rest, and a negative one.
        for (id, index) in [(1, 0), (2, 1), (4, 2), (1_000_000_000_000, 3), (-5, 4)] {
            ids.insert(id, index);
        }
        assert_eq!(ids.get(1), Some(0));
        assert_eq!(ids.get(4), Some(2));
        assert_eq!(ids.get(3), None);
        assert_eq!(ids.get(1_000_000_000_000), Some(3));
        assert_eq!(ids.get(-5), Some(4));
        assert_eq!(ids.get(0), None);
        // The far id stays in the table while the dense list grows past smaller ids.
        for id in 5..3000 {
            ids.insert(id, id as u32);
        }
        assert_eq!(ids.get(2999), Some(2999));
        assert_eq!(ids.get(1_000_000_000_000), Some(3));
        assert!(ids.dense.len() < 8192, "{}", ids.dense.len());
    }
}
