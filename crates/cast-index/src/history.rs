//! The repository's history as evidence for search: which files past commits changed, with
//! their messages.
//!
//! A task reads like a commit message, and the files a similar past commit changed are likely
//! to be changed again: on the development repositories of `bench/localise.py` the files of
//! the ten past commits most similar to a task's message find its files in the top 5 for about
//! 60 % of the tasks on their own, and the ones text search misses are not the same.
//!
//! The log is read with the `git` command (`git log --no-merges --name-status`), the newest
//! [`MAX_COMMITS`] commits of `HEAD`, with paths relative to the indexed root (`--relative`):
//! no git library is linked for one read-only command, and a machine without `git`, or a root
//! outside a repository, simply has no history evidence. Commits that touch more than
//! [`MAX_FILES_PER_COMMIT`] files (mass renames, reformatting) say little about any one file and
//! are left out.

use std::path::Path;
use std::process::{Command, Stdio};

/// The newest commits read.
pub const MAX_COMMITS: usize = 2000;
/// Commits touching more files are left out.
pub const MAX_FILES_PER_COMMIT: usize = 20;

/// One past commit: its message and the files it added, modified or renamed (the new path),
/// relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    pub message: String,
    pub files: Vec<String>,
}

/// The history as read at one commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Log {
    /// The commit `HEAD` named.
    pub head: String,
    /// Newest first.
    pub commits: Vec<Commit>,
}

impl Commit {
    /// The message's first line, at most [`SUBJECT_CHARS`] characters.
    pub fn subject(&self) -> String {
        let line = self.message.lines().next().unwrap_or("").trim();
        match line.char_indices().nth(SUBJECT_CHARS) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line.to_owned(),
        }
    }
}

/// A subject longer than this is cut (with `…`).
pub const SUBJECT_CHARS: usize = 100;

/// Why there is no history.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HistoryError {
    /// No `git` command, or the root is not in a repository (or one without commits): not a
    /// problem, there is simply no history to use.
    #[error("no git history")]
    Absent,
    /// `git` ran and failed for another reason (e.g. a repository owned by another user).
    #[error("git log failed: {0}")]
    Failed(String),
}

fn git(root: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        // Nothing the repository's configuration names is run: no file-system monitor, and
        // (for `log`, below) no signature check, external diff or text conversion.
        .args(["-c", "core.fsmonitor=false"])
        // Read only: never take the index lock, never prompt.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .stdin(Stdio::null());
    cmd
}

/// The first line of git's complaint (`fatal: detected dubious ownership …`), for a one-line
/// warning.
fn first_line(stderr: &str) -> String {
    stderr.trim().lines().next().unwrap_or("").to_owned()
}

/// Whether git's complaint means "no repository here" (or no commit yet).
fn is_absent(stderr: &str) -> bool {
    stderr.contains("not a git repository")
        || stderr.contains("does not have any commits")
        || stderr.contains("unknown revision")
        || stderr.contains("bad default revision")
        || stderr.contains("ambiguous argument 'HEAD'")
}

