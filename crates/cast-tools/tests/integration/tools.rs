//! The tools' policies through the library: edit modes, refusals and undo.

use cast_tools::{EditMode, Registry, RegistryOptions, Status, ToolContext, ToolError};
use serde_json::json;

fn workspace() -> (tempfile::TempDir, ToolContext, Registry) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.py"), "def main():\n    return 1\n").unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    (dir, ctx, Registry::standard(RegistryOptions::default()))
}

const EDIT: &str = "------- SEARCH\n    return 1\n=======\n    return 2\n+++++++ REPLACE\n";

#[test]
fn a_dry_run_returns_the_diff_and_writes_nothing() {
    let (dir, mut ctx, registry) = workspace();
    ctx.edit_mode = EditMode::DryRun;
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": EDIT}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Ok);
    assert!(out.data["diff"].as_str().unwrap().contains("+    return 2"));
    assert_eq!(out.data["dry_run"], true);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def main():\n    return 1\n"
    );
    assert!(!dir.path().join(".cast/undo").exists(), "nothing journaled");
}

#[test]
fn a_read_only_context_disables_every_edit_tool() {
    let (dir, mut ctx, registry) = workspace();
    ctx.edit_mode = EditMode::ReadOnly;
    let calls = [
        (
            "search_replace",
            json!({"target_file": "app.py", "diff": EDIT}),
        ),
        (
            "edit_file",
            json!({"target_file": "app.py", "instructions": "x", "code_edit": "x = 1\n"}),
        ),
        (
            "apply_ops",
            json!({"target_file": "app.py", "ops": [{"type": "delete", "start_line": 1, "end_line": 1}]}),
        ),
        (
            "delete_file",
            json!({"target_file": "app.py", "explanation": "x"}),
        ),
        ("undo_edit", json!({})),
    ];
    for (tool, args) in calls {
        let err = registry.call(&ctx, tool, args).unwrap_err();
        assert!(matches!(err, ToolError::Disabled { .. }), "{tool}: {err}");
        assert!(err.is_refusal());
    }
    assert!(dir.path().join("app.py").exists());
    // Reading still works.
    let out = registry
        .call(
            &ctx,
            "read_file",
            json!({"target_file": "app.py", "explanation": "x"}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Ok);
}

#[test]
fn edits_across_tools_undo_newest_first() {
    let (dir, ctx, registry) = workspace();
    let path = dir.path().join("app.py");
    registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": EDIT}),
        )
        .unwrap();
    let created = registry
        .call(
            &ctx,
            "edit_file",
            json!({"target_file": "pkg/new.py", "instructions": "x", "code_edit": "VALUE = 3\n"}),
        )
        .unwrap();
    assert_eq!(created.status, Status::Ok, "{}", created.text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("pkg/new.py")).unwrap(),
        "VALUE = 3\n"
    );
    registry
        .call(
            &ctx,
            "delete_file",
            json!({"target_file": "app.py", "explanation": "x"}),
        )
        .unwrap();
    assert!(!path.exists());
    let undone = registry
        .call(&ctx, "undo_edit", json!({"steps": 2}))
        .unwrap();
    assert_eq!(undone.data["undone"], 2);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "def main():\n    return 2\n"
    );
    assert!(!dir.path().join("pkg/new.py").exists());
    registry.call(&ctx, "undo_edit", json!({})).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "def main():\n    return 1\n"
    );
}

#[test]
fn editing_a_missing_file_says_how_to_create_one() {
    let (_dir, ctx, registry) = workspace();
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "nope.py", "diff": EDIT}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Refused);
    assert!(out.text.contains("empty"), "{}", out.text);
}

#[test]
fn a_huge_result_is_capped_and_says_so() {
    let (dir, ctx, registry) = workspace();
    let big: String = (0..5000)
        .map(|i| format!("value_{i} = {i}  # padding padding padding\n"))
        .collect();
    std::fs::write(dir.path().join("big.py"), big).unwrap();
    let out = registry
        .call(
            &ctx,
            "read_file",
            json!({"target_file": "big.py", "explanation": "x"}),
        )
        .unwrap();
    assert!(
        out.text.len() <= ctx.max_output_bytes + 200,
        "{}",
        out.text.len()
    );
    assert!(
        out.text.contains("read on from line") || out.truncated,
        "{}",
        &out.text[out.text.len() - 300..]
    );
}

