//! `cast glob` and `cast files`: finding files by pattern and by fuzzy name.

use predicates::prelude::*;

use crate::support::{cast, fixtures, json_lines};

#[test]
fn glob_lists_matching_files_in_path_order() {
    cast()
        .args(["glob", "*.py"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .stdout("shop/__init__.py\nshop/cart.py\nshop/pricing.py\n");
    let out = cast()
        .args(["glob", "--json", "/templates/*"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        json_lines(&out),
        [serde_json::json!({"path": "templates/cart.html"})]
    );
}

#[test]
fn glob_caps_at_10_and_exits_1_on_nothing() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..15 {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), "").unwrap();
    }
    cast()
        .args(["glob", "*.txt"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::function(|s: &str| {
            s.lines().count() == 10 && s.starts_with("f00.txt\n")
        }))
        .stderr(predicate::str::contains("first 10 files"));
    cast()
        .args(["glob", "*.rs"])
        .arg(dir.path())
        .assert()
        .code(1);
}

#[test]
fn files_ranks_fuzzy_names_like_quick_open() {
    cast()
        .args(["files", "cart"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .stdout("shop/cart.py\ntemplates/cart.html\n");
    let out = cast()
        .args(["files", "--json", "prc"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    assert_eq!(rows[0]["path"], "shop/pricing.py");
    assert!(rows[0]["score"].as_u64().unwrap() > 0);
    cast()
        .args(["files", "zzqx"])
        .arg(fixtures().join("project"))
        .assert()
        .code(1);
}
