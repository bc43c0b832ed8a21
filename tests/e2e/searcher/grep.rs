//! `cast grep`: output, flags, exit codes, and equality with ripgrep on the Python standard
//! library.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use predicates::prelude::*;

use crate::support::{cast, fixtures, json_lines, python_stdlib, skip_test};

#[test]
fn grep_prints_path_line_text_in_path_order() {
    cast()
        .args(["grep", "-F", "price_of("])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .stdout(
            "shop/cart.py:19:        subtotal = sum(price_of(sku) * qty for sku, qty in self.items.items())\n\
             shop/pricing.py:7:def price_of(sku: str) -> Decimal:\n",
        );
}

#[test]
fn grep_json_has_path_line_text_and_context_flags() {
    let out = cast()
        .args(["grep", "--json", "-C", "1", "def apply_discount"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    let keys: Vec<(String, u64, bool)> = rows
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
                r.get("context").is_some(),
            )
        })
        .collect();
    assert_eq!(
        keys,
        [
            ("shop/pricing.py".to_owned(), 11, true),
            ("shop/pricing.py".to_owned(), 12, false),
            ("shop/pricing.py".to_owned(), 13, true),
        ]
    );
    assert!(
        rows[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("def apply_discount(")
    );
}

#[test]
fn grep_caps_at_50_by_default_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..80).map(|i| format!("hit {i}\n")).collect();
    std::fs::write(dir.path().join("a.txt"), body).unwrap();
    let out = cast()
        .args(["grep", "hit"])
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "showing the first 50 matching lines",
        ))
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8_lossy(&out).lines().count(), 50);
    cast()
        .args(["grep", "--max-results", "0", "hit"])
        .arg(dir.path())
        .assert()
        .success()
        .stderr("")
        .stdout(predicate::function(|s: &str| s.lines().count() == 80));
}

#[test]
fn grep_exit_codes() {
    let project = fixtures().join("project");
    cast()
        .args(["grep", "no such text anywhere"])
        .arg(&project)
        .assert()
        .code(1)
        .stdout("");
    cast()
        .args(["grep", "foo("])
        .arg(&project)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid regex"))
        .stderr(predicate::str::contains("-F"));
    cast()
        .args(["grep", "x", "does/not/exist"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "does/not/exist: no such file or folder",
        ));
    cast()
        .args(["grep", "--include", "{a", "x"])
        .arg(&project)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid glob"));
    cast()
        .args(["grep", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--fixed-strings"))
        .stdout(predicate::str::contains("--max-results"))
        .stdout(predicate::str::contains("Examples"));
}

/// One query, as `cast grep` flags and as the same `rg` flags.
struct Query {
    what: &'static str,
    cast: &'static [&'static str],
    rg: &'static [&'static str],
}

const QUERIES: &[Query] = &[
    Query {
        what: "regex",
        cast: &[r"^\s*async def \w+\("],
        rg: &[r"^\s*async def \w+\("],
    },
    Query {
        what: "literal",
        cast: &["-F", "os.path.join("],
        rg: &["-F", "os.path.join("],
    },
    Query {
        what: "case-insensitive",
        cast: &["-i", "todo"],
        rg: &["-i", "todo"],
    },
    Query {
        what: "include glob",
        cast: &["--include", "*.txt", "--include", "*.cfg", "-i", "license"],
        rg: &["-g", "*.txt", "-g", "*.cfg", "-i", "license"],
    },
    Query {
        what: "exclude glob",
        cast: &[
            "--exclude",
            "test/**",
            "--exclude",
            "*.pyc",
            r"raise \w+Error\(",
        ],
        rg: &["-g", "!test/**", "-g", "!*.pyc", r"raise \w+Error\("],
    },
    Query {
        what: "unicode class",
        cast: &[r"\p{Greek}+"],
        rg: &[r"\p{Greek}+"],
    },
];

/// rg's (path, line) set for a query run in `root`, or `None` if rg is not installed.
fn rg_hits(root: &Path, args: &[&str]) -> Option<BTreeSet<(String, u64)>> {
    let out = Command::new("rg")
        .current_dir(root)
        .args(["--no-config", "--no-messages", "-n", "-0", "--no-ignore"])
        .args(args)
        .arg(".")
        .stdin(Stdio::null())
        .output()
        .ok()?;
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "rg failed: {out:?}"
    );
    // `-0` ends each path with a NUL, so paths with colons parse; the text is not needed.
    let mut hits = BTreeSet::new();
    for line in out.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let nul = line.iter().position(|&b| b == 0).unwrap();
        let path = String::from_utf8_lossy(&line[..nul]);
        let rest = &line[nul + 1..];
        let colon = rest.iter().position(|&b| b == b':').unwrap();
        let number = std::str::from_utf8(&rest[..colon])
            .unwrap()
            .parse()
            .unwrap();
        hits.insert((path.trim_start_matches("./").to_owned(), number));
    }
    Some(hits)
}

fn cast_hits(root: &Path, args: &[&str]) -> Vec<(String, u64)> {
    let out = cast()
        .current_dir(root)
        .args(["grep", "--json", "--max-results", "0", "--no-ignore"])
        .args(args)
        .arg(".")
        .output()
        .unwrap();
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "cast grep failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out.stdout)
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The issue's bar: on this machine's Python standard library, `cast grep --json --max-results
/// 0 --no-ignore` finds exactly the (path, line) pairs `rg -n --no-ignore` finds — binary files
/// (ripgrep stops at the first NUL), invalid UTF-8 and .pyc files included — in path order.
#[test]
fn grep_equals_ripgrep_on_the_python_standard_library() {
    let Some((_, stdlib)) = python_stdlib() else {
        return;
    };
    if Command::new("rg").arg("--version").output().is_err() {
        skip_test("rg (ripgrep) is not installed; apt-get install ripgrep");
        return;
    }
    for query in QUERIES {
        let started = Instant::now();
        let want = rg_hits(&stdlib, query.rg).unwrap();
        let got_in_order = cast_hits(&stdlib, query.cast);
        let got: BTreeSet<_> = got_in_order.iter().cloned().collect();
        let missing: Vec<_> = want.difference(&got).take(10).collect();
        let extra: Vec<_> = got.difference(&want).take(10).collect();
        eprintln!(
            "{:<16} rg {:>6} cast {:>6} missing {} extra {} ({:.1} s)",
            query.what,
            want.len(),
            got.len(),
            want.difference(&got).count(),
            got.difference(&want).count(),
            started.elapsed().as_secs_f64()
        );
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{}: missing {missing:?} extra {extra:?}",
            query.what
        );
        assert!(
            !want.is_empty(),
            "{}: the query should find something",
            query.what
        );
        assert_eq!(got.len(), got_in_order.len(), "{}: duplicates", query.what);
        // Path order (folder by folder), then line order.
        let key = |(p, l): &(String, u64)| (p.replace('/', "\0"), *l);
        assert!(
            got_in_order.windows(2).all(|w| key(&w[0]) < key(&w[1])),
            "{}: not in path-then-line order",
            query.what
        );
    }
}
