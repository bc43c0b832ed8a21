//! Resolution in Rust, Go, TypeScript, Java, C, Ruby, PHP and C#: small projects in
//! tests/fixtures/langs/, their call graphs and imports written down by reading the code.

use cast_analyzer::{FindMode, Index, MapOptions, Queries};

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
            ("main", "Cache::level", "call/typed"),
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
            ("main", "Store.Add", "call/typed"), // `s := store.New()` gives a `*Store`
            ("main", "helper", "call/import"), // util.go, same package
            ("New", "Store", "call/local"),
            ("New", "Store", "type/local"), // `*Store`, its result
            ("Store.Add", "Store", "type/import"), // receivers, in the package's other file
            ("Store.check", "Store", "type/import"),
            ("Store.Add", "Store.check", "call/typed"), // `s.check()`, `s *Store`
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
            ("<src/app.ts>", "Router.add", "call/typed"), // `const r = new Router()`
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
            ("App.main", "Store.stock", "call/typed"),
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

/// C: a quoted include is found beside the including file; a function no scope or include
/// binds is the one definition the tree has of its name (the linker's rule), and a `static`
/// function of the file itself wins over another file's.
#[test]
fn c_includes_and_program_wide_functions() {
    let dir = copy_fixture("langs/c");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            ("<src/store.h>", "store", "type/local"), // in the prototype of store_add
            ("main", "helper", "call/local"),         // main.c's own static helper, not util.c's
            ("main", "store_add", "call/global"),     // declared in store.h, defined in store.c
            ("main", "store", "type/import"),         // `struct store`, from the included header
            ("store_add", "check", "call/local"),
            ("store_add", "clamp", "call/global"),
            ("store_add", "store", "type/import"),
        ])
    );
    assert_eq!(
        imports(&index),
        vec![
            "main.c -> src/store.h",
            "src/store.c -> src/store.h",
            "src/store.h -> src/util.h",
            "src/util.c -> src/util.h",
        ]
    );
}

/// Ruby: `require` by load path and `require_relative`; a class inside a module of a required
/// file is found by its name; `self.m` and a bare call reach the class and its superclass.
#[test]
fn ruby_requires_modules_and_self_calls() {
    let dir = copy_fixture("langs/ruby");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            // `Store.new`: found in the required file, inside its `module Shop`.
            ("Shop::open", "Shop::Store", "call/import"),
            ("Shop::Store", "Shop::Base", "inherit/import"),
            ("Shop::Store::add", "Shop::Store::check", "call/local"),
            ("Shop::Store::add", "Shop::Base::log", "call/self"),
        ])
    );
    assert_eq!(
        imports(&index),
        vec![
            "lib/shop.rb -> lib/shop/store.rb",
            "lib/shop/store.rb -> lib/shop/base.rb",
        ]
    );
}

/// PHP: `use A\B\C;` finds the namespace by the folders that spell it (PSR-4); a class of the
/// same namespace needs no `use`; `$this->m()` and `Clock::now()` resolve.
#[test]
fn php_namespaces_uses_and_this() {
    let dir = copy_fixture("langs/php");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            ("<index.php>", "Store", "call/import"), // `new Store()` through `use Shop\Store`
            ("<index.php>", "Store::add", "call/name"), // `$store->add()`: a guess
            ("Store", "Base", "inherit/import"),     // same namespace, another file
            ("Store::add", "Store::check", "call/self"),
            ("Store::add", "Clock::now", "call/attribute"),
            ("Clock::now", "helper", "call/local"),
        ])
    );
    assert_eq!(
        imports(&index),
        vec![
            "index.php -> src/Shop/Store.php",
            "src/Shop/Store.php -> src/Shop/Util/Clock.php",
        ]
    );
}