/// The commit `HEAD` names, or why there is none.
pub(crate) fn head(root: &Path) -> Result<String, HistoryError> {
    // Outside a repository there is nothing to ask git (a refresh after every edit would spawn
    // it for nothing).
    if !cast_workspace::in_git_repository(root) {
        return Err(HistoryError::Absent);
    }
    let out = git(root)
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .stderr(Stdio::piped())
        .output()
        .map_err(|_| HistoryError::Absent)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        // `--verify -q` fails silently when there is no HEAD commit.
        return Err(if stderr.trim().is_empty() || is_absent(&stderr) {
            HistoryError::Absent
        } else {
            HistoryError::Failed(first_line(&stderr))
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The history at `HEAD`.
pub(crate) fn log(root: &Path) -> Result<Log, HistoryError> {
    let head = head(root)?;
    Ok(Log {
        head,
        commits: read(root)?,
    })
}

/// The newest [`MAX_COMMITS`] commits of `HEAD` that changed files under `root`.
pub(crate) fn read(root: &Path) -> Result<Vec<Commit>, HistoryError> {
    let out = git(root)
        .args([
            "log",
            "--no-merges",
            "--relative",
            "--no-renames",
            "--name-status",
            "--no-show-signature",
            "--no-ext-diff",
            "--no-textconv",
            "-z",
            "--format=%x1e%B%x1f",
        ])
        .arg(format!("-n{MAX_COMMITS}"))
        .args(["HEAD", "--", "."])
        .stderr(Stdio::piped())
        .output()
        .map_err(|_| HistoryError::Absent)?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(if is_absent(&stderr) {
            HistoryError::Absent
        } else {
            HistoryError::Failed(first_line(&stderr))
        });
    }
    Ok(parse_log(&out.stdout))
}

/// Parses `git log -z --name-status --format=%x1e%B%x1f`: each commit is `RS message US`, then
/// NUL-separated pairs of status and path.
fn parse_log(out: &[u8]) -> Vec<Commit> {
    let mut commits = Vec::new();
    for record in out.split(|b| *b == 0x1e).skip(1) {
        let Some(us) = record.iter().position(|b| *b == 0x1f) else {
            continue;
        };
        let message = String::from_utf8_lossy(&record[..us]).trim().to_owned();
        let mut files = Vec::new();
        let mut fields = record[us + 1..]
            .split(|b| *b == 0)
            .map(|f| f.strip_prefix(b"\n").unwrap_or(f))
            .filter(|f| !f.is_empty());
        while let Some(status) = fields.next() {
            let Some(path) = fields.next() else { break };
            // Deleted files are gone from the tree; added, modified and type-changed ones are
            // what the commit was about.
            if matches!(status.first(), Some(b'A' | b'M' | b'T')) {
                files.push(String::from_utf8_lossy(path).into_owned());
            }
        }
        if !message.is_empty() && !files.is_empty() && files.len() <= MAX_FILES_PER_COMMIT {
            commits.push(Commit { message, files });
        }
    }
    commits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_messages_and_changed_files() {
        let out = b"\x1eFix the parser\n\nIt dropped a token.\n\x1f\0\nM\0src/parse.py\0A\0src/new.py\0D\0src/old.py\0\
\x1eOnly a deletion\x1f\0\nD\0gone.py\0\
\x1eRename\x1f\0\nM\0a b/c\xc3\xa9.py\0";
        let commits = parse_log(out);
        assert_eq!(
            commits,
            vec![
                Commit {
                    message: "Fix the parser\n\nIt dropped a token.".into(),
                    files: vec!["src/parse.py".into(), "src/new.py".into()],
                },
                Commit {
                    message: "Rename".into(),
                    files: vec!["a b/cé.py".into()],
                },
            ]
        );
    }

    #[test]
    fn a_subject_is_the_first_line_cut_at_a_character_boundary() {
        let c = |m: &str| Commit {
            message: m.into(),
            files: vec![],
        };
        assert_eq!(c("Fix it\n\nBecause.").subject(), "Fix it");
        let long = "é".repeat(SUBJECT_CHARS + 5);
        let cut = c(&long).subject();
        assert_eq!(cut.chars().count(), SUBJECT_CHARS + 1);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn leaves_out_commits_touching_too_many_files() {
        let mut out = b"\x1emass reformat\x1f\0\n".to_vec();
        for i in 0..=MAX_FILES_PER_COMMIT {
            out.extend_from_slice(format!("M\0f{i}.py\0").as_bytes());
        }
        assert!(parse_log(&out).is_empty());
    }

    #[test]
    fn a_folder_outside_any_repository_has_no_history() {
        let dir = tempfile::tempdir().unwrap();
        // A temporary folder may sit inside a repository on some machines; only the answer
        // for a folder outside one is checked.
        if !cast_workspace::in_git_repository(dir.path()) {
            assert!(matches!(head(dir.path()), Err(HistoryError::Absent)));
            assert!(matches!(read(dir.path()), Err(HistoryError::Absent)));
        }
    }
}
