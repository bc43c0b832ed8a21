//! A table of hostile paths and symbolic-link layouts against every tool that takes a path:
//! each call is refused, no output shows what lies outside, and nothing outside the root (or
//! inside `.git/` / `.cast/`) changes on disk.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use cast_tools::{Registry, RegistryOptions, Status, ToolContext, ToolError};
use serde_json::{Value, json};

const SECRET: &str = "TOP-SECRET-BYTES";

struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

/// tmp/outside/{secret.txt, secret.py} and tmp/root, a small project whose links point out.
fn layout() -> Layout {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let outside = base.join("outside");
    let root = base.join("root");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("{SECRET}\n")).unwrap();
    std::fs::write(
        outside.join("secret.py"),
        format!("def leak():\n    return '{SECRET}'\n"),
    )
    .unwrap();
    for d in ["sub", "inner/deeper", ".git/hooks", ".cast/undo"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join("app.py"), "def main():\n    return 1\n").unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    std::fs::write(root.join(".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(root.join(".cast/undo/keep"), "journal\n").unwrap();
    symlink(&outside, root.join("link_out")).unwrap();
    symlink(outside.join("secret.py"), root.join("link_file")).unwrap();
    symlink("../outside/secret.py", root.join("link_file_rel")).unwrap();
    symlink(outside.join("missing.py"), root.join("link_dangling")).unwrap();
    symlink("link_out", root.join("link_chain")).unwrap();
    symlink("link_file", root.join("link_to_link_file")).unwrap();
    symlink("../../../outside", root.join("inner/deeper/link_up")).unwrap();
    symlink("..", root.join("link_parent")).unwrap();
    symlink("/", root.join("link_slash")).unwrap();
    symlink("/etc", root.join("link_etc")).unwrap();
    symlink(".git", root.join("link_git")).unwrap();
    symlink(".cast", root.join("link_cast")).unwrap();
    symlink(root.join(".git/config"), root.join("sub/git_config")).unwrap();
    Layout {
        _dir: dir,
        root,
        outside,
    }
}

/// Where a hostile path is hostile: everywhere, or only for tools that write.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    Always,
    WritesOnly,
}

/// The hostile paths (`{outside}` is the absolute path of the folder beside the root).
const HOSTILE: &[(&str, Scope)] = &[
    ("../outside/secret.py", Scope::Always),
    ("../../etc/passwd", Scope::Always),
    ("sub/../../outside/secret.py", Scope::Always),
    ("./../outside/secret.py", Scope::Always),
    ("inner/deeper/../../../outside/secret.py", Scope::Always),
    ("sub/./../../outside/secret.py", Scope::Always),
    ("../root/../outside/secret.py", Scope::Always),
    ("..", Scope::Always),
    ("../", Scope::Always),
    ("{outside}/secret.py", Scope::Always),
    ("{outside}", Scope::Always),
    ("{outside}/new.py", Scope::Always),
    ("/etc/passwd", Scope::Always),
    ("/etc", Scope::Always),
    ("//etc/passwd", Scope::Always),
    ("/proc/self/environ", Scope::Always),
    ("/", Scope::Always),
    ("link_out/secret.py", Scope::Always),
    ("link_out", Scope::Always),
    ("link_out/new.py", Scope::Always),
    ("link_file", Scope::Always),
    ("link_file_rel", Scope::Always),
    ("link_dangling", Scope::Always),
    ("link_chain/secret.py", Scope::Always),
    ("link_to_link_file", Scope::Always),
    ("inner/deeper/link_up/secret.py", Scope::Always),
    ("link_parent/outside/secret.py", Scope::Always),
    ("link_slash/etc/passwd", Scope::Always),
    ("link_etc/passwd", Scope::Always),
    ("app.py\0", Scope::Always),
    ("\0../outside/secret.py", Scope::Always),
    ("sub/\0/app.py", Scope::Always),
    (".git/config", Scope::WritesOnly),
    (".git/hooks/pre-commit", Scope::WritesOnly),
    (".git/new_file.py", Scope::WritesOnly),
    ("sub/../.git/config", Scope::WritesOnly),
    ("link_git/config", Scope::WritesOnly),
    ("sub/git_config", Scope::WritesOnly),
    (".cast/undo/keep", Scope::WritesOnly),
    ("link_cast/undo/keep", Scope::WritesOnly),
    ("{root}/.git/config", Scope::WritesOnly),
];

