//! Rust, Go, JavaScript, TypeScript and Java: symbols, docs, imports and references on a
//! fixture per language; broken code and hostile input in every tree-sitter language (C, C++,
//! C#, Ruby and PHP have their own file, `c_csharp_ruby_php.rs`).

use cast_parser::{LanguageParser, ParseError, ParsedFile, RefKind, Registry, SourceText};
use proptest::prelude::*;

use crate::robustness::check_invariants;

const RUST: &str = include_str!("../fixtures/sample.rs");
const GO: &str = include_str!("../fixtures/sample.go");
const JAVASCRIPT: &str = include_str!("../fixtures/sample.js");
const TYPESCRIPT: &str = include_str!("../fixtures/sample.ts");
const JAVA: &str = include_str!("../fixtures/Sample.java");
pub(crate) const C: &str = include_str!("../fixtures/sample.c");
pub(crate) const CPP: &str = include_str!("../fixtures/sample.cpp");
pub(crate) const CSHARP: &str = include_str!("../fixtures/Sample.cs");
pub(crate) const RUBY: &str = include_str!("../fixtures/sample.rb");
pub(crate) const PHP: &str = include_str!("../fixtures/sample.php");

/// Every fixture with a file name that picks its language.
const FIXTURES: [(&str, &str); 10] = [
    ("sample.rs", RUST),
    ("sample.go", GO),
    ("sample.js", JAVASCRIPT),
    ("sample.ts", TYPESCRIPT),
    ("Sample.java", JAVA),
    ("sample.c", C),
    ("sample.cpp", CPP),
    ("Sample.cs", CSHARP),
    ("sample.rb", RUBY),
    ("sample.php", PHP),
];

fn language(path: &str) -> &'static dyn LanguageParser {
    // The registry's languages are 'static descriptions; a leaked registry keeps the borrow
    // simple for the tests.
    let registry: &'static Registry = Box::leak(Box::new(Registry::default()));
    registry.for_path(path.as_ref()).unwrap()
}

pub(crate) fn parse(path: &str, text: &str) -> ParsedFile {
    let file = language(path).parse_text(text).unwrap();
    check_invariants(&file, text);
    file
}

/// (kind, qualname, start line, end line) of every symbol.
pub(crate) fn rows(file: &ParsedFile) -> Vec<(&'static str, &str, u32, u32)> {
    file.symbols
        .iter()
        .map(|s| {
            (
                s.kind.as_str(),
                s.qualname.as_str(),
                s.start_line,
                s.end_line,
            )
        })
        .collect()
}

pub(crate) fn symbol<'a>(file: &'a ParsedFile, qualname: &str) -> &'a cast_parser::Symbol {
    file.symbols
        .iter()
        .find(|s| s.qualname == qualname)
        .unwrap_or_else(|| panic!("no {qualname} in {:?}", rows(file)))
}

/// (module, name, alias) of every import.
pub(crate) fn imports(file: &ParsedFile) -> Vec<(&str, Option<&str>, Option<&str>)> {
    file.imports
        .iter()
        .map(|i| (i.module.as_str(), i.name.as_deref(), i.alias.as_deref()))
        .collect()
}

pub(crate) fn has_ref(
    file: &ParsedFile,
    kind: RefKind,
    name: &str,
    receiver: Option<&str>,
    line: u32,
) -> bool {
    file.references.iter().any(|r| {
        r.kind == kind && r.name == name && r.receiver.as_deref() == receiver && r.line == line
    })
}

