//! `cast apply` and `cast undo`: applying, refusing, dry runs, replies, stdin, the journal.

use std::fs;

use predicates::prelude::*;

use crate::support::{cast, json_lines};

const SR: &str = "------- SEARCH\n    return 1\n=======\n    return 2\n+++++++ REPLACE\n";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    fs::write(dir.path().join("app.py"), "def f():\n    return 1\n").unwrap();
    fs::write(dir.path().join("edit.txt"), SR).unwrap();
    dir
}

#[test]
fn apply_writes_and_undo_restores() {
    let dir = workspace();
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--format",
            "search-replace",
            "--edit",
            "edit.txt",
            "app.py",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("app.py: applied, line 2"));
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 2\n"
    );
    // The journal sits at the root found from the target (the folder with .git).
    assert!(dir.path().join(".cast/undo").is_dir());
    cast()
        .current_dir(dir.path())
        .args(["undo", "--list", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"files\":[\"app.py\"]"));
    cast()
        .current_dir(dir.path())
        .arg("undo")
        .assert()
        .success();
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    cast()
        .current_dir(dir.path())
        .arg("undo")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("nothing to undo"));
}

#[test]
fn refusal_exits_1_with_the_reason_and_changes_nothing() {
    let dir = workspace();
    fs::write(dir.path().join("app.py"), "def f():\n    return 3\n").unwrap();
    cast()
        .current_dir(dir.path())
        .args(["apply", "-f", "search-replace", "-e", "edit.txt", "app.py"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("was not found"))
        .stderr(predicate::str::contains("line 2"));
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 3\n"
    );
    let out = cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "-f",
            "search-replace",
            "-e",
            "edit.txt",
            "--json",
            "app.py",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out);
    assert_eq!(rows[0]["refused"]["kind"], "no_match");
}

#[test]
fn dry_run_prints_the_diff_from_stdin() {
    let dir = workspace();
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--format",
            "search-replace",
            "--edit",
            "-",
            "--dry-run",
            "app.py",
        ])
        .write_stdin(SR)
        .assert()
        .success()
        .stdout(predicate::str::contains("-    return 1\n+    return 2"));
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    assert!(!dir.path().join(".cast").exists());
}

#[test]
fn every_format_applies() {
    let dir = workspace();
    let cases = [
        (
            "op",
            r#"[{"type":"insert","after_line":2,"content":["x = 1"]}]"#,
            "def f():\n    return 1\nx = 1\n",
        ),
        (
            "dmp",
            "@@ -17,8 +17,8 @@\n turn \n-1\n+9\n %0A\n",
            "def f():\n    return 9\n",
        ),
        (
            "lazy",
            "def f():\n    return 5\n",
            "def f():\n    return 5\n",
        ),
    ];
    for (format, edit, want) in cases {
        fs::write(dir.path().join("app.py"), "def f():\n    return 1\n").unwrap();
        fs::write(dir.path().join("e"), edit).unwrap();
        cast()
            .current_dir(dir.path())
            .args([
                "apply",
                "--format",
                format,
                "--edit",
                "e",
                "--no-undo",
                "app.py",
            ])
            .assert()
            .success();
        assert_eq!(
            fs::read_to_string(dir.path().join("app.py")).unwrap(),
            want,
            "{format}"
        );
    }
}

#[test]
fn a_reply_edits_every_file_or_none() {
    let dir = workspace();
    let reply = "<chat>Fixing.</chat>\n<file-edit filePath=\"app.py\">\n------- SEARCH\n    return 1\n=======\n    return 2\n+++++++ REPLACE\n</file-edit>\n<file-edit filePath=\"lib/util.py\">\n------- SEARCH\n=======\nHELP = 1\n+++++++ REPLACE\n</file-edit>\n";
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--format",
            "search-replace",
            "--edit",
            "-",
            "--json",
        ])
        .write_stdin(reply)
        .assert()
        .success()
        .stdout(predicate::str::contains("\"created\":true"));
    assert_eq!(
        fs::read_to_string(dir.path().join("lib/util.py")).unwrap(),
        "HELP = 1\n"
    );
    cast()
        .current_dir(dir.path())
        .arg("undo")
        .assert()
        .success();
    assert!(!dir.path().join("lib/util.py").exists());
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 1\n"
    );

    let bad = reply.replace("    return 1\n=======", "    return 7\n=======");
    cast()
        .current_dir(dir.path())
        .args(["apply", "--format", "search-replace", "--edit", "-"])
        .write_stdin(bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("app.py"));
    assert!(!dir.path().join("lib/util.py").exists());
}