#[test]
fn a_binary_file_is_refused_not_dumped() {
    let (dir, ctx, registry) = workspace();
    std::fs::write(dir.path().join("blob.bin"), [0u8, 159, 146, 150, 0, 1, 2]).unwrap();
    let out = registry
        .call(
            &ctx,
            "read_file",
            json!({"target_file": "blob.bin", "explanation": "x"}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Refused);
    assert!(out.text.contains("binary"), "{}", out.text);
}

/// Issue 17, item 9: `exact_match_only` on the search_replace tool lets only an exact match
/// apply; the JSON operation form is accepted as the diff, and a file it names must be the
/// target (item 3).
#[test]
fn regression_search_replace_exact_match_only_and_named_files() {
    let (dir, ctx, registry) = workspace();
    let near = "------- SEARCH\n    return 1  \n=======\n    return 2\n+++++++ REPLACE\n";
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": near, "exact_match_only": true}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Refused, "{}", out.text);
    assert!(out.text.contains("exact_match_only"), "{}", out.text);
    let operation = json!({"operation": {"type": "search_replace", "file_path": "other.py",
        "search": "    return 1", "replace": "    return 2"}})
    .to_string();
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": operation}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Refused, "{}", out.text);
    assert!(out.text.contains("names the file other.py"), "{}", out.text);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def main():\n    return 1\n"
    );
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": operation.replace("other.py", "app.py")}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Ok, "{}", out.text);
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": near.replace("return 1", "return 2")}),
        )
        .unwrap();
    assert_eq!(
        out.status,
        Status::Ok,
        "without the flag a near miss applies: {}",
        out.text
    );
}

/// Issue 17, item 6: an edit that leaves a file which parsed unparseable says so in the
/// result, with the line and the parser's message; `refuse_syntax_errors` refuses it.
#[test]
fn regression_an_edit_breaking_the_syntax_is_reported_to_the_model() {
    let (dir, mut ctx, registry) = workspace();
    let broken = "------- SEARCH\n    return 1\n=======\n    return (1\n+++++++ REPLACE\n";
    ctx.refuse_syntax_errors = true;
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": broken}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Refused, "{}", out.text);
    assert!(
        out.text.contains("would not after this edit: line "),
        "{}",
        out.text
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("app.py")).unwrap(),
        "def main():\n    return 1\n"
    );
    ctx.refuse_syntax_errors = false;
    let out = registry
        .call(
            &ctx,
            "search_replace",
            json!({"target_file": "app.py", "diff": broken}),
        )
        .unwrap();
    assert_eq!(out.status, Status::Ok, "{}", out.text);
    assert!(
        out.text
            .contains("Warning: app.py no longer parses (it did before this edit): line "),
        "{}",
        out.text
    );
    assert!(
        out.data["files"][0]["syntax_error"]["line"].is_number(),
        "{}",
        out.data
    );
}