/// Every tool that takes a path, with the arguments that aim it at `path`.
fn calls(path: &str) -> Vec<(&'static str, bool, Value)> {
    vec![
        (
            "read_file",
            false,
            json!({"target_file": path, "explanation": "x"}),
        ),
        (
            "list_dir",
            false,
            json!({"relative_workspace_path": path, "explanation": "x"}),
        ),
        ("get_skeleton", false, json!({"target_file": path})),
        ("analyze_repository", false, json!({"trace": path})),
        (
            "edit_file",
            true,
            json!({"target_file": path, "instructions": "x", "code_edit": "pwned = True\n"}),
        ),
        (
            "search_replace",
            true,
            json!({"target_file": path, "diff": "------- SEARCH\n=======\npwned = True\n+++++++ REPLACE\n"}),
        ),
        (
            "apply_ops",
            true,
            json!({"target_file": path, "ops": [{"type": "insert", "after_line": 0, "content": ["pwned = True"]}]}),
        ),
        (
            "apply_patch",
            true,
            json!({"target_file": path, "patch": "@@ -1,4 +1,8 @@\n def \n+pwn \n lea\n"}),
        ),
        (
            "delete_file",
            true,
            json!({"target_file": path, "explanation": "x"}),
        ),
    ]
}

/// Every file under `dir` (links not followed) with its bytes or link target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.insert(path, target.to_string_lossy().as_bytes().to_vec());
            } else if meta.is_dir() {
                out.insert(path.clone(), b"<dir>".to_vec());
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

#[test]
fn every_hostile_path_is_refused_by_every_tool_and_nothing_outside_changes() {
    let layout = layout();
    let ctx = ToolContext::new(&layout.root).unwrap();
    let registry = Registry::standard(RegistryOptions::default());
    let outside_before = snapshot(&layout.outside);
    let protected_before = [
        snapshot(&layout.root.join(".git")),
        snapshot(&layout.root.join(".cast/undo")),
    ];

    let mut checked = 0;
    let mut failures = Vec::new();
    for (raw, scope) in HOSTILE {
        let path = raw
            .replace("{outside}", &layout.outside.to_string_lossy())
            .replace("{root}", &layout.root.to_string_lossy());
        for (tool, writes, args) in calls(&path) {
            if *scope == Scope::WritesOnly && !writes {
                continue;
            }
            checked += 1;
            match registry.call(&ctx, tool, args) {
                Err(ToolError::Sandbox(_)) => {}
                Ok(out) if out.status == Status::Refused && !out.text.contains(SECRET) => {}
                Ok(out) => {
                    failures.push(format!("{tool}({path:?}) was not refused: {:?}", out.text))
                }
                Err(other) => failures.push(format!(
                    "{tool}({path:?}) failed instead of refusing: {other}"
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} calls:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        HOSTILE.len() >= 30 && checked >= 250,
        "only {checked} calls"
    );
    assert_eq!(
        snapshot(&layout.outside),
        outside_before,
        "something outside the root changed"
    );
    assert_eq!(
        [
            snapshot(&layout.root.join(".git")),
            snapshot(&layout.root.join(".cast/undo"))
        ],
        protected_before,
        ".git or .cast changed"
    );
    // The links themselves are still there, pointing where they did.
    assert_eq!(
        std::fs::read_link(layout.root.join("link_file")).unwrap(),
        layout.outside.join("secret.py")
    );
}

#[test]
fn search_tools_never_report_what_lies_behind_a_link_out() {
    let layout = layout();
    let ctx = ToolContext::new(&layout.root).unwrap();
    let registry = Registry::standard(RegistryOptions::default());
    let calls = [
        ("grep_search", json!({"query": SECRET, "explanation": "x"})),
        (
            "grep_search",
            json!({"query": "leak", "include_pattern": "../**", "explanation": "x"}),
        ),
        ("glob_search", json!({"pattern": "../outside/*"})),
        ("glob_search", json!({"pattern": "**/secret.py"})),
        ("file_search", json!({"query": "secret"})),
        ("find_symbol", json!({"query": "leak"})),
        ("show_symbol", json!({"symbol": "leak"})),
        ("analyze_repository", json!({})),
        (
            "list_dir",
            json!({"relative_workspace_path": ".", "explanation": "x"}),
        ),
    ];
    for (tool, args) in calls {
        let text = match registry.call(&ctx, tool, args.clone()) {
            Ok(out) => out.text,
            Err(e) => e.to_string(),
        };
        assert!(!text.contains(SECRET), "{tool} {args}: {text}");
        assert!(!text.contains("def leak"), "{tool} {args}: {text}");
        assert!(
            !text.contains("secret.py") || tool == "list_dir",
            "{tool} {args}: {text}"
        );
    }
}

#[test]
fn reads_inside_git_are_allowed_but_writes_are_not() {
    let layout = layout();
    let ctx = ToolContext::new(&layout.root).unwrap();
    let registry = Registry::standard(RegistryOptions::default());
    let read = registry
        .call(
            &ctx,
            "read_file",
            json!({"target_file": ".git/config", "explanation": "x"}),
        )
        .unwrap();
    assert_eq!(read.status, Status::Ok);
    assert!(read.text.contains("[core]"));
    let err = registry
        .call(
            &ctx,
            "delete_file",
            json!({"target_file": ".git/config", "explanation": "x"}),
        )
        .unwrap_err();
    assert!(err.to_string().contains(".git"), "{err}");
    assert!(layout.root.join(".git/config").exists());
}
