//! The tools, one module per concern: reading and searching ([`search`]), understanding
//! ([`analyze`]), editing ([`edit`]), and the agent's own ([`finish`], [`command`]).

mod analyze;
mod command;
mod edit;
mod finish;
mod search;

pub use analyze::{
    AnalyzeRepository, AnalyzeRepositoryParams, FindSymbol, FindSymbolParams, GetSkeleton,
    GetSkeletonParams, ShowSymbol, ShowSymbolParams, trace_map,
};
pub use command::{CommandResult, RunCommand, RunCommandParams, run_shell};
pub use edit::{
    ApplyOps, ApplyOpsParams, ApplyPatch, ApplyPatchParams, DeleteFile, DeleteFileParams, EditFile,
    EditFileParams, FILE_EDITS, OpParam, SearchReplace, SearchReplaceParams, UndoEdit,
    UndoEditParams, apply_file_edits,
};
pub use finish::{Finish, FinishParams};
pub use search::{
    FileSearch, FileSearchParams, GlobSearch, GlobSearchParams, GrepSearch, GrepSearchParams,
    ListDir, ListDirParams, ReadFile, ReadFileParams,
};

use crate::Registry;

/// The name of the command tool, offered only with `RegistryOptions::commands`.
pub(crate) const RUN_COMMAND: &str = "run_command";

/// Which optional tools a registry holds.
#[derive(Debug, Clone, Copy, Default)]
pub struct RegistryOptions {
    /// Include `run_command` (off by default: a command can do anything the user can).
    pub commands: bool,
}

impl Registry {
    /// CAST's tool set: Cursor's tools (`read_file`, `edit_file`, `delete_file`, `grep_search`,
    /// `list_dir`, `finish`), then CAST's own, plus `run_command` when enabled.
    pub fn standard(options: RegistryOptions) -> Registry {
        let mut registry = Registry::empty();
        registry.register(Box::new(ReadFile));
        registry.register(Box::new(EditFile));
        registry.register(Box::new(DeleteFile));
        registry.register(Box::new(GrepSearch));
        registry.register(Box::new(ListDir));
        registry.register(Box::new(Finish));
        registry.register(Box::new(GlobSearch));
        registry.register(Box::new(FileSearch));
        registry.register(Box::new(AnalyzeRepository));
        registry.register(Box::new(GetSkeleton));
        registry.register(Box::new(FindSymbol));
        registry.register(Box::new(ShowSymbol));
        registry.register(Box::new(SearchReplace));
        registry.register(Box::new(ApplyOps));
        registry.register(Box::new(ApplyPatch));
        registry.register(Box::new(UndoEdit));
        if options.commands {
            registry.register(Box::new(RunCommand));
        }
        registry
    }
}
