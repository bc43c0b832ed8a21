//! The workspace layer: journal, undo, change sets, dry runs.

use std::fs;

use cast_coder::{Coder, CoderError, Edit, FileEdit, Format};

fn sr(search: &str, replace: &str) -> Edit {
    Edit::parse(
        Format::SearchReplace,
        &format!("------- SEARCH\n{search}=======\n{replace}+++++++ REPLACE\n"),
    )
    .unwrap()
}

#[test]
fn dry_run_returns_the_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "x = 1\ny = 2\n").unwrap();
    let set = Coder::new(dir.path())
        .preview(&[FileEdit::new("a.py", sr("y = 2\n", "y = 3\n"))])
        .unwrap();
    assert!(set.dry_run);
    assert_eq!(
        set.diff(),
        "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("a.py")).unwrap(),
        "x = 1\ny = 2\n"
    );
    assert!(!dir.path().join(".cast").exists());
}

#[test]
fn undo_reverts_a_multi_file_change_set_as_a_whole() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "a = 1\n").unwrap();
    fs::write(dir.path().join("b.py"), "b = 1\n").unwrap();
    let coder = Coder::new(dir.path());
    coder
        .apply(&[FileEdit::new("a.py", sr("a = 1\n", "a = 2\n"))])
        .unwrap();
    let reply = "<file-edit filePath=\"a.py\">\n------- SEARCH\na = 2\n=======\na = 3\n+++++++ REPLACE\n</file-edit>\n<file-edit filePath=\"b.py\">\n------- SEARCH\nb = 1\n=======\nb = 3\n+++++++ REPLACE\n</file-edit>\n<file-edit filePath=\"new/c.py\">\n------- SEARCH\n=======\nc = 3\n+++++++ REPLACE\n</file-edit>";
    let set = coder.apply(&FileEdit::from_reply(reply).unwrap()).unwrap();
    assert_eq!(set.files.len(), 3);
    assert!(set.files[2].created);
    assert_eq!(coder.history().unwrap().len(), 2);
    assert!(
        fs::read_to_string(dir.path().join(".cast/.gitignore"))
            .unwrap()
            .contains('*')
    );

    let undone = coder.undo(1, false).unwrap();
    assert_eq!(undone[0].files.len(), 3);
    assert_eq!(
        fs::read_to_string(dir.path().join("a.py")).unwrap(),
        "a = 2\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("b.py")).unwrap(),
        "b = 1\n"
    );
    assert!(!dir.path().join("new/c.py").exists());
    coder.undo(1, false).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("a.py")).unwrap(),
        "a = 1\n"
    );
    assert!(matches!(coder.undo(1, false), Err(CoderError::Undo(_))));
}

#[test]
fn undo_refuses_to_overwrite_later_changes_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.py");
    fs::write(&file, "a = 1\n").unwrap();
    let coder = Coder::new(dir.path());
    coder
        .apply(&[FileEdit::new("a.py", sr("a = 1\n", "a = 2\n"))])
        .unwrap();
    fs::write(&file, "a = 2\n# edited by hand\n").unwrap();
    let err = coder.undo(1, false).unwrap_err();
    assert!(err.to_string().contains("changed after"), "{err}");
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "a = 2\n# edited by hand\n"
    );
    coder.undo(1, true).unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), "a = 1\n");
}

#[test]
fn refusal_names_the_file_and_keeps_every_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.py"), "a = 1\n").unwrap();
    fs::write(dir.path().join("b.py"), "b = 1\n").unwrap();
    let coder = Coder::new(dir.path());
    let err = coder
        .apply(&[
            FileEdit::new("a.py", sr("a = 1\n", "a = 2\n")),
            FileEdit::new("b.py", sr("nope\n", "b = 2\n")),
        ])
        .unwrap_err();
    let refusal = err.refusal().unwrap();
    assert_eq!(refusal.path.as_deref(), Some(std::path::Path::new("b.py")));
    assert_eq!(
        fs::read_to_string(dir.path().join("a.py")).unwrap(),
        "a = 1\n"
    );
    assert!(coder.history().unwrap().is_empty());
    // The refusal serializes for tools.
    let json = serde_json::to_value(refusal).unwrap();
    assert_eq!(json["kind"], "no_match");
    assert_eq!(json["block"], 1);
}

#[test]
fn a_missing_file_is_refused_unless_the_edit_creates_it() {
    let dir = tempfile::tempdir().unwrap();
    let coder = Coder::new(dir.path());
    let err = coder
        .apply(&[FileEdit::new("none.py", sr("x\n", "y\n"))])
        .unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
    coder
        .apply(&[FileEdit::new("none.py", sr("", "y\n"))])
        .unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("none.py")).unwrap(),
        "y\n"
    );
}