#[test]
fn bad_usage_exits_2() {
    let dir = workspace();
    cast()
        .current_dir(dir.path())
        .args(["apply", "--format", "yaml", "--edit", "edit.txt", "app.py"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown edit format"));
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--format",
            "search-replace",
            "--edit",
            "missing.txt",
            "app.py",
        ])
        .assert()
        .code(2);
    cast()
        .current_dir(dir.path())
        .args(["apply", "--format", "op", "--edit", "edit.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no TARGET"));
    cast()
        .args(["apply", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("existing code"));
    cast().args(["undo", "--steps", "0"]).assert().code(2);
}

/// Issue 17, item 3: an op naming `a.py` given with TARGET `b.py` was applied to `b.py`.
#[test]
fn regression_an_op_naming_another_file_is_not_applied_to_the_target() {
    let dir = workspace();
    fs::write(dir.path().join("b.py"), "x = 1\n").unwrap();
    let ops = r#"[{"type":"replace","file_path":"app.py","start_line":2,"end_line":2,"content":["    return 2"]}]"#;
    fs::write(dir.path().join("ops.json"), ops).unwrap();
    cast()
        .current_dir(dir.path())
        .args(["apply", "--format", "op", "--edit", "ops.json", "b.py"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("names the file app.py"));
    assert_eq!(
        fs::read_to_string(dir.path().join("b.py")).unwrap(),
        "x = 1\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    // Naming the target itself is fine, and without TARGET the named file is edited.
    cast()
        .current_dir(dir.path())
        .args(["apply", "--format", "op", "--edit", "ops.json", "./app.py"])
        .assert()
        .success();
    fs::write(dir.path().join("app.py"), "def f():\n    return 1\n").unwrap();
    cast()
        .current_dir(dir.path())
        .args(["apply", "--format", "op", "--edit", "ops.json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("app.py: applied, line 2"));
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 2\n"
    );
}

/// Issue 17, item 9: the design documents' JSON operation form was refused as "no
/// SEARCH/REPLACE block found"; `exact_match_only` lets only the exact tier match.
#[test]
fn regression_the_json_operation_form_and_exact_match_only() {
    let dir = workspace();
    let operation = |search: &str, exact: bool| {
        serde_json::json!({"operation": {"type": "search_replace", "file_path": "app.py",
            "search": search, "replace": "    return 2\n", "exact_match_only": exact}})
        .to_string()
    };
    fs::write(
        dir.path().join("op.json"),
        operation("    return 1\n", true),
    )
    .unwrap();
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--format",
            "search-replace",
            "--edit",
            "op.json",
            "app.py",
        ])
        .assert()
        .success();
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 2\n"
    );
    // A near miss (trailing whitespace) is refused when only the exact tier may match ...
    fs::write(dir.path().join("app.py"), "def f():\n    return 1\n").unwrap();
    fs::write(
        dir.path().join("op.json"),
        operation("    return 1   \n", true),
    )
    .unwrap();
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "op.json", "app.py"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("exact_match_only"));
    // ... and by --exact-match-only for a plain block ...
    fs::write(
        dir.path().join("near.txt"),
        "------- SEARCH\n    return 1   \n=======\n    return 2\n+++++++ REPLACE\n",
    )
    .unwrap();
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--exact-match-only",
            "--edit",
            "near.txt",
            "app.py",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("exact_match_only"));
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    // ... but placed by the looser tiers otherwise.
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "near.txt", "app.py"])
        .assert()
        .success();
}

/// Issue 17, item 11: `cast apply` of a `<file-edit>` reply required `--format`.
#[test]
fn regression_apply_tells_the_format_from_the_edit() {
    let dir = workspace();
    let reply = "<chat>Fixing.</chat>\n<file-edit filePath=\"app.py\">\n------- SEARCH\n    return 1\n=======\n    return 2\n+++++++ REPLACE\n</file-edit>\n";
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "-"])
        .write_stdin(reply)
        .assert()
        .success()
        .stdout(predicate::str::contains("app.py: applied"));
    let cases = [
        (
            r#"[{"type":"insert","after_line":2,"content":["x = 1"]}]"#,
            "def f():\n    return 1\nx = 1\n",
        ),
        (
            "@@ -17,8 +17,8 @@\n turn \n-1\n+9\n %0A\n",
            "def f():\n    return 9\n",
        ),
        (
            "def f():\n    # changed\n    return 1\n# ... existing code ...\n",
            "def f():\n    # changed\n    return 1\n",
        ),
        (SR, "def f():\n    return 2\n"),
    ];
    for (edit, want) in cases {
        fs::write(dir.path().join("app.py"), "def f():\n    return 1\n").unwrap();
        fs::write(dir.path().join("e"), edit).unwrap();
        cast()
            .current_dir(dir.path())
            .args(["apply", "--edit", "e", "--no-undo", "app.py"])
            .assert()
            .success();
        assert_eq!(
            fs::read_to_string(dir.path().join("app.py")).unwrap(),
            want,
            "{edit}"
        );
    }
    fs::write(dir.path().join("e"), "make it faster\n").unwrap();
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "e", "app.py"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--format"));
}

