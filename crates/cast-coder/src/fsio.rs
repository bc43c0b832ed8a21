//! Reading targets and writing them atomically.
//!
//! A write goes to a temporary file in the target's own folder, which gets the target's
//! permissions, is flushed to disk, and is then renamed over the target. A rename within one
//! file system is atomic: a reader (or a crash, or SIGKILL) sees the old bytes or the new ones,
//! never a mix, a truncated file, or no file. A symbolic link is followed, so the link stays a
//! link and its target changes.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::CoderError;

/// Reads a file, or `None` when it does not exist.
pub(crate) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, CoderError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CoderError::io(path, e)),
    }
}

/// Where the bytes of `path` really live: a symbolic link is followed.
fn real_path(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_owned())
        }
        _ => path.to_owned(),
    }
}

/// Writes `bytes` to `path` atomically (temporary file in the same folder, then rename),
/// keeping the target's permissions. Creates missing parent folders for a new file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CoderError> {
    let target = real_path(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_owned(),
        _ => PathBuf::from("."),
    };
    if !dir.exists() {
        fs::create_dir_all(&dir).map_err(|e| CoderError::io(&dir, e))?;
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_owned());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".cast-tmp")
        .tempfile_in(&dir)
        .map_err(|e| CoderError::io(&dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| CoderError::io(tmp.path(), e))?;
    if let Ok(meta) = fs::metadata(&target) {
        fs::set_permissions(tmp.path(), meta.permissions())
            .map_err(|e| CoderError::io(tmp.path(), e))?;
    }
    tmp.as_file()
        .sync_all()
        .map_err(|e| CoderError::io(tmp.path(), e))?;
    tmp.persist(&target)
        .map_err(|e| CoderError::io(&target, e.error))?;
    sync_dir(&dir);
    Ok(())
}

/// Flushes a folder's entries (the rename) to disk, where the platform allows it.
pub(crate) fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// Removes a file; a file already gone is fine.
pub(crate) fn remove_if_exists(path: &Path) -> Result<(), CoderError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CoderError::io(path, e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.sh");
        fs::write(&file, "old").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&file, fs::Permissions::from_mode(0o751)).unwrap();
        }
        write_atomic(&file, b"new").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"new");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                fs::metadata(&file).unwrap().permissions().mode() & 0o777,
                0o751
            );
        }
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_stays_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn new_files_get_their_folders() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x/y/z.txt");
        write_atomic(&file, b"hi").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"hi");
    }
}