#[test]
fn rust_items_methods_docs_and_use_trees() {
    let file = parse("sample.rs", RUST);
    assert!(!file.has_syntax_errors());
    assert_eq!(
        file.description.as_deref(),
        Some("A small cache crate.\n\nSecond paragraph.")
    );
    assert_eq!(
        rows(&file),
        vec![
            ("module", "store", 9, 9),
            ("constant", "MAX", 12, 12),
            ("variable", "COUNTER", 13, 13),
            ("struct", "Cache", 20, 22),
            ("struct", "Pair", 25, 25),
            ("enum", "Event", 27, 30),
            ("trait", "Load", 33, 40),
            ("type", "Load::Output", 34, 34),
            ("method", "Load::load", 36, 36),
            ("method", "Load::twice", 37, 39),
            ("impl", "Cache", 42, 54),
            ("method", "Cache::new", 44, 46),
            ("method", "Cache::get", 48, 53),
            ("function", "Cache::get::helper", 49, 51),
            ("impl", "Cache", 56, 61),
            ("type", "Cache::Output", 57, 57),
            ("method", "Cache::load", 58, 60),
            ("type", "Shared", 63, 63),
            ("macro", "cached", 65, 69),
            ("struct", "Bits", 71, 74),
            ("function", "abs", 77, 77),
            ("module", "tests", 81, 89),
            ("function", "tests::new_is_empty", 85, 88),
        ]
    );
    let cache = symbol(&file, "Cache");
    assert_eq!(cache.signature, "pub struct Cache<K>");
    assert_eq!(
        cache.docstring.as_deref(),
        Some("A cache of values.\n\nKeeps at most [`MAX`] entries.")
    );
    assert_eq!(cache.docstring_lines, Some((15, 17)));
    assert_eq!(
        cache.decorators,
        vec!["#[derive(Debug, Clone)]", "#[non_exhaustive]"]
    );
    assert_eq!(cache.decorated_line, 18);
    let trait_impl = &file.symbols[14];
    assert_eq!(trait_impl.signature, "impl<K> Load for Cache<K>");
    assert_eq!(
        symbol(&file, "Pair").signature,
        "pub struct Pair(pub u32, pub u32);"
    );
    assert_eq!(symbol(&file, "Pair").body_start, None);
    assert_eq!(
        symbol(&file, "Cache::get").signature,
        "pub fn get(&self, key: &K) -> Option<u32>"
    );
    assert_eq!(
        symbol(&file, "Load::load").docstring.as_deref(),
        Some("Loads it.")
    );
    assert_eq!(
        imports(&file),
        vec![
            ("std::collections", Some("HashMap"), None),
            ("std::collections::hash_map", Some("Entry"), Some("Slot")),
            ("std", Some("io"), None),
            ("std::io", Some("Read"), None),
            ("crate::store", Some("*"), None),
            ("self", Some("store"), None),
            ("super", Some("*"), None),
        ]
    );
    // `use super::*` sits in `mod tests`; `mod store;` at the top level.
    assert_eq!(file.imports[6].scope, Some(21));
    assert_eq!(file.imports[5].scope, None);
    assert!(has_ref(&file, RefKind::Call, "new", Some("HashMap"), 45));
    assert!(has_ref(&file, RefKind::Call, "Cache", None, 45));
    assert!(has_ref(&file, RefKind::Call, "get", Some("self.map"), 52));
    assert!(has_ref(&file, RefKind::Call, "count", Some("Self"), 59));
    assert!(has_ref(&file, RefKind::Call, "new", Some("Cache"), 86));
    // `impl Load for Cache` inherits Load; the reference is in the impl's header, so its scope
    // is the file (the analyzer finds the impl by its header's lines, as for Python bases).
    let inherit = file
        .references
        .iter()
        .find(|r| r.kind == RefKind::Inherit)
        .unwrap();
    assert_eq!(
        (inherit.name.as_str(), inherit.line, inherit.scope),
        ("Load", 56, None)
    );
}

#[test]
fn a_go_package_comment_is_the_one_right_above_package() {
    let description = |text: &str| parse("a.go", text).description;
    // A licence header above a blank line is not the package's comment; the one below it is.
    assert_eq!(
        description(
            "// Copyright 2020 The Authors. All rights reserved.\n// Use of this source code is governed by a licence.\n\n// Package foo parses widgets.\npackage foo\n"
        )
        .as_deref(),
        Some("Package foo parses widgets.")
    );
    // Nor a header alone, nor build constraints (old and new).
    assert_eq!(
        description("// Copyright 2020 Someone.\n\npackage foo\n"),
        None
    );
    assert_eq!(
        description("//go:build linux\n// +build linux\n\npackage foo\n"),
        None
    );
    // A package comment that speaks of copyright is still a description.
    assert_eq!(
        description("// Package copyright checks the notices of files.\npackage copyright\n")
            .as_deref(),
        Some("Package copyright checks the notices of files.")
    );
    // Without a package comment, a file's own comment above a blank line describes the file.
    assert_eq!(
        description("//go:build linux\n\n// Normalization of latin letters.\n\npackage foo\n")
            .as_deref(),
        Some("Normalization of latin letters.")
    );
    // A constraint inside the package's comment is left out of it.
    assert_eq!(
        description("// +build linux\n// Package foo is for Linux.\npackage foo\n").as_deref(),
        Some("Package foo is for Linux.")
    );
}

