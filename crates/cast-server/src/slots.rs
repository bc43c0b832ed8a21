//! The cap on servers that commands start: [`STARTED_SERVERS`] slots per user, one lock file
//! each, and beside each the tree of the server holding it (for `--status --all`).

use std::path::{Path, PathBuf};

/// How many servers started by commands may run for a user at once: each holds an inotify
/// instance (128 a user by default, shared with editors' file watchers), a watch per folder
/// and its own memory (64 MB for the stdlib with site-packages).
pub const STARTED_SERVERS: usize = 8;

/// Where the servers that commands start hold their slots (one lock file each):
/// `$XDG_RUNTIME_DIR/cast/servers`, else the same under `$XDG_CACHE_HOME` or `~/.cache`.
pub(crate) fn slot_dir() -> Option<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = var("XDG_RUNTIME_DIR")
        .or_else(|| var("XDG_CACHE_HOME"))
        .or_else(|| var("HOME").map(|home| home.join(".cache")))?;
    Some(base.join("cast").join("servers"))
}

pub(crate) fn slot_path(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("slot-{n}.lock"))
}

/// The file beside slot `n`'s lock that names the tree of the server holding it (for
/// `--status --all` and `--stop --all`); a free slot's is stale and not read.
pub(crate) fn slot_root_path(dir: &Path, n: usize) -> PathBuf {
    dir.join(format!("slot-{n}.root"))
}

/// Whether a server started now could take one of the user's slots: at the cap, none is
/// started (it would only fail).
pub(crate) fn slot_free() -> bool {
    let Some(dir) = slot_dir() else {
        return true;
    };
    (0..STARTED_SERVERS).any(|n| match std::fs::File::open(slot_path(&dir, n)) {
        Ok(slot) => slot.try_lock().is_ok(),
        Err(err) => err.kind() == std::io::ErrorKind::NotFound,
    })
}

/// Whether a process holds the lock file at `path`. flock has no test: a free lock is taken
/// here and let go at once (the file is closed), and a server tries its locks for longer.
pub(crate) fn held(path: &Path) -> bool {
    std::fs::File::open(path)
        .is_ok_and(|lock| matches!(lock.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
}

/// A server that a command started, as its slot names it: its process id and tree (`None`
/// when the slot names none, as a server of a build from before `--all` does not).
pub(crate) struct Started {
    pub pid: Option<u32>,
    pub root: Option<PathBuf>,
}

/// The servers that commands started for this user: one per held slot (see [`slot_dir`]; in
/// this environment's runtime or cache folder, so a server started where it differs, from an
/// editor or a cron job, is not among them).
#[cfg(unix)]
pub(crate) fn started_servers() -> Vec<Started> {
    use std::os::unix::ffi::OsStringExt;
    let Some(dir) = slot_dir() else {
        return Vec::new();
    };
    (0..STARTED_SERVERS)
        .filter(|&n| held(&slot_path(&dir, n)))
        .map(|n| {
            let text = std::fs::read(slot_root_path(&dir, n)).unwrap_or_default();
            let (pid, root) = match text.iter().position(|&b| b == b'\n') {
                Some(at) => (&text[..at], &text[at + 1..]),
                None => (&text[..0], &text[..0]),
            };
            Started {
                pid: std::str::from_utf8(pid).ok().and_then(|p| p.parse().ok()),
                root: (!root.is_empty())
                    .then(|| PathBuf::from(std::ffi::OsString::from_vec(root.to_vec()))),
            }
        })
        .collect()
}

#[cfg(not(unix))]
pub(crate) fn started_servers() -> Vec<Started> {
    Vec::new()
}

/// One of the user's [`STARTED_SERVERS`] slots, held (locked) while the server runs; the file
/// naming the server beside it is removed when the server ends.
pub(crate) struct Slot {
    _lock: std::fs::File,
    named: PathBuf,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.named);
    }
}

/// Takes one of the user's [`STARTED_SERVERS`] slots ([`slot_dir`]), and names this server
/// beside it ([`slot_root_path`]: its process id, then `root`). Without a folder for them
/// there is no count.
#[cfg(unix)]
pub(crate) fn take_slot(root: &Path) -> Result<Option<Slot>, crate::ServerError> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::DirBuilderExt;
    let Some(dir) = slot_dir() else {
        return Ok(None);
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(crate::ServerError::io(format!(
            "cannot make {}",
            dir.display()
        )))?;
    for n in 0..STARTED_SERVERS {
        let path = slot_path(&dir, n);
        // Read only when it exists: a slot another user made (`sudo cast …`) still locks.
        let slot = std::fs::File::open(&path).or_else(|_| {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
        });
        if let Ok(slot) = slot
            && try_lock_a_while(&slot).is_ok()
        {
            // Only for `--status --all` and `--stop --all`, which check the process id against
            // the server's own before they trust it; a slot whose server cannot be written down
            // still counts. Written aside and renamed, so a listing never reads half of it.
            let named = slot_root_path(&dir, n);
            let mut text = format!("{}\n", std::process::id()).into_bytes();
            text.extend_from_slice(root.as_os_str().as_bytes());
            let aside = dir.join(format!("slot-{n}.root.{}", std::process::id()));
            if std::fs::write(&aside, text).is_err() || std::fs::rename(&aside, &named).is_err() {
                let _ = std::fs::remove_file(&aside);
            }
            return Ok(Some(Slot { _lock: slot, named }));
        }
    }
    Err(crate::ServerError::SlotsTaken {
        max: STARTED_SERVERS,
        dir,
    })
}

/// Tries to lock `file` for a tenth of a second: a command that checks whether a lock is held
/// takes it for an instant (flock has no test), which must not turn a server away.
pub(crate) fn try_lock_a_while(file: &std::fs::File) -> Result<(), std::fs::TryLockError> {
    let start = std::time::Instant::now();
    loop {
        match file.try_lock() {
            Err(std::fs::TryLockError::WouldBlock)
                if start.elapsed() < std::time::Duration::from_millis(100) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            done => return done,
        }
    }
}
