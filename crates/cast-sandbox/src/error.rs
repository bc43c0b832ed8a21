use std::path::PathBuf;

use crate::SandboxMode;

/// Why a command could not be run confined. Nothing was run in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum ConfinementError {
    /// This system cannot confine commands in the chosen mode (no Landlock, an old Landlock
    /// ABI, another operating system).
    #[error(
        "commands run confined by the sandbox (mode {mode}), and this system cannot confine them: {reason}. Nothing was run. To run commands with no confinement at all, choose that knowingly: --sandbox danger-full-access, CAST_SANDBOX=danger-full-access, or `[sandbox] mode = \"danger-full-access\"` in ~/.config/cast/config.toml"
    )]
    Unsupported { mode: SandboxMode, reason: String },
    /// No helper program was given to confine the command in.
    #[error(
        "commands run confined by the sandbox (mode {mode}), but no sandbox helper was set up, so nothing was run. A program that embeds cast-tools sets `Sandbox::helper` to a binary that calls `cast_sandbox::confine_and_exec` (the `cast` binary does this itself); or choose --sandbox danger-full-access knowingly"
    )]
    NoHelper { mode: SandboxMode },
    #[error("cannot create the command's private temporary folder in {dir}: {source}")]
    TempDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("unknown sandbox mode {0:?}: use read-only, workspace-write or danger-full-access")]
    UnknownMode(String),
    #[error("unknown sandbox simulation {0:?}: use no-landlock or no-userns")]
    UnknownSimulation(String),
    #[error("the sandbox helper was called with bad arguments: {0}")]
    HelperArgs(String),
    /// The helper could not confine itself; it did not run the command.
    #[error("the sandbox could not confine the command ({step}: {reason}), so it was not run")]
    Confine { step: &'static str, reason: String },
    /// The helper confined itself but the command could not be started.
    #[error("cannot run {program}: {source}")]
    Exec {
        program: String,
        source: std::io::Error,
    },
}