#[test]
fn go_receivers_groups_and_package_docs() {
    let file = parse("sample.go", GO);
    assert!(!file.has_syntax_errors());
    assert_eq!(
        file.description.as_deref(),
        Some("Package cache keeps values.\n\nMore about it.")
    );
    assert_eq!(
        rows(&file),
        vec![
            ("constant", "Max", 14, 14),
            ("constant", "Hit", 18, 18),
            ("constant", "Miss", 19, 19),
            ("variable", "ErrFull", 22, 22),
            ("struct", "Cache", 25, 28),
            ("interface", "Loader", 31, 35),
            ("method", "Loader.Load", 33, 33),
            ("type", "ID", 37, 37),
            ("type", "Name", 39, 39),
            ("function", "New", 44, 46),
            ("method", "Cache.Get", 49, 53),
            ("method", "Cache.touch", 55, 57),
            ("function", "helper", 59, 63),
        ]
    );
    let get = symbol(&file, "Cache.Get");
    assert_eq!(get.signature, "func (c *Cache[K]) Get(key K) (int, bool)");
    assert_eq!(get.parent, None);
    assert_eq!(get.docstring.as_deref(), Some("Get finds a value."));
    // A directive (`//go:noinline`) is not documentation.
    assert_eq!(
        symbol(&file, "New").docstring.as_deref(),
        Some("New makes a cache.")
    );
    assert_eq!(
        symbol(&file, "Hit").docstring.as_deref(),
        Some("Hit is a hit.")
    );
    assert_eq!(
        symbol(&file, "Cache").signature,
        "type Cache[K comparable] struct"
    );
    assert_eq!(
        imports(&file),
        vec![
            ("fmt", None, None),
            ("strings", None, Some("str")),
            ("example.com/app/store", None, None),
        ]
    );
    assert_eq!(file.imports[2].bound_name(), "store");
    assert!(has_ref(&file, RefKind::Call, "touch", Some("c"), 51));
    assert!(has_ref(&file, RefKind::Call, "ToUpper", Some("str"), 51));
    assert!(has_ref(&file, RefKind::Call, "Cache", None, 45));
    assert!(has_ref(&file, RefKind::Inherit, "Base", Some("store"), 26));
    assert!(has_ref(
        &file,
        RefKind::Inherit,
        "Stringer",
        Some("fmt"),
        34
    ));
}