/// C#: `using Shop.Store;` brings the types of the namespace whose folders spell it; a class
/// inside a `namespace` block is found from another file; bare calls see the class's members.
#[test]
fn csharp_usings_namespaces_and_members() {
    let dir = copy_fixture("langs/csharp");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(
        edges(&index),
        triples(&[
            ("Shop.App.App.Main", "Shop.Store.Store", "call/import"),
            ("Shop.App.App.Main", "Shop.Store.Store.Add", "call/name"),
            ("Shop.Store.Store", "Shop.Store.Base", "inherit/import"),
            (
                "Shop.Store.Store.Add",
                "Shop.Store.Store.Check",
                "call/local"
            ),
            ("Shop.Store.Store.Add", "Shop.Store.Base.Log", "call/self"),
        ])
    );
}

/// One rule says what a test file is (`cast_parser::roles`), and `show`, `find` and `map` all
/// follow it, in every language: a function defined in a source file and again in a test file
/// (by the language's convention) is shown from the source file, found with the tests' factor
/// only in the test file, and put on the map before its test.
#[test]
fn find_map_and_show_agree_on_test_files_in_every_language() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (name, source file, test file, the definition both hold)
        (
            "total_python",
            "shop/cart.py",
            "tests/test_cart.py",
            "def total_python():\n    return 1\n",
        ),
        (
            "total_rust",
            "src/cart.rs",
            "tests/cart.rs",
            "pub fn total_rust() -> u32 {\n    1\n}\n",
        ),
        (
            "TotalGo",
            "cart/cart.go",
            "cart/cart_test.go",
            "package cart\n\nfunc TotalGo() int {\n\treturn 1\n}\n",
        ),
        (
            "totalJava",
            "src/main/java/shop/Prices.java",
            "src/test/java/shop/PricesTest.java",
            "class Prices {\n    static int totalJava() {\n        return 1;\n    }\n}\n",
        ),
        (
            "totalTs",
            "web/cart.ts",
            "web/cart.test.ts",
            "export function totalTs(): number {\n  return 1;\n}\n",
        ),
        (
            "total_c",
            "csrc/cart.c",
            "csrc/cart_test.c",
            "int total_c(void)\n{\n    return 1;\n}\n",
        ),
        (
            "total_cpp",
            "cpp/cart.cpp",
            "cpp/cart_unittest.cpp",
            "int total_cpp() {\n    return 1;\n}\n",
        ),
        (
            "TotalCs",
            "Shop/Cart.cs",
            "Shop/CartTests.cs",
            "class Cart {\n    static int TotalCs() { return 1; }\n}\n",
        ),
        (
            "total_ruby",
            "lib/cart.rb",
            "spec/cart_spec.rb",
            "def total_ruby\n  1\nend\n",
        ),
        (
            "total_php",
            "php/Cart.php",
            "php/CartTest.php",
            "<?php\n\nfunction total_php()\n{\n    return 1;\n}\n",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (_, source, test, text) in cases {
        write_file(dir.path(), source, text);
        write_file(dir.path(), test, text);
    }
    let index = Index::open(dir.path()).unwrap();
    let leaf = |qualname: &str| {
        qualname
            .rsplit(['.', ':'])
            .next()
            .unwrap_or(qualname)
            .to_owned()
    };
    for (name, source, test, _) in cases {
        assert!(cast_parser::roles::is_test_path(test), "{test}");
        assert!(!cast_parser::roles::is_test_path(source), "{source}");
        // show: the source file's definition first.
        assert_eq!(index.show(name).unwrap().path, *source, "show {name}");
        // find: both found, only the test file's with the tests' factor.
        let found = index.find_with(name, 10, FindMode::Symbols).unwrap();
        let factor = |path: &str| {
            found
                .symbols
                .iter()
                .find(|h| {
                    h.path == path && h.qualname.as_deref().map(leaf).as_deref() == Some(*name)
                })
                .map(|h| h.scores.factor)
                .unwrap_or_else(|| panic!("find {name}: nothing in {path}"))
        };
        assert_eq!(factor(source), 1.0, "find {name} in {source}");
        assert!(factor(test) < 1.0, "find {name} in {test}");
    }
    // map: at every budget, a language's test is shown only when its source is: tests come
    // after all other code (a test in a folder already shown may fit where another
    // language's source in a new folder does not, so the check is per language).
    for budget in [40, 80, 120, 160, 240, 320, 480, 640, 1000] {
        let map = index
            .map(&MapOptions {
                budget,
                ..MapOptions::default()
            })
            .unwrap();
        let shown: Vec<&str> = map
            .files
            .iter()
            .filter(|f| !f.symbols.is_empty())
            .map(|f| f.path.as_str())
            .collect();
        for (_, source, test, _) in cases {
            assert!(
                !shown.contains(test) || shown.contains(source),
                "budget {budget}: {test} shown without {source}: {shown:?}"
            );
        }
    }
}

