//! Trees made old enough for the index's watch of a walk.

use std::path::Path;
use std::time::{Duration, SystemTime};

/// Sets the mtime of `path` and of everything under it an hour back, so that a walk of it is
/// not too close to a change to be watched (see `cast_workspace::RACY_MARGIN`). Links are not
/// followed or touched, and an index's `.cast/` folder is left as it is.
///
/// # Panics
/// When a file or folder cannot be read or changed: a test's own tree always can.
#[allow(clippy::unwrap_used)]
pub fn age_tree(path: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    if path.is_symlink() || path.file_name().is_some_and(|n| n == ".cast") {
        return;
    }
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            age_tree(&entry.unwrap().path());
        }
    }
    std::fs::File::open(path)
        .unwrap()
        .set_modified(old)
        .unwrap();
}
