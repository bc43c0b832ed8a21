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
//! 5. **by name**, only when none of the above applies and the name is not a Python builtin: a
//!    call `f()` goes to every top-level function or class named `f`, a call `obj.m()` on an
//!    unknown receiver to every method named `m` (dunder names excluded), each edge weighted 1/k
//!    for k candidates, and none at all when more than [`MAX_BY_NAME`] candidates exist.
//!
//! Modules are found from paths: `a/b/c.py` is `a.b.c`, `a/b/__init__.py` is `a.b`. An absolute
//! import matches any file whose dotted path ends with the imported name (so `src/` layouts and
//! `site-packages/` work); among several, the one sharing the most leading folders with the
//! importing file wins, then the shallowest, then `.py` over `.pyi`. Relative imports are exact.

/// Resolution hashes millions of short names and ids; FxHash is several times faster than
/// the default SipHash for them.
type HashMap<K, V> = std::collections::HashMap<K, V, rustc_hash::FxBuildHasher>;

use cast_parser::{Import, RefKind, Reference, SymbolKind};

use crate::codec::{Reader, SymtabEntry, put_varint};

/// A receiver expression's resolution (the class it names and how), cached per scope.
type Receiver = Option<(u32, How)>;

/// More candidates than this for a by-name reference resolve to nothing: the name is too common
/// to say anything.
pub const MAX_BY_NAME: usize = 8;

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
        }
    }
}

fn ref_kind_code(k: RefKind) -> u8 {
    match k {
        RefKind::Call => 0,
        RefKind::Attribute => 1,
        RefKind::Decorator => 2,
        RefKind::Inherit => 3,
    }
}

fn ref_kind_of(c: u8) -> Option<RefKind> {
    Some(match c {
        0 => RefKind::Call,
        1 => RefKind::Attribute,
        2 => RefKind::Decorator,
        3 => RefKind::Inherit,
        _ => return None,
    })
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

#[derive(Debug, Clone)]
pub(crate) struct CatSym {
    pub id: i64,
    pub file: u32,
    pub parent: Option<u32>,
    pub kind: SymbolKind,
    pub name: u32,
    pub decorated_line: u32,
    pub header_end_line: u32,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct CatFile {
    pub id: i64,
    pub rel: String,
    pub python: bool,
    /// Dotted module path from the root (`a.b.c`), empty for non-Python files.
    pub module: String,
    pub imports: Vec<Import>,
    /// Indexes into `imports` by the name each binds (star imports left out), in source order:
    /// binding a name looks here instead of scanning every import.
    imports_by_name: HashMap<Box<str>, Vec<u32>>,
    /// Indexes of the `from m import *` imports, in source order.
    star_imports: Vec<u32>,
    /// Dense symbol indexes in source order.
    pub syms: Vec<u32>,
    pub edges: Vec<Edge>,
    pub deps: Vec<Dep>,
}

impl CatFile {
    /// The imports that bind `name` (star imports excluded), in source order.
    fn imports_named<'a>(&'a self, name: &str) -> impl Iterator<Item = &'a Import> + 'a {
        self.imports_by_name
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|&k| self.imports.get(k as usize))
    }

    /// The `from m import *` imports, in source order.
    fn star_imports(&self) -> impl Iterator<Item = &Import> + '_ {
        self.star_imports
            .iter()
            .filter_map(|&k| self.imports.get(k as usize))
    }
}

/// Everything resolution and ranking need, in memory: files, symbols, names, edges.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    pub files: Vec<CatFile>,
    pub file_by_id: HashMap<i64, u32>,
    pub syms: Vec<CatSym>,
    pub sym_by_id: HashMap<i64, u32>,
    names: HashMap<String, u32>,
    pub name_list: Vec<String>,
    module_exact: HashMap<String, u32>,
    module_suffix: HashMap<String, Vec<u32>>,
    /// (file, parent + 1 or 0, name) → first symbol of that name in that scope.
    children: HashMap<(u32, u32, u32), u32>,
    top_by_name: HashMap<u32, Vec<u32>>,
    methods_by_name: HashMap<u32, Vec<u32>>,
    bases: HashMap<u32, Vec<u32>>,
}

const BUILTINS: &[&str] = &[
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
    "__import__",
    "Exception",
    "BaseException",
    "ValueError",
    "TypeError",
    "KeyError",
    "IndexError",
    "AttributeError",
    "RuntimeError",
    "OSError",
    "NotImplementedError",
    "StopIteration",
    "ImportError",
    "LookupError",
    "AssertionError",
];

