//! The undo journal: the old bytes of every file a change set wrote, under `ROOT/.cast/undo/`.
//!
//! One change set is one entry, a folder named by a rising number, holding `entry.json` and the
//! old bytes of each file (`0.old`, `1.old`, …). An entry is assembled in a temporary folder and
//! renamed into place, so it is complete or absent, and it is written before any target is. The
//! newest [`KEEP`] entries are kept. `ROOT/.cast/` holds a `.gitignore` of `*`.

use cast_workspace::StateDir;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::CoderError;
use crate::fsio::{read_optional, remove_if_exists, sync_dir, write_atomic};

/// How many change sets the journal keeps.
pub const KEEP: usize = 100;

/// One file of a journal entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalFile {
    /// The path, relative to the root when inside it, else absolute.
    pub path: PathBuf,
    /// Whether the file existed before (undo deletes it otherwise).
    pub existed: bool,
    /// The blake3 hash of the bytes the change set wrote.
    pub new_hash: String,
    /// The blob holding the old bytes, inside the entry's folder.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub old_blob: Option<String>,
    /// The change set deleted the file (undo writes it back).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub deleted: bool,
}

/// One change set in the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The entry's number (rising).
    pub id: u64,
    /// When it was written (seconds since the Unix epoch).
    pub time: u64,
    /// What wrote it (`cast apply --format search-replace`, a tool name…).
    pub description: String,
    /// The files it changed.
    pub files: Vec<JournalFile>,
}

/// A change about to be written: path (absolute), old bytes (None: did not exist), new bytes.
pub(crate) struct Pending<'a> {
    pub path: &'a Path,
    pub old: Option<&'a [u8]>,
    pub new: &'a [u8],
    /// The change deletes the file (`new` is then empty and unused).
    pub deleted: bool,
}

/// The journal of one workspace root.
#[derive(Debug, Clone)]
pub(crate) struct Journal {
    root: PathBuf,
    dir: PathBuf,
}

fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl Journal {
    pub fn new(root: &Path) -> Journal {
        Journal {
            root: root.to_owned(),
            dir: StateDir::of(root).join("undo"),
        }
    }

    fn journal_error(&self, path: &Path, message: impl Into<String>) -> CoderError {
        CoderError::Journal {
            path: path.to_owned(),
            message: message.into(),
        }
    }

    fn ensure_dirs(&self) -> Result<(), CoderError> {
        StateDir::of(&self.root)
            .ensure_subdir("undo")
            .map_err(|e| CoderError::io(&e.path, e.source))?;
        Ok(())
    }

    /// The path as stored: relative to the root when inside it.
    fn stored(&self, path: &Path) -> PathBuf {
        path.strip_prefix(&self.root)
            .map(Path::to_owned)
            .unwrap_or_else(|_| path.to_owned())
    }

    fn resolve(&self, stored: &Path) -> PathBuf {
        if stored.is_absolute() {
            stored.to_owned()
        } else {
            self.root.join(stored)
        }
    }

    /// Entry ids, oldest first.
    fn ids(&self) -> Result<Vec<u64>, CoderError> {
        let read = match fs::read_dir(&self.dir) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(CoderError::io(&self.dir, e)),
        };
        let mut ids: Vec<u64> = read
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse().ok()))
            .collect();
        ids.sort_unstable();
        Ok(ids)
    }

    fn entry_dir(&self, id: u64) -> PathBuf {
        self.dir.join(format!("{id:012}"))
    }

    /// Records a change set before it is written; returns the entry's id.
    pub fn record(&self, description: &str, changes: &[Pending<'_>]) -> Result<u64, CoderError> {
        self.ensure_dirs()?;
        let tmp = tempfile::Builder::new()
            .prefix(".entry-")
            .tempdir_in(&self.dir)
            .map_err(|e| CoderError::io(&self.dir, e))?;
        let mut files = Vec::with_capacity(changes.len());
        for (i, c) in changes.iter().enumerate() {
            let old_blob = match c.old {
                Some(old) => {
                    let name = format!("{i}.old");
                    let blob = tmp.path().join(&name);
                    fs::write(&blob, old).map_err(|e| CoderError::io(&blob, e))?;
                    Some(name)
                }
                None => None,
            };
            files.push(JournalFile {
                path: self.stored(c.path),
                existed: c.old.is_some(),
                new_hash: hash(c.new),
                old_blob,
                deleted: c.deleted,
            });
        }
        let mut id = self.ids()?.last().map_or(1, |l| l + 1);
        let mut entry = JournalEntry {
            id,
            time: now(),
            description: description.to_owned(),
            files,
        };
        let tmp_path = tmp.keep();
        loop {
            entry.id = id;
            let json = serde_json::to_vec_pretty(&entry)
                .map_err(|e| self.journal_error(&tmp_path, e.to_string()))?;
            let meta = tmp_path.join("entry.json");
            fs::write(&meta, json).map_err(|e| CoderError::io(&meta, e))?;
            // Blobs are flushed before the entry becomes visible.
            if let Ok(read) = fs::read_dir(&tmp_path) {
                for f in read.filter_map(Result::ok) {
                    if let Ok(file) = fs::File::open(f.path()) {
                        let _ = file.sync_all();
                    }
                }
            }
            match fs::rename(&tmp_path, self.entry_dir(id)) {
                Ok(()) => break,
                Err(_) if self.entry_dir(id).exists() && id < u64::MAX => id += 1, // another writer took it
                Err(e) => {
                    let _ = fs::remove_dir_all(&tmp_path);
                    return Err(CoderError::io(self.entry_dir(id), e));
                }
            }
        }
        sync_dir(&self.dir);
        self.prune()?;
        Ok(id)
    }

    fn prune(&self) -> Result<(), CoderError> {
        let ids = self.ids()?;
        if ids.len() > KEEP {
            for id in &ids[..ids.len() - KEEP] {
                let _ = fs::remove_dir_all(self.entry_dir(*id));
            }
        }
        Ok(())
    }

    /// Forgets an entry (a change set whose writes failed and were rolled back).
    pub fn discard(&self, id: u64) {
        let _ = fs::remove_dir_all(self.entry_dir(id));
    }

    fn load(&self, id: u64) -> Result<JournalEntry, CoderError> {
        let meta = self.entry_dir(id).join("entry.json");
        let bytes = fs::read(&meta).map_err(|e| CoderError::io(&meta, e))?;
        serde_json::from_slice(&bytes).map_err(|e| {
            self.journal_error(
                &meta,
                format!("unreadable entry ({e}); delete the folder to drop it"),
            )
        })
    }

    /// Entries, newest first.
    pub fn list(&self) -> Result<Vec<JournalEntry>, CoderError> {
        self.ids()?
            .into_iter()
            .rev()
            .map(|id| self.load(id))
            .collect()
    }

    /// Restores the newest entry's files and removes it. Refuses (changing nothing) when a
    /// file was changed after the entry wrote it, unless `force`.
    pub fn undo_last(&self, force: bool) -> Result<Option<JournalEntry>, CoderError> {
        let Some(&id) = self.ids()?.last() else {
            return Ok(None);
        };
        let entry = self.load(id)?;
        let dir = self.entry_dir(id);
        let mut restores: Vec<(PathBuf, Option<Vec<u8>>)> = Vec::new();
        for f in &entry.files {
            let path = self.resolve(&f.path);
            let old = match &f.old_blob {
                Some(blob) => {
                    let blob = dir.join(blob);
                    Some(fs::read(&blob).map_err(|e| CoderError::io(&blob, e))?)
                }
                None => None,
            };
            let current = read_optional(&path)?;
            let as_written = if f.deleted {
                current.is_none()
            } else {
                current.as_deref().map(hash).as_deref() == Some(f.new_hash.as_str())
            };
            let already = current == old;
            if !as_written && !already && !force {
                return Err(CoderError::Undo(format!(
                    "{} changed after change set {id} wrote it; undoing would lose those \
                     changes (use --force to undo anyway)",
                    path.display()
                )));
            }
            if !already {
                restores.push((path, old));
            }
        }
        for (path, old) in restores {
            match old {
                Some(bytes) => write_atomic(&path, &bytes)?,
                None => remove_if_exists(&path)?,
            }
        }
        fs::remove_dir_all(&dir).map_err(|e| CoderError::io(&dir, e))?;
        Ok(Some(entry))
    }
}
