use std::path::Path;

use crate::{ConfinementError, WriteScope};

const REASON: &str = "CAST confines commands on Linux only so far (Landlock and seccomp); macOS (Seatbelt) is the next step";

pub(crate) fn probe() -> Result<(), String> {
    Err(REASON.to_owned())
}

pub(crate) fn user_namespaces_allowed() -> bool {
    false
}

pub(crate) fn confine(_: WriteScope, _: &Path, _: &Path) -> Result<(), ConfinementError> {
    Err(ConfinementError::Confine {
        step: "platform",
        reason: REASON.to_owned(),
    })
}
