//! Module paths per family: which module a file is, and which module an import names. The
//! index's resolver works on these names. Each language says in its own folder which family
//! of rules below it follows ([`super::ModuleRules`]); this file implements each family once.
//!
//! | family | a file's module | an import |
//! |---|---|---|
//! | Python | `a/b/c.py` → `a.b.c` (`__init__` is its package) | dotted; relative by level; absolute by suffix |
//! | Rust | `crates/foo-bar/src/x/y.rs` → `foo_bar.x.y` (the folder above `src/` names the crate; `lib.rs`, `main.rs`, `mod.rs` are their folder) | `crate::`, `self::`, `super::`, a child module, or another crate of the tree: exact |
//! | Go | its folder, `a/b` (a package is a folder) | the longest tail of the import path that is a folder of the tree |
//! | JavaScript, TypeScript | its path without extension, `a/b` (`a/index.ts` is `a`) | relative (`./x`, `../x`): exact; bare (`pkg/x`, `@/x`): by suffix |
//! | Java | its folder, dotted, from after `java/` when there is one (`src/main/java/a/b/C.java` → `a.b`) | the package, by suffix |
//! | C, C++ | its path (`src/jv.h`) | `#include "x.h"`: beside the including file, else by path suffix; `<x.h>`: by path suffix |
//! | C# | its folder, dotted (a namespace is spelled by the folders its files sit in, as a rule) | `using A.B;`: the namespace, by suffix |
//! | Ruby | its path without `.rb` (`lib/sinatra/base`) | `require_relative` (`./x`): exact; `require 'a/b'`: by suffix |
//! | PHP | its folder, dotted (PSR-4: `src/Routing/Route.php` → `src.Routing`) | `use A\B\C;`: namespace `A.B` by suffix, then name `C` |
//!
//! C, Ruby and PHP name functions and types program-wide: a name that no scope or import binds
//! and that exactly one definition in the tree has is that definition ([`Family::has_global_names`]).

use super::ModuleFamily as Family;

/// The module `rel` is, as resolution names it (see the module table).
pub fn module_name(family: Family, rel: &str) -> String {
    match family {
        Family::Python => python_module(rel),
        Family::Rust => rust_module(rel),
        Family::Go => folder(rel).to_owned(),
        Family::Js => js_module(rel),
        Family::Java => java_package(rel),
        Family::C => rel.to_owned(),
        Family::CSharp | Family::Php => folder(rel).replace('/', "."),
        Family::Ruby => ruby_module(rel),
        Family::Other => String::new(),
    }
}