/// A file's role is decided once, when it is indexed, from its path and its opening lines;
/// the build counts the files by role, search ranks a generated file as source (it changes
/// with what it is generated from) but a test lower, and the map shows no calls made in
/// generated code.
#[test]
fn roles_are_stored_at_index_time_and_generated_code_is_told_apart_by_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let calls = "package shop\n\nfunc checkoutTotal() int {\n    return checkoutTax()\n}\n\nfunc checkoutTax() int {\n    return 1\n}\n";
    write_file(dir.path(), "shop/cart.go", calls);
    write_file(
        dir.path(),
        "shop/cart.pb.go",
        &calls.replace("checkout", "protoCheckout"),
    );
    // Generated by what it says, not by its name.
    write_file(
        dir.path(),
        "shop/tables.go",
        &format!(
            "// Code generated by stringer; DO NOT EDIT.\n\n{}",
            calls.replace("checkout", "tableCheckout")
        ),
    );
    write_file(
        dir.path(),
        "shop/cart_test.go",
        "package shop\n\nfunc TestTotal() {}\n",
    );
    write_file(
        dir.path(),
        "types/cart.d.ts",
        "export declare function total(): number;\n",
    );
    write_file(dir.path(), "examples/demo.py", "def demo():\n    pass\n");
    write_file(
        dir.path(),
        "vendor/lib/util.c",
        "int util(void) { return 0; }\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let roles = index.report().unwrap().roles;
    assert_eq!(
        (roles.source, roles.generated, roles.test, roles.stub),
        (1, 2, 1, 1),
        "{roles:?}"
    );
    assert_eq!((roles.example, roles.installed), (1, 1), "{roles:?}");

    // find: a generated file's symbols rank as source's; a test's carry the tests' factor.
    let factor = |query: &str, path: &str| {
        let found = index.find_with(query, 20, FindMode::Symbols).unwrap();
        found
            .symbols
            .iter()
            .find(|h| h.path == path)
            .map(|h| h.scores.factor)
            .unwrap_or_else(|| panic!("find {query}: nothing in {path}"))
    };
    assert_eq!(factor("checkoutTotal", "shop/cart.go"), 1.0);
    assert_eq!(factor("tableCheckoutTotal", "shop/tables.go"), 1.0);
    assert!(factor("TestTotal", "shop/cart_test.go") < 1.0);

    // map: calls are shown from the source file only.
    let map = index
        .map(&MapOptions {
            budget: 4000,
            ..MapOptions::default()
        })
        .unwrap();
    let calls_of = |path: &str| -> Vec<String> {
        map.files
            .iter()
            .filter(|f| f.path == path)
            .flat_map(|f| f.symbols.iter())
            .flat_map(|s| s.calls_to.clone())
            .collect()
    };
    assert!(
        !calls_of("shop/cart.go").is_empty(),
        "the source's call is shown"
    );
    assert!(calls_of("shop/tables.go").is_empty());
    assert!(calls_of("shop/cart.pb.go").is_empty());
}

