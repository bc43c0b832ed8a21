//! Every command that walks a tree sees the same files: `cast index` (and so `cast map`),
//! `cast symbols` and `cast grep` all walk through cast-workspace.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support::{cast, json_lines};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The .py files each command sees under `root`: (index via the map, symbols, grep).
fn seen(root: &Path) -> [BTreeSet<String>; 3] {
    let paths = |values: Vec<serde_json::Value>| -> BTreeSet<String> {
        values
            .iter()
            .filter_map(|v| v.get("path").and_then(|p| p.as_str()).map(str::to_owned))
            .collect()
    };
    cast().arg("index").arg(root).assert().success();
    let map = cast()
        .args(["map", "--json", "--budget", "100000"])
        .arg(root)
        .output()
        .unwrap();
    assert!(
        map.status.success(),
        "{}",
        String::from_utf8_lossy(&map.stderr)
    );
    let symbols = cast()
        .args(["symbols", "--json"])
        .arg(root)
        .output()
        .unwrap();
    assert!(symbols.status.success());
    let grep = cast()
        .args(["grep", "--json", "-F", "--max-results", "0", "def f_"])
        .arg(root)
        .output()
        .unwrap();
    assert!(grep.status.success());
    // The map and symbols name paths relative to the root; grep names them as reached from it.
    let prefix = format!("{}/", root.display());
    let grep_paths = paths(json_lines(&grep.stdout))
        .into_iter()
        .map(|p| p.strip_prefix(&prefix).unwrap_or(&p).to_owned())
        .collect();
    [
        paths(json_lines(&map.stdout)),
        paths(json_lines(&symbols.stdout)),
        grep_paths,
    ]
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn index_symbols_and_grep_see_the_same_files_in_a_git_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    write(root, ".gitignore", "git_ignored.py\n");
    write(root, ".ignore", "dot_ignored.py\n");
    write(root, ".rgignore", "rg_ignored.py\n");
    for (i, file) in [
        "kept.py",
        "pkg/kept.py",
        "git_ignored.py",
        "dot_ignored.py",
        "rg_ignored.py",
        ".hidden.py",
        ".hidden_dir/x.py",
    ]
    .iter()
    .enumerate()
    {
        write(root, file, &format!("def f_{i}():\n    pass\n"));
    }
    let [index, symbols, grep] = seen(root);
    assert_eq!(index, set(&["kept.py", "pkg/kept.py"]));
    assert_eq!(symbols, index);
    assert_eq!(grep, index);
}

#[test]
fn index_symbols_and_grep_leave_out_virtualenvs_and_node_modules_outside_git() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "venv/pyvenv.cfg", "home = /usr/bin\n");
    write(root, ".venv/pyvenv.cfg", "home = /usr/bin\n");
    for (i, file) in [
        "app.py",
        "lib/venv/__init__.py", // a package named venv, not a virtualenv: kept
        "venv/lib/python3.11/site-packages/dep.py",
        ".venv/lib/dep.py",
        "node_modules/pkg/setup.py",
        "pkg/__pycache__/stale.py",
    ]
    .iter()
    .enumerate()
    {
        write(root, file, &format!("def f_{i}():\n    pass\n"));
    }
    let [index, symbols, grep] = seen(root);
    assert_eq!(index, set(&["app.py", "lib/venv/__init__.py"]));
    assert_eq!(symbols, index);
    assert_eq!(grep, index);

    // --no-ignore brings them all back, for every command.
    let all = cast()
        .args(["symbols", "--json", "--no-ignore"])
        .arg(root)
        .output()
        .unwrap();
    let files: BTreeSet<String> = json_lines(&all.stdout)
        .iter()
        .filter_map(|v| v["path"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(files.len(), 5, "{files:?}"); // .venv/ stays hidden
    let grep_all = cast()
        .args([
            "grep",
            "--json",
            "-F",
            "--no-ignore",
            "--max-results",
            "0",
            "def f_",
        ])
        .arg(root)
        .output()
        .unwrap();
    assert_eq!(json_lines(&grep_all.stdout).len(), 5);
}
