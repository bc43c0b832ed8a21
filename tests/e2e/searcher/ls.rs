//! `cast ls`: the tree drawing.

use crate::support::{cast, fixtures, json_lines};

#[test]
fn ls_draws_the_fixture_project() {
    cast()
        .arg("ls")
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .stdout(
            "project/\n\
             ├── notes.txt  (62 B, 1 line)\n\
             ├── shop/\n\
             │   ├── __init__.py  (92 B, 4 lines)\n\
             │   ├── cart.py  (599 B, 20 lines)\n\
             │   └── pricing.py  (412 B, 16 lines)\n\
             └── templates/\n    \
             └── cart.html  (188 B, 8 lines)\n",
        );
    cast()
        .args(["ls", "--depth", "1"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .stdout("project/\n├── notes.txt  (62 B, 1 line)\n├── shop/  (3 entries)\n└── templates/  (1 entry)\n");
}

#[test]
fn ls_json_has_one_object_per_entry() {
    let out = cast()
        .args(["ls", "--json", "--depth", "1"])
        .arg(fixtures().join("project"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[0],
        serde_json::json!({"path": "notes.txt", "kind": "file", "depth": 1, "size": 62, "lines": 1})
    );
    assert_eq!(rows[1]["entries"], 3);
    assert_eq!(rows[1]["entries_not_listed"], 3);
}

#[test]
fn ls_refuses_a_file() {
    cast()
        .arg("ls")
        .arg(fixtures().join("project/notes.txt"))
        .assert()
        .code(2);
}
