//! The parser never panics: truncated files, random bytes, deep nesting, huge files.

use std::path::Path;

use cast_parser::{Html, LanguageParser, ParseError, ParsedFile, Python, Registry, SourceText};
use proptest::prelude::*;

const SAMPLE: &str = include_str!("../fixtures/sample.py");

/// What must hold for any parse, however broken the input.
pub(crate) fn check_invariants(file: &ParsedFile, text: &str) {
    let separator = match file.language {
        "rust" | "cpp" | "ruby" | "php" => "::",
        _ => ".",
    };
    let lines = file.line_count.max(1);
    for (i, s) in file.symbols.iter().enumerate() {
        assert!(s.decorated_line <= s.start_line, "{s:?}");
        assert!(s.start_line <= s.end_line, "{s:?}");
        assert!(s.end_line <= lines, "{s:?} beyond {lines} lines");
        assert!(
            s.start_byte <= s.end_byte && s.end_byte <= text.len(),
            "{s:?}"
        );
        if let Some(p) = s.parent {
            assert!(p < i, "parent after child: {s:?}");
            let parent = &file.symbols[p];
            // Under its parent; a C++ method defined outside its class, inside a namespace,
            // has its class between (`store::Cache::size`).
            let under = format!("{}{separator}", parent.qualname);
            assert!(
                s.qualname.starts_with(&under)
                    && s.qualname.ends_with(&format!("{separator}{}", s.name))
                    && (s.qualname == format!("{under}{}", s.name) || file.language == "cpp"),
                "{s:?} under {}",
                parent.qualname
            );
        } else {
            // A Go method or a JavaScript prototype method is qualified by its receiver's
            // type, which is not its parent in the file.
            assert!(
                s.qualname == s.name || s.qualname.ends_with(&format!("{separator}{}", s.name)),
                "{s:?}"
            );
        }
        if let Some(body) = s.body_start {
            assert!(s.start_byte <= body && body <= s.end_byte, "{s:?}");
        }
    }
    for r in &file.references {
        assert!(r.line >= 1 && r.line <= lines, "{r:?}");
        assert!(r.scope.is_none_or(|s| s < file.symbols.len()));
    }
    for i in &file.imports {
        assert!(i.line >= 1 && i.line <= lines, "{i:?}");
    }
}

#[test]
fn sample_parses_cleanly() {
    let file = Python.parse_text(SAMPLE).unwrap();
    assert!(!file.has_syntax_errors());
    check_invariants(&file, SAMPLE);
    let names: Vec<_> = file.symbols.iter().map(|s| s.qualname.as_str()).collect();
    for expected in [
        "decorator.wrapper",
        "Base.posix_only",
        "Base.windows_only",
        "Base.Inner",
        "Child.nested.level1.level2.Deep.method",
        "inside_with",
        "InLoop",
        "in_while",
        "in_try",
        "in_except",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
}

#[test]
fn every_truncation_of_a_real_file_parses() {
    let cuts: Vec<usize> = (0..=SAMPLE.len())
        .filter(|&i| SAMPLE.is_char_boundary(i))
        .collect();
    for &cut in cuts.iter().step_by(7).chain(std::iter::once(&SAMPLE.len())) {
        let text = &SAMPLE[..cut];
        let file = Python.parse_text(text).unwrap();
        check_invariants(&file, text);
    }
}

#[test]
fn truncated_bytes_mid_character_are_decoded_lossily() {
    let bytes = "def f():\n    return 'é€😀'\n".as_bytes();
    for cut in 0..=bytes.len() {
        match SourceText::from_bytes(Path::new("x.py"), bytes[..cut].to_vec()) {
            Ok(src) => check_invariants(&Python.parse_text(&src.text).unwrap(), &src.text),
            Err(err) => panic!("cut {cut}: {err}"),
        }
    }
}

fn nested(depth: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "parentheses",
            format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth)),
        ),
        (
            "lists",
            format!("x = {}{}\n", "[".repeat(depth), "]".repeat(depth)),
        ),
        (
            "calls",
            format!("x = {}{}\n", "f(".repeat(depth), ")".repeat(depth)),
        ),
        ("lambdas", format!("x = {}0\n", "lambda: ".repeat(depth))),
        ("attributes", format!("a{}\n", ".b".repeat(depth))),
        ("unary", format!("x = {}1\n", "-".repeat(depth))),
        // A left-nested chain ten times deeper: the tree is as deep as the chain is long.
        (
            "binary operators",
            format!("x = 1{}\n", " + 1".repeat(depth * 10)),
        ),
        (
            "comparisons and not",
            format!("x = {}y\n", "not a < ".repeat(depth)),
        ),
        ("subscripts", format!("x = a{}\n", "[1]".repeat(depth))),
        (
            "f-strings (PEP 701 nesting)",
            format!(
                "x = {}1{}\n",
                "f\"{".repeat(depth / 10),
                "}\"".repeat(depth / 10)
            ),
        ),
        (
            "dicts",
            format!("x = {}1{}\n", "{1: ".repeat(depth), "}".repeat(depth)),
        ),
        ("unclosed", "(".repeat(depth)),
    ]
}

