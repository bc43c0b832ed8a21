//! Sessions: every run belongs to one, saved at `ROOT/.cast/sessions/ID.json` so `--resume ID`
//! continues it with its turns and the files it read (re-read when they changed since).

use cast_workspace::StateDir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::llm::Message;

/// Why a session could not be loaded or saved.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no session {id:?} in {dir}; `cast sessions` lists them")]
    NotFound { id: String, dir: PathBuf },
    #[error("{id:?} matches several sessions ({matches}); give more of the id")]
    Ambiguous { id: String, matches: String },
    #[error("session file {path}: {reason}")]
    Bad { path: PathBuf, reason: String },
}

/// A file the session read, as it was then.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSeen {
    /// Modification time in milliseconds since the Unix epoch (0 when unknown).
    pub mtime_ms: u128,
    pub bytes: u64,
}

/// A saved session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    pub created: String,
    pub updated: String,
    /// The tasks given in this session, in order.
    pub tasks: Vec<String>,
    /// The conversation (system prompt excluded: it is rebuilt from the current workspace).
    pub messages: Vec<Message>,
    /// Files read, by workspace-relative path.
    pub files_read: BTreeMap<String, FileSeen>,
    /// How the last run ended.
    pub last_stop: Option<String>,
    pub steps: usize,
    /// Changes the user did not approve (yet), in `ask` mode.
    #[serde(default)]
    pub pending: Vec<crate::approval::PendingEdit>,
}

/// One line of `cast sessions`.
#[derive(Debug, Clone, Serialize)]
pub struct SessionSummary {
    pub id: String,
    pub created: String,
    pub updated: String,
    pub tasks: usize,
    pub steps: usize,
    pub first_task: String,
    pub last_stop: Option<String>,
    /// Changes the user did not approve (yet).
    pub pending: usize,
}

fn sessions_dir(root: &Path) -> PathBuf {
    StateDir::of(root).join("sessions")
}

fn seen(path: &Path) -> Option<FileSeen> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime_ms = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis());
    Some(FileSeen {
        mtime_ms,
        bytes: meta.len(),
    })
}

impl Session {
    /// A new session with a fresh id (`YYYYMMDD-HHMMSS-xxxx`).
    pub fn new() -> Session {
        let now = SystemTime::now();
        let stamp = humantime::format_rfc3339_seconds(now).to_string();
        let compact: String = stamp
            .chars()
            .filter(|c| c.is_ascii_digit())
            .take(14)
            .collect();
        let nanos = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let salt = blake3::hash(format!("{nanos}-{}", std::process::id()).as_bytes()).to_hex();
        let id = format!(
            "{}-{}-{}",
            &compact[..8.min(compact.len())],
            &compact[8.min(compact.len())..],
            &salt[..4]
        );
        let created = crate::clock::now();
        Session {
            id,
            updated: created.clone(),
            created,
            tasks: Vec::new(),
            messages: Vec::new(),
            files_read: BTreeMap::new(),
            last_stop: None,
            steps: 0,
            pending: Vec::new(),
        }
    }

    /// Records that the agent read `rel` (relative to `root`).
    pub fn note_read(&mut self, root: &Path, rel: &str) {
        if let Some(seen) = seen(&root.join(rel)) {
            self.files_read.insert(rel.to_owned(), seen);
        }
    }

    /// For a resumed session: which files it read, with the current content of those that
    /// changed since (cut at `max_chars`), so the model does not work from stale memory.
    pub fn refresh_note(&mut self, root: &Path, max_chars: usize) -> Option<String> {
        if self.files_read.is_empty() {
            return None;
        }
        let mut unchanged = Vec::new();
        let mut changed = Vec::new();
        let mut gone = Vec::new();
        for (rel, was) in self.files_read.iter_mut() {
            match seen(&root.join(rel)) {
                None => gone.push(rel.clone()),
                Some(now) if now == *was => unchanged.push(rel.clone()),
                Some(now) => {
                    let text = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
                    changed.push((
                        rel.clone(),
                        crate::memory::cut_file_text(&text, max_chars, rel),
                    ));
                    *was = now;
                }
            }
        }
        let mut note = String::from("[Session memory] Files you read earlier in this session:");
        if !unchanged.is_empty() {
            note.push_str(&format!("\n- unchanged since: {}", unchanged.join(", ")));
        }
        for rel in &gone {
            note.push_str(&format!("\n- {rel} no longer exists"));
        }
        for (rel, text) in &changed {
            note.push_str(&format!(
                "\n- {rel} changed since you read it; its content now:\n{text}"
            ));
        }
        Some(note)
    }