/// `a/b/c.py` → `a.b.c`, `a/b/__init__.py` → `a.b`.
pub(crate) fn module_of(rel: &str) -> String {
    let stem = rel
        .strip_suffix(".py")
        .or_else(|| rel.strip_suffix(".pyi"))
        .or_else(|| rel.strip_suffix(".pyx"))
        .unwrap_or(rel);
    let stem = stem
        .strip_suffix("/__init__")
        .or_else(|| (stem == "__init__").then_some(""))
        .unwrap_or(stem);
    stem.replace('/', ".")
}

fn common_dirs(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

#[derive(Clone)]
enum Bind {
    Sym(u32),
    /// A module by its dotted name; `exact` when it is a full path from the root.
    Module {
        name: String,
        exact: bool,
    },
    Nothing,
}

impl Catalog {
    pub(crate) fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.names.get(s) {
            return id;
        }
        let id = self.name_list.len() as u32;
        self.name_list.push(s.to_owned());
        self.names.insert(s.to_owned(), id);
        id
    }

    fn name_id(&self, s: &str) -> Option<u32> {
        self.names.get(s).copied()
    }

    pub(crate) fn add_file(
        &mut self,
        id: i64,
        rel: &str,
        python: bool,
        imports: Vec<Import>,
    ) -> u32 {
        let idx = self.files.len() as u32;
        let mut imports_by_name: HashMap<Box<str>, Vec<u32>> = HashMap::default();
        let mut star_imports = Vec::new();
        for (k, imp) in imports.iter().enumerate() {
            if imp.name.as_deref() == Some("*") {
                star_imports.push(k as u32);
            } else {
                imports_by_name
                    .entry(imp.bound_name().into())
                    .or_default()
                    .push(k as u32);
            }
        }
        self.files.push(CatFile {
            id,
            rel: rel.to_owned(),
            python,
            module: if python {
                module_of(rel)
            } else {
                String::new()
            },
            imports,
            imports_by_name,
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
            parent,
            kind,
            name,
            decorated_line: e.decorated_line,
            header_end_line: e.header_end_line,
        });
        self.sym_by_id.insert(e.id, idx);
        if let Some(f) = self.files.get_mut(file as usize) {
            f.syms.push(idx);
        }
        idx
    }

    /// Builds the lookup tables once all files and symbols are in.
    pub(crate) fn finish(&mut self) {
        self.module_exact.clear();
        self.module_suffix.clear();
        for (i, f) in self.files.iter().enumerate() {
            if !f.python {
                continue;
            }
            let i = i as u32;
            let better = |old: u32, files: &[CatFile]| {
                // Prefer a .py over a .pyi for the same module.
                files[old as usize].rel.ends_with(".pyi") && !f.rel.ends_with(".pyi")
            };
            match self.module_exact.get(&f.module) {
                Some(&old) if !better(old, &self.files) => {}
                _ => {
                    self.module_exact.insert(f.module.clone(), i);
                }
            }
            let mut rest = f.module.as_str();
            loop {
                self.module_suffix
                    .entry(rest.to_owned())
                    .or_default()
                    .push(i);
                match rest.find('.') {
                    Some(dot) => rest = &rest[dot + 1..],
                    None => break,
                }
            }
        }
        self.children.clear();
        self.top_by_name.clear();
        self.methods_by_name.clear();
        for (i, s) in self.syms.iter().enumerate() {
            let i = i as u32;
            let parent = s.parent.map_or(0, |p| p + 1);
            self.children.entry((s.file, parent, s.name)).or_insert(i);
            match s.kind {
                SymbolKind::Method => self.methods_by_name.entry(s.name).or_default().push(i),
                SymbolKind::Function | SymbolKind::Class if s.parent.is_none() => {
                    self.top_by_name.entry(s.name).or_default().push(i)
                }
                _ => {}
            }
        }
        self.rebuild_bases();
    }

    /// Base classes from the `Inherit` edges currently held.
    pub(crate) fn rebuild_bases(&mut self) {
        self.bases.clear();
        for f in &self.files {
            for e in &f.edges {
                if e.kind == RefKind::Inherit
                    && let Some(src) = e.src
                {
                    self.bases.entry(src).or_default().push(e.dst);
                }
            }
        }
    }

    fn module_file(&self, name: &str, exact: bool, from: u32) -> Option<u32> {
        if exact {
            return self.module_exact.get(name).copied();
        }
        let cands = self.module_suffix.get(name)?;
        if cands.len() == 1 {
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

    fn child(&self, file: u32, parent: Option<u32>, name: u32) -> Option<u32> {
        self.children
            .get(&(file, parent.map_or(0, |p| p + 1), name))
            .copied()
    }

    /// A member of a class, or of its bases (breadth-first, at most 6 levels).
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

    /// The absolute dotted name an import statement refers to, and whether it is exact.
    fn import_base(&self, file: u32, imp: &Import) -> Option<(String, bool)> {
        if imp.level == 0 {
            return Some((imp.module.clone(), false));
        }
        let rel = &self.files[file as usize].rel;
        let mut dirs: Vec<&str> = rel.split('/').collect();
        dirs.pop();
        for _ in 1..imp.level {
            dirs.pop()?;
        }
        let mut name = dirs.join(".");
        if !imp.module.is_empty() {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&imp.module);
        }
        Some((name, true))
    }

    /// What a name bound by `imp` in `file` refers to.
    fn bind_import(&self, file: u32, imp: &Import, depth: u32) -> Bind {
        let Some((base, exact)) = self.import_base(file, imp) else {
            return Bind::Nothing;
        };
        let Some(name) = imp.name.as_deref() else {
            // `import a.b.c` binds `a`; `import a.b as x` binds `a.b`.
            let bound = if imp.alias.is_some() {
                base
            } else {
                base.split('.').next().unwrap_or("").to_owned()
            };
            return Bind::Module { name: bound, exact };
        };
        let sub = if base.is_empty() {
            name.to_owned()
        } else {
            format!("{base}.{name}")
        };
        if self.module_file(&sub, exact, file).is_some() {
            return Bind::Module { name: sub, exact };
        }
        match self.module_file(&base, exact, file) {
            Some(g) => self.name_in_module(g, name, depth),
            None => Bind::Nothing,
        }
    }

    /// A top-level name of module file `g`: its own def/class, or a name it imports.
    fn name_in_module(&self, g: u32, name: &str, depth: u32) -> Bind {
        let Some(nid) = self.name_id(name) else {
            return Bind::Nothing;
        };
        if let Some(s) = self.child(g, None, nid) {
            return Bind::Sym(s);
        }
        if depth >= 3 {
            return Bind::Nothing;
        }
        let module = &self.files[g as usize];
        if let Some(imp) = module.imports_named(name).find(|i| i.scope.is_none()) {
            return self.bind_import(g, imp, depth + 1);
        }
        for imp in module.star_imports().filter(|i| i.scope.is_none()) {
            if let Some((base, exact)) = self.import_base(g, imp)
                && let Some(h) = self.module_file(&base, exact, g)
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
        let Some(nid) = self.name_id(name) else {
            // No symbol anywhere has this name; it may still be an imported module.
            return self.bind_imports_only(file, scope, name);
        };
        let mut level = scope;
        loop {
            // A class body is not an enclosing scope for the functions inside it: a method
            // sees the module's names, not its class's (except code in the class body itself).
            let skip = level.is_some_and(|l| {
                Some(l) != scope && self.syms[l as usize].kind == SymbolKind::Class
            });
            if !skip {
                if let Some(s) = self.child(file, level, nid) {
                    return Bind::Sym(s);
                }
                if let Some(b) = self.bind_import_at(file, level, name) {
                    return b;
                }
            }
            match level {
                Some(l) => level = self.syms[l as usize].parent,
                None => break,
            }
        }
        for imp in self.files[file as usize]
            .star_imports()
            .filter(|i| i.scope.is_none())
        {
            if let Some((base, exact)) = self.import_base(file, imp)
                && let Some(g) = self.module_file(&base, exact, file)
                && let Bind::Sym(s) = self.name_in_module(g, name, 1)
            {
                return Bind::Sym(s);
            }
        }
        Bind::Nothing
    }

    fn bind_imports_only(&self, file: u32, scope: Option<u32>, name: &str) -> Bind {
        let mut level = scope;
        loop {
            if let Some(b) = self.bind_import_at(file, level, name) {
                return b;
            }
            match level {
                Some(l) => level = self.syms[l as usize].parent,
                None => return Bind::Nothing,
            }
        }
    }

    fn bind_import_at(&self, file: u32, level: Option<u32>, name: &str) -> Option<Bind> {
        let f = &self.files[file as usize];
        let imp = f
            .imports_named(name)
            .find(|i| i.scope.and_then(|o| f.syms.get(o).copied()) == level)?;
        Some(self.bind_import(file, imp, 0))
    }

    /// Follows `Class.Inner.name` or `module.sub.Class.name` from a binding.
    fn walk_chain(&self, from: u32, start: Bind, parts: &[&str], name: &str) -> Option<u32> {
        match start {
            Bind::Nothing => None,
            Bind::Sym(s) => {
                let mut cur = s;
                for p in parts {
                    if self.syms[cur as usize].kind != SymbolKind::Class {
                        return None;
                    }
                    cur = self.member(cur, self.name_id(p)?)?;
                }
                if self.syms[cur as usize].kind != SymbolKind::Class {
                    return None;
                }
                self.member(cur, self.name_id(name)?)
            }
            Bind::Module { name: base, exact } => {
                // The longest module prefix that exists, then classes inside it.
                for split in (0..=parts.len()).rev() {
                    let mut module = base.clone();
                    for p in &parts[..split] {
                        module.push('.');
                        module.push_str(p);
                    }
                    let Some(g) = self.module_file(&module, exact, from) else {
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
                    return self.walk_chain(from, first, &rest[1..], name);
                }
                None
            }
        }
    }

    fn enclosing_class(&self, scope: Option<u32>) -> Option<u32> {
        let mut cur = scope;
        while let Some(s) = cur {
            if self.syms[s as usize].kind == SymbolKind::Class {
                return Some(s);
            }
            cur = self.syms[s as usize].parent;
        }
        None
    }

    fn by_name(&self, name: &str, methods: bool) -> Option<(&[u32], u16)> {
        if BUILTINS.contains(&name) || (methods && name.starts_with("__")) {
            return None;
        }
        let nid = self.name_id(name)?;
        let list = if methods {
            self.methods_by_name.get(&nid)?
        } else {
            self.top_by_name.get(&nid)?
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
        let mut out = HashMap::default();
        for &i in &self.files[file as usize].syms {
            let s = &self.syms[i as usize];
            let parent = s.parent.map_or(0, |p| p + 1);
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
        refs: &[Reference],
        inherit_only: bool,
    ) -> Vec<Edge> {
        let f = &self.files[file as usize];
        let mut out = Vec::new();
        // Many references share a scope and a name or receiver: resolve each pair once.
        let mut binds: HashMap<(Option<u32>, &str), Bind> = HashMap::default();
        let mut receivers: HashMap<(Option<u32>, &str, &str), Receiver> = HashMap::default();
        let headers = self.headers(file);
        for r in refs {
            if inherit_only != (r.kind == RefKind::Inherit) {
                continue;
            }
            let scope = r.scope.and_then(|o| f.syms.get(o).copied());
            let src = Self::owner(&headers, scope, r.line).or(scope);
            if r.kind == RefKind::Inherit && src == scope {
                continue; // a base list whose class was not found (broken code)
            }
            let push = |out: &mut Vec<Edge>, dst: u32, how: How, k: u16| {
                if Some(dst) != src {
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
            match r.receiver.as_deref() {
                None => match binds
                    .entry((scope, r.name.as_str()))
                    .or_insert_with(|| self.bind(file, scope, &r.name))
                    .clone()
                {
                    Bind::Sym(s) => {
                        let how = if self.syms[s as usize].file == file {
                            How::Local
                        } else {
                            How::Import
                        };
                        push(&mut out, s, how, 1);
                    }
                    Bind::Module { .. } => {}
                    Bind::Nothing => {
                        if r.kind != RefKind::Attribute
                            && let Some((cands, k)) = self.by_name(&r.name, false)
                        {
                            for &c in cands {
                                push(&mut out, c, How::Name, k);
                            }
                        }
                    }
                },
                Some(recv) => {
                    let resolved = *receivers
                        .entry((scope, recv, r.name.as_str()))
                        .or_insert_with(|| self.resolve_receiver(file, scope, recv, &r.name));
                    match resolved {
                        Some((s, how)) => push(&mut out, s, how, 1),
                        None => {
                            if r.kind == RefKind::Call
                                && let Some((cands, k)) = self.by_name(&r.name, true)
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

    fn resolve_receiver(
        &self,
        file: u32,
        scope: Option<u32>,
        recv: &str,
        name: &str,
    ) -> Option<(u32, How)> {
        if recv == "super()" {
            let class = self.enclosing_class(scope)?;
            let nid = self.name_id(name)?;
            for &b in self.bases.get(&class)? {
                if let Some(m) = self.member(b, nid) {
                    return Some((m, How::Super));
                }
            }
            return None;
        }
        if !recv
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b >= 0x80)
        {
            return None;
        }
        let parts: Vec<&str> = recv.split('.').collect();
        let (first, rest) = parts.split_first()?;
        if (*first == "self" || *first == "cls") && rest.is_empty() {
            let class = self.enclosing_class(scope)?;
            return Some((self.member(class, self.name_id(name)?)?, How::SelfRef));
        }
        let start = self.bind(file, scope, first);
        let s = self.walk_chain(file, start, rest, name)?;
        Some((s, How::Attribute))
    }

    /// The files `file` imports (resolved), first line of each.
    pub(crate) fn resolve_deps(&self, file: u32) -> Vec<Dep> {
        let f = &self.files[file as usize];
        let mut out: Vec<Dep> = Vec::new();
        for imp in &f.imports {
            let Some((base, exact)) = self.import_base(file, imp) else {
                continue;
            };
            let target = match imp.name.as_deref() {
                Some(n) if n != "*" => {
                    let sub = if base.is_empty() {
                        n.to_owned()
                    } else {
                        format!("{base}.{n}")
                    };
                    self.module_file(&sub, exact, file)
                        .or_else(|| self.module_file(&base, exact, file))
                }
                _ => self.module_file(&base, exact, file),
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
    pub(crate) fn resolve_files(&mut self, files: &[(u32, Vec<Reference>)]) {
        use rayon::prelude::*;
        let inherits: Vec<Vec<Edge>> = files
            .par_iter()
            .map(|(f, refs)| self.resolve_refs(*f, refs, true))
            .collect();
        for ((f, _), edges) in files.iter().zip(inherits) {
            self.files[*f as usize].edges = edges;
        }
        self.rebuild_bases();
        let rest: Vec<(Vec<Edge>, Vec<Dep>)> = files
            .par_iter()
            .map(|(f, refs)| (self.resolve_refs(*f, refs, false), self.resolve_deps(*f)))
            .collect();
        for ((f, _), (edges, deps)) in files.iter().zip(rest) {
            let file = &mut self.files[*f as usize];
            file.edges.extend(edges);
            file.deps = deps;
        }
    }

    pub(crate) fn encode_edges(&self, file: u32) -> Vec<u8> {
        let f = &self.files[file as usize];
        let mut out = Vec::with_capacity(f.edges.len() * 8);
        put_varint(&mut out, f.edges.len() as u64);
        for e in &f.edges {
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

    pub(crate) fn encode_deps(&self, file: u32) -> Vec<u8> {
        let f = &self.files[file as usize];
        let mut out = Vec::with_capacity(f.deps.len() * 4);
        put_varint(&mut out, f.deps.len() as u64);
        for d in &f.deps {
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
                Some(*self.sym_by_id.get(&(src as i64))?)
            };
            out.push(Edge {
                src,
                dst: *self.sym_by_id.get(&(dst as i64))?,
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
                dst: *self.file_by_id.get(&id)?,
                line,
            });
        }
        r.at_end().then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_come_from_paths() {
        assert_eq!(module_of("a/b/c.py"), "a.b.c");
        assert_eq!(module_of("a/b/__init__.py"), "a.b");
        assert_eq!(module_of("__init__.py"), "");
        assert_eq!(module_of("x.pyi"), "x");
    }
}

/// A stored edge with symbol ids, decoded without a catalog.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawEdge {
    pub src: i64,
    pub dst: i64,
    pub how: How,
    pub kind: RefKind,
    pub k: u16,
    pub line: u32,
}

pub(crate) fn decode_edges_raw(data: &[u8]) -> Option<Vec<RawEdge>> {
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

pub(crate) fn decode_deps_raw(data: &[u8]) -> Option<Vec<(i64, u32)>> {
    let mut r = Reader::new(data);
    let n = r.varint()? as usize;
    let mut out = Vec::with_capacity(n.min(1 << 16));
    for _ in 0..n {
        out.push((r.varint()? as i64, r.u32()?));
    }
    r.at_end().then_some(out)
}
