//! Resolution in Rust, Go, TypeScript and Java: small projects in tests/fixtures/langs/, their
//! call graphs and imports written down by reading the code.

use cast_analyzer::{Index, Queries};

use super::{copy_fixture, edges, triples, write_file};

/// Each file's resolved imports, as `importer -> imported`.
fn imports(index: &Index) -> Vec<String> {
    let mut out: Vec<String> = index
        .top_files(100)
        .unwrap()
        .into_iter()
        .flat_map(|f| {
            let from = f.path.clone();
            f.imports
                .into_iter()
                .map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn rust_crates_modules_impls_and_paths() {
    let dir = copy_fixture("langs/rust");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            // store/src/lib.rs: `Cache::new()` through `pub use cache::Cache` and its impl.
            ("open", "Cache::new", "call/attribute"),
            ("open", "Cache", "type/import"), // its return type
            // store/src/cache.rs
            ("Cache::new", "Cache", "call/local"),
            ("Cache::level", "Cache::bump", "call/self"), // in the other impl block
            // app/src/main.rs: `use shop_store::{Cache, open}` names the store crate by the
            // name its Cargo.toml declares.
            ("main", "open", "call/import"),
            ("main", "Cache", "type/import"),
            ("main", "show", "call/attribute"), // `util::show` through `mod util;`
            ("main", "Cache::level", "call/name"),
            // app/src/util.rs
            ("show", "helper", "call/attribute"), // `super::helper()`
        ])
    );
    assert_eq!(
        imports(&index),
        vec![
            "crates/app/src/main.rs -> crates/app/src/util.rs",
            "crates/app/src/main.rs -> crates/store/src/lib.rs",
            "crates/store/src/lib.rs -> crates/store/src/cache.rs",
        ]
    );
    for name in [
        "Cache::level",
        "store::cache::Cache::level",
        "cache::Cache::level",
    ] {
        let shown = index.show(name).unwrap();
        assert_eq!(
            (shown.path.as_str(), shown.start_line),
            ("crates/store/src/cache.rs", 11),
            "{name}"
        );
    }
}

/// A `mod m;` whose file is not in the tree (generated, behind a `#[path]`, or not copied)
/// binds `m` to the declaring file itself: a path through it resolves to nothing, where it
/// once recursed until the stack overflowed and took the whole index down.
#[test]
fn a_declared_module_without_its_file_resolves_to_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("skeleton.rs"),
        "mod braced;\nmod gone;\n\nfn lines() -> u32 {\n    braced::lines() + gone::deeper::more::f()\n}\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "mod a;\n\npub fn run() {\n    a::b::c();\n    self::a::x();\n}\n",
    )
    .unwrap();
    let index = Index::open(dir.path()).unwrap();
    let report = index.report().unwrap();
    assert_eq!((report.files, report.symbols), (2, 5));
    // Nothing names a definition in the tree but `lines` and `run` themselves.
    assert_eq!(edges(&index), Vec::<(String, String, String)>::new());
}

/// A Rust file's own tests (`mod tests`) count as tests: below the code they test, unless the
/// query asks for tests.
#[test]
fn rust_tests_beside_the_code_come_after_it_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "src/size.rs",
        "/// Parses a human readable size such as 2M into bytes.\npub fn parse_size(text: &str) -> u64 {\n    text.len() as u64\n}\n\n/// Human readable sizes parse into bytes: 2M, 2K and a plain size.\n#[test]\nfn parse_human_readable_sizes_into_bytes() {\n    assert_eq!(parse_size(\"2M\"), 2);\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    /// A human readable size: 2M parses into bytes, and so does 2K and a plain size.\n    #[test]\n    fn parse_size_parses_human_readable_sizes() {\n        assert_eq!(parse_size(\"2M\"), 2);\n        assert_eq!(parse_size(\"2K\"), 2);\n    }\n}\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let first = |query: &str| {
        index
            .find_with(query, 5, cast_analyzer::FindMode::Symbols)
            .unwrap()
            .symbols[0]
            .qualname
            .clone()
            .unwrap()
    };
    assert_eq!(
        first("parse a human readable size into bytes"),
        "parse_size"
    );
    // Asked for, the tests come first (the `mod tests` itself, a test in it, or the `#[test]`
    // beside the code).
    let asked = first("tests of parsing a human readable size into bytes");
    assert!(
        asked.starts_with("tests") || asked == "parse_human_readable_sizes_into_bytes",
        "{asked}"
    );
    // The file is named by the code, not by the test that repeats the query's words, ...
    let matches = |query: &str| {
        index
            .find_with(query, 5, cast_analyzer::FindMode::Files)
            .unwrap()
            .files[0]
            .matches
            .clone()
    };
    let named = matches("parse a human readable size into bytes");
    assert_eq!(named[0], "parse_size:2", "{named:?}");
    // A `#[test]` outside the `tests` module is a test too: it gets the tests' factor.
    let found = index
        .find_with(
            "parse a human readable size into bytes",
            5,
            cast_analyzer::FindMode::Symbols,
        )
        .unwrap();
    let attributed = found
        .symbols
        .iter()
        .find(|h| h.qualname.as_deref() == Some("parse_human_readable_sizes_into_bytes"))
        .expect("the #[test] fn is among the five symbols of the file");
    let code = found
        .symbols
        .iter()
        .find(|h| h.qualname.as_deref() == Some("parse_size"))
        .unwrap();
    assert!(
        attributed.scores.factor < 1.0 && code.scores.factor == 1.0,
        "{} {}",
        attributed.scores.factor,
        code.scores.factor
    );
    // ... unless the query asks for tests.
    let named = matches("tests of parsing a human readable size into bytes");
    assert!(named[0].starts_with("tests"), "{named:?}");
}