#[test]
fn reply_paths_must_stay_inside_the_workspace() {
    for bad in ["../x.py", "/etc/passwd", "a/../../x.py"] {
        let reply = format!(
            "<file-edit filePath=\"{bad}\">\n------- SEARCH\n=======\nx\n+++++++ REPLACE\n</file-edit>"
        );
        assert!(FileEdit::from_reply(&reply).is_err(), "{bad}");
    }
}

#[test]
fn non_utf8_target_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("l1.txt"), b"caf\xe9\n").unwrap();
    let err = Coder::new(dir.path())
        .apply(&[FileEdit::new("l1.txt", sr("caf\n", "x\n"))])
        .unwrap_err();
    assert!(err.to_string().contains("not UTF-8"), "{err}");
    assert_eq!(fs::read(dir.path().join("l1.txt")).unwrap(), b"caf\xe9\n");
}

#[test]
fn journal_keeps_a_bounded_history() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("n.txt"), "0\n").unwrap();
    let coder = Coder::new(dir.path());
    for i in 0..(cast_coder::JOURNAL_KEEP + 3) {
        coder
            .apply(&[FileEdit::new(
                "n.txt",
                sr(&format!("{i}\n"), &format!("{}\n", i + 1)),
            )])
            .unwrap();
    }
    assert_eq!(coder.history().unwrap().len(), cast_coder::JOURNAL_KEEP);
}

/// Issue 17, item 6: an edit that leaves a file which parsed unparseable says so, with the
/// line and the parser's message; a coder told to refuse such edits refuses them.
#[test]
fn regression_an_edit_that_breaks_the_syntax_is_reported_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let before = "def f(a, b):\n    return a + b\n\n\ndef g():\n    return 1\n";
    fs::write(dir.path().join("a.py"), before).unwrap();
    let broken = [FileEdit::new(
        "a.py",
        sr("    return a + b\n", "    return (a + b\n"),
    )];
    let refused = Coder::new(dir.path())
        .refusing_syntax_errors(true)
        .apply(&broken)
        .unwrap_err();
    let message = refused.to_string();
    assert!(message.contains("would not after this edit"), "{message}");
    assert!(message.contains("line "), "{message}");
    assert_eq!(fs::read_to_string(dir.path().join("a.py")).unwrap(), before);

    let set = Coder::new(dir.path()).apply(&broken).unwrap();
    let error = set.files[0].new_syntax_error.clone().expect("reported");
    assert!((2..=6).contains(&error.line), "{error}");
    assert!(!error.message.is_empty());
    // The file no longer parses: a further edit that keeps it broken reports nothing new.
    let set = Coder::new(dir.path())
        .apply(&[FileEdit::new(
            "a.py",
            sr("    return 1\n", "    return 2\n"),
        )])
        .unwrap();
    assert_eq!(set.files[0].new_syntax_error, None);
    // Files no parser handles are not checked.
    fs::write(dir.path().join("notes.txt"), "a (\n").unwrap();
    let set = Coder::new(dir.path())
        .refusing_syntax_errors(true)
        .apply(&[FileEdit::new("notes.txt", sr("a (\n", "b ((\n"))])
        .unwrap();
    assert_eq!(set.files[0].new_syntax_error, None);
}

/// Issue 17, item 10 (c): an exact SEARCH whose REPLACE is shifted by a level leaves the file
/// unparseable; the report offers the re-indentation that parses.
#[test]
fn regression_a_shifted_replace_is_reported_with_the_reindentation_that_parses() {
    let dir = tempfile::tempdir().unwrap();
    let before = "def total(items):\n    result = 0\n    for item in items:\n        result += item.price\n    return result\n";
    fs::write(dir.path().join("cart.py"), before).unwrap();
    // REPLACE shifted 4 spaces to the right.
    let edit = sr(
        "    for item in items:\n        result += item.price\n",
        "        for item in items:\n            result += item.price * item.qty\n",
    );
    let set = Coder::new(dir.path())
        .preview(&[FileEdit::new("cart.py", edit.clone())])
        .unwrap();
    let error = set.files[0].new_syntax_error.clone().expect("reported");
    let hint = error
        .reindent
        .clone()
        .expect("a re-indentation that parses");
    assert_eq!(hint.block, 1);
    assert_eq!(
        hint.replace,
        [
            "    for item in items:",
            "        result += item.price * item.qty"
        ]
    );
    assert!(error.to_string().contains("would parse"), "{error}");
    // A loop dedented without its body.
    let edit = sr(
        "    for item in items:\n        result += item.price\n",
        "for item in items:\n        result += item.price * item.qty\n",
    );
    let refused = Coder::new(dir.path())
        .refusing_syntax_errors(true)
        .apply(&[FileEdit::new("cart.py", edit)])
        .unwrap_err();
    let message = refused.to_string();
    assert!(
        message.contains("\n|     for item in items:\n|         result += item.price * item.qty"),
        "{message}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("cart.py")).unwrap(),
        before
    );
}
