//! The `.cast/` folder in a workspace root: the index, the undo journal, sessions, traces and
//! memory live there. It holds a `.gitignore` of `*`, so git never sees CAST's state.

use std::io;
use std::path::{Path, PathBuf};

/// The name of the state folder inside a workspace root.
pub const STATE_DIR: &str = ".cast";

/// The state folder could not be created.
#[derive(Debug, thiserror::Error)]
#[error("cannot create CAST's state folder {}: {source}", path.display())]
pub struct StateDirError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// `ROOT/.cast/`. Creating it (or any folder inside it) also writes its `.gitignore`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateDir {
    path: PathBuf,
}

impl StateDir {
    /// The state folder of the workspace at `root` (nothing is created yet).
    pub fn of(root: &Path) -> StateDir {
        StateDir {
            path: root.join(STATE_DIR),
        }
    }

    /// Where the folder is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `ROOT/.cast/NAME` (nothing is created).
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.path.join(name)
    }

    /// Creates the folder and its `.gitignore` when missing; returns its path.
    pub fn ensure(&self) -> Result<&Path, StateDirError> {
        let err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| StateDirError { path, source }
        };
        std::fs::create_dir_all(&self.path).map_err(err(&self.path))?;
        let ignore = self.path.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(&ignore, "*\n").map_err(err(&ignore))?;
        }
        Ok(&self.path)
    }

    /// Creates `ROOT/.cast/NAME/` (and the state folder itself) when missing; returns its path.
    pub fn ensure_subdir(&self, name: &str) -> Result<PathBuf, StateDirError> {
        self.ensure()?;
        let dir = self.path.join(name);
        std::fs::create_dir_all(&dir).map_err(|source| StateDirError {
            path: dir.clone(),
            source,
        })?;
        Ok(dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ensure_creates_the_folder_with_a_gitignore_of_everything() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::of(dir.path());
        assert!(!state.path().exists());
        let undo = state.ensure_subdir("undo").unwrap();
        assert!(undo.is_dir());
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".cast/.gitignore")).unwrap(),
            "*\n"
        );
        // A second call keeps what is there.
        std::fs::write(dir.path().join(".cast/.gitignore"), "*\n# mine\n").unwrap();
        state.ensure().unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join(".cast/.gitignore")).unwrap(),
            "*\n# mine\n"
        );
    }

    #[test]
    fn a_root_that_is_a_file_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let err = StateDir::of(&file).ensure().unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot create CAST's state folder"),
            "{err}"
        );
    }
}
