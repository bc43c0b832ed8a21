//! Persistent memory in SQLite (`ROOT/.cast/memory.sqlite`): user preferences, answers cached
//! per question and code hash (dropped when the code they read changes), and the last 1,000
//! execution log entries.

use cast_workspace::StateDir;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// Why persistent memory could not be used.
#[derive(Debug, thiserror::Error)]
#[error("memory database {path}: {source}")]
pub struct MemoryError {
    path: PathBuf,
    #[source]
    source: rusqlite::Error,
}

/// Log entries kept; older ones are dropped.
pub const LOG_LIMIT: i64 = 1000;
const SCHEMA_VERSION: i64 = 1;

/// A file an answer depended on, with the content hash it had.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileStamp {
    pub path: String,
    pub hash: String,
}

/// One execution log entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    pub id: i64,
    pub timestamp: String,
    pub session: String,
    pub kind: String,
    pub summary: String,
}

/// The store. Open one per process; SQLite handles several processes.
pub struct PersistentMemory {
    conn: Connection,
    root: PathBuf,
    path: PathBuf,
}

impl std::fmt::Debug for PersistentMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistentMemory")
            .field("path", &self.path)
            .finish()
    }
}

/// The content hash CAST uses for files (BLAKE3, hex).
pub fn hash_file(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| blake3::hash(&bytes).to_hex().to_string())
}

impl PersistentMemory {
    /// Opens (or creates) the memory of the workspace at `root`. A database from another schema
    /// version or a corrupt file is replaced: memory is a cache, never trusted over the code.
    pub fn open(root: &Path) -> Result<Self, MemoryError> {
        let state = StateDir::of(root);
        let path = state.join("memory.sqlite");
        let err = |source| MemoryError {
            path: path.clone(),
            source,
        };
        // A folder that cannot be created shows up as the database failing to open below.
        let _ = state.ensure();
        let conn = match Self::connect(&path) {
            Ok(conn) => conn,
            Err(_) => {
                let _ = std::fs::remove_file(&path);
                Self::connect(&path).map_err(err)?
            }
        };
        Ok(PersistentMemory {
            conn,
            root: root.to_path_buf(),
            path,
        })
    }