#[test]
fn ten_thousand_levels_of_nesting() {
    for (what, text) in nested(10_000) {
        let file = Python
            .parse_text(&text)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        check_invariants(&file, &text);
    }
    let html = format!(
        "{}x{}",
        "<div id=a>".repeat(10_000),
        "</div>".repeat(10_000)
    );
    let file = Html.parse_text(&html).unwrap();
    check_invariants(&file, &html);
    assert_eq!(file.symbols.len(), 10_000);
}

#[test]
fn ten_thousand_nested_blocks_in_a_50_megabyte_file() {
    // One-space indentation per level: the file is 50 MB. Tree-sitter's indentation tracking
    // gives up long before 10,000 levels (so does CPython, at 100); the point is no panic.
    let depth = 10_000;
    let mut text = String::with_capacity(depth * depth / 2 + depth * 16);
    for i in 0..depth {
        text.push_str(&" ".repeat(i));
        text.push_str(&format!("def f{i}():\n"));
    }
    text.push_str(&" ".repeat(depth));
    text.push_str("pass\n");
    assert!(text.len() > 50_000_000);
    let file = Python.parse_text(&text).unwrap();
    check_invariants(&file, &text);
    assert!(file.symbols.len() > 100, "{} symbols", file.symbols.len());
}

#[test]
fn files_over_the_size_limit_are_skipped_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.py");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(50 * 1024 * 1024).unwrap();
    let err = Registry::default()
        .parse_file(&path, cast_parser::DEFAULT_MAX_FILESIZE)
        .unwrap_err();
    assert!(matches!(err, ParseError::TooLarge { .. }), "{err}");
    assert!(err.to_string().contains("--max-filesize"), "{err}");
}

#[test]
fn binary_files_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("blob.py");
    std::fs::write(&path, b"\x7fELF\x00\x01\x02def f(): pass\n").unwrap();
    let err = Registry::default().parse_file(&path, 1 << 20).unwrap_err();
    assert!(err.is_skip(), "{err}");
}

/// Python-ish tokens: random programs made of these hit far more parser paths than random bytes.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "def ", "class ", "async ", "lambda", "f", "x", "self", ".", ",", ":", "(", ")", "[", "]",
        "{", "}", "=", "->", "@", "\n", "    ", "\t", "'", "\"", "\"\"\"", "#", "\\", "if ",
        "else", "return ", "import ", "from ", " as ", "*", "**", "1", "é", "\r\n", "pass",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..4096)) {
        if let Ok(src) = SourceText::from_bytes(Path::new("x"), bytes) {
            check_invariants(&Python.parse_text(&src.text).unwrap(), &src.text);
            check_invariants(&Html.parse_text(&src.text).unwrap(), &src.text);
        }
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(token(), 0..400)) {
        let text: String = tokens.concat();
        check_invariants(&Python.parse_text(&text).unwrap(), &text);
        check_invariants(&Html.parse_text(&text).unwrap(), &text);
    }
}