    pub fn path(root: &Path, id: &str) -> PathBuf {
        sessions_dir(root).join(format!("{id}.json"))
    }

    /// Saves atomically (temporary file and rename).
    pub fn save(&mut self, root: &Path) -> Result<(), SessionError> {
        self.updated = crate::clock::now();
        let path = Self::path(root, &self.id);
        let bad = |reason: String| SessionError::Bad {
            path: path.clone(),
            reason,
        };
        let dir = StateDir::of(root)
            .ensure_subdir("sessions")
            .map_err(|e| bad(e.to_string()))?;
        let text = serde_json::to_string_pretty(self).map_err(|e| bad(e.to_string()))?;
        let tmp = dir.join(format!(".{}.json.tmp", self.id));
        std::fs::write(&tmp, text).map_err(|e| bad(e.to_string()))?;
        std::fs::rename(&tmp, &path).map_err(|e| bad(e.to_string()))
    }

    /// Loads a session by id or unique id prefix.
    pub fn load(root: &Path, id: &str) -> Result<Session, SessionError> {
        let dir = sessions_dir(root);
        let mut matches: Vec<String> = std::fs::read_dir(&dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .filter_map(|e| {
                        e.file_name()
                            .to_str()?
                            .strip_suffix(".json")
                            .map(str::to_owned)
                    })
                    .filter(|name| name.starts_with(id))
                    .collect()
            })
            .unwrap_or_default();
        if matches.iter().any(|m| m == id) {
            matches = vec![id.to_owned()];
        }
        match matches.len() {
            0 => Err(SessionError::NotFound {
                id: id.to_owned(),
                dir,
            }),
            1 => {
                let path = dir.join(format!("{}.json", matches[0]));
                let text = std::fs::read_to_string(&path).map_err(|e| SessionError::Bad {
                    path: path.clone(),
                    reason: e.to_string(),
                })?;
                serde_json::from_str(&text).map_err(|e| SessionError::Bad {
                    path,
                    reason: e.to_string(),
                })
            }
            _ => Err(SessionError::Ambiguous {
                id: id.to_owned(),
                matches: matches.join(", "),
            }),
        }
    }

    /// All sessions of a workspace, newest first.
    pub fn list(root: &Path) -> Vec<SessionSummary> {
        let Ok(entries) = std::fs::read_dir(sessions_dir(root)) else {
            return Vec::new();
        };
        let mut out: Vec<SessionSummary> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|text| serde_json::from_str::<Session>(&text).ok())
            .map(|s| SessionSummary {
                first_task: s.tasks.first().cloned().unwrap_or_default(),
                id: s.id,
                created: s.created,
                updated: s.updated,
                tasks: s.tasks.len(),
                steps: s.steps,
                last_stop: s.last_stop,
                pending: s.pending.len(),
            })
            .collect();
        out.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        out
    }
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_session_loads_by_prefix_and_lists() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = Session::new();
        s.tasks.push("fix the bug".into());
        s.messages.push(Message::user("fix the bug"));
        s.save(dir.path()).unwrap();
        let loaded = Session::load(dir.path(), &s.id[..10]).unwrap();
        assert_eq!(loaded.id, s.id);
        assert_eq!(loaded.messages, s.messages);
        let list = Session::list(dir.path());
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].first_task, "fix the bug");
        assert!(matches!(
            Session::load(dir.path(), "nope"),
            Err(SessionError::NotFound { .. })
        ));
    }

    #[test]
    fn resuming_reports_changed_files_with_their_new_content() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "y = 1\n").unwrap();
        let mut s = Session::new();
        s.note_read(dir.path(), "a.py");
        s.note_read(dir.path(), "b.py");
        std::fs::write(dir.path().join("b.py"), "y = 2  # changed, and longer\n").unwrap();
        let note = s.refresh_note(dir.path(), 50_000).unwrap();
        assert!(note.contains("unchanged since: a.py"), "{note}");
        assert!(
            note.contains("b.py changed since") && note.contains("y = 2"),
            "{note}"
        );
        // now recorded as seen: a second refresh reports both unchanged
        let again = s.refresh_note(dir.path(), 50_000).unwrap();
        assert!(again.contains("unchanged since: a.py, b.py"), "{again}");
    }
}
