//! The workspace sandbox: every path a tool touches is resolved inside the workspace root.
//!
//! Rules, applied to every path a tool receives:
//! - a NUL byte is refused;
//! - a relative path is taken from the root; an absolute path must already lie inside the root;
//! - `.` and `..` are resolved lexically, and a path whose `..` climbs above the root is refused;
//! - symbolic links are resolved (the longest existing prefix is canonicalized) and the real
//!   location must still be inside the root, so a link pointing outside is refused, for reads too;
//! - writes (edits, deletes) into `.git/` or into CAST's own `.cast/` folder are refused;
//! - nothing outside the root is read, written or deleted.
//!
//! What the sandbox cannot do: another process swapping a checked folder for a symbolic link
//! between the check and the use (a time-of-check race). CAST's own writes go through a temporary
//! file and a rename inside the checked folder.

use std::path::{Component, Path, PathBuf};

/// Why a path was refused. The message names the path and the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    #[error("path {path:?} contains a NUL byte")]
    NulByte { path: String },
    #[error("path {path:?} is empty; give a path relative to the workspace root")]
    Empty { path: String },
    #[error(
        "path {path:?} is outside the workspace {root}; use a path relative to the workspace root"
    )]
    OutsideRoot { path: String, root: String },
    #[error(
        "path {path:?} climbs above the workspace root with `..`; use a path inside the workspace"
    )]
    Escapes { path: String },
    #[error(
        "path {path:?} leads through a symbolic link to {target}, outside the workspace; only files inside the workspace can be used"
    )]
    SymlinkEscapes { path: String, target: String },
    #[error("path {path:?} is inside `{folder}/`, which tools may not modify")]
    Protected { path: String, folder: &'static str },
    #[error("the workspace root {root} cannot be used: {reason}")]
    BadRoot { root: String, reason: String },
}

/// Whether a path is going to be read or modified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// A path that passed the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// Relative to the root, with forward slashes (empty for the root itself).
    pub rel: String,
    /// Root joined with the normalized relative path, symbolic links not resolved. Use it to
    /// delete a link itself rather than its target.
    pub lexical: PathBuf,
    /// The real location, symbolic links resolved (for a path that does not exist yet, its real
    /// parent joined with the rest). Use it to read and write.
    pub real: PathBuf,
}

/// A workspace root that tools are confined to.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

/// Folders tools may read but never modify: Git's database and CAST's own state.
const PROTECTED: [&str; 2] = [".git", ".cast"];

impl Workspace {
    /// Opens a workspace at `root`, which must be an existing folder.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, SandboxError> {
        let given = root.as_ref();
        let bad = |reason: String| SandboxError::BadRoot {
            root: given.display().to_string(),
            reason,
        };
        let root = given.canonicalize().map_err(|e| bad(e.to_string()))?;
        if !root.is_dir() {
            return Err(bad("it is not a folder".to_owned()));
        }
        Ok(Workspace { root })
    }

    /// The canonical root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path given by a model or a user. An empty path or `.` is the root.
    pub fn resolve(&self, path: &str, access: Access) -> Result<ResolvedPath, SandboxError> {
        let shown = || path.to_owned();
        if path.contains('\0') {
            return Err(SandboxError::NulByte { path: shown() });
        }
        let given = Path::new(path);
        let relative: PathBuf = if given.is_absolute() {
            match given.strip_prefix(&self.root) {
                Ok(rel) => rel.to_path_buf(),
                Err(_) => {
                    // The root may have been given through a link (e.g. /tmp → /private/tmp):
                    // accept an absolute path whose canonical form is inside.
                    let canonical = canonicalize_existing_prefix(given);
                    match canonical.strip_prefix(&self.root) {
                        Ok(rel) => rel.to_path_buf(),
                        Err(_) => {
                            return Err(SandboxError::OutsideRoot {
                                path: shown(),
                                root: self.root.display().to_string(),
                            });
                        }
                    }
                }
            }
        } else {
            given.to_path_buf()
        };
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        for component in relative.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(SandboxError::Escapes { path: shown() });
                    }
                }
                Component::Normal(part) => parts.push(part),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(SandboxError::OutsideRoot {
                        path: shown(),
                        root: self.root.display().to_string(),
                    });
                }
            }
        }
        let lexical = parts.iter().fold(self.root.clone(), |acc, p| acc.join(p));
        let real = canonicalize_existing_prefix(&lexical);
        let Ok(real_rel) = real.strip_prefix(&self.root) else {
            return Err(SandboxError::SymlinkEscapes {
                path: shown(),
                target: real.display().to_string(),
            });
        };
        if access == Access::Write {
            let lexical_rel = lexical.strip_prefix(&self.root).unwrap_or(Path::new(""));
            for rel in [real_rel, lexical_rel] {
                if let Some(folder) = rel.components().find_map(|c| match c {
                    Component::Normal(name) => PROTECTED.iter().find(|p| name == **p).copied(),
                    _ => None,
                }) {
                    return Err(SandboxError::Protected {
                        path: shown(),
                        folder,
                    });
                }
            }
        }
        let rel = parts
            .iter()
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        Ok(ResolvedPath { rel, lexical, real })
    }

    /// A path under the root shown relative to it (forward slashes), for messages and results.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_owned(),
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => path.display().to_string(),
        }
    }
}