#[test]
fn javascript_functions_classes_and_module_forms() {
    let file = parse("sample.js", JAVASCRIPT);
    assert!(!file.has_syntax_errors());
    assert_eq!(file.description.as_deref(), Some("Shapes and their areas."));
    assert_eq!(
        rows(&file),
        vec![
            ("function", "add", 17, 19),
            ("class", "Shape", 22, 39),
            ("method", "Shape.area", 24, 26),
            ("method", "Shape.name", 28, 30),
            ("method", "Shape.create", 32, 34),
            ("method", "Shape.onClick", 36, 38),
            ("function", "double", 41, 41),
            ("constant", "VERSION", 43, 43),
            ("function", "helper", 45, 47),
            ("function", "run", 49, 49),
            ("method", "Shape.describe", 51, 53),
            ("function", "ids", 55, 57),
            ("function", "outer", 59, 62),
            ("function", "outer.inner", 60, 60),
        ]
    );
    let add = symbol(&file, "add");
    assert_eq!(add.signature, "export function add(a, b)");
    assert_eq!(
        add.docstring.as_deref(),
        Some("Adds two numbers.\n\n@param {number} a")
    );
    assert_eq!(add.docstring_lines, Some((12, 16)));
    assert_eq!(symbol(&file, "Shape.name").signature, "get name()");
    // An arrow function's expression body is part of its signature; a block is elided.
    assert_eq!(
        symbol(&file, "double").signature,
        "export const double = (x) => x * 2;"
    );
    assert_eq!(symbol(&file, "double").body_start, None);
    assert!(symbol(&file, "helper").body_start.is_some());
    assert_eq!(
        imports(&file),
        vec![
            ("react", None, Some("React")),
            ("react", Some("useState"), Some("useS")),
            ("react", Some("useEffect"), None),
            ("./geometry.js", None, Some("geometry")),
            ("./polyfill", None, None),
            ("./transform", Some("scale"), None),
            ("./transform", Some("rotate"), Some("turn")),
            ("./colors", Some("*"), None),
            ("fs", None, Some("fs")),
            ("path", Some("join"), None),
            ("path", Some("resolve"), Some("res")),
        ]
    );
    assert!(has_ref(&file, RefKind::Call, "sum", Some("geometry"), 18));
    assert!(has_ref(&file, RefKind::Inherit, "Base", None, 22));
    assert!(has_ref(&file, RefKind::Call, "Shape", None, 33));
    assert!(has_ref(&file, RefKind::Call, "area", Some("this"), 37));
}

#[test]
fn typescript_interfaces_types_decorators_and_overloads() {
    let file = parse("sample.ts", TYPESCRIPT);
    assert!(!file.has_syntax_errors());
    assert_eq!(file.description.as_deref(), Some("Routing."));
    assert_eq!(
        rows(&file),
        vec![
            ("interface", "Handler", 8, 12),
            ("method", "Handler.run", 11, 11),
            ("type", "Next", 14, 14),
            ("enum", "Method", 16, 19),
            ("function", "fetchIt", 21, 21),
            ("module", "Routes", 23, 27),
            ("function", "Routes.all", 24, 26),
            ("class", "Router", 31, 48),
            ("method", "Router.constructor", 34, 36),
            ("method", "Router.add", 39, 41),
            ("method", "Router.match", 43, 43),
            ("method", "Router.handle", 45, 47),
            ("function", "compose", 50, 52),
            ("constant", "METHODS", 54, 54),
            ("function", "overloaded", 56, 56),
            ("function", "overloaded", 57, 57),
            ("function", "overloaded", 58, 60),
        ]
    );
    let router = symbol(&file, "Router");
    assert_eq!(
        router.signature,
        "export abstract class Router<T> extends Base implements Handler, Matcher<T>"
    );
    assert_eq!(router.decorators, vec!["@injectable()"]);
    assert_eq!((router.decorated_line, router.start_line), (30, 31));
    assert_eq!(router.docstring.as_deref(), Some("A router."));
    let add = symbol(&file, "Router.add");
    assert_eq!(add.signature, "public add(path: string, value: T): void");
    assert_eq!(add.decorators, vec!["@log()"]);
    assert_eq!(
        imports(&file),
        vec![
            ("./context", Some("Context"), None),
            ("../hono", Some("Hono"), None),
            ("../hono", Some("Env"), None),
        ]
    );
    for base in ["Base", "Handler", "Matcher"] {
        assert!(has_ref(&file, RefKind::Inherit, base, None, 31), "{base}");
    }
    assert!(has_ref(&file, RefKind::Call, "match", Some("this"), 46));
}

#[test]
fn typescript_call_signatures_on_their_own_lines_do_not_lose_the_rest_of_the_file() {
    // tree-sitter-typescript issue #335: without the fix-up, everything after the interface
    // is one syntax error.
    let text = "export interface Get {\n  <T>(path: T): T\n  <T, U>(path: T, u: U): U\n}\n\nexport type After = string\nexport function after() {}\n";
    let file = parse("get.ts", text);
    assert!(!file.has_syntax_errors());
    assert_eq!(
        rows(&file),
        vec![
            ("interface", "Get", 1, 4),
            ("type", "After", 6, 6),
            ("function", "after", 7, 7)
        ]
    );
}

