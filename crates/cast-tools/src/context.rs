//! The state a tool call runs with: the sandboxed workspace and the caller's policy.

use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::{SandboxError, Workspace};

/// Whether edit tools may change files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EditMode {
    /// Apply edits (each one journaled, so it can be undone).
    #[default]
    Apply,
    /// Check edits and return their diff, but write nothing (approval flows use this).
    DryRun,
    /// Refuse every edit.
    ReadOnly,
}

/// Everything a tool call may use.
#[derive(Debug, Clone)]
pub struct ToolContext {
    pub workspace: Workspace,
    /// A tool's text is cut to this many bytes, with a note saying so.
    pub max_output_bytes: usize,
    pub edit_mode: EditMode,
    /// Upper bound for `run_command`'s `timeout_s`.
    pub max_command_seconds: u64,
    /// Refuse an edit that leaves a file which parses unparseable (by default it is applied
    /// and the result names the line and the parser's message).
    pub refuse_syntax_errors: bool,
    /// How commands run for the model are confined (`run_command`, the agent's test command,
    /// the skills' validation). The default, `workspace-write` without a helper, refuses to run
    /// commands until the embedding program names its helper (see [`cast_sandbox::Helper`]).
    pub sandbox: cast_sandbox::Sandbox,
    /// The workspace's index, kept open between tool calls (shared by clones of the context).
    pub(crate) index: IndexCache,
}

/// The open index of a workspace, kept between tool calls: reopening it for every call paid
/// for a new connection, a new memory map and a cold page cache each time. It is reopened when
/// the database file is no longer the one opened (deleted, or replaced by another process).
/// It watches the tree ([`cast_analyzer::Index::watch_tree`]), so a call made while nothing
/// changed does not check every file.
#[derive(Clone, Default)]
pub(crate) struct IndexCache(Arc<Mutex<Option<OpenIndex>>>);

struct OpenIndex {
    index: cast_analyzer::Index,
    /// The database file's identity when it was opened.
    file: Option<FileId>,
}

/// Device and inode: what tells a file replaced under the same name.
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::metadata(path).ok().map(|_| (0, 0))
    }
}

impl std::fmt::Debug for IndexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = self.0.lock().map(|o| o.is_some()).unwrap_or(false);
        f.debug_struct("IndexCache").field("open", &open).finish()
    }
}

impl IndexCache {
    /// Answers `query` from the index of `root`, current with the files on disk (see
    /// [`cast_analyzer::Index::query_fresh`]), opening or building it when none is open or the
    /// database file changed. An index that failed is dropped, so the next call opens afresh.
    pub(crate) fn query<T>(
        &self,
        root: &Path,
        mut query: impl FnMut(&cast_analyzer::Index) -> Result<T, cast_analyzer::AnalyzerError>,
    ) -> Result<T, cast_analyzer::AnalyzerError> {
        // A poisoned lock only means a tool call panicked while holding it: start afresh.
        let mut slot = self.0.lock().unwrap_or_else(|poisoned| {
            let mut slot = poisoned.into_inner();
            *slot = None;
            slot
        });
        let mut open = match slot.take() {
            Some(open) if file_id(open.index.db_path()) == open.file => open,
            _ => {
                let options = cast_analyzer::IndexOptions {
                    refresh: cast_analyzer::Refresh::IfMissing,
                    ..cast_analyzer::IndexOptions::default()
                };
                let mut index = cast_analyzer::Index::open_with(root, &options, &mut |_| {})?;
                // Calls come one after another: the kernel's notes of changes spare each the
                // check of every file while none came.
                index.watch_tree();
                let open = OpenIndex {
                    file: file_id(index.db_path()),
                    index,
                };
                if open.index.report().is_some() {
                    // Built just now: current by construction.
                    let answer = query(&open.index);
                    *slot = Some(open);
                    return answer;
                }
                open
            }
        };
        let answer = open.index.query_fresh(None, &mut |_| {}, &mut query);
        if answer.is_ok() {
            *slot = Some(open);
        }
        answer
    }
}

/// 32 KiB: about 8,000 tokens, enough for a 250-line read and small enough to keep a context
/// window for the task.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 32 * 1024;

impl ToolContext {
    /// A context over `root` with the defaults: edits applied, 32 KiB outputs, 10-minute
    /// command limit, commands confined to the workspace (`workspace-write`).
    pub fn new(root: impl AsRef<Path>) -> Result<Self, SandboxError> {
        Ok(ToolContext {
            workspace: Workspace::new(root)?,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            edit_mode: EditMode::Apply,
            max_command_seconds: 600,
            refuse_syntax_errors: false,
            sandbox: cast_sandbox::Sandbox::default(),
            index: IndexCache::default(),
        })
    }
}
