//! Every tool through `cast tool NAME --args JSON --root PATH`, on a copy of the fixture project:
//! the JSON printed, the exit status, and the files on disk.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{cast, project};

/// Runs one call; returns the exit code and the printed JSON object.
fn tool(root: &Path, name: &str, args: Value) -> (i32, Value) {
    let out = cast()
        .args(["tool", name, "--root"])
        .arg(root)
        .args(["--args", &args.to_string()])
        .output()
        .unwrap();
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{name}: stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap(), printed)
}

fn text(v: &Value) -> &str {
    v["text"].as_str().unwrap()
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn read_file_numbers_lines_and_reads_a_range() {
    let dir = project();
    let (code, v) = tool(
        dir.path(),
        "read_file",
        json!({"target_file": "shop/pricing.py", "explanation": "x", "start_line": 7, "end_line": 9}),
    );
    assert_eq!(code, 0);
    assert_eq!(
        text(&v),
        "7 | def price_of(sku: str) -> Decimal:\n8 |     \"\"\"The unit price of a product.\"\"\"\n9 |     return PRICES[sku]\n(lines 7-9 of 16 shown)\n"
    );
    assert_eq!(v["data"]["total_lines"], 16);
    let (code, v) = tool(
        dir.path(),
        "read_file",
        json!({"target_file": "shop/nope.py", "explanation": "x"}),
    );
    assert_eq!((code, v["status"].as_str()), (1, Some("refused")));
    assert!(text(&v).contains("no such file"), "{}", text(&v));
}

#[test]
fn grep_search_finds_lines_by_regex_and_falls_back_to_text() {
    let dir = project();
    let (code, v) = tool(
        dir.path(),
        "grep_search",
        json!({"query": "def \\w+_of", "include_pattern": "*.py", "explanation": "x"}),
    );
    assert_eq!(code, 0);
    assert_eq!(
        v["data"]["matches"],
        json!([{"path": "shop/pricing.py", "line": 7, "text": "def price_of(sku: str) -> Decimal:"}])
    );
    let (code, v) = tool(
        dir.path(),
        "grep_search",
        json!({"query": "price_of(sku", "explanation": "x"}),
    );
    assert_eq!(code, 0);
    assert!(
        text(&v).contains("searched for the exact text"),
        "{}",
        text(&v)
    );
    assert_eq!(v["data"]["matches"].as_array().unwrap().len(), 2);
    let (_, v) = tool(
        dir.path(),
        "grep_search",
        json!({"query": "CART", "case_sensitive": false, "exclude_pattern": "*.py", "explanation": "x"}),
    );
    let paths: Vec<&str> = v["data"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert!(
        !paths.is_empty() && paths.iter().all(|p| !p.ends_with(".py")),
        "{paths:?}"
    );
}

#[test]
fn list_dir_draws_the_tree() {
    let dir = project();
    let (code, v) = tool(
        dir.path(),
        "list_dir",
        json!({"relative_workspace_path": "shop", "explanation": "x"}),
    );
    assert_eq!(code, 0);
    for name in ["cart.py", "pricing.py", "__init__.py"] {
        assert!(text(&v).contains(name), "{}", text(&v));
    }
    let (code, _) = tool(
        dir.path(),
        "list_dir",
        json!({"relative_workspace_path": "shop/cart.py", "explanation": "x"}),
    );
    assert_eq!(code, 1);
}

#[test]
fn glob_search_and_file_search_find_files() {
    let dir = project();
    let (code, v) = tool(dir.path(), "glob_search", json!({"pattern": "shop/*.py"}));
    assert_eq!(code, 0);
    assert_eq!(
        v["data"]["paths"],
        json!(["shop/__init__.py", "shop/cart.py", "shop/pricing.py"])
    );
    let (code, v) = tool(dir.path(), "file_search", json!({"query": "prcng"}));
    assert_eq!(code, 0);
    assert_eq!(v["data"]["paths"][0], "shop/pricing.py");
}

#[test]
fn analyze_repository_maps_the_code_within_a_budget() {
    let dir = project();
    let (code, v) = tool(dir.path(), "analyze_repository", json!({"budget": 500}));
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("price_of"), "{}", text(&v));
    assert!(v["data"]["tokens"].as_u64().unwrap() <= 500);
    let trace = "Traceback (most recent call last):\n  File \"shop/cart.py\", line 20, in total\n    return apply_discount(subtotal, code)\n  File \"shop/pricing.py\", line 15, in apply_discount\nKeyError: 'x'\n";
    let (code, v) = tool(dir.path(), "analyze_repository", json!({"trace": trace}));
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["data"]["traced"], true);
}