#[test]
fn comments_are_left_out_of_signatures() {
    let ts = parse(
        "a.ts",
        "export class Context<\n  // eslint-disable-next-line no-explicit-any\n  E extends Env = any,\n> {\n  x = 1\n}\n\nexport type Node = {\n  pP: Props // previous props\n  nN: Node /* next */\n}\n",
    );
    assert_eq!(
        symbol(&ts, "Context").signature,
        "export class Context<E extends Env = any>"
    );
    assert_eq!(
        symbol(&ts, "Node").signature,
        "export type Node = { pP: Props nN: Node }"
    );
    let rust = parse(
        "a.rs",
        "pub fn f(\n    a: u32, // the first\n    /* the second */ b: u32,\n) -> u32 {\n    a + b\n}\n",
    );
    assert_eq!(
        symbol(&rust, "f").signature,
        "pub fn f(a: u32, b: u32) -> u32"
    );
    // What a syntax error leaves is code, not a comment: it stays.
    let broken = language("b.rs")
        .parse_text("pub fn g(a: u32 b: u32, c: u32) -> u32 {\n    a\n}\n")
        .unwrap();
    assert!(
        symbol(&broken, "g").signature.contains("b: u32"),
        "{}",
        symbol(&broken, "g").signature
    );
    // A header read only in part (a type of many commented members) says so, and keeps no
    // piece of a comment.
    let mut long = String::from("export type Options = {\n");
    for i in 0..12 {
        for _ in 0..30 {
            long.push_str("  // Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n");
        }
        long.push_str(&format!("  m{i}: string\n"));
    }
    long.push_str("}\n");
    let options = symbol(&parse("c.ts", &long), "Options").signature.clone();
    assert!(options.ends_with('…'), "{options}");
    assert!(!options.contains("Lorem"), "{options}");
    assert!(options.starts_with("export type Options = { m0: string m1: string"));
}

#[test]
fn a_file_description_is_what_its_comment_says_not_its_tags() {
    let description = |text: &str| parse("a.ts", text).description;
    // JSDoc's @module introduces the description; a pragma alone says nothing.
    assert_eq!(
        description(
            "/**\n * @module\n * This module is the base of the app.\n */\nexport const a = 1\n"
        )
        .as_deref(),
        Some("This module is the base of the app.")
    );
    assert_eq!(
        description("/**\n * @fileoverview Routing for the app.\n * @author someone\n */\nexport const a = 1\n")
            .as_deref(),
        Some("Routing for the app.")
    );
    assert_eq!(
        description("/** @jsxImportSource ../ */\nexport const a = 1\n"),
        None
    );
    // A licence header is not a description.
    assert_eq!(
        description(
            "/**\n * @license\n * Copyright 2024 Someone. Licensed under MIT.\n */\nexport const a = 1\n"
        ),
        None
    );
}

#[test]
fn a_java_file_is_described_by_its_types_javadoc_not_its_licence() {
    let description = |path: &str, text: &str| parse(path, text).description;
    assert_eq!(
        description(
            "A.java",
            "/*\n * Copyright (C) 2008 Google Inc.\n */\npackage a;\n\nimport b.C;\n\n/** Reads widgets. */\npublic class A {}\n"
        )
        .as_deref(),
        Some("Reads widgets.")
    );
    assert_eq!(
        description(
            "A.java",
            "/* Copyright 2020 Someone. */\npackage a;\nclass A {}\n"
        ),
        None
    );
    assert_eq!(
        description(
            "package-info.java",
            "/** The widget package. */\npackage a.widgets;\n"
        )
        .as_deref(),
        Some("The widget package.")
    );
    // A banner above an ordinary file's package clause is not its description.
    assert_eq!(
        description(
            "A.java",
            "/** Generated by protoc. Do not edit. */\npackage a;\n\n/** Reads widgets. */\npublic class A {}\n"
        )
        .as_deref(),
        Some("Reads widgets.")
    );
}