#[test]
fn go_packages_are_folders() {
    let dir = copy_fixture("langs/go");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            ("main", "New", "call/attribute"), // store.New() through the package import
            ("main", "Store.Add", "call/name"),
            ("main", "helper", "call/import"), // util.go, same package
            ("New", "Store", "call/local"),
            ("New", "Store", "type/local"), // `*Store`, its result
            ("Store.Add", "Store", "type/import"), // receivers, in the package's other file
            ("Store.check", "Store", "type/import"),
            ("Store.Add", "Store.check", "call/name"),
        ])
    );
    assert_eq!(imports(&index), vec!["main.go -> store/store.go"]);
    assert_eq!(index.show("(*Store).Add").unwrap().path, "store/add.go");
    assert_eq!(index.show("store.Store.Add").unwrap().path, "store/add.go");
}

#[test]
fn typescript_relative_imports_and_re_exports() {
    let dir = copy_fixture("langs/ts");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            // `import { Router } from '.'`: src/index.ts re-exports it from './router'.
            ("<src/app.ts>", "Router", "call/import"),
            ("<src/app.ts>", "Router.add", "call/name"),
            ("Router", "Base", "inherit/local"),
            ("Router.add", "Router.norm", "call/self"),
            ("Router.add", "join", "call/import"), // './utils' is utils/index.ts
        ])
    );
    assert_eq!(
        imports(&index),
        vec![
            "src/app.ts -> src/index.ts",
            "src/index.ts -> src/router.ts",
            "src/index.ts -> src/utils/index.ts",
            "src/router.ts -> src/utils/index.ts",
        ]
    );
}

#[test]
fn java_packages_imports_and_class_scope() {
    let dir = copy_fixture("langs/java");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            ("App.main", "Store", "call/import"),
            ("App.main", "Store", "type/import"),
            ("App.main", "Store.stock", "call/name"),
            ("App.main", "App.helper", "call/local"), // a method sees its class's members
            ("Store", "Base", "inherit/import"),      // same package, no import needed
            ("Store.stock", "Store.check", "call/local"),
            ("Store.stock", "Store.check", "call/self"),
        ])
    );
    assert_eq!(
        imports(&index),
        vec!["src/main/java/com/shop/App.java -> src/main/java/com/shop/store/Store.java"]
    );
}

/// Calls by name stay within a language family, but a template's calls (HTML, Jinja) still
/// reach the Python methods that render it: `{{ cart.total() }}` lost its edge once names
/// were looked up per family.
#[test]
fn template_calls_reach_python_methods_but_not_other_languages() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| write_file(dir.path(), rel, text);
    write(
        "shop/cart.py",
        "class Cart:\n    def total(self):\n        return 1\n",
    );
    write(
        "templates/cart.html",
        "<section id=\"cart\">\n  <p>Total: {{ cart.total() }}</p>\n</section>\n",
    );
    // A Go method of the same name, called by a Go function, and a Python call of it.
    write(
        "billing/bill.go",
        "package billing\n\ntype Bill struct{}\n\nfunc (b Bill) total() int { return 2 }\n\nfunc sum(x Thing) int { return x.total() }\n",
    );
    write("shop/use.py", "def report(c):\n    return c.total()\n");
    let index = Index::open(dir.path()).unwrap();
    let all = edges(&index);
    let into = |src: &str| -> Vec<String> {
        all.iter()
            .filter(|(s, _, _)| s == src)
            .map(|(_, d, how)| format!("{d} {how}"))
            .collect()
    };
    // The template's call sits in its `<section id="cart">`.
    assert_eq!(into("cart"), vec!["Cart.total call/name"]);
    assert_eq!(into("report"), vec!["Cart.total call/name"]);
    assert_eq!(into("sum"), vec!["Bill.total call/name"]);
}