/// Issue 17, items 6 and 10 (c): an edit that leaves a file which parsed unparseable is
/// applied with a warning naming the line (and a re-indentation that parses, for a
/// search-replace block), or refused with `--refuse-syntax-errors`.
#[test]
fn regression_an_edit_that_breaks_the_syntax_says_so() {
    let dir = workspace();
    let before = "def f():\n    for x in range(3):\n        print(x)\n    return 1\n";
    fs::write(dir.path().join("app.py"), before).unwrap();
    fs::write(
        dir.path().join("shifted.txt"),
        "------- SEARCH\n    for x in range(3):\n        print(x)\n=======\n        for x in range(3):\n            print(x + 1)\n+++++++ REPLACE\n",
    )
    .unwrap();
    cast()
        .current_dir(dir.path())
        .args([
            "apply",
            "--refuse-syntax-errors",
            "--edit",
            "shifted.txt",
            "app.py",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "would not after this edit: line 4",
        ))
        .stderr(predicate::str::contains(
            "| ".to_owned() + "    for x in range(3):\n|         print(x + 1)",
        ));
    assert_eq!(
        fs::read_to_string(dir.path().join("app.py")).unwrap(),
        before
    );
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "shifted.txt", "app.py"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: app.py does not parse after this edit: line 4",
        ));
}

/// Issue 17, item 13: `cast undo --list` printed epoch seconds, and dry-run diffs named the
/// file `--- a//abs/path`.
#[test]
fn regression_undo_list_times_and_dry_run_paths_read_as_a_person_expects() {
    let dir = workspace();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/app.py"), "def f():\n    return 1\n").unwrap();
    cast()
        .current_dir(dir.path().join("src"))
        .args(["apply", "--dry-run", "--edit", "../edit.txt", "app.py"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with(
            "--- a/src/app.py\n+++ b/src/app.py\n",
        ));
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "edit.txt", "app.py"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("app.py: applied"));
    let listed = cast()
        .current_dir(dir.path())
        .args(["undo", "--list"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let listed = String::from_utf8(listed).unwrap();
    let line = listed.lines().next().unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert!(
        fields.len() > 4
            && fields[1].len() == 10
            && fields[1].as_bytes()[4] == b'-'
            && fields[2].len() == 8
            && fields[2].as_bytes()[2] == b':'
            && fields[3] == "UTC"
            && line.contains("(just now)"),
        "{line}"
    );
}

/// Issue 17, item 5: a Python file with a PEP 263 coding line (`# -*- coding: latin-1 -*-`) was
/// read lossily (its docstring's `é` became U+FFFD) and `cast apply` refused it as "not UTF-8".
/// It is read in its declared encoding and edits are written back in it, byte for byte outside
/// the edit; a character the encoding cannot hold is refused with the way out.
#[test]
fn regression_a_declared_source_encoding_is_read_and_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let original: &[u8] = b"# -*- coding: latin-1 -*-\n\"\"\"Caf\xe9 prices.\"\"\"\n\n\ndef price():\n    \"\"\"The price in \xa3.\"\"\"\n    return 1\n";
    fs::write(dir.path().join("menu.py"), original).unwrap();
    cast()
        .current_dir(dir.path())
        .args(["skeleton", "menu.py"])
        .assert()
        .success()
        .stdout(predicate::str::contains("The price in £."));
    let edit =
        "------- SEARCH\n    return 1\n=======\n    return \"d\u{e9}j\u{e0} 2\"\n+++++++ REPLACE\n";
    fs::write(dir.path().join("e"), edit).unwrap();
    // The dry run's diff shows the text as decoded, not U+FFFD.
    cast()
        .current_dir(dir.path())
        .args(["apply", "--dry-run", "--edit", "e", "menu.py"])
        .assert()
        .success()
        .stdout(predicate::str::contains("+    return \"déjà 2\""));
    assert_eq!(fs::read(dir.path().join("menu.py")).unwrap(), original);
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "e", "menu.py"])
        .assert()
        .success()
        .stdout(predicate::str::contains("menu.py: applied"));
    let mut want = original[..original.len() - "    return 1\n".len()].to_vec();
    want.extend_from_slice(b"    return \"d\xe9j\xe0 2\"\n");
    assert_eq!(fs::read(dir.path().join("menu.py")).unwrap(), want);

    let euro = "------- SEARCH\n    return \"d\u{e9}j\u{e0} 2\"\n=======\n    return \"3 \u{20ac}\"\n+++++++ REPLACE\n";
    fs::write(dir.path().join("e"), euro).unwrap();
    cast()
        .current_dir(dir.path())
        .args(["apply", "--edit", "e", "menu.py"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "written in latin-1 (its coding line says so), which cannot hold '€' (U+20AC)",
        ));
    assert_eq!(fs::read(dir.path().join("menu.py")).unwrap(), want);
}