#[test]
fn a_line_comment_between_a_doc_comment_and_its_definition_does_not_hide_it() {
    // As javac, rustdoc and TypeScript read it: the note is neither the doc nor a wall.
    let java = parse(
        "A.java",
        "package a;\n\n/** Converts widgets. */\n// Note: not part of the doc.\npublic class A {\n  /** Runs it. */\n  // TODO speed up\n  @Override\n  public void run() {}\n}\n",
    );
    assert_eq!(java.description.as_deref(), Some("Converts widgets."));
    assert_eq!(
        symbol(&java, "A").docstring.as_deref(),
        Some("Converts widgets.")
    );
    assert_eq!(
        symbol(&java, "A.run").docstring.as_deref(),
        Some("Runs it.")
    );
    let rust = parse(
        "lib.rs",
        "/// Loads a widget.\n// See the format notes.\n#[inline]\npub fn load() {}\n\n// Section: nothing documented.\npub fn bare() {}\n",
    );
    assert_eq!(
        symbol(&rust, "load").docstring.as_deref(),
        Some("Loads a widget.")
    );
    assert_eq!(symbol(&rust, "bare").docstring, None);
    let ts = parse(
        "a.ts",
        "/** Adds two. */\n// eslint-disable-next-line\nexport function add(a: number, b: number) { return a + b }\n",
    );
    assert_eq!(symbol(&ts, "add").docstring.as_deref(), Some("Adds two."));
    // A doc comment above a plain comment above another definition stays with its own.
    let ts = parse(
        "b.ts",
        "/** The first. */\nexport const first = 1\n// plain\nexport function second() {}\n",
    );
    assert_eq!(symbol(&ts, "second").docstring, None);
    // In Go the comment right above is the doc, whatever it says.
    let go = parse("a.go", "package a\n\n// Run runs.\nfunc Run() {}\n");
    assert_eq!(symbol(&go, "Run").docstring.as_deref(), Some("Run runs."));
}

#[test]
fn tsx_parses_jsx() {
    let text = "export function App({ name }: { name: string }) {\n  return <div className=\"x\">{name}</div>\n}\nexport const Item = () => <li />\n";
    let file = parse("App.tsx", text);
    assert!(!file.has_syntax_errors());
    assert_eq!(
        rows(&file),
        vec![("function", "App", 1, 3), ("function", "Item", 4, 4)]
    );
}

#[test]
fn java_types_members_and_annotations() {
    let file = parse("Sample.java", JAVA);
    assert!(!file.has_syntax_errors());
    // The file is described by its top-level type's Javadoc.
    assert_eq!(
        file.description.as_deref(),
        Some("A cache of values.\n\n<p>Keeps them in memory.")
    );
    assert_eq!(
        rows(&file),
        vec![
            ("class", "Sample", 13, 56),
            ("constant", "Sample.MAX", 15, 15),
            ("method", "Sample.Sample", 19, 22),
            ("method", "Sample.run", 25, 29),
            ("method", "Sample.compareTo", 31, 31),
            ("method", "Sample.helper", 33, 37),
            ("method", "Sample.helper.run", 35, 35),
            ("interface", "Sample.Listener", 39, 41),
            ("method", "Sample.Listener.changed", 40, 40),
            ("enum", "Sample.Kind", 43, 49),
            ("method", "Sample.Kind.limit", 46, 48),
            ("class", "Sample.Entry", 51, 51),
            ("interface", "Sample.Cached", 53, 55),
            ("method", "Sample.Cached.value", 54, 54),
        ]
    );
    let class = symbol(&file, "Sample");
    assert_eq!(
        class.signature,
        "public final class Sample<K> extends Base<K> implements Runnable, Comparable<Sample<K>>"
    );
    assert_eq!(class.decorators, vec!["@SuppressWarnings(\"unchecked\")"]);
    assert_eq!(
        class.docstring.as_deref(),
        Some("A cache of values.\n\n<p>Keeps them in memory.")
    );
    let run = symbol(&file, "Sample.run");
    assert_eq!((run.decorated_line, run.start_line), (24, 25));
    assert_eq!(run.signature, "public void run()");
    let compare = symbol(&file, "Sample.compareTo");
    assert_eq!(compare.decorators, vec!["@Override"]);
    assert_eq!(compare.signature, "public int compareTo(Sample<K> other)");
    assert_eq!(
        imports(&file),
        vec![
            ("java.util", Some("List"), None),
            ("java.util", Some("*"), None),
            ("java.util.Objects", Some("requireNonNull"), None),
        ]
    );
    assert!(has_ref(
        &file,
        RefKind::Call,
        "sort",
        Some("Collections"),
        28
    ));
    assert!(has_ref(&file, RefKind::Call, "ArrayList", None, 26));
    assert!(has_ref(&file, RefKind::Inherit, "Comparable", None, 13));
}

