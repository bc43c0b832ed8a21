//! `cast symbols`: listing, JSON, exit codes, and agreement with Python's `ast`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use predicates::prelude::*;

use crate::support::{cast, fixtures, json_lines, python_stdlib};

#[test]
fn help_explains_the_commands() {
    cast()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("symbols"))
        .stdout(predicate::str::contains("Exit status"));
    cast()
        .args(["symbols", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--json"))
        .stdout(predicate::str::contains("--no-ignore"))
        .stdout(predicate::str::contains("py_symbols.py"));
}

#[test]
fn bad_usage_exits_2() {
    cast().args(["symbols", "--bogus"]).assert().code(2);
    cast().arg("no-such-command").assert().code(2);
    cast()
        .args(["symbols", "--kind", "banana", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown kind"));
}

#[test]
fn a_missing_path_is_an_error_that_names_it() {
    cast()
        .args(["symbols", "does/not/exist"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does/not/exist"));
}

#[test]
fn nothing_found_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "def f(): pass\n").unwrap();
    std::fs::write(dir.path().join("empty.py"), "x = 1\n").unwrap();
    cast()
        .arg("symbols")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("");
}

#[test]
fn text_listing_of_a_project() {
    let root = fixtures().join("project");
    cast()
        .arg("symbols")
        .arg(&root)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "shop/cart.py:7-20 class Cart  class Cart\n",
        ))
        .stdout(predicate::str::contains(
            "shop/cart.py:13-15 method Cart.add  def add(self, sku: str, qty: int = 1) -> None\n",
        ))
        .stdout(predicate::str::contains(
            "templates/cart.html:2-7 block content",
        ))
        .stdout(predicate::str::contains(
            "templates/cart.html:3-6 element content.cart",
        ))
        .stdout(predicate::str::contains("notes.txt").not());
}

/// Named files and folders list in the order given, each file under the name it was given
/// by (a folder's files joined to the folder), one listing however many roots there are.
#[test]
fn several_roots_list_in_the_order_given() {
    let root = fixtures().join("project");
    let cart = root.join("shop/cart.py");
    let templates = root.join("templates");
    let out = cast()
        .arg("symbols")
        .arg(&templates)
        .arg(&cart)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let cart_at = text
        .find(&format!("{}:7-20 class Cart", cart.display()))
        .expect("the named file, by its name");
    let template_at = text
        .find(&format!(
            "{}:2-7 block content",
            templates.join("cart.html").display()
        ))
        .expect("the folder's file, joined to the folder");
    assert!(template_at < cart_at, "roots in the order given:\n{text}");
}

#[test]
fn json_rows_have_the_reference_fields_in_the_reference_order() {
    let root = fixtures().join("project");
    let out = cast()
        .args(["symbols", "--json"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows = json_lines(&out.stdout);
    let keys: Vec<(String, u64, String)> = rows
        .iter()
        .map(|r| {
            for field in ["path", "kind", "name", "qualname", "start_line", "end_line"] {
                assert!(r.get(field).is_some(), "{field} missing in {r}");
            }
            (
                r["path"].as_str().unwrap().to_owned(),
                r["start_line"].as_u64().unwrap(),
                r["qualname"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        keys, sorted,
        "rows are sorted by (path, start_line, qualname)"
    );
    let total = rows.iter().find(|r| r["qualname"] == "Cart.total").unwrap();
    assert_eq!(total["kind"], "method");
    assert_eq!(
        total["doc"],
        "The price of everything, after a discount code."
    );
    assert_eq!(
        (total["start_line"].as_u64(), total["end_line"].as_u64()),
        (Some(17), Some(20))
    );
}

#[test]
fn a_closed_pipe_ends_quietly_with_success() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..20_000)
        .map(|i| format!("def f{i}():\n    pass\n"))
        .collect();
    std::fs::write(dir.path().join("many.py"), body).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cast-under-test"))
        .arg("symbols")
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // the reader is dropped here: the pipe closes with most of the output unwritten
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with("many.py:1-2 function f0"), "{first}");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

type Row = (String, String, String, u64, u64);

fn rows(bytes: &[u8], keep: impl Fn(&str) -> bool) -> BTreeSet<Row> {
    json_lines(bytes)
        .into_iter()
        .filter(|r| keep(r["path"].as_str().unwrap_or("")))
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["kind"].as_str().unwrap().to_owned(),
                r["qualname"].as_str().unwrap().to_owned(),
                r["start_line"].as_u64().unwrap(),
                r["end_line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Runs the reference (`ast`) and `cast symbols` on one tree; returns (matched, missing, extra).
fn compare_with_ast(python: &str, root: &Path) -> (usize, Vec<Row>, Vec<Row>) {
    let reference = Command::new(python)
        .arg(fixtures().join("py_symbols.py"))
        .arg(root)
        .output()
        .unwrap();
    assert!(
        reference.status.success(),
        "{}",
        String::from_utf8_lossy(&reference.stderr)
    );
    // Files `ast` could not parse are listed on stderr; they are outside the comparison.
    let skipped: BTreeSet<String> = String::from_utf8_lossy(&reference.stderr)
        .lines()
        .filter_map(|l| {
            l.strip_prefix("skipped ")?
                .rsplit_once(':')
                .map(|(p, _)| p.to_owned())
        })
        .collect();
    let ours = cast()
        .args(["symbols", "--json", "--no-ignore"])
        .arg(root)
        .output()
        .unwrap();
    let expected = rows(&reference.stdout, |_| true);
    let got = rows(&ours.stdout, |p| {
        (p.ends_with(".py") || p.ends_with(".pyi")) && !skipped.contains(p)
    });
    let matched = expected.intersection(&got).count();
    let missing = expected.difference(&got).cloned().collect();
    let extra = got.difference(&expected).cloned().collect();
    (matched, missing, extra)
}

#[test]
fn agrees_with_python_ast_on_the_fixtures() {
    let Some((python, _)) = python_stdlib() else {
        return;
    };
    for dir in [
        fixtures().join("project"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/cast-parser/tests/fixtures"),
    ] {
        let (matched, missing, extra) = compare_with_ast(&python, &dir);
        assert!(matched > 5, "{}: only {matched} symbols", dir.display());
        assert_eq!((missing, extra), (vec![], vec![]), "{}", dir.display());
    }
}

/// A sizeable part of the machine's standard library (about 500 files): every symbol `ast`
/// reports is found at the same lines, and nothing else. The whole library is compared by
/// `bench/symbols.py`.
#[test]
fn agrees_with_python_ast_on_a_sizeable_part_of_the_stdlib() {
    let Some((python, stdlib)) = python_stdlib() else {
        return;
    };
    let mut total = 0;
    for part in [
        "asyncio",
        "collections",
        "concurrent",
        "email",
        "encodings",
        "html",
        "http",
        "importlib",
        "json",
        "logging",
        "unittest",
        "urllib",
        "xml",
        "xmlrpc",
        "multiprocessing",
        "idlelib",
        "tomllib",
        "zoneinfo",
        "sqlite3",
        "wsgiref",
        "ctypes",
    ] {
        let dir = stdlib.join(part);
        if !dir.is_dir() {
            continue;
        }
        let (matched, missing, extra) = compare_with_ast(&python, &dir);
        assert_eq!(
            (&missing, &extra),
            (&vec![], &vec![]),
            "{part}: {matched} matched"
        );
        total += matched;
    }
    // A regression: continuation lines inside brackets indented less than their block.
    let tricky = stdlib.join("test/test_compile.py");
    if tricky.is_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(&tricky, dir.path().join("test_compile.py")).unwrap();
        let (matched, missing, extra) = compare_with_ast(&python, dir.path());
        assert_eq!((&missing, &extra), (&vec![], &vec![]), "test_compile.py");
        total += matched;
    }
    eprintln!("{total} symbols agree with ast");
    assert!(total > 5_000, "only {total} symbols compared");
}

/// Issue 17, item 8: `cast symbols a.js` exited 1 with no message and `cast skeleton a.js`
/// printed its message twice; with another file, `cast symbols a.js b.py` dropped `a.js` without
/// a word and printed `b.py/b.py:…`. An unsupported file gets one clear line. (JavaScript is
/// supported since issue 15 and Ruby since issue 37, so a Kotlin file stands in for the
/// unsupported one.)
#[test]
fn regression_an_unsupported_file_gets_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.kt"), "fun f() = 1\n").unwrap();
    std::fs::write(dir.path().join("b.py"), "def f():\n    pass\n").unwrap();
    let one_line = |stderr: &[u8]| {
        let text = String::from_utf8_lossy(stderr).into_owned();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("cast: a.kt: not a supported file type; CAST parses ")
                && text.contains(".py"),
            "{text}"
        );
    };
    for command in ["symbols", "skeleton"] {
        let out = cast()
            .current_dir(dir.path())
            .args([command, "a.kt"])
            .assert()
            .code(1);
        one_line(&out.get_output().stderr);
        let out = cast()
            .current_dir(dir.path())
            .args([command, "a.kt", "b.py"])
            .assert()
            .success();
        one_line(&out.get_output().stderr);
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(
            stdout.starts_with("b.py:1-2 function f") || stdout.starts_with("==> b.py <=="),
            "{stdout}"
        );
    }
}