/// The index stays open between calls of one context (and its clones), and still answers as
/// the files are now: an edit between two calls is seen, and so is the database being deleted
/// or replaced under it.
#[test]
fn the_kept_index_follows_edits_and_a_deleted_or_replaced_database() {
    let (dir, ctx, registry) = workspace();
    let find = |ctx: &ToolContext, query: &str| -> String {
        let out = registry
            .call(ctx, "find_symbol", json!({"query": query, "top": 5}))
            .unwrap();
        assert_eq!(out.status, Status::Ok, "{}", out.text);
        out.text
    };
    let first = find(&ctx, "main parse_invoice");
    assert!(first.contains("main"), "{first}");
    assert!(!first.contains("parse_invoice"), "{first}");
    // An edit made outside the tools, between two calls.
    std::fs::write(
        dir.path().join("billing.py"),
        "def parse_invoice(text):\n    return text\n",
    )
    .unwrap();
    let clone = ctx.clone();
    assert!(find(&clone, "main parse_invoice").contains("parse_invoice"));
    // The database deleted under the open index: rebuilt, not read from the deleted file.
    std::fs::remove_dir_all(dir.path().join(".cast")).unwrap();
    std::fs::write(
        dir.path().join("billing.py"),
        "def parse_receipt(text):\n    return text\n",
    )
    .unwrap();
    let found = find(&ctx, "parse_receipt");
    assert!(found.contains("parse_receipt"), "{found}");
    assert!(dir.path().join(".cast/index.sqlite").exists());
    // Replaced by another file of another tree's index: the new file is read.
    let other = tempfile::tempdir().unwrap();
    std::fs::write(
        other.path().join("ledger.py"),
        "def close_ledger():\n    pass\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ledger.py"),
        "def close_ledger():\n    pass\n",
    )
    .unwrap();
    cast_analyzer::Index::open(other.path()).unwrap();
    std::fs::rename(
        other.path().join(".cast/index.sqlite"),
        dir.path().join(".cast/index.sqlite.new"),
    )
    .unwrap();
    std::fs::rename(
        dir.path().join(".cast/index.sqlite.new"),
        dir.path().join(".cast/index.sqlite"),
    )
    .unwrap();
    let found = find(&ctx, "close_ledger parse_receipt");
    assert!(found.contains("close_ledger"), "{found}");
    assert!(found.contains("parse_receipt"), "{found}");
    // The refresh went into the file now at the path (the other tree's had no parse_receipt),
    // not into the one the index had open before.
    let options = cast_analyzer::IndexOptions {
        refresh: cast_analyzer::Refresh::Never,
        ..cast_analyzer::IndexOptions::default()
    };
    let on_disk = cast_analyzer::Index::open_with(dir.path(), &options, &mut |_| {}).unwrap();
    let found = cast_analyzer::Queries::find(&on_disk, "parse_receipt", 5).unwrap();
    assert!(
        found
            .symbols
            .iter()
            .any(|h| h.qualname.as_deref() == Some("parse_receipt")),
        "{found:?}"
    );
}

#[test]
fn find_symbol_searches_only_the_paths_given() {
    let (dir, ctx, registry) = workspace();
    std::fs::create_dir(dir.path().join("billing")).unwrap();
    std::fs::write(
        dir.path().join("billing/invoice.py"),
        "def parse_invoice(text):\n    \"\"\"Parse an invoice.\"\"\"\n    return text\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("importer.py"),
        "def parse_invoice_row(row):\n    \"\"\"Parse one invoice row.\"\"\"\n    return row\n",
    )
    .unwrap();
    let find = |paths: serde_json::Value| {
        registry
            .call(
                &ctx,
                "find_symbol",
                json!({"query": "parse an invoice", "paths": paths}),
            )
            .unwrap()
    };
    let both = find(json!([]));
    assert!(both.text.contains("parse_invoice_row") && both.text.contains("billing/invoice.py"));
    let absolute = dir.path().join("billing").display().to_string();
    let absolute_importer = format!("!{}", dir.path().join("importer.py").display());
    for paths in [
        json!(["billing"]),
        json!([absolute]),
        json!(["billing/*.py"]),
        json!(["!importer.py"]),
        json!([absolute_importer]),
    ] {
        let out = find(paths.clone());
        assert_eq!(out.status, Status::Ok, "{paths}: {}", out.text);
        assert!(
            out.text.contains("billing/invoice.py"),
            "{paths}: {}",
            out.text
        );
        assert!(!out.text.contains("importer.py"), "{paths}: {}", out.text);
    }
    // The map takes the same paths.
    let map = registry
        .call(&ctx, "analyze_repository", json!({"paths": ["billing"]}))
        .unwrap();
    assert_eq!(map.status, Status::Ok, "{}", map.text);
    assert!(
        map.text.contains("(in billing): 1 file, 1 symbol;"),
        "{}",
        map.text
    );
    assert!(map.text.contains("invoice.py") && !map.text.contains("importer.py"));
    // A path outside the workspace is refused as every tool refuses it; a bad glob is refused
    // with what is wrong, and nothing is searched.
    assert!(
        registry
            .call(
                &ctx,
                "find_symbol",
                json!({"query": "invoice", "paths": ["/etc"]})
            )
            .is_err()
    );
    let out = find(json!(["billing/{a"]));
    assert_eq!(out.status, Status::Refused);
    assert!(out.text.contains("not a valid glob"), "{}", out.text);
}