/// Calls on a receiver whose type the code states resolve to that type's method (`typed`):
/// Go's method receivers and parameters, `x := T{}` / `&T{}` / `NewT()`, struct fields, and
/// methods declared in another file of the package; Java's and TypeScript's parameters,
/// locals, fields (`this.x`, and in Java the bare field) and `new`; Rust's parameters, `let x:
/// T`, `T::new()` returning `Self`, and `self.field` of the impl's struct. A `let` that says
/// nothing shadows what an earlier one said: the call stays a guess by name.
#[test]
fn calls_on_typed_receivers_resolve_in_go_java_typescript_and_rust() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(root, "go.mod", "module example.com/shop\n");
    write_file(
        root,
        "shop/cache.go",
        "package shop\n\ntype Cache struct{}\n\n\
         func (c *Cache) Lookup(key string) string { return key }\n\n\
         func (c *Cache) Remember(key string) {}\n\n\
         func NewCache() (*Cache, error) { return &Cache{}, nil }\n",
    );
    write_file(
        root,
        "shop/store.go",
        "package shop\n\ntype Store struct {\n\tcache *Cache\n\tname  string\n}\n\n\
         func (s *Store) Load(key string) string {\n\ts.cache.Remember(key)\n\treturn s.cache.Lookup(key)\n}\n\n\
         func Use(st *Store, extra Cache) {\n\tst.Load(\"a\")\n\textra.Remember(\"b\")\n\
         \tc, _ := NewCache()\n\tc.Lookup(\"c\")\n\td := &Store{}\n\td.Title()\n\
         \tvar e Store\n\te.Load(\"e\")\n}\n",
    );
    // The module's root package, imported by the path `go.mod` declares (its last part is
    // also the name of the folder `shop/`, which is another package).
    write_file(
        root,
        "version.go",
        "package shop\n\nfunc Version() string { return \"1\" }\n",
    );
    write_file(
        root,
        "tool/main.go",
        "package main\n\nimport \"example.com/shop\"\n\nfunc main() {\n\tshop.Version()\n}\n",
    );
    write_file(
        root,
        "shop/title.go",
        "package shop\n\nfunc (s *Store) Title() string { return s.name }\n",
    );
    write_file(
        root,
        "java/src/shop/Cache.java",
        "package shop;\n\npublic class Cache {\n    public String lookup(String key) { return key; }\n\n\
         \x20   public void remember(String key) {}\n}\n",
    );
    write_file(
        root,
        "java/src/shop/Store.java",
        "package shop;\n\npublic class Store {\n    private Cache cache;\n    private final Cache other = new Cache();\n\n\
         \x20   public Store(Cache cache) { this.cache = cache; }\n\n\
         \x20   public String load(String key) {\n        cache.remember(key);\n        this.other.remember(key);\n\
         \x20       return this.cache.lookup(key);\n    }\n\n\
         \x20   public static void use(Store store) {\n        store.load(\"a\");\n        Cache local = new Cache();\n\
         \x20       local.lookup(\"b\");\n        var made = new Cache();\n        made.remember(\"c\");\n\
         \x20       new Store(made).load(\"d\");\n    }\n}\n",
    );
    write_file(
        root,
        "web/shop.ts",
        "export class Pool {\n  lookup(key: string): string { return key; }\n  remember(key: string): void {}\n}\n\n\
         export class Shelf {\n  private spare = new Pool();\n  constructor(private pool: Pool) {}\n\
         \x20 load(key: string): string {\n    this.pool.remember(key);\n    this.spare.remember(key);\n\
         \x20   return this.pool.lookup(key);\n  }\n}\n\n\
         export function use(shelf: Shelf): void {\n  shelf.load('a');\n  const local = new Pool();\n\
         \x20 local.lookup('b');\n  const typed: Pool = make();\n  typed.remember('c');\n}\n\n\
         function make(): Pool { return new Pool(); }\n",
    );
    write_file(
        root,
        "crate/src/lib.rs",
        "pub struct Bin;\n\nimpl Bin {\n    pub fn new() -> Self {\n        Bin\n    }\n\n\
         \x20   pub fn lookup(&self, key: &str) -> String {\n        key.to_owned()\n    }\n\n\
         \x20   pub fn remember(&mut self, key: &str) {}\n}\n\n\
         pub struct Depot {\n    bin: Bin,\n}\n\n\
         impl Depot {\n    pub fn load(&mut self, key: &str) -> String {\n        self.bin.remember(key);\n        self.bin.lookup(key)\n    }\n}\n\n\
         pub fn run(depot: &mut Depot) {\n    depot.load(\"a\");\n    let b = Bin::new();\n    b.lookup(\"b\");\n\
         \x20   let mut d: Bin = Bin::new();\n    d.remember(\"c\");\n    let d = 5;\n    d.remember(\"d\");\n}\n",
    );
    let index = Index::open(root).unwrap();
    let calls: Vec<(String, String, String)> = edges(&index)
        .into_iter()
        .filter(|(_, _, how)| how.starts_with("call/"))
        .collect();
    assert_eq!(
        calls,
        triples(&[
            // Go
            ("Store.Load", "Cache.Lookup", "call/typed"), // s.cache: a field of *Store
            ("Store.Load", "Cache.Remember", "call/typed"),
            ("Use", "Store.Load", "call/typed"), // st *Store; var e Store
            ("Use", "Cache.Remember", "call/typed"), // extra Cache
            ("Use", "NewCache", "call/import"),  // another file of the package
            ("Use", "Cache.Lookup", "call/typed"), // c, _ := NewCache()
            ("Use", "Store", "call/local"),
            ("Use", "Store.Title", "call/typed"), // declared in title.go
            ("NewCache", "Cache", "call/local"),
            ("main", "Version", "call/attribute"),
            // Java
            ("Store.load", "Cache.remember", "call/typed"), // cache, this.other
            ("Store.load", "Cache.lookup", "call/typed"),
            ("Store", "Cache", "call/import"),
            ("Store.use", "Store.load", "call/typed"), // store.load(), new Store(made).load()
            ("Store.use", "Store.Store", "call/local"), // the constructor
            ("Store.use", "Cache", "call/import"),
            ("Store.use", "Cache.lookup", "call/typed"),
            ("Store.use", "Cache.remember", "call/typed"), // var made = new Cache()
            // TypeScript
            ("Shelf", "Pool", "call/local"),
            ("Shelf.load", "Pool.remember", "call/typed"),
            ("Shelf.load", "Pool.lookup", "call/typed"),
            ("use", "Shelf.load", "call/typed"),
            ("use", "Pool", "call/local"),
            ("use", "Pool.lookup", "call/typed"),
            ("use", "make", "call/local"),
            ("use", "Pool.remember", "call/typed"),
            ("make", "Pool", "call/local"),
            // Rust
            ("Depot::load", "Bin::remember", "call/typed"),
            ("Depot::load", "Bin::lookup", "call/typed"),
            ("run", "Depot::load", "call/typed"),
            ("run", "Bin::new", "call/attribute"),
            ("run", "Bin::lookup", "call/typed"),
            ("run", "Bin::remember", "call/typed"), // `d: Bin`, before `let d = 5` shadows it
            ("run", "Bin::remember", "call/name"),  // after
        ])
    );
}

/// Facts that lead back to themselves (`c := c.Parent()`, `a = b.make()` then `b =
/// a.make()`) resolve nothing past a few steps, where they once recursed until the stack
/// overflowed and took the whole index down (found on ripgrep's history).
#[test]
fn type_facts_that_lead_back_to_themselves_end() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_file(
        root,
        "walk.go",
        "package main\n\ntype C struct{}\n\nfunc (c *C) Parent() *C { return c }\n\n\
         func (c *C) Name() string { return \"\" }\n\n\
         func walk(c *C) {\n\tc := c.Parent()\n\tc.Name()\n}\n\n\
         func loop() {\n\tx := y.Make()\n\ty := x.Make()\n\tx.Name()\n}\n",
    );
    write_file(
        root,
        "ring.rs",
        "fn f() {\n    let a = b.make();\n    let b = a.make();\n    a.go();\n}\n",
    );
    let index = Index::open(root).unwrap();
    let calls = edges(&index);
    // Before the ring: the parameter's type.
    assert!(
        calls.contains(&("walk".into(), "C.Parent".into(), "call/typed".into())),
        "{calls:?}"
    );
}
