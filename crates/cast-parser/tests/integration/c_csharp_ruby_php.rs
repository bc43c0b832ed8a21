//! C, C++, C#, Ruby and PHP: symbols with their parents, signatures, doc comments, imports and
//! references on a fixture per language (`tests/fixtures/sample.*`).

use cast_parser::RefKind;

use crate::languages::{C, CPP, CSHARP, PHP, RUBY, has_ref, imports, parse, rows, symbol};

#[test]
fn c_functions_types_macros_and_includes() {
    let file = parse("sample.c", C);
    assert_eq!(
        file.description.as_deref(),
        Some("A small cache of values, for the parser's tests.")
    );
    // Prototypes and `extern` declarations are not definitions; file-level variables are.
    assert_eq!(
        rows(&file),
        vec![
            ("macro", "CACHE_MAX", 5, 5),
            ("macro", "CACHE_SLOT", 6, 6),
            ("struct", "entry", 9, 12),
            ("type", "entry_t", 14, 14),
            ("type", "compare_fn", 15, 15),
            ("struct", "number", 17, 20),
            ("enum", "state", 22, 22),
            ("variable", "hits", 24, 24),
            ("variable", "names", 25, 25),
            ("function", "find", 30, 33),
            ("function", "cache_get", 35, 40),
        ]
    );
    let find = symbol(&file, "find");
    assert_eq!(
        find.signature,
        "static entry_t *find(entry_t *slots, int key)"
    );
    assert_eq!(
        find.docstring.as_deref(),
        Some("Finds the entry for a key.")
    );
    assert_eq!(
        symbol(&file, "entry").docstring.as_deref(),
        Some("One entry of the cache.")
    );
    assert_eq!(
        imports(&file),
        vec![
            ("<stdlib.h>", Some("*"), None),
            ("cache.h", Some("*"), None)
        ]
    );
    assert!(has_ref(&file, RefKind::Call, "hash", None, 32));
    assert!(has_ref(&file, RefKind::Call, "find", None, 37));
    assert!(has_ref(&file, RefKind::Type, "entry_t", None, 35));
}

#[test]
fn cpp_classes_namespaces_and_methods_in_and_out_of_their_class() {
    let file = parse("sample.cpp", CPP);
    assert_eq!(
        rows(&file),
        vec![
            ("module", "store", 5, 36),
            ("class", "store::Cache", 9, 20),
            ("method", "store::Cache::Cache", 11, 11),
            ("method", "store::Cache::~Cache", 12, 12),
            ("method", "store::Cache::put", 13, 13),
            ("method", "store::Cache::operator==", 15, 15),
            ("struct", "store::Entry", 22, 24),
            ("type", "store::Entries", 26, 26),
            // Defined outside its class, inside the namespace: qualified by both.
            ("method", "store::Cache::size", 29, 32),
            ("function", "store::helper", 34, 34),
        ]
    );
    let cache = symbol(&file, "store::Cache");
    assert_eq!(
        cache.signature,
        "class Cache : public Base<T>, private Counter"
    );
    // `int size() const;` in the class is a declaration, not a second definition.
    assert_eq!(file.symbols.iter().filter(|s| s.name == "size").count(), 1);
    assert_eq!(
        imports(&file),
        vec![
            ("<vector>", Some("*"), None),
            ("cache.hpp", Some("*"), None)
        ]
    );
    assert!(has_ref(&file, RefKind::Inherit, "Base", None, 9));
    assert!(has_ref(&file, RefKind::Inherit, "Counter", None, 9));
    assert!(has_ref(&file, RefKind::Call, "grow", None, 13));
    // `store::detail::twice(x)`: the scope right before the name is the receiver.
    assert!(has_ref(&file, RefKind::Call, "twice", Some("detail"), 34));
}

