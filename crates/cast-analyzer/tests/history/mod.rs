//! The git history as search evidence, on a repository made by the test with the `git`
//! command (which every machine that cloned this project has).

use std::path::Path;
use std::process::Command;

use cast_analyzer::{FindMode, Index, Queries};

/// Runs git in `dir` with a fixed identity and no signing, so the test does not depend on the
/// machine's git configuration.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=CAST test",
            "-c",
            "user.email=test@example.invalid",
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("the tests need the `git` command");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn best_file(index: &Index, query: &str) -> (String, f64) {
    let found = index.find_with(query, 3, FindMode::Files).unwrap();
    let best = &found.files[0];
    (best.path.clone(), best.scores.history)
}

#[test]
fn files_changed_by_similar_past_commits_are_found_and_the_history_follows_head() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    write(root, "app/alpha.py", "def alpha():\n    return 1\n");
    write(root, "app/beta.py", "def beta():\n    return 2\n");
    write(root, "app/gamma.py", "def gamma():\n    return 3\n");
    write(root, "README.md", "A project.\n");
    commit_all(root, "Start the project");
    write(root, "app/beta.py", "def beta():\n    return 20\n");
    commit_all(
        root,
        "Retry the websocket handshake when the proxy drops it",
    );
    // A commit that only touched files outside the index gives nothing to find.
    write(root, "README.md", "A project about proxies.\n");
    commit_all(root, "Explain proxies in the readme");

    let index = Index::open(root).unwrap();
    assert_eq!(index.report().unwrap().commits, 3);
    // No file holds these words; the history knows which file such a change touched.
    let (path, history) = best_file(&index, "retry the handshake behind a proxy");
    assert_eq!(path, "app/beta.py");
    assert_eq!(history, 1.0);
    // The hit says which past commit it owes that to.
    let found = index
        .find_with("retry the handshake behind a proxy", 3, FindMode::Files)
        .unwrap();
    assert_eq!(
        found.files[0].past_commit.as_deref(),
        Some("Retry the websocket handshake when the proxy drops it")
    );
    assert!(
        found.render().contains(
            "app/beta.py  past commit: \"Retry the websocket handshake when the proxy drops it\""
        ),
        "{}",
        found.render()
    );
    drop(index);

    // A new commit with a changed file: the next refresh reads the history again.
    write(root, "app/gamma.py", "def gamma():\n    return 30\n");
    commit_all(root, "Cache the frobnicator tables");
    let index = Index::open(root).unwrap();
    assert_eq!(index.report().unwrap().commits, 4);
    assert_eq!(best_file(&index, "frobnicator cache").0, "app/gamma.py");
    // Nothing changed: the stored history is kept as it is.
    drop(index);
    let index = Index::open(root).unwrap();
    assert_eq!(index.report().unwrap().changed, 0);
    assert_eq!(index.report().unwrap().commits, 4);
    drop(index);

    // The repository goes away: at the next change the stored history goes too.
    if outside_any_repository(root.parent().unwrap()) {
        std::fs::remove_dir_all(root.join(".git")).unwrap();
        write(root, "app/alpha.py", "def alpha():\n    return 10\n");
        let index = Index::open(root).unwrap();
        assert_eq!(index.report().unwrap().commits, 0);
        let found = index
            .find_with("frobnicator cache", 3, FindMode::Files)
            .unwrap();
        // Only the history knew these words: nothing is found now.
        assert!(found.files.is_empty(), "{}", found.render());
    }
}

#[test]
fn a_repository_without_commits_or_no_repository_has_no_history() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app/alpha.py",
        "def alpha():\n    '''Retry things.'''\n    return 1\n",
    );
    if !outside_any_repository(root) {
        return;
    }
    let index = Index::open(root).unwrap();
    assert_eq!(index.report().unwrap().commits, 0);
    assert!(index.report().unwrap().warnings.is_empty());
    drop(index);
    git(root, &["init", "-q"]);
    write(
        root,
        "app/alpha.py",
        "def alpha():\n    '''Retry more things.'''\n    return 1\n",
    );
    let index = Index::open(root).unwrap();
    let report = index.report().unwrap();
    assert_eq!((report.changed, report.commits), (1, 0));
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(best_file(&index, "retry").0, "app/alpha.py");
}

/// Whether no folder above `dir` is a git repository (a temporary folder inside one would
/// see that repository's history).
fn outside_any_repository(dir: &Path) -> bool {
    !cast_workspace::in_git_repository(dir)
}

#[test]
fn of_two_equal_text_matches_the_file_that_changed_lately_and_often_ranks_first() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    // Same words, same length: by text alone the tie goes by path (`cold.py` first).
    write(root, "cold.py", "def parse_ledger():\n    return 0\n");
    write(root, "hot.py", "def parse_ledger():\n    return 0\n");
    commit_all(root, "Start");
    for i in 1..=4 {
        write(
            root,
            "hot.py",
            &format!("def parse_ledger():\n    return {i}\n"),
        );
        commit_all(root, &format!("Tweak number {i}"));
    }
    let index = Index::open(root).unwrap();
    let found = index
        .find_with("parse the ledger", 2, FindMode::Files)
        .unwrap();
    let churn: Vec<(&str, f64)> = found
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.scores.churn))
        .collect();
    assert_eq!(churn[0].0, "hot.py", "{churn:?}");
    assert_eq!(churn[0].1, 1.0);
    assert!(churn[1].1 > 0.0 && churn[1].1 < 0.5, "{churn:?}");
    drop(index);

    // Outside git there is no churn, and the tie goes back to the path.
    if outside_any_repository(root.parent().unwrap()) {
        std::fs::remove_dir_all(root.join(".git")).unwrap();
        write(root, "other.py", "X = 1\n");
        let index = Index::open(root).unwrap();
        let found = index
            .find_with("parse the ledger", 2, FindMode::Files)
            .unwrap();
        assert_eq!(found.files[0].path, "cold.py", "{}", found.render());
        assert!(found.files.iter().all(|f| f.scores.churn == 0.0));
    }
}
