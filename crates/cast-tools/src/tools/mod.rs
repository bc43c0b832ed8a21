//! The tools, one module per concern.

mod command;
mod finish;

pub use command::{CommandResult, RunCommand, RunCommandParams, run_shell};
pub use finish::{Finish, FinishParams};

use crate::Registry;

/// Which optional tools a registry holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct RegistryOptions {
    /// Include `run_command` (off by default: a command can do anything the user can).
    pub commands: bool,
}

impl Registry {
    /// CAST's tool set: Cursor's tools (`read_file`, `edit_file`, `delete_file`, `grep_search`,
    /// `list_dir`, `finish`) and CAST's own, plus `run_command` when enabled.
    pub fn standard(options: RegistryOptions) -> Registry {
        let mut registry = Registry::empty();
        registry.register(Box::new(Finish));
        if options.commands {
            registry.register(Box::new(RunCommand));
        }
        registry
    }
}