/// Each fixture with a line of garbage in the middle: the parser recovers, the file is
/// reported as broken, and definitions on both sides of the damage are still found.
#[test]
fn broken_files_keep_the_symbols_around_the_damage() {
    let cases = [
        ("sample.rs", RUST, "Cache::new", "new_is_empty"),
        ("sample.go", GO, "Max", "helper"),
        ("sample.js", JAVASCRIPT, "add", "outer"),
        ("sample.ts", TYPESCRIPT, "Handler", "overloaded"),
        ("Sample.java", JAVA, "Sample.Sample", "limit"),
        ("sample.rb", RUBY, "Store::Cache::initialize", "helper"),
        ("sample.php", PHP, "MAX", "helper"),
    ];
    for (path, text, before, after) in cases {
        let lines: Vec<&str> = text.lines().collect();
        let middle = lines.len() / 2;
        let broken = [
            &lines[..middle],
            &["  ) } ]] fn class func ((( <<<"],
            &lines[middle..],
        ]
        .concat()
        .join("\n");
        let file = parse(path, &broken);
        assert!(file.has_syntax_errors(), "{path}");
        // Recovery may re-nest what follows the damage, so the later name is looked for
        // without its qualifier.
        let qualnames: Vec<&str> = file.symbols.iter().map(|s| s.qualname.as_str()).collect();
        assert!(
            qualnames.contains(&before),
            "{path}: {before} missing from {qualnames:?}"
        );
        assert!(
            file.symbols.iter().any(|s| s.name == after),
            "{path}: {after} missing from {qualnames:?}"
        );
    }
}

#[test]
fn every_truncation_of_every_fixture_parses() {
    for (path, text) in FIXTURES {
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .step_by(11)
            .chain(std::iter::once(text.len()))
            .collect();
        for cut in cuts {
            parse(path, &text[..cut]);
        }
    }
}

/// Deeply nested code in each language: definitions 2,000 deep (their qualified names grow
/// with the depth), brackets 10,000 deep.
#[test]
fn deep_nesting() {
    let depth = 2_000;
    let definitions = [
        (
            "deep.rs",
            format!(
                "{}fn x() {{}}{}",
                "mod m { ".repeat(depth),
                "}".repeat(depth)
            ),
        ),
        (
            "deep.go",
            format!(
                "package p\nfunc f() {{ {} }}\n",
                "func() { ".repeat(depth) + &"}()".repeat(depth)
            ),
        ),
        (
            "deep.js",
            format!("{}{}", "function f() { ".repeat(depth), "}".repeat(depth)),
        ),
        (
            "deep.ts",
            format!("{}{}", "namespace N { ".repeat(depth), "}".repeat(depth)),
        ),
        (
            "Deep.java",
            format!("{}{}", "class C { ".repeat(depth), "}".repeat(depth)),
        ),
    ];
    for (path, text) in &definitions {
        let file = parse(path, text);
        // Go cannot nest named functions: its case nests function literals inside one.
        let want = if path.ends_with(".go") { 1 } else { depth };
        assert!(file.symbols.len() >= want, "{path}: {}", file.symbols.len());
    }
    // Unbalanced brackets send tree-sitter's error recovery into a slow search (over a
    // minute for 100,000 of them): such a parse stops at its time budget with an error
    // instead of hanging; it must not panic either way.
    let brackets = 10_000;
    for path in ["deep.rs", "deep.go", "deep.js", "deep.ts", "Deep.java"] {
        for text in [
            format!("{}{}", "(".repeat(brackets), ")".repeat(brackets)),
            format!("{}{}", "{".repeat(brackets), "}".repeat(brackets)),
            "[".repeat(brackets),
        ] {
            match language(path).parse_text(&text) {
                Ok(file) => check_invariants(&file, &text),
                Err(err) => assert!(
                    matches!(err, ParseError::TooSlow { .. }) && err.is_skip(),
                    "{path}: {err}"
                ),
            }
        }
    }
}