/// Canonicalizes the longest prefix of `path` that exists and appends the rest unchanged. The
/// rest cannot hold links (it does not exist) nor `..` (callers normalize first).
fn canonicalize_existing_prefix(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        // `symlink_metadata` sees a dangling link as existing; `canonicalize` then fails on it,
        // and the link is resolved by hand below.
        if existing.symlink_metadata().is_ok() {
            match existing.canonicalize() {
                Ok(canonical) => {
                    return rest
                        .iter()
                        .rev()
                        .fold(canonical, |acc, p: &std::ffi::OsString| acc.join(p));
                }
                Err(_) => {
                    if let Ok(target) = std::fs::read_link(&existing) {
                        // A dangling (or looping) link: judge it by where it points.
                        let base = existing.parent().map(Path::to_path_buf).unwrap_or_default();
                        let pointed = if target.is_absolute() {
                            target
                        } else {
                            base.join(target)
                        };
                        let normalized = normalize_lexically(&pointed);
                        return rest.iter().rev().fold(normalized, |acc, p| acc.join(p));
                    }
                }
            }
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root/src")).unwrap();
        std::fs::write(dir.path().join("root/src/a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "secret\n").unwrap();
        let ws = Workspace::new(dir.path().join("root")).unwrap();
        (dir, ws)
    }

    #[test]
    fn inside_paths_resolve() {
        let (_dir, ws) = workspace();
        for (given, rel) in [
            ("src/a.py", "src/a.py"),
            ("./src/../src/a.py", "src/a.py"),
            ("", ""),
            (".", ""),
            ("new/file.py", "new/file.py"),
        ] {
            let resolved = ws.resolve(given, Access::Read).unwrap();
            assert_eq!(resolved.rel, rel, "{given}");
            assert!(resolved.real.starts_with(ws.root()));
        }
        let abs = ws.root().join("src/a.py");
        assert_eq!(
            ws.resolve(abs.to_str().unwrap(), Access::Write)
                .unwrap()
                .rel,
            "src/a.py"
        );
    }

    #[test]
    fn escapes_are_refused() {
        let (dir, ws) = workspace();
        assert!(matches!(
            ws.resolve("../secret.txt", Access::Read),
            Err(SandboxError::Escapes { .. })
        ));
        assert!(matches!(
            ws.resolve("src/../../secret.txt", Access::Read),
            Err(SandboxError::Escapes { .. })
        ));
        let outside = dir.path().join("secret.txt");
        assert!(matches!(
            ws.resolve(outside.to_str().unwrap(), Access::Read),
            Err(SandboxError::OutsideRoot { .. })
        ));
        assert!(matches!(
            ws.resolve("a\0b", Access::Read),
            Err(SandboxError::NulByte { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_root_are_refused() {
        let (dir, ws) = workspace();
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), ws.root().join("link")).unwrap();
        std::os::unix::fs::symlink(dir.path(), ws.root().join("up")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("missing"), ws.root().join("dangling")).unwrap();
        for path in [
            "link",
            "up/secret.txt",
            "up/new.txt",
            "dangling",
            "dangling/x",
        ] {
            let err = ws.resolve(path, Access::Read).unwrap_err();
            assert!(
                matches!(err, SandboxError::SymlinkEscapes { .. }),
                "{path}: {err}"
            );
        }
    }

    #[test]
    fn writes_into_git_and_cast_are_refused() {
        let (_dir, ws) = workspace();
        for path in [".git/config", ".cast/index.sqlite", "sub/.git/HEAD"] {
            assert!(ws.resolve(path, Access::Read).is_ok());
            let err = ws.resolve(path, Access::Write).unwrap_err();
            assert!(
                matches!(err, SandboxError::Protected { .. }),
                "{path}: {err}"
            );
        }
    }
}
