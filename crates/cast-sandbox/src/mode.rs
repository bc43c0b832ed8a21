//! The sandbox modes a person chooses between.

use std::fmt;
use std::str::FromStr;

use crate::ConfinementError;

/// How much a command CAST runs for the model may do. Reading the whole file system is allowed
/// in every mode (as in Codex); the modes differ in where the command may write and whether it
/// may use the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SandboxMode {
    /// Writes nowhere but the command's private temporary folder (`$TMPDIR`); no network.
    ReadOnly,
    /// Writes inside the workspace root (never into its `.git/` or `.cast/`) and the private
    /// temporary folder; no network. The default.
    #[default]
    WorkspaceWrite,
    /// No confinement at all: the command can do whatever the user can. Named so that it is
    /// chosen knowingly.
    DangerFullAccess,
}

impl SandboxMode {
    /// Every mode, in order of increasing freedom.
    pub const ALL: [SandboxMode; 3] = [
        SandboxMode::ReadOnly,
        SandboxMode::WorkspaceWrite,
        SandboxMode::DangerFullAccess,
    ];

    /// The name used by flags, the environment and config files.
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::ReadOnly => "read-only",
            SandboxMode::WorkspaceWrite => "workspace-write",
            SandboxMode::DangerFullAccess => "danger-full-access",
        }
    }

    /// Whether commands run confined in this mode.
    pub fn confines(self) -> bool {
        self != SandboxMode::DangerFullAccess
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SandboxMode {
    type Err = ConfinementError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        SandboxMode::ALL
            .into_iter()
            .find(|m| m.as_str() == s.trim())
            .ok_or_else(|| ConfinementError::UnknownMode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_typos_are_refused() {
        for mode in SandboxMode::ALL {
            assert_eq!(mode.as_str().parse::<SandboxMode>().unwrap(), mode);
        }
        let err = "off".parse::<SandboxMode>().unwrap_err().to_string();
        assert!(err.contains("danger-full-access"), "{err}");
        assert_eq!(SandboxMode::default(), SandboxMode::WorkspaceWrite);
    }
}
