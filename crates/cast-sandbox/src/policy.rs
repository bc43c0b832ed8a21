//! The policy a command runs under, and the [`std::process::Command`] that carries it out.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;

use cast_workspace::{STATE_DIR, StateDir};

use crate::{ConfinementError, SandboxMode, WriteScope, platform};

/// The program that confines itself and then runs the command: any binary whose `main` hands
/// its arguments to [`crate::confine_and_exec`] when it sees [`Helper::args`] first. `cast`
/// uses the small `cast-sandbox` installed beside it (or itself, `cast __sandbox-exec …`); this
/// crate's `cast-sandbox-helper` binary is a standalone one for programs that embed cast-tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Helper {
    pub program: PathBuf,
    /// Arguments put before the helper protocol's own (e.g. a hidden subcommand's name).
    pub args: Vec<OsString>,
}

impl Helper {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Helper {
            program: program.into(),
            args: Vec::new(),
        }
    }

    /// Adds an argument in front of the protocol's (a subcommand that dispatches to the helper).
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }
}

/// For tests: pretend this system lacks a feature the sandbox uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simulate {
    /// The kernel offers no Landlock: every confined mode refuses to run commands.
    NoLandlock,
    /// User namespaces are not available: `workspace-write` falls back to
    /// [`WriteScope::WorkspaceFolders`].
    NoUserNamespaces,
}

impl FromStr for Simulate {
    type Err = ConfinementError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "no-landlock" => Ok(Simulate::NoLandlock),
            "no-userns" => Ok(Simulate::NoUserNamespaces),
            other => Err(ConfinementError::UnknownSimulation(other.to_owned())),
        }
    }
}

/// How every command CAST runs for a model is confined.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sandbox {
    pub mode: SandboxMode,
    /// Who confines the command; without one, confined modes refuse to run anything.
    pub helper: Option<Helper>,
    pub simulate: Option<Simulate>,
}

/// A command ready to spawn, and the private temporary folder it writes in, which is removed
/// when this is dropped: keep it until the command has ended.
#[derive(Debug)]
pub struct SandboxedCommand {
    pub command: Command,
    /// Where the command may write (`None`: anywhere, no sandbox).
    pub scope: Option<WriteScope>,
    temp: Option<tempfile::TempDir>,
}

impl SandboxedCommand {
    /// The command's private temporary folder (its `TMPDIR`), when it has one.
    pub fn temp_dir(&self) -> Option<&Path> {
        self.temp.as_ref().map(|t| t.path())
    }
}

/// The names a confined command may never write, relative to the workspace root: Git's
/// database (its hooks run outside any sandbox) and CAST's state (its config chooses the mode).
pub const PROTECTED: [&str; 2] = [".git", STATE_DIR];

impl Sandbox {
    /// A policy in `mode`, confined by `helper`.
    pub fn new(mode: SandboxMode, helper: Option<Helper>) -> Self {
        Sandbox {
            mode,
            helper,
            simulate: None,
        }
    }

    /// No confinement (the user chose it).
    pub fn danger_full_access() -> Self {
        Sandbox::new(SandboxMode::DangerFullAccess, None)
    }

    /// Where a command would be allowed to write, or why this system cannot confine it. Cheap
    /// (a few system calls): the kernel is asked every time, so nothing stale is trusted.
    pub fn check(&self) -> Result<Option<WriteScope>, ConfinementError> {
        if !self.mode.confines() {
            return Ok(None);
        }
        let unsupported = |reason: String| ConfinementError::Unsupported {
            mode: self.mode,
            reason,
        };
        if self.simulate == Some(Simulate::NoLandlock) {
            return Err(unsupported(
                "the kernel does not offer Landlock (simulated: CAST_SANDBOX_SIMULATE=no-landlock)"
                    .to_owned(),
            ));
        }
        platform::probe().map_err(unsupported)?;
        if self.helper.is_none() {
            return Err(ConfinementError::NoHelper { mode: self.mode });
        }
        Ok(Some(match self.mode {
            SandboxMode::ReadOnly => WriteScope::TempOnly,
            _ if self.simulate != Some(Simulate::NoUserNamespaces)
                && platform::user_namespaces_allowed() =>
            {
                WriteScope::Workspace
            }
            _ => WriteScope::WorkspaceFolders,
        }))
    }