#[test]
fn get_skeleton_keeps_signatures_at_their_lines() {
    let dir = project();
    let (code, v) = tool(
        dir.path(),
        "get_skeleton",
        json!({"target_file": "shop/cart.py"}),
    );
    assert_eq!(code, 0);
    let t = text(&v);
    assert!(t.contains("(Line 7) class Cart:"), "{t}");
    assert!(t.contains("(Line 17)") && t.contains("def total"), "{t}");
    assert!(!t.contains("subtotal = sum"), "bodies are left out: {t}");
}

#[test]
fn find_symbol_and_show_symbol_answer_from_the_index() {
    let dir = project();
    let (code, v) = tool(
        dir.path(),
        "find_symbol",
        json!({"query": "unit price of a product", "top": 3}),
    );
    assert_eq!(code, 0);
    assert_eq!(
        v["data"]["found"]["symbols"][0]["qualname"], "price_of",
        "{v}"
    );
    // Nothing found: the model is told what was searched and what to try instead.
    let (code, v) = tool(dir.path(), "find_symbol", json!({"query": "zzqqxx"}));
    assert_eq!(code, 0, "{v}");
    let searched = &v["data"]["found"]["searched"];
    let told = format!(
        "nothing matches \"zzqqxx\" in {} files and {} symbols; try other words, or grep_search for exact text",
        searched["files"], searched["symbols"]
    );
    assert!(searched["files"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(text(&v), told);
    let (code, v) = tool(dir.path(), "show_symbol", json!({"symbol": "Cart.total"}));
    assert_eq!(code, 0);
    assert!(
        text(&v).contains("return apply_discount(subtotal, code)"),
        "{}",
        text(&v)
    );
    let (code, v) = tool(dir.path(), "show_symbol", json!({"symbol": "NoSuchThing"}));
    assert_eq!(code, 1, "{v}");
}

#[test]
fn search_replace_applies_or_refuses_leaving_the_file_unchanged() {
    let dir = project();
    let before = read(dir.path(), "shop/pricing.py");
    let diff = "------- SEARCH\n    return PRICES[sku]\n=======\n    return PRICES.get(sku, Decimal(0))\n+++++++ REPLACE\n";
    let (code, v) = tool(
        dir.path(),
        "search_replace",
        json!({"target_file": "shop/pricing.py", "diff": diff}),
    );
    assert_eq!(code, 0, "{v}");
    assert!(
        v["data"]["diff"]
            .as_str()
            .unwrap()
            .contains("+    return PRICES.get(sku, Decimal(0))")
    );
    let after = read(dir.path(), "shop/pricing.py");
    assert_eq!(
        after,
        before.replace("PRICES[sku]", "PRICES.get(sku, Decimal(0))")
    );
    let (code, v) = tool(
        dir.path(),
        "search_replace",
        json!({"target_file": "shop/pricing.py", "diff": diff}),
    );
    assert_eq!(code, 1);
    assert!(text(&v).contains("unchanged"), "{}", text(&v));
    assert_eq!(read(dir.path(), "shop/pricing.py"), after);
}

#[test]
fn edit_file_places_a_lazy_edit_and_refuses_an_unplaceable_one() {
    let dir = project();
    let code_edit = "# ... existing code ...\ndef price_of(sku: str) -> Decimal:\n    \"\"\"The unit price of a product.\"\"\"\n    if sku not in PRICES:\n        raise KeyError(f\"unknown product {sku}\")\n    return PRICES[sku]\n# ... existing code ...\n";
    let (code, v) = tool(
        dir.path(),
        "edit_file",
        json!({"target_file": "shop/pricing.py", "instructions": "I check the sku", "code_edit": code_edit}),
    );
    assert_eq!(code, 0, "{v}");
    let after = read(dir.path(), "shop/pricing.py");
    assert!(after.contains("raise KeyError(f\"unknown product {sku}\")\n    return PRICES[sku]\n"));
    assert!(after.contains("def apply_discount"), "the rest is kept");
    let bad = "# ... existing code ...\nthis context is nowhere\nx = 1\n# ... existing code ...\n";
    let (code, v) = tool(
        dir.path(),
        "edit_file",
        json!({"target_file": "shop/pricing.py", "instructions": "x", "code_edit": bad}),
    );
    assert_eq!(code, 1, "{v}");
    assert_eq!(read(dir.path(), "shop/pricing.py"), after);
}

#[test]
fn apply_ops_applies_line_operations_bottom_up() {
    let dir = project();
    let (code, v) = tool(
        dir.path(),
        "apply_ops",
        json!({"target_file": "shop/pricing.py", "ops": [
            {"type": "insert", "after_line": 0, "content": ["# pricing"]},
            {"type": "delete", "start_line": 4, "end_line": 4}
        ]}),
    );
    assert_eq!(code, 0, "{v}");
    let after = read(dir.path(), "shop/pricing.py");
    assert!(after.starts_with("# pricing\n\"\"\"Prices and discounts.\"\"\"\n"));
    assert!(!after.contains("PRICES = {"));
    let (code, _) = tool(
        dir.path(),
        "apply_ops",
        json!({"target_file": "shop/pricing.py", "ops": [{"type": "delete", "start_line": 90, "end_line": 99}]}),
    );
    assert_eq!(code, 1);
    assert_eq!(read(dir.path(), "shop/pricing.py"), after);
}

#[test]
fn apply_patch_applies_a_diff_match_patch_patch() {
    let dir = project();
    let patch = "@@ -1,11 +1,11 @@\n %22%22%22Price\n-s and\n+s, taxes and\n  dis\n";
    let (code, v) = tool(
        dir.path(),
        "apply_patch",
        json!({"target_file": "shop/pricing.py", "patch": patch}),
    );
    assert_eq!(code, 0, "{v}");
    assert!(
        read(dir.path(), "shop/pricing.py")
            .starts_with("\"\"\"Prices, taxes and discounts.\"\"\"\n")
    );
}

#[test]
fn delete_file_and_undo_edit_bring_a_file_back() {
    let dir = project();
    let before = read(dir.path(), "notes.txt");
    let (code, v) = tool(
        dir.path(),
        "delete_file",
        json!({"target_file": "notes.txt", "explanation": "x"}),
    );
    assert_eq!(code, 0, "{v}");
    assert!(!dir.path().join("notes.txt").exists());
    let (code, v) = tool(dir.path(), "undo_edit", json!({}));
    assert_eq!(code, 0, "{v}");
    assert_eq!(read(dir.path(), "notes.txt"), before);
    let (code, _) = tool(dir.path(), "undo_edit", json!({"steps": 1}));
    assert_eq!(code, 1, "nothing left to undo");
}

#[test]
fn finish_run_command_and_bad_calls() {
    let dir = project();
    let (code, v) = tool(dir.path(), "finish", json!({"response": "done"}));
    assert_eq!((code, text(&v)), (0, "done"));
    let out = cast()
        .args(["tool", "run_command", "--allow-commands", "--root"])
        .arg(dir.path())
        .args(["--args", r#"{"command": "ls shop"}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("cart.py"));
    // Without --allow-commands, run_command is refused with the flag that offers it (issue 17,
    // item 14), not reported as an unknown tool.
    let (code, v) = tool(dir.path(), "run_command", json!({"command": "ls"}));
    assert_eq!(code, 1, "run_command runs only with --allow-commands: {v}");
    assert!(text(&v).contains("--allow-commands"), "{v}");
    let (code, v) = tool(
        dir.path(),
        "read_file",
        json!({"target_file": "x", "explanation": "x", "bogus": 1}),
    );
    assert_eq!(code, 2);
    assert!(text(&v).contains("bogus"));
    let (code, v) = tool(
        dir.path(),
        "read_file",
        json!({"target_file": "../x", "explanation": "x"}),
    );
    assert_eq!((code, v["status"].as_str()), (1, Some("refused")));
}

#[test]
fn the_tool_reference_in_docs_is_current() {
    let out = cast()
        .args(["tools", "--markdown", "--allow-commands"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tool-reference.md");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        generated == committed,
        "docs/tool-reference.md is stale; regenerate it with\n  cargo run -q -p cast-cli -- tools --markdown --allow-commands > docs/tool-reference.md"
    );
}

/// Issue 17, item 14: a `run_command` call without `--allow-commands` said only "unknown tool";
/// it says how to turn commands on.
#[test]
fn regression_run_command_without_allow_commands_says_how_to_allow_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = cast()
        .args([
            "tool",
            "run_command",
            "--args",
            r#"{"command": "ls"}"#,
            "--root",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("--allow-commands"), "{text}");
    assert!(!text.contains("unknown tool"), "{text}");
}