#[test]
fn a_name_is_read_through_every_shape_of_its_declarator() {
    // The queries capture a definition's declarator whole; C's `declarator` reads the name
    // through pointers, references, arrays, qualified names and a function pointer's
    // parentheses, and refuses prototypes and macro calls read as declarations.
    let c = "\
static int **pairs(void) { return 0; }
int (*hook)(int) = 0;
static FILE *(*real_fopen)(const char *);
int prototype(int a);
int (parenthesized)(int a);
DEFINE_MUTEX(lock);
typedef char **strings;
typedef int (*handler)(int);
int *table[4];
";
    assert_eq!(
        rows(&parse("declarators.c", c)),
        vec![
            ("function", "pairs", 1, 1),
            ("variable", "hook", 2, 2),
            ("variable", "real_fopen", 3, 3),
            ("type", "strings", 7, 7),
            ("type", "handler", 8, 8),
            ("variable", "table", 9, 9),
        ]
    );
    let cpp = "\
const char **Outer::Inner::Leaf::names() { return 0; }
Buffer &Buffer::operator=(const Buffer &) { return *this; }
Buffer::~Buffer() {}
template <typename T> struct Ref { typedef const T &reference; };
const Widget &default_widget = make();
";
    assert_eq!(
        rows(&parse("declarators.cpp", cpp)),
        vec![
            ("method", "Leaf::names", 1, 1),
            ("method", "Buffer::operator=", 2, 2),
            ("method", "Buffer::~Buffer", 3, 3),
            ("struct", "Ref", 4, 4),
            ("type", "Ref::reference", 4, 4),
            ("variable", "default_widget", 5, 5),
        ]
    );
    // JavaScript's assignment targets go through the same hook.
    let js = "\
later = () => {};
exports.load = function () {};
Shape.prototype.area = function () {};
handlers[name] = function () {};
";
    assert_eq!(
        rows(&parse("assigned.js", js)),
        vec![
            ("function", "later", 1, 1),
            ("function", "load", 2, 2),
            ("method", "Shape.area", 3, 3),
        ]
    );
    // Ruby's class, module and constant names: `A::B` is B with its scope as the receiver.
    let ruby = "\
class Rack::Lint
end
module ::Top
end
LIMIT = 3
@count = 0
";
    assert_eq!(
        rows(&parse("names.rb", ruby)),
        vec![
            ("class", "Rack::Lint", 1, 2),
            ("module", "Top", 3, 4),
            ("constant", "LIMIT", 5, 5),
        ]
    );
}

#[test]
fn csharp_namespaces_types_members_and_xml_docs() {
    let file = parse("Sample.cs", CSHARP);
    assert_eq!(
        rows(&file),
        vec![
            ("module", "Store.Caching", 6, 34),
            ("class", "Store.Caching.Cache", 12, 28),
            ("constant", "Store.Caching.Cache.Max", 14, 14),
            ("method", "Store.Caching.Cache.Cache", 17, 17),
            ("method", "Store.Caching.Cache.Add", 20, 25),
            ("type", "Store.Caching.Cache.Changed", 27, 27),
            ("interface", "Store.Caching.IStore", 30, 30),
            ("method", "Store.Caching.IStore.Store", 30, 30),
            ("struct", "Store.Caching.Entry", 31, 31),
            ("enum", "Store.Caching.Kind", 32, 32),
            ("class", "Store.Caching.Snapshot", 33, 33),
        ]
    );
    let cache = symbol(&file, "Store.Caching.Cache");
    assert_eq!(
        cache.signature,
        "public class Cache<T> : Base<T>, IDisposable"
    );
    assert_eq!(cache.decorators, vec!["[Serializable]"]);
    // `<summary>` tags are dropped from the doc's text.
    assert_eq!(cache.docstring.as_deref(), Some("A cache of values."));
    assert_eq!(
        symbol(&file, "Store.Caching.Cache.Add")
            .docstring
            .as_deref(),
        Some("Adds a value.")
    );
    assert_eq!(
        imports(&file),
        vec![
            ("System", Some("*"), None),
            ("System.Collections.Generic", Some("*"), None),
            ("System.IO", None, Some("IO")),
        ]
    );
    assert!(has_ref(&file, RefKind::Inherit, "Base", None, 12));
    assert!(has_ref(&file, RefKind::Inherit, "IDisposable", None, 12));
    assert!(has_ref(&file, RefKind::Call, "Entry", None, 22));
    assert!(has_ref(&file, RefKind::Call, "Store", Some("this"), 23));
    assert!(has_ref(&file, RefKind::Call, "Touch", Some("base"), 24));
}

