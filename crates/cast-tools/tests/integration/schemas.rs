//! Every tool's schema is valid JSON Schema, accepts a well-formed call and rejects extra or
//! mistyped fields; the whole tool list is pinned by a snapshot so a change is deliberate.

use cast_tools::{Registry, RegistryOptions};
use serde_json::{Value, json};

/// A well-formed call of each tool.
fn example(tool: &str) -> Value {
    match tool {
        "read_file" => {
            json!({"target_file": "app.py", "explanation": "x", "start_line": 1, "end_line": 5})
        }
        "edit_file" => {
            json!({"target_file": "app.py", "instructions": "x", "code_edit": "x = 1\n"})
        }
        "delete_file" => json!({"target_file": "app.py", "explanation": "x"}),
        "grep_search" => {
            json!({"query": "def", "case_sensitive": false, "include_pattern": "*.py", "exclude_pattern": "tests/**", "explanation": "x"})
        }
        "list_dir" => json!({"relative_workspace_path": ".", "explanation": "x"}),
        "finish" => json!({"response": "done"}),
        "glob_search" => json!({"pattern": "**/*.py"}),
        "file_search" => json!({"query": "app"}),
        "analyze_repository" => json!({"budget": 1000}),
        "get_skeleton" => json!({"target_file": "app.py"}),
        "find_symbol" => json!({"query": "parse a date", "top": 5}),
        "show_symbol" => json!({"symbol": "Cart.total"}),
        "search_replace" => {
            json!({"target_file": "app.py", "diff": "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n"})
        }
        "apply_ops" => json!({"target_file": "app.py", "ops": [
            {"type": "insert", "after_line": 0, "content": ["x"]},
            {"type": "replace", "start_line": 2, "end_line": 3, "content": []},
            {"type": "delete", "start_line": 5, "end_line": 5}
        ]}),
        "apply_patch" => json!({"target_file": "app.py", "patch": "@@ -1,1 +1,1 @@\n-a\n+b\n"}),
        "undo_edit" => json!({"steps": 2}),
        "run_command" => json!({"command": "true", "timeout_s": 5}),
        other => panic!("no example call for {other}: add one here"),
    }
}

#[test]
fn every_schema_is_valid_json_schema_and_checks_calls() {
    let registry = Registry::standard(RegistryOptions { commands: true });
    let specs = registry.specs();
    assert!(specs.len() >= 17, "{} tools", specs.len());
    for spec in specs {
        let schema = &spec.parameters;
        if let Err(e) = jsonschema::meta::validate(schema) {
            panic!("{}: not valid JSON Schema: {e}\n{schema:#}", spec.name);
        }
        let validator = jsonschema::validator_for(schema).unwrap();
        let good = example(spec.name);
        if let Err(e) = validator.validate(&good) {
            panic!("{}: a well-formed call fails its schema: {e}", spec.name);
        }
        let mut extra = good.clone();
        extra["unexpected"] = json!(1);
        assert!(
            !validator.is_valid(&extra),
            "{}: an extra field passes",
            spec.name
        );
        assert_eq!(schema["type"], "object", "{}", spec.name);
        assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
        assert!(!spec.description.is_empty());
    }
}

#[test]
fn mistyped_and_missing_fields_are_named_with_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = cast_tools::ToolContext::new(dir.path()).unwrap();
    let registry = Registry::standard(RegistryOptions::default());
    let err = registry
        .call(
            &ctx,
            "read_file",
            json!({"target_file": "a.py", "explanation": "x", "start_line": "ten"}),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("start_line"), "{err}");
    assert!(
        err.contains("\"target_file\""),
        "the schema is shown: {err}"
    );
    let err = registry
        .call(&ctx, "grep_search", json!({"explanation": "x"}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing field `query`"), "{err}");
    let err = registry
        .call(
            &ctx,
            "apply_ops",
            json!({"target_file": "a.py", "ops": [{"type": "move", "line": 1}]}),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("ops[0]") && err.contains("move"), "{err}");
}

#[test]
fn the_tool_list_is_pinned() {
    let registry = Registry::standard(RegistryOptions { commands: true });
    insta::assert_json_snapshot!("tool_specs", registry.specs());
}
