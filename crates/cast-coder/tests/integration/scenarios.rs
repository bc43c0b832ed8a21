//! Scenario folders under `tests/scenarios/<name>/`: `input/` (the workspace before), `args`
//! (`--format FORMAT [TARGET]`, TARGET relative to the workspace; no TARGET: an edit naming its
//! files, such as a `<file-edit>` reply), `edit` (the edit text), `expected/` (the workspace after, compared whole), and for a
//! refusal, `refusal` (lines the refusal message must contain; `expected/` then equals
//! `input/`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use cast_coder::{Coder, CoderError, Edit, FileEdit, Format, names_file};

fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".cast") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(root).unwrap().to_owned(),
                    fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let dest = to.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(dest, bytes).unwrap();
    }
}

fn run_scenario(dir: &Path) -> Result<(), String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let args = fs::read_to_string(dir.join("args")).unwrap();
    let words: Vec<&str> = args.split_whitespace().collect();
    assert_eq!(
        words.first(),
        Some(&"--format"),
        "{name}: args must start with --format"
    );
    let format: Format = words[1].parse().unwrap();
    let target = words.get(2);
    let edit_text = fs::read_to_string(dir.join("edit")).unwrap();
    let work = tempfile::tempdir().unwrap();
    copy_tree(&dir.join("input"), work.path());

    let coder = Coder::new(work.path());
    let result = match target {
        Some(t) => Edit::parse_for(format, &edit_text, t, |name| {
            names_file(work.path(), name, Path::new(t))
        })
        .map_err(|r| CoderError::from(r.with_path(t)))
        .and_then(|edit| coder.apply(&[FileEdit::new(t, edit)])),
        None => FileEdit::parse_named(format, &edit_text)
            .map_err(CoderError::from)
            .and_then(|edits| coder.apply(&edits)),
    };
    let expected_refusal = fs::read_to_string(dir.join("refusal")).ok();
    match (&result, &expected_refusal) {
        (Ok(_), Some(_)) => return Err(format!("{name}: applied, but a refusal was expected")),
        (Err(e), None) => return Err(format!("{name}: refused: {e}")),
        (Err(e), Some(lines)) => {
            let message = e.to_string();
            if e.refusal().is_none() {
                return Err(format!("{name}: failed instead of refusing: {message}"));
            }
            for line in lines.lines().filter(|l| !l.trim().is_empty()) {
                if !message.contains(line) {
                    return Err(format!("{name}: refusal lacks {line:?}:\n{message}"));
                }
            }
        }
        (Ok(_), None) => {}
    }
    let got = tree(work.path());
    let want = tree(&dir.join("expected"));
    if got != want {
        let show = |t: &BTreeMap<PathBuf, Vec<u8>>| {
            t.iter()
                .map(|(p, b)| format!("--- {}\n{}", p.display(), String::from_utf8_lossy(b)))
                .collect::<String>()
        };
        return Err(format!(
            "{name}: workspace differs\nGOT:\n{}\nWANT:\n{}",
            show(&got),
            show(&want)
        ));
    }
    Ok(())
}

#[test]
fn every_scenario_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 15, "scenario folders are missing");
    let failures: Vec<String> = dirs.iter().filter_map(|d| run_scenario(d).err()).collect();
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n\n")
    );
}
