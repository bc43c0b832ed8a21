//! `cast index`, `map`, `skeleton`, `show` and `find` on the project fixture.

use predicates::prelude::*;

use crate::support::{cast, fixtures, json_lines, project};

#[test]
fn index_builds_then_refreshes_and_reports() {
    let dir = project();
    cast()
        .arg("index")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::starts_with("indexed 4 files (4 added"));
    assert!(dir.path().join(".cast/index.sqlite").exists());
    let out = cast()
        .args(["index", "--json"])
        .arg(dir.path())
        .assert()
        .success();
    let report = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(report["cold"], false);
    assert_eq!(report["unchanged"], 4);
    assert!(report["edges"].as_u64().unwrap() >= 3);
}

#[test]
fn map_shows_files_descriptions_and_ranked_symbols() {
    let dir = project();
    cast()
        .arg("map")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cart.py — Shopping carts. → shop/pricing.py",
        ))
        .stdout(predicate::str::contains(
            "def price_of(sku: str) -> Decimal",
        ));
    let out = cast()
        .args(["map", "--json", "--budget", "500"])
        .arg(dir.path())
        .assert()
        .success();
    let lines = json_lines(&out.get_output().stdout);
    let summary = lines.last().unwrap();
    assert_eq!(summary["summary"], true);
    assert!(summary["tokens"].as_u64().unwrap() <= 500);
    assert!(lines.iter().any(|l| l["path"] == "shop/pricing.py"));
}

#[test]
fn map_with_a_trace_prunes_files_that_never_ran() {
    let dir = project();
    let trace = dir.path().join("run.jsonl");
    std::fs::write(
        &trace,
        "{\"event\":\"call\",\"file\":\"shop/pricing.py\",\"function\":\"price_of\",\"count\":4}\n{\"event\":\"error\",\"file\":\"shop/pricing.py\",\"line\":9,\"message\":\"KeyError: 'kiwi'\"}\n",
    )
    .unwrap();
    cast()
        .arg("map")
        .arg(dir.path())
        .arg("--trace")
        .arg(&trace)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "def price_of(sku: str) -> Decimal  [ran 4×]",
        ))
        .stdout(predicate::str::contains(
            "return PRICES[sku]  [ERROR: KeyError: 'kiwi']",
        ))
        .stdout(predicate::str::contains("cart.py").not());
    std::fs::write(&trace, "{\"file\": \"a.py\"}\nnot json\n").unwrap();
    cast()
        .arg("map")
        .arg(dir.path())
        .arg("--trace")
        .arg(&trace)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("line 2"));
}

#[test]
fn skeleton_prefixes_original_lines_and_elides_bodies() {
    let file = fixtures().join("project/shop/cart.py");
    cast()
        .arg("skeleton")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::str::contains("(Line 4) from .pricing import price_of, apply_discount\n"))
        .stdout(predicate::str::contains("(Line 7) class Cart:\n(Line 8)     \"\"\"A cart holding items and their quantities.\"\"\"\n"))
        .stdout(predicate::str::contains("(Line 10)     def __init__(self): ...\n"))
        .stdout(predicate::str::contains("self.items").not());
    let out = cast()
        .args(["skeleton", "--json"])
        .arg(fixtures().join("project"))
        .assert()
        .success();
    let files = json_lines(&out.get_output().stdout);
    assert_eq!(files.len(), 4);
    cast().args(["skeleton", "nope.py"]).assert().code(2);
}

