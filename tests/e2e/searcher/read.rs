//! `cast read`: numbered lines, ranges, the size guard.

use predicates::prelude::*;

use crate::support::{cast, fixtures, json_lines};

#[test]
fn read_numbers_a_range() {
    cast()
        .args(["read", "--start", "7", "--end", "9"])
        .arg(fixtures().join("project/shop/cart.py"))
        .assert()
        .success()
        .stdout("7 | class Cart:\n8 |     \"\"\"A cart holding items and their quantities.\"\"\"\n9 | \n");
    let out = cast()
        .args(["read", "--json", "--start", "7", "--end", "7"])
        .arg(fixtures().join("project/shop/cart.py"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        json_lines(&out),
        [serde_json::json!({"line": 7, "text": "class Cart:"})]
    );
}

#[test]
fn read_guards_big_files_and_says_how_to_read_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.txt");
    let body: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&file, body).unwrap();
    cast()
        .arg("read")
        .arg(&file)
        .assert()
        .success()
        .stdout(predicate::function(|s: &str| {
            s.lines().count() == 2000 && s.ends_with("2000 | line 2000\n")
        }))
        .stderr(predicate::str::contains("showing lines 1-2000 of 3000"))
        .stderr(predicate::str::contains("--start 2001"));
    cast()
        .arg("read")
        .arg(&file)
        .args(["--start", "2001"])
        .assert()
        .success()
        .stderr("")
        .stdout(predicate::str::ends_with("3000 | line 3000\n"));
}

#[test]
fn read_refuses_binary_files_folders_and_bad_ranges() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.bin"), b"ab\x00cd").unwrap();
    cast()
        .arg("read")
        .arg(dir.path().join("a.bin"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("binary file"));
    cast()
        .arg("read")
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a folder"));
    cast()
        .arg("read")
        .arg(fixtures().join("project/notes.txt"))
        .args(["--start", "50"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "past the end: the file has 1 lines",
        ));
}