    fn connect(path: &Path) -> rusqlite::Result<Connection> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version != SCHEMA_VERSION {
            conn.execute_batch(
                "DROP TABLE IF EXISTS prefs; DROP TABLE IF EXISTS answers; DROP TABLE IF EXISTS log;",
            )?;
        }
        conn.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS prefs (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS answers (question TEXT PRIMARY KEY, answer TEXT NOT NULL,
                 files TEXT NOT NULL, created TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp TEXT NOT NULL,
                 session TEXT NOT NULL, kind TEXT NOT NULL, summary TEXT NOT NULL);
             PRAGMA user_version = {SCHEMA_VERSION};"
        ))?;
        Ok(conn)
    }

    fn err(&self, source: rusqlite::Error) -> MemoryError {
        MemoryError {
            path: self.path.clone(),
            source,
        }
    }

    /// Sets a preference (`style`, `test_cmd`, …).
    pub fn set_pref(&self, key: &str, value: &str) -> Result<(), MemoryError> {
        self.conn
            .execute(
                "INSERT INTO prefs (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    pub fn pref(&self, key: &str) -> Result<Option<String>, MemoryError> {
        self.conn
            .query_row("SELECT value FROM prefs WHERE key = ?1", [key], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Every preference, sorted by key.
    pub fn prefs(&self) -> Result<Vec<(String, String)>, MemoryError> {
        let mut stmt = self
            .conn
            .prepare("SELECT key, value FROM prefs ORDER BY key")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))
    }

    /// Caches an answer with the files it read (their current hashes are recorded).
    pub fn cache_answer(
        &self,
        question: &str,
        answer: &str,
        files: &[String],
    ) -> Result<(), MemoryError> {
        let stamps: Vec<FileStamp> = files
            .iter()
            .filter_map(|p| {
                hash_file(&self.root.join(p)).map(|hash| FileStamp {
                    path: p.clone(),
                    hash,
                })
            })
            .collect();
        let files = serde_json::to_string(
            &stamps
                .iter()
                .map(|s| (&s.path, &s.hash))
                .collect::<Vec<_>>(),
        )
        .unwrap_or_else(|_| "[]".to_owned());
        self.conn
            .execute(
                "INSERT INTO answers (question, answer, files, created) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(question) DO UPDATE SET answer = ?2, files = ?3, created = ?4",
                params![normalize(question), answer, files, crate::clock::now()],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// A cached answer, if every file it read still has the same content; a stale entry is
    /// dropped.
    pub fn cached_answer(&self, question: &str) -> Result<Option<String>, MemoryError> {
        let key = normalize(question);
        let row: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT answer, files FROM answers WHERE question = ?1",
                [&key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let Some((answer, files)) = row else {
            return Ok(None);
        };
        let stamps: Vec<(String, String)> = serde_json::from_str(&files).unwrap_or_default();
        let fresh = stamps
            .iter()
            .all(|(path, hash)| hash_file(&self.root.join(path)).as_deref() == Some(hash.as_str()));
        if fresh {
            Ok(Some(answer))
        } else {
            self.conn
                .execute("DELETE FROM answers WHERE question = ?1", [&key])
                .map_err(|e| self.err(e))?;
            Ok(None)
        }
    }

    /// Appends a log entry, keeping the last [`LOG_LIMIT`].
    pub fn log(&self, session: &str, kind: &str, summary: &str) -> Result<(), MemoryError> {
        self.conn
            .execute(
                "INSERT INTO log (timestamp, session, kind, summary) VALUES (?1, ?2, ?3, ?4)",
                params![crate::clock::now(), session, kind, summary],
            )
            .map_err(|e| self.err(e))?;
        self.conn
            .execute(
                "DELETE FROM log WHERE id <= (SELECT MAX(id) FROM log) - ?1",
                [LOG_LIMIT],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// The newest `n` log entries, oldest first.
    pub fn recent_log(&self, n: usize) -> Result<Vec<LogEntry>, MemoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, timestamp, session, kind, summary FROM log ORDER BY id DESC LIMIT ?1",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([n as i64], |r| {
                Ok(LogEntry {
                    id: r.get(0)?,
                    timestamp: r.get(1)?,
                    session: r.get(2)?,
                    kind: r.get(3)?,
                    summary: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        let mut entries = rows
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| self.err(e))?;
        entries.reverse();
        Ok(entries)
    }

    /// How many log entries are kept.
    pub fn log_len(&self) -> Result<i64, MemoryError> {
        self.conn
            .query_row("SELECT COUNT(*) FROM log", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }
}

/// Questions are compared case- and whitespace-insensitively.
fn normalize(question: &str) -> String {
    question
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferences_persist_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        PersistentMemory::open(dir.path())
            .unwrap()
            .set_pref("test_cmd", "pytest -q")
            .unwrap();
        let memory = PersistentMemory::open(dir.path()).unwrap();
        assert_eq!(
            memory.pref("test_cmd").unwrap().as_deref(),
            Some("pytest -q")
        );
        assert_eq!(
            memory.prefs().unwrap(),
            vec![("test_cmd".to_owned(), "pytest -q".to_owned())]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".cast/.gitignore")).unwrap(),
            "*\n"
        );
    }

    #[test]
    fn a_cached_answer_is_dropped_when_its_code_changes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let memory = PersistentMemory::open(dir.path()).unwrap();
        memory
            .cache_answer("What is  x?", "x is 1", &["a.py".to_owned()])
            .unwrap();
        assert_eq!(
            memory.cached_answer("what is x?").unwrap().as_deref(),
            Some("x is 1")
        );
        std::fs::write(dir.path().join("a.py"), "x = 2\n").unwrap();
        assert_eq!(memory.cached_answer("what is x?").unwrap(), None);
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        assert_eq!(
            memory.cached_answer("what is x?").unwrap(),
            None,
            "the stale entry was dropped"
        );
    }

    #[test]
    fn the_log_keeps_the_last_thousand() {
        let dir = tempfile::tempdir().unwrap();
        let memory = PersistentMemory::open(dir.path()).unwrap();
        for i in 0..1010 {
            memory.log("s", "step", &format!("entry {i}")).unwrap();
        }
        assert_eq!(memory.log_len().unwrap(), 1000);
        let last = memory.recent_log(2).unwrap();
        assert_eq!(
            (last[0].summary.as_str(), last[1].summary.as_str()),
            ("entry 1008", "entry 1009")
        );
    }

    #[test]
    fn a_corrupt_database_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".cast")).unwrap();
        std::fs::write(
            dir.path().join(".cast/memory.sqlite"),
            b"not a database at all, just junk bytes",
        )
        .unwrap();
        let memory = PersistentMemory::open(dir.path()).unwrap();
        memory.set_pref("k", "v").unwrap();
        assert_eq!(memory.pref("k").unwrap().as_deref(), Some("v"));
    }
}