#[test]
fn show_prints_source_and_references_or_exits_1() {
    let dir = project();
    cast()
        .args(["show", "price_of", "--root"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "shop/pricing.py:7-9 function price_of",
        ))
        .stdout(predicate::str::contains("9 |     return PRICES[sku]"))
        .stdout(predicate::str::contains("shop/cart.py:19  Cart.total"));
    cast()
        .args(["show", "shop/cart.py:15", "--root"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("method Cart.add"));
    cast()
        .args(["show", "no_such_symbol", "--root"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cast find"));
    // A qualifier that fits nothing: the symbols of that name are named, not guessed at.
    cast()
        .args(["show", "billing.price_of", "--root"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "no symbol matches \"billing.price_of\"; symbols named price_of: shop.pricing.price_of (shop/pricing.py:7); try `cast find",
        ));
}

#[test]
fn find_takes_a_one_word_query_as_a_name() {
    let dir = project();
    let out = cast()
        .args(["find", "Cart", "--json", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    let hits = json_lines(&out.get_output().stdout);
    assert_eq!(hits[0]["qualname"], "Cart", "{hits:?}");
    assert!(
        hits[0]["scores"]["ident"].as_f64().unwrap() > 0.0,
        "{hits:?}"
    );
}

/// A task pasted from a list starts with a dash; it is the query, not an option, for `find`
/// and for `map --focus`, and the flags after it still count.
#[test]
fn regression_a_query_that_starts_with_a_dash_is_a_query() {
    let dir = project();
    let out = cast()
        .args([
            "find",
            "--files",
            "- apply the discount code",
            "--json",
            "--root",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let dashed = json_lines(&out.get_output().stdout);
    let out = cast()
        .args([
            "find",
            "--files",
            "apply the discount code",
            "--json",
            "--root",
        ])
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(dashed, json_lines(&out.get_output().stdout));
    assert!(dashed.iter().all(|h| h["kind"] == "file"), "{dashed:?}");
    cast()
        .args([
            "map",
            "--focus",
            "- apply the discount code",
            "--budget",
            "400",
        ])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("apply_discount"));
}

#[test]
fn find_ranks_symbols_and_shows_scores_in_json() {
    let dir = project();
    let out = cast()
        .args(["find", "discount code", "--json", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    let hits = json_lines(&out.get_output().stdout);
    assert_eq!(hits[0]["qualname"], "apply_discount");
    assert_eq!(hits[0]["kind"], "symbol");
    for dim in [
        "text", "symbols", "ident", "graph", "rank", "factor", "total",
    ] {
        assert!(hits[0]["scores"][dim].is_number(), "{dim}");
    }
    // --files: files only, each with a path and a score.
    let out = cast()
        .args(["find", "--files", "discount code", "--json", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    let files = json_lines(&out.get_output().stdout);
    assert!(!files.is_empty());
    assert!(
        files
            .iter()
            .all(|h| h["kind"] == "file" && h["score"].is_number())
    );
    assert!(
        files[0]["path"]
            .as_str()
            .is_some_and(|p| p.ends_with(".py"))
    );
    // Nothing found: stdout stays empty (as for grep), stderr says what was searched.
    let out = cast()
        .args(["find", "zzqqxx", "--root"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("");
    let said = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let indexed = cast()
        .args(["index", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    let report = &json_lines(&indexed.stdout)[0];
    let expected = format!(
        "nothing matches \"zzqqxx\" in {} files and {} symbols; try other words",
        report["files"].as_u64().unwrap() - report["skipped"].as_u64().unwrap(),
        report["symbols"]
    );
    assert!(said.contains(&expected), "{said}\nexpected: {expected}");
}

#[test]
fn find_in_searches_only_the_files_named() {
    let dir = project();
    let find = |extra: &[&str]| {
        cast()
            .args(["find", "discount code", "--json", "--root"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap()
    };
    // The whole tree: the function that applies a discount, in pricing.py, comes first.
    let whole = json_lines(&find(&[]).stdout);
    assert_eq!(whole[0]["path"], "shop/pricing.py");
    // Only cart.py (as a file, as an absolute path inside the root, or by a glob): every hit is
    // there, though pricing.py matches better and cart.py imports it.
    let absolute = dir.path().join("shop/cart.py").display().to_string();
    for within in [
        &["--in", "shop/cart.py"][..],
        &["--in", &absolute],
        &["--in", "c*.py"],
    ] {
        let out = find(within);
        assert_eq!(out.status.code(), Some(0), "{within:?}");
        let hits = json_lines(&out.stdout);
        assert!(!hits.is_empty(), "{within:?}");
        assert!(
            hits.iter().all(|h| h["path"] == "shop/cart.py"),
            "{within:?}: {hits:?}"
        );
    }
    // Several patterns: a file is in when any names it.
    let hits = json_lines(&find(&["--in", "shop/cart.py", "--in", "shop/pricing.py"]).stdout);
    assert!(hits.iter().any(|h| h["path"] == "shop/pricing.py"));
    // `!` leaves a file out, here the best one: the rest of the tree is searched.
    let hits = json_lines(&find(&["--in", "!shop/pricing.py"]).stdout);
    assert!(!hits.is_empty());
    assert!(
        hits.iter().all(|h| h["path"] != "shop/pricing.py"),
        "{hits:?}"
    );
    assert!(hits.iter().any(|h| h["path"] == "shop/cart.py"), "{hits:?}");
    // A folder with no source: nothing, and the note says why and what to check.
    cast()
        .args([
            "find",
            "discount code",
            "--in",
            "templates/nothing",
            "--root",
        ])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "no indexed source file is in the scope (templates/nothing); check the --in paths",
        ));
    // Out of the root, empty, or not a glob: refused before anything is searched.
    let outside = std::env::temp_dir().display().to_string();
    for (bad, says) in [
        ("../elsewhere", "leaves the root"),
        (outside.as_str(), "outside the root"),
        ("!", "names nothing"),
        ("shop/{a", "not a valid glob"),
    ] {
        cast()
            .args(["find", "discount code", "--in", bad, "--root"])
            .arg(dir.path())
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(says));
    }
}

#[test]
fn map_in_maps_part_of_the_tree_and_says_when_it_holds_nothing() {
    let dir = project();
    let out = cast()
        .args(["map", "--in", "shop/cart.py"])
        .arg(dir.path())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("(in shop/cart.py): 1 file,"),
        "{text}"
    );
    assert!(
        text.contains("cart.py") && !text.contains("pricing.py —"),
        "{text}"
    );
    cast()
        .args(["map", "--in", "no/such/folder"])
        .arg(dir.path())
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "no indexed source file is in the scope (no/such/folder); check the --in paths",
        ));
}

#[test]
fn find_in_a_tree_without_source_says_nothing_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "parse a date\n").unwrap();
    cast()
        .args(["find", "parse a date", "--root"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "nothing can match \"parse a date\": no source file is indexed here (cast reads",
        ))
        .stderr(predicate::str::contains(".py"))
        .stderr(predicate::str::contains(
            "is --root the folder of a code base?",
        ));
}

#[test]
fn find_with_no_refresh_uses_the_index_as_it_is() {
    let dir = project();
    let find = |extra: &[&str]| {
        cast()
            .args(["find", "frobnicate the widgets", "--root"])
            .arg(dir.path())
            .args(extra)
            .assert()
    };
    // No index yet: --no-refresh still builds one.
    find(&["--no-refresh"]).code(1);
    assert!(dir.path().join(".cast/index.sqlite").exists());
    std::fs::write(
        dir.path().join("widgets.py"),
        "def frobnicate_widgets():\n    \"\"\"Frobnicate the widgets.\"\"\"\n    return 1\n",
    )
    .unwrap();
    // The new file is not seen without a refresh, and is with one (the default).
    find(&["--no-refresh"]).code(1).stdout("");
    find(&[])
        .success()
        .stdout(predicate::str::contains("frobnicate_widgets"));
}

#[test]
fn analysis_commands_explain_themselves() {
    for cmd in ["index", "map", "skeleton", "show", "find"] {
        cast()
            .args([cmd, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Examples"));
    }
}

/// Issue 17, item 6: `symbols`, `skeleton`, `map` and the tools never said that a file failed
/// to parse; they name the first error's line.
#[test]
fn regression_a_file_that_does_not_parse_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join("bad.py"),
        "def ok():\n    return 1\n\ndef broken(:\n    return 2\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("good.py"), "def f():\n    return 1\n").unwrap();
    cast()
        .current_dir(dir.path())
        .args(["symbols", "bad.py"])
        .assert()
        .success()
        .stderr(predicate::str::contains("bad.py:4: syntax error"));
    cast()
        .current_dir(dir.path())
        .args(["skeleton", "bad.py"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("(Line 4) # SYNTAX ERROR: "));
    cast()
        .current_dir(dir.path())
        .args(["skeleton", "good.py"])
        .assert()
        .success()
        .stdout(predicate::str::contains("SYNTAX").not());
    cast()
        .current_dir(dir.path())
        .arg("map")
        .assert()
        .success()
        .stdout(predicate::str::contains("bad.py [SYNTAX ERROR at line 4]"))
        .stdout(predicate::str::contains("Files that do not parse (1;"))
        .stdout(predicate::str::contains("  bad.py:4: "));
    let out = cast()
        .current_dir(dir.path())
        .args(["tool", "analyze_repository", "--args", "{}"])
        .assert()
        .success();
    let result = &json_lines(&out.get_output().stdout)[0];
    assert!(
        result["text"].as_str().unwrap().contains("bad.py:4: "),
        "{result}"
    );
}

/// Issue 17, item 4: `cast show JSONEncoder.encode` listed `str.encode` calls (a receiver of
/// unknown type) as references of the method, some lines twice. Resolved references come first;
/// name-only guesses are listed apart, marked and counted, each place once.
#[test]
fn regression_show_tells_resolved_references_from_name_only_guesses() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(
        dir.path().join("pkg/enc.py"),
        "class JSONEncoder:\n    def encode(self, o):\n        return str(o)\n\n\n\
         def direct(o):\n    return JSONEncoder.encode(JSONEncoder(), o)\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/use.py"),
        "from pkg.enc import JSONEncoder\n\n\ndef to_bytes(s, t):\n    \
         return s.encode(\"utf-8\") + t.encode(\"ascii\")\n\n\ndef by_class(o):\n    \
         return JSONEncoder.encode(JSONEncoder(), o)\n",
    )
    .unwrap();
    let out = cast()
        .args(["show", "JSONEncoder.encode", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let resolved = text
        .split("Referenced by (2):\n")
        .nth(1)
        .unwrap_or_else(|| panic!("two resolved references expected:\n{text}"));
    let (resolved, guessed) = resolved
        .split_once("Referenced by name only (1;")
        .unwrap_or_else(|| panic!("one name-only reference expected:\n{text}"));
    assert!(resolved.contains("pkg/enc.py:7  direct"), "{text}");
    assert!(resolved.contains("pkg/use.py:9  by_class"), "{text}");
    assert!(!resolved.contains("to_bytes"), "{text}");
    assert_eq!(
        guessed.matches("? pkg/use.py:5  to_bytes").count(),
        1,
        "{text}"
    );
    let out = cast()
        .args(["show", "--json", "JSONEncoder.encode", "--root"])
        .arg(dir.path())
        .assert()
        .success();
    let shown = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(shown["referenced_by_total"], 2);
    assert_eq!(shown["referenced_by_name_total"], 1);
    assert_eq!(shown["referenced_by_name"][0]["how"], "name");
}

/// The memory budget bounds what a build buffers, never what it finds: a tree of more files
/// than the smallest budget's parse window (64) and resolution batch (128), built with it and
/// with the default, gives the same map, edges and counts.
#[test]
fn index_memory_budget_changes_nothing_but_memory() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..300 {
        let body = if i == 0 {
            "def step_0(x):\n    return x\n".to_owned()
        } else {
            format!(
                "from mod_{prev} import step_{prev}\n\n\ndef step_{i}(x):\n    \"\"\"Step {i}.\"\"\"\n    return step_{prev}(x) + {i}\n",
                prev = i - 1
            )
        };
        std::fs::write(dir.path().join(format!("mod_{i}.py")), body).unwrap();
    }
    let build = |db: &str, memory: Option<&str>| {
        let mut cmd = cast();
        cmd.args(["index", "--json", "--db", db]).arg(dir.path());
        if let Some(m) = memory {
            cmd.args(["--memory", m]);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report = json_lines(&out.stdout).remove(0);
        let map = cast()
            .args([
                "map",
                "--json",
                "--no-refresh",
                "--budget",
                "4000",
                "--db",
                db,
            ])
            .arg(dir.path())
            .output()
            .unwrap();
        (report, String::from_utf8(map.stdout).unwrap())
    };
    let small_db = dir.path().join("small.sqlite");
    let default_db = dir.path().join("default.sqlite");
    let (small, small_map) = build(small_db.to_str().unwrap(), Some("32"));
    let (default, default_map) = build(default_db.to_str().unwrap(), None);
    assert_eq!(small["files"], 300);
    assert_eq!(small["edges"], default["edges"]);
    assert!(small["edges"].as_u64().unwrap() >= 299, "{small}");
    assert_eq!(small["file_edges"], default["file_edges"]);
    assert_eq!(small["symbols"], default["symbols"]);
    assert!(small_map.contains("step_"), "{small_map}");
    assert_eq!(small_map, default_map);
}

#[test]
fn index_memory_from_the_environment_must_be_a_number() {
    let dir = project();
    cast()
        .args(["index"])
        .arg(dir.path())
        .env("CAST_INDEX_MEMORY", "lots")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "CAST_INDEX_MEMORY=\"lots\" is not a number of MiB",
        ));
}