#[test]
fn ruby_classes_modules_methods_and_requires() {
    let file = parse("sample.rb", RUBY);
    assert!(!file.has_syntax_errors());
    // The magic comment says nothing to a reader; the comment after it describes the file.
    assert_eq!(
        file.description.as_deref(),
        Some("A small cache of values, for the parser's tests.")
    );
    assert_eq!(
        rows(&file),
        vec![
            ("module", "Store", 7, 35),
            ("class", "Store::Cache", 9, 34),
            ("constant", "Store::Cache::MAX", 12, 12),
            ("method", "Store::Cache::initialize", 14, 18),
            ("method", "Store::Cache::add", 21, 25),
            ("method", "Store::Cache::build", 27, 29),
            ("method", "Store::Cache::reset", 33, 33),
            ("function", "helper", 37, 39),
        ]
    );
    let cache = symbol(&file, "Store::Cache");
    assert_eq!(cache.signature, "class Cache < Base");
    // The comment above a class body's first definition is its doc.
    assert_eq!(cache.docstring.as_deref(), Some("A cache of values."));
    let add = symbol(&file, "Store::Cache::add");
    assert_eq!(add.signature, "def add(value)");
    assert_eq!(add.docstring.as_deref(), Some("Adds a value."));
    assert!(add.body_start.is_some());
    assert_eq!(
        imports(&file),
        vec![("set", Some("*"), None), ("./store/base", Some("*"), None)]
    );
    assert!(has_ref(&file, RefKind::Inherit, "Base", None, 9));
    assert!(has_ref(&file, RefKind::Inherit, "Enumerable", None, 10));
    assert!(has_ref(&file, RefKind::Call, "reset", None, 17));
    assert!(has_ref(&file, RefKind::Call, "touch", Some("self"), 23));
    assert!(has_ref(&file, RefKind::Call, "Entry", None, 24));
    assert!(has_ref(&file, RefKind::Call, "Cache", Some("Store"), 38));
}

#[test]
fn php_classes_traits_functions_and_use_declarations() {
    let file = parse("sample.php", PHP);
    assert!(!file.has_syntax_errors());
    assert_eq!(
        file.description.as_deref(),
        Some("A small cache of values, for the parser's tests.")
    );
    assert_eq!(
        rows(&file),
        vec![
            ("constant", "MAX", 14, 14),
            ("class", "Cache", 18, 34),
            ("constant", "Cache::VERSION", 22, 22),
            ("method", "Cache::__construct", 24, 28),
            ("method", "Cache::create", 30, 33),
            ("interface", "Store", 36, 36),
            ("method", "Store::get", 36, 36),
            ("trait", "Counting", 38, 38),
            ("method", "Counting::count", 38, 38),
            ("enum", "Kind", 40, 40),
            ("function", "helper", 42, 42),
        ]
    );
    let cache = symbol(&file, "Cache");
    assert_eq!(
        cache.signature,
        "final class Cache extends Base implements CacheInterface"
    );
    assert_eq!(cache.decorators, vec!["#[Immutable]"]);
    assert_eq!(cache.docstring.as_deref(), Some("A cache of values."));
    assert_eq!(
        imports(&file),
        vec![
            ("Psr.SimpleCache", Some("CacheInterface"), None),
            ("Store.Util", Some("Clock"), None),
            ("Store.Util", Some("Hasher"), Some("Hash")),
            ("Store.Util", Some("twice"), None),
        ]
    );
    assert!(has_ref(&file, RefKind::Inherit, "Base", None, 18));
    assert!(has_ref(&file, RefKind::Inherit, "Counting", None, 20));
    assert!(has_ref(
        &file,
        RefKind::Call,
        "__construct",
        Some("parent"),
        26
    ));
    assert!(has_ref(&file, RefKind::Call, "reset", Some("$this"), 27));
    assert!(has_ref(&file, RefKind::Call, "Cache", None, 32));
    assert!(has_ref(&file, RefKind::Call, "twice", None, 42));
}

/// `.h` is C's header extension and C++'s: a header that is C++ is read with C++'s grammar.
#[test]
fn a_cpp_header_is_read_as_cpp_and_a_c_header_as_c() {
    let cpp = parse(
        "buffer.h",
        "#include <vector>\nnamespace fmt {\nclass Buffer {\n public:\n  int size() const { return 0; }\n};\n}\n",
    );
    assert_eq!(cpp.language, "cpp");
    assert_eq!(
        rows(&cpp),
        vec![
            ("module", "fmt", 2, 7),
            ("class", "fmt::Buffer", 3, 6),
            ("method", "fmt::Buffer::size", 5, 5),
        ]
    );
    let c = parse("jv.h", "#include <stdio.h>\nstruct jv { int kind; };\n");
    assert_eq!(c.language, "c");
    assert_eq!(rows(&c), vec![("struct", "jv", 2, 2)]);
}