#[test]
fn a_huge_single_line() {
    // A minified bundle: 20,000 functions on one 1.2 MB line, and a 4 MB string.
    let bundle = "function f(a){return a+1};var g=function(b){return f(b)};".repeat(10_000);
    let file = parse("bundle.js", &bundle);
    assert_eq!(file.symbols.len(), 20_000);
    assert!(file.symbols.iter().all(|s| s.start_line == 1));
    let long = format!(
        "const S: &str = \"{}\";\nfn after() {{}}\n",
        "x".repeat(4 << 20)
    );
    let file = parse("long.rs", &long);
    assert_eq!(
        rows(&file),
        vec![("constant", "S", 1, 1), ("function", "after", 2, 2)]
    );
    assert!(file.symbols[0].signature.len() < 1000);
}

/// Tokens of the brace languages: random programs of these reach far more parser states than
/// random bytes.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "fn ",
        "func ",
        "function ",
        "class ",
        "struct ",
        "impl ",
        "trait ",
        "interface ",
        "type ",
        "mod ",
        "package ",
        "import ",
        "use ",
        "export ",
        "const ",
        "let ",
        "var ",
        "pub ",
        "static ",
        "enum ",
        "namespace ",
        "x",
        "T",
        "self",
        "this",
        ".",
        "::",
        ",",
        ";",
        ":",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "<",
        ">",
        "=",
        "=>",
        "->",
        "@",
        "#[",
        "\n",
        "  ",
        "'",
        "\"",
        "`",
        "//",
        "///",
        "/**",
        "*/",
        "é",
        "1",
        "&",
        "*",
        "?",
        "!",
    ])
}

const PATHS: [&str; 6] = ["x.rs", "x.go", "x.js", "x.ts", "x.tsx", "X.java"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        if let Ok(src) = SourceText::from_bytes("x".as_ref(), bytes) {
            for path in PATHS {
                parse(path, &src.text);
            }
        }
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(token(), 0..400)) {
        let text: String = tokens.concat();
        for path in PATHS {
            parse(path, &text);
        }
    }
}

/// `parse_symbols` (what `cast symbols` uses) gives the whole parse's symbols, description,
/// line count and syntax error, leaving the imports and references out — for Python (whose
/// walk then skips every expression) and every described language (whose reference and import
/// queries are not run), on the fixtures and on broken code.
#[test]
fn parse_symbols_is_the_parse_without_imports_and_references() {
    const PYTHON: &str = include_str!("../fixtures/sample.py");
    let broken_python = "@deco(1)\nclass A(B, metaclass=M):\n    def f(self, x=g()):\n        return [lambda: h(x) for _ in y]\n\ndef broken(:\n";
    let mut cases: Vec<(&str, &str)> = FIXTURES.to_vec();
    cases.push(("sample.py", PYTHON));
    cases.push(("broken.py", broken_python));
    cases.push(("broken.rs", "fn ok() {}\nimpl X { fn m(&self) { call(\n"));
    for (path, text) in cases {
        let language = language(path);
        let whole = language.parse(text).unwrap();
        let listed = language.parse_symbols(text).unwrap();
        assert!(!whole.symbols.is_empty(), "{path}");
        assert_eq!(listed.symbols, whole.symbols, "{path}");
        assert_eq!(listed.description, whole.description, "{path}");
        assert_eq!(listed.line_count, whole.line_count, "{path}");
        assert_eq!(listed.syntax_error, whole.syntax_error, "{path}");
        assert_eq!(listed.language, whole.language, "{path}");
        assert!(
            listed.imports.is_empty() && listed.references.is_empty(),
            "{path}"
        );
    }
}