/// `a/b/c.py` → `a.b.c`, `a/b/__init__.py` → `a.b`.
pub fn python_module(rel: &str) -> String {
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

fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `crates/foo-bar/src/x/y.rs` → `foo_bar.x.y`; `src/lib.rs` → the crate; `tests/it/main.rs`
/// and `tests/it.rs` (test crates) → `it`.
fn rust_module(rel: &str) -> String {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let parts: Vec<&str> = stem.split('/').collect();
    let (krate, rest): (String, &[&str]) = match parts
        .iter()
        .rposition(|p| *p == "src")
        .filter(|&i| i + 1 < parts.len())
    {
        Some(i) => {
            let name = if i == 0 { "crate" } else { parts[i - 1] };
            (name.replace('-', "_"), &parts[i + 1..])
        }
        None => match parts
            .iter()
            .position(|p| matches!(*p, "tests" | "benches" | "examples"))
            .filter(|&i| i + 1 < parts.len())
        {
            Some(i) => (parts[i + 1].replace('-', "_"), &parts[i + 2..]),
            None => (parts[0].replace('-', "_"), &parts[1..]),
        },
    };
    let mut module = vec![krate];
    for (k, part) in rest.iter().enumerate() {
        let last = k + 1 == rest.len();
        if last && matches!(*part, "lib" | "main" | "mod") {
            break;
        }
        module.push((*part).to_owned());
    }
    module.join(".")
}

/// The folder of the Rust crate a file belongs to (the one holding `src/`, where its
/// `Cargo.toml` is) and the crate name its path gives (see [`module_name`]): `crates/foo-bar/src/x.rs`
/// → (`crates/foo-bar`, `foo_bar`), `src/lib.rs` → (``, `crate`).
pub fn rust_crate_dir(rel: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = rel.split('/').collect();
    let i = parts
        .iter()
        .rposition(|p| *p == "src")
        .filter(|&i| i + 1 < parts.len())?;
    let name = if i == 0 {
        "crate".to_owned()
    } else {
        parts[i - 1].replace('-', "_")
    };
    Some((parts[..i].join("/"), name))
}

/// `lib/sinatra/base.rb` → `lib/sinatra/base`.
fn ruby_module(rel: &str) -> String {
    strip_ruby_extension(rel).to_owned()
}

fn strip_ruby_extension(path: &str) -> &str {
    for ext in [".rb", ".rake", ".gemspec"] {
        if let Some(stem) = path.strip_suffix(ext) {
            return stem;
        }
    }
    path
}

/// A Ruby `require` as a module name, and whether it is exact: `./x` (from
/// `require_relative`) in `lib/a/b.rb` → (`lib/a/x`, true); `a/b` → (`a/b`, false).
pub fn ruby_path(importer: &str, spec: &str) -> (String, bool) {
    let relative = spec.starts_with("./") || spec.starts_with("../");
    if !relative {
        return (strip_ruby_extension(spec).to_owned(), false);
    }
    (
        join_relative(folder(importer), strip_ruby_extension(spec)),
        true,
    )
}

/// A C include as the path it names beside the including file: `x.h` in `src/a.c` →
/// `src/x.h`; `<x.h>` → none (looked for on the include path only). `None` for a path that
/// leaves the tree.
pub fn c_include_beside(importer: &str, spec: &str) -> Option<String> {
    if spec.starts_with('<') {
        return None;
    }
    let dir = folder(importer);
    let ups = dir.split('/').filter(|p| !p.is_empty()).count();
    let climbs = spec.split('/').filter(|p| *p == "..").count();
    (climbs <= ups).then(|| join_relative(dir, spec))
}

/// `folder` joined with a relative path, `.` and `..` folded.
fn join_relative(folder: &str, path: &str) -> String {
    let mut parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for piece in path.split('/') {
        match piece {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// A C include as a path to look up by suffix: `<sys/x.h>` → `sys/x.h`, `../x.h` → `x.h`.
pub fn c_include_tail(spec: &str) -> &str {
    let spec = spec.trim_start_matches('<').trim_end_matches('>');
    let mut rest = spec;
    while let Some(r) = rest.strip_prefix("../").or_else(|| rest.strip_prefix("./")) {
        rest = r;
    }
    rest
}

/// `a/b.ts` → `a/b`, `a/index.tsx` → `a`, `a/b.d.ts` → `a/b`.
fn js_module(rel: &str) -> String {
    let stem = strip_js_extension(rel);
    match stem.strip_suffix("/index") {
        Some(dir) => dir.to_owned(),
        None if stem == "index" => String::new(),
        None => stem.to_owned(),
    }
}

fn strip_js_extension(path: &str) -> &str {
    for ext in [
        ".d.ts", ".d.mts", ".d.cts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
    ] {
        if let Some(stem) = path.strip_suffix(ext) {
            return stem;
        }
    }
    path
}

/// The package of a Java file: its folder, dotted, from after the last `java/` folder
/// (Maven and Gradle layouts) when there is one.
fn java_package(rel: &str) -> String {
    let dir = folder(rel);
    let dir = match dir.rfind("java/") {
        Some(i) if i == 0 || dir.as_bytes().get(i - 1) == Some(&b'/') => &dir[i + 5..],
        _ => dir,
    };
    dir.replace('/', ".")
}

/// How module names nest for suffix lookups: `.` or `/`.
pub fn separator(family: Family) -> char {
    match family {
        Family::Go | Family::Js | Family::C | Family::Ruby => '/',
        _ => '.',
    }
}

/// Whether a file is a better home for a module than another that claims the same name:
/// `.py` over `.pyi`, `x.ts` over `x/index.ts` and `.d.ts`, `lib.rs` over `main.rs`, and
/// for a Go package the file named after its folder (`store/store.go`).
pub fn prefer(candidate: &str, current: &str) -> bool {
    let rank = |rel: &str| -> u8 {
        let named_after_folder = rel.strip_suffix(".go").is_some_and(|stem| {
            stem.rsplit_once('/')
                .is_some_and(|(dir, file)| dir.rsplit('/').next() == Some(file))
        });
        if named_after_folder {
            3
        } else if rel.ends_with(".pyi") || rel.contains(".d.") {
            0
        } else if strip_js_extension(rel).ends_with("/index") || rel.ends_with("/main.rs") {
            1
        } else {
            2
        }
    };
    rank(candidate) > rank(current)
}

/// A Rust path as written in an import (`crate::a`, `super::b`, `serde`), as a module name.
/// `current` is the importing module (a file's module plus the inline modules around the
/// import); `is_child` says whether a name is a module declared in it (`mod x;`).
pub fn rust_path(current: &str, path: &str, is_child: impl Fn(&str) -> bool) -> String {
    let mut segments = path.split("::").filter(|s| !s.is_empty()).peekable();
    let mut module: Vec<&str> = Vec::new();
    match segments.peek().copied() {
        Some("crate") => {
            segments.next();
            module.extend(current.split('.').next());
        }
        Some("self") => {
            segments.next();
            module.extend(current.split('.'));
        }
        Some("super") => {
            module.extend(current.split('.'));
            while segments.next_if_eq(&"super").is_some() {
                module.pop();
            }
        }
        Some(first) if is_child(first) => module.extend(current.split('.')),
        _ => {}
    }
    module.extend(segments);
    module.join(".")
}

/// A JavaScript/TypeScript import specifier as a module name, and whether it is exact:
/// `./x.js` from `src/a/b.ts` → (`src/a/x`, true); `pkg/x` → (`pkg/x`, false).
pub fn js_path(importer: &str, spec: &str) -> (String, bool) {
    let relative = spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
    if !relative {
        let spec = strip_js_extension(spec.trim_start_matches('/'));
        return (spec.trim_end_matches("/index").to_owned(), false);
    }
    let mut parts: Vec<&str> = folder(importer)
        .split('/')
        .filter(|p| !p.is_empty())
        .collect();
    for piece in strip_js_extension(spec).split('/') {
        match piece {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.last() == Some(&"index") {
        parts.pop();
    }
    (parts.join("/"), true)
}

/// The tails of a name, longest first, without the name itself: `a/b/c` → `b/c`, `c`.
pub fn tails(name: &str, separator: char) -> impl Iterator<Item = &str> {
    name.match_indices(separator)
        .map(move |(i, _)| &name[i + 1..])
}

/// A Python module's name below the last `src` folder of its path (`src.flask.app` →
/// `flask.app`, `packages.a.src.a.x` → `a.x`); the name itself where there is none.
fn without_src_root(module: &str) -> &str {
    if let Some(rest) = module.strip_prefix("src.") {
        return without_src_root(rest);
    }
    match module.rfind(".src.") {
        Some(i) => &module[i + 5..],
        None => module,
    }
}

/// A symbol's full name for people: its module and qualified name in the language's notation
/// (`pkg.mod.Class.method`, `cast_parser::walk::relative`, `tui.Light.Init`).
pub fn full_name(rel: &str, qualname: &str) -> String {
    let family = crate::languages::module_rules_of_path(rel).family;
    let module = module_name(family, rel);
    let (module, join) = match family {
        // A src layout (`src/flask/app.py`): the import system's name starts below `src/`,
        // which is on the path, not a package.
        Family::Python => (without_src_root(&module).to_owned(), "."),
        Family::Rust => (module.replace('.', "::"), "::"),
        Family::Go => (module.rsplit('/').next().unwrap_or("").to_owned(), "."),
        Family::Js => (module.replace('/', "."), "."),
        // Names that are program-wide, or namespaces the folders only suggest: the qualified
        // name is the full name.
        Family::C | Family::CSharp | Family::Ruby | Family::Php => (String::new(), "."),
        _ => (module, "."),
    };
    if module.is_empty() {
        qualname.to_owned()
    } else {
        format!("{module}{join}{qualname}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_follow_each_language() {
        for (rel, want) in [
            ("a/b/c.py", "a.b.c"),
            ("a/b/__init__.py", "a.b"),
            ("__init__.py", ""),
            ("x.pyi", "x"),
            ("crates/cast-parser/src/walk.rs", "cast_parser.walk"),
            ("crates/cast-parser/src/lib.rs", "cast_parser"),
            (
                "crates/cast-parser/src/languages/mod.rs",
                "cast_parser.languages",
            ),
            ("src/main.rs", "crate"),
            (
                "crates/cast-parser/tests/integration/main.rs",
                "integration",
            ),
            (
                "crates/cast-parser/tests/integration/languages.rs",
                "integration.languages",
            ),
            ("src/tui/light.go", "src/tui"),
            ("main.go", ""),
            ("src/utils/url.ts", "src/utils/url"),
            ("src/jsx/index.tsx", "src/jsx"),
            ("src/adapter/deno/deno.d.ts", "src/adapter/deno/deno"),
            (
                "gson/src/main/java/com/google/gson/Gson.java",
                "com.google.gson",
            ),
            ("Main.java", ""),
        ] {
            let family = crate::languages::module_rules_of_path(rel).family;
            assert_eq!(module_name(family, rel), want, "{rel}");
        }
    }

    #[test]
    fn rust_crate_folders_hold_src() {
        assert_eq!(
            rust_crate_dir("crates/grep-matcher/src/lib.rs"),
            Some(("crates/grep-matcher".into(), "grep_matcher".into()))
        );
        assert_eq!(
            rust_crate_dir("src/a/b.rs"),
            Some((String::new(), "crate".into()))
        );
        assert_eq!(rust_crate_dir("tests/it.rs"), None);
    }

    #[test]
    fn rust_paths_resolve_crate_self_super_and_children() {
        let child = |name: &str| name == "walk";
        assert_eq!(
            rust_path("cast_parser.lang", "crate::walk", child),
            "cast_parser.walk"
        );
        assert_eq!(
            rust_path("cast_parser.lang", "self", child),
            "cast_parser.lang"
        );
        assert_eq!(
            rust_path("cast_parser.a.b", "super::super", child),
            "cast_parser"
        );
        assert_eq!(rust_path("cast_parser", "walk", child), "cast_parser.walk");
        assert_eq!(rust_path("cast_parser", "std::io", child), "std.io");
        assert_eq!(rust_path("cast_cli", "cast_parser", child), "cast_parser");
    }

    #[test]
    fn js_specifiers_resolve_against_the_importer() {
        assert_eq!(js_path("src/a/b.ts", "./x.js"), ("src/a/x".into(), true));
        assert_eq!(
            js_path("src/a/b.ts", "../utils"),
            ("src/utils".into(), true)
        );
        assert_eq!(
            js_path("src/a/b.ts", "./sub/index"),
            ("src/a/sub".into(), true)
        );
        assert_eq!(
            js_path("src/a/b.ts", "hono/utils/url"),
            ("hono/utils/url".into(), false)
        );
    }

    #[test]
    fn common_names_come_from_each_language() {
        use crate::languages::module_rules as rules_of_language;
        assert!(rules_of_language("rust").common.is_common_method("collect"));
        assert!(rules_of_language("go").common.is_common_method("String"));
        assert!(rules_of_language("tsx").common.is_common_type("Promise"));
        assert!(!rules_of_language("rust").common.is_common_method("open"));
        assert!(!rules_of_language("python").common.is_common_method("map"));
    }

    #[test]
    fn full_names_use_the_language_notation() {
        assert_eq!(full_name("pkg/mod.py", "C.m"), "pkg.mod.C.m");
        // A src layout's names are the import system's.
        assert_eq!(
            full_name("src/flask/sansio/scaffold.py", "Scaffold"),
            "flask.sansio.scaffold.Scaffold"
        );
        assert_eq!(full_name("libs/a/src/a/x.py", "f"), "a.x.f");
        assert_eq!(full_name("src/app.py", "run"), "app.run");
        assert_eq!(full_name("pkg/srcs/x.py", "f"), "pkg.srcs.x.f");
        assert_eq!(
            full_name("crates/cast-parser/src/walk.rs", "Walk::run"),
            "cast_parser::walk::Walk::run"
        );
        assert_eq!(
            full_name("src/tui/light.go", "Light.Init"),
            "tui.Light.Init"
        );
        assert_eq!(tails("a/b/c", '/').collect::<Vec<_>>(), vec!["b/c", "c"]);
    }
}