    /// The command that runs `program args…` in `root` under this policy: through the helper
    /// with a fresh private temporary folder as `TMPDIR` (confined modes), or directly (off).
    /// `root/.cast/` is created when missing, so that it exists to be protected.
    pub fn command(
        &self,
        root: &Path,
        program: impl AsRef<OsStr>,
        args: impl IntoIterator<Item = impl AsRef<OsStr>>,
    ) -> Result<SandboxedCommand, ConfinementError> {
        let scope = self.check()?;
        let (Some(scope), Some(helper)) = (scope, &self.helper) else {
            let mut command = Command::new(program);
            command.args(args).current_dir(root);
            return Ok(SandboxedCommand {
                command,
                scope: None,
                temp: None,
            });
        };
        if scope != WriteScope::TempOnly {
            // Best effort: a root where it cannot be made is one the command cannot write either.
            let _ = StateDir::of(root).ensure();
        }
        let parent = std::env::temp_dir();
        let temp = tempfile::Builder::new()
            .prefix("cast-cmd-")
            .tempdir_in(&parent)
            .map_err(|source| ConfinementError::TempDir {
                dir: parent,
                source,
            })?;
        let mut command = Command::new(&helper.program);
        command
            .args(&helper.args)
            .arg("--scope")
            .arg(scope.as_str())
            .arg("--root")
            .arg(root)
            .arg("--temp")
            .arg(temp.path())
            .arg("--")
            .arg(program)
            .args(args)
            .current_dir(root);
        for var in ["TMPDIR", "TMP", "TEMP"] {
            command.env(var, temp.path());
        }
        Ok(SandboxedCommand {
            command,
            scope: Some(scope),
            temp: Some(temp),
        })
    }
}

/// What the OS says when the sandbox stops something (Landlock: EACCES; seccomp: EPERM; the
/// read-only mounts: EROFS), as the C library and the usual runtimes print it.
const DENIAL_WORDS: [&str; 3] = [
    "permission denied",
    "operation not permitted",
    "read-only file system",
];

/// The line added to a confined command's result when its output shows a denial the sandbox
/// may have caused, so that a model knows why and stops retrying the same thing.
pub fn denial_note(mode: SandboxMode, scope: Option<WriteScope>, output: &str) -> Option<String> {
    let scope = scope?;
    let lower = output.to_ascii_lowercase();
    if !DENIAL_WORDS.iter().any(|w| lower.contains(w)) {
        return None;
    }
    let writes = match scope {
        WriteScope::TempOnly => "nowhere but $TMPDIR".to_owned(),
        WriteScope::Workspace => "only inside the workspace (never into .git/ or .cast/) and $TMPDIR".to_owned(),
        WriteScope::WorkspaceFolders => "only into existing files and folders of the workspace (not .git/ or .cast/; new entries directly in the workspace root cannot be made here, as user namespaces are unavailable) and $TMPDIR".to_owned(),
    };
    Some(format!(
        "[sandbox {mode}: the command may write {writes} and may not open network sockets; the denial above most likely comes from the sandbox, so do not retry it unchanged]"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_the_mode_only_when_something_was_denied() {
        let scope = Some(WriteScope::Workspace);
        let mode = SandboxMode::WorkspaceWrite;
        assert_eq!(denial_note(mode, scope, "all fine\n"), None);
        let note = denial_note(mode, scope, "sh: 1: cannot create /x: Permission denied").unwrap();
        assert!(note.starts_with("[sandbox workspace-write:"), "{note}");
        assert!(denial_note(SandboxMode::DangerFullAccess, None, "Permission denied").is_none());
    }

    #[test]
    fn no_helper_means_no_command_in_a_confined_mode() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::new(SandboxMode::WorkspaceWrite, None);
        let err = sandbox.command(dir.path(), "true", [""; 0]).unwrap_err();
        assert!(
            matches!(
                err,
                ConfinementError::NoHelper { .. } | ConfinementError::Unsupported { .. }
            ),
            "{err}"
        );
    }

    #[test]
    fn off_runs_the_program_directly() {
        let dir = tempfile::tempdir().unwrap();
        let cmd = Sandbox::danger_full_access()
            .command(dir.path(), "true", [""; 0])
            .unwrap();
        assert_eq!(cmd.command.get_program(), "true");
        assert_eq!((cmd.scope, cmd.temp_dir()), (None, None));
    }

    #[test]
    fn a_simulated_kernel_without_landlock_refuses_with_how_to_choose_off() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox {
            mode: SandboxMode::WorkspaceWrite,
            helper: Some(Helper::new("/bin/false")),
            simulate: Some(Simulate::NoLandlock),
        };
        let err = sandbox
            .command(dir.path(), "true", [""; 0])
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not offer Landlock"), "{err}");
        assert!(err.contains("--sandbox danger-full-access"), "{err}");
    }
}
