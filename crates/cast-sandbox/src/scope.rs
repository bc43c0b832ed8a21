//! Where a confined command may write: what the helper is told, decided by the spawning side.

use std::fmt;
use std::str::FromStr;

use crate::ConfinementError;

/// The folders a confined command may write in, besides its private temporary folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteScope {
    /// Only the private temporary folder (`read-only` mode).
    TempOnly,
    /// The whole workspace root; its `.git/` and `.cast/` are mounted read-only in a private
    /// mount namespace (`workspace-write` where user namespaces are available).
    Workspace,
    /// Every existing entry of the workspace root except `.git` and `.cast`, each granted on its
    /// own: the fallback of `workspace-write` where user namespaces are not available. Landlock
    /// only grants, and a grant on the root folder would reach into `.git/` too, so new
    /// entries directly in the root cannot be created or removed in this scope.
    WorkspaceFolders,
}

impl WriteScope {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WriteScope::TempOnly => "temp-only",
            WriteScope::Workspace => "workspace",
            WriteScope::WorkspaceFolders => "workspace-folders",
        }
    }
}

impl fmt::Display for WriteScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for WriteScope {
    type Err = ConfinementError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            WriteScope::TempOnly,
            WriteScope::Workspace,
            WriteScope::WorkspaceFolders,
        ]
        .into_iter()
        .find(|w| w.as_str() == s)
        .ok_or_else(|| ConfinementError::HelperArgs(format!("unknown write scope {s:?}")))
    }
}
