//! Editing: `edit_file` (lazy), `search_replace`, `apply_ops`, `apply_patch`, `delete_file` and
//! `undo_edit`, over cast-coder. Every edit applies whole or not at all, is journaled so
//! `undo_edit` can take it back, and honours the context's [`EditMode`].

use std::path::PathBuf;

use cast_coder::{ChangeSet, Coder, CoderError, Edit, FileEdit, Format};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::search::relative_paths;
use crate::{Access, ChangeSummary, EditMode, ToolContext, ToolError, ToolOutput, TypedTool};

/// Refuses a change when the context is read-only.
fn check_writable(ctx: &ToolContext, tool: &str) -> Result<(), ToolError> {
    if ctx.edit_mode == EditMode::ReadOnly {
        return Err(ToolError::Disabled {
            tool: tool.to_owned(),
            reason: "this session is read-only; describe the change in your answer instead"
                .to_owned(),
        });
    }
    Ok(())
}

/// Parses `text` in `format` and applies it to `target` (or previews it in dry-run mode). A
/// file the text names (`file_path`, `<file-edit filePath>`) must be the target.
fn apply_one(
    ctx: &ToolContext,
    tool: &'static str,
    target: &str,
    format: Format,
    text: &str,
    exact_only: bool,
) -> Result<ToolOutput, ToolError> {
    check_writable(ctx, tool)?;
    let path = ctx.workspace.resolve(target, Access::Write)?;
    let parsed = Edit::parse_for(format, text, &path.rel, |name| {
        ctx.workspace
            .resolve(name, Access::Write)
            .is_ok_and(|named| named.rel == path.rel)
    });
    let mut edit = match parsed {
        Ok(edit) => edit,
        Err(refusal) => return Ok(refusal_output(ctx, &path.rel, &refusal.to_string())),
    };
    if exact_only {
        edit.set_exact_only();
    }
    if !path.real.exists() && !edit.can_create() {
        let text = format!(
            "{}: no such file. To create a file, use search_replace with one block whose SEARCH part is empty, or edit_file with the whole new file (no `... existing code ...` markers).",
            path.rel
        );
        return Ok(ToolOutput::refused(
            text.clone(),
            json!({"path": path.rel, "error": text}),
        ));
    }
    apply_edits(
        ctx,
        tool,
        vec![FileEdit::new(coder_path(ctx, &path.real), edit)],
    )
}

/// The path handed to the coder: the real location relative to the root, so a write through
/// an in-workspace symbolic link replaces the target's bytes, not the link.
fn coder_path(ctx: &ToolContext, real: &std::path::Path) -> PathBuf {
    real.strip_prefix(ctx.workspace.root())
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|_| real.to_path_buf())
}

fn refusal_output(ctx: &ToolContext, rel: &str, message: &str) -> ToolOutput {
    let text = relative_paths(ctx, message);
    ToolOutput::refused(
        format!("The edit was refused; {rel} is unchanged.\n{text}"),
        json!({"path": rel, "error": text}),
    )
}

/// Applies (or, in dry-run mode, previews) a change set and renders the result.
pub(crate) fn apply_edits(
    ctx: &ToolContext,
    tool: &'static str,
    edits: Vec<FileEdit>,
) -> Result<ToolOutput, ToolError> {
    let coder = Coder::new(ctx.workspace.root())
        .described_as(tool)
        .refusing_syntax_errors(ctx.refuse_syntax_errors);
    let result = match ctx.edit_mode {
        EditMode::DryRun => coder.preview(&edits),
        _ => coder.apply(&edits),
    };
    let names: Vec<String> = edits
        .iter()
        .map(|e| e.path.to_string_lossy().replace('\\', "/"))
        .collect();
    match result {
        Ok(set) => Ok(applied_output(&set)),
        Err(CoderError::Refused(refusal)) => {
            Ok(refusal_output(ctx, &names.join(", "), &refusal.to_string()))
        }
        Err(other) => Err(ToolError::Failed {
            tool: tool.to_owned(),
            message: relative_paths(ctx, &other.to_string()),
        }),
    }
}

#[derive(Serialize)]
struct ChangedFile {
    path: String,
    created: bool,
    changed: bool,
    added: usize,
    removed: usize,
    /// A syntax error the edit brought into a file that parsed before.
    #[serde(skip_serializing_if = "Option::is_none")]
    syntax_error: Option<cast_coder::NewSyntaxError>,
}

fn applied_output(set: &ChangeSet) -> ToolOutput {
    let files: Vec<ChangedFile> = set
        .files
        .iter()
        .map(|f| {
            let (added, removed) = count_changes(&f.diff);
            ChangedFile {
                path: f.path.to_string_lossy().replace('\\', "/"),
                created: f.created,
                changed: f.changed,
                added,
                removed,
                syntax_error: f.new_syntax_error.clone(),
            }
        })
        .collect();
    let verb = if set.dry_run {
        "Would change"
    } else {
        "Changed"
    };
    let mut text = String::new();
    for f in &files {
        if !f.changed {
            text.push_str(&format!(
                "{}: no change (the file already has this content)\n",
                f.path
            ));
        } else if f.created {
            text.push_str(&format!("Created {} ({} lines)\n", f.path, f.added));
        } else {
            text.push_str(&format!(
                "{verb} {}: +{} -{} lines\n",
                f.path, f.added, f.removed
            ));
        }
    }
    for f in &files {
        if let Some(error) = &f.syntax_error {
            let state = match (f.created, set.dry_run) {
                (true, false) => "does not parse",
                (true, true) => "would not parse",
                (false, false) => "no longer parses (it did before this edit)",
                (false, true) => "would no longer parse (it does now)",
            };
            text.push_str(&format!("Warning: {} {state}: {error}\n", f.path));
            if !set.dry_run {
                text.push_str("Fix it with another edit, or take the edit back with undo_edit.\n");
            }
        }
    }
    let diff = set.diff();
    text.push_str(&diff);
    if set.dry_run {
        text.push_str("\n(dry run: nothing was written)\n");
    }
    let path = files.first().map(|f| f.path.clone()).unwrap_or_default();
    let change = ChangeSummary {
        paths: files.iter().map(|f| f.path.clone()).collect(),
        diff: diff.clone(),
        dry_run: set.dry_run,
    };
    ToolOutput::ok(
        text,
        json!({
            "path": path,
            "files": files,
            "diff": diff,
            "dry_run": set.dry_run,
            "journal_entry": set.journal_entry,
        }),
    )
    .with_change(change)
}

/// Lines added and removed in a unified diff.
fn count_changes(diff: &str) -> (usize, usize) {
    let mut added = 0;
    let mut removed = 0;
    for line in diff.lines() {
        if line.starts_with("+++") || line.starts_with("---") {
            continue;
        }
        if line.starts_with('+') {
            added += 1;
        } else if line.starts_with('-') {
            removed += 1;
        }
    }
    (added, removed)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileParams {
    /// The file to edit or create, relative to the workspace root.
    pub target_file: String,
    /// One sentence in the first person: what this edit does, e.g. "I add a timeout argument".
    pub instructions: String,
    /// The new code, with unchanged runs replaced by a comment line `... existing code ...` in
    /// the file's comment style (`# ... existing code ...`, `// ... existing code ...`,
    /// `<!-- ... existing code ... -->`). Keep a few unchanged lines around each change so it
    /// can be placed. Without any marker the text replaces (or creates) the whole file.
    pub code_edit: String,
}

/// `edit_file`: a lazy edit.
#[derive(Debug, Default)]
pub struct EditFile;

impl TypedTool for EditFile {
    type Params = EditFileParams;
    const NAME: &'static str = "edit_file";
    const DESCRIPTION: &'static str = "Edit a file by writing its new version with the unchanged parts collapsed to `... existing code ...` comment lines. Include enough unchanged lines around each change to place it unambiguously. The edit applies whole or not at all; when it cannot be placed the result says why and the file is unchanged (then use search_replace). Returns the diff.";

    fn run(&self, ctx: &ToolContext, p: EditFileParams) -> Result<ToolOutput, ToolError> {
        apply_one(
            ctx,
            Self::NAME,
            &p.target_file,
            Format::Lazy,
            &p.code_edit,
            false,
        )
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchReplaceParams {
    /// The file to edit, relative to the workspace root.
    pub target_file: String,
    /// One or more blocks:
    /// `------- SEARCH\n<exact lines now in the file>\n=======\n<new lines>\n+++++++ REPLACE`.
    /// SEARCH must match one place in the file. An empty SEARCH replaces (or creates) the whole
    /// file; an empty REPLACE deletes the lines.
    pub diff: String,
    /// Apply a block only where its SEARCH matches the file exactly, character for character
    /// (no whitespace, blank-line or similarity matching). Default false.
    pub exact_match_only: Option<bool>,
}

/// `search_replace`: SEARCH/REPLACE blocks.
#[derive(Debug, Default)]
pub struct SearchReplace;

impl TypedTool for SearchReplace {
    type Params = SearchReplaceParams;
    const NAME: &'static str = "search_replace";
    const DESCRIPTION: &'static str = "Edit a file with SEARCH/REPLACE blocks (`------- SEARCH` / `=======` / `+++++++ REPLACE`). Copy the SEARCH lines from the file as they are (read it first); each must match exactly one place. All blocks apply or none: a refusal names the block, shows the closest lines with their line numbers, and leaves the file unchanged. Returns the diff.";

    fn run(&self, ctx: &ToolContext, p: SearchReplaceParams) -> Result<ToolOutput, ToolError> {
        apply_one(
            ctx,
            Self::NAME,
            &p.target_file,
            Format::SearchReplace,
            &p.diff,
            p.exact_match_only.unwrap_or(false),
        )
    }
}

/// One line operation; line numbers are 1-based in the file as it is now.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum OpParam {
    /// Insert lines after `after_line` (0: at the top).
    Insert {
        after_line: usize,
        content: Vec<String>,
    },
    /// Replace lines `start_line..=end_line` with `content`.
    Replace {
        start_line: usize,
        end_line: usize,
        content: Vec<String>,
    },
    /// Delete lines `start_line..=end_line`.
    Delete { start_line: usize, end_line: usize },
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyOpsParams {
    /// The file to edit, relative to the workspace root.
    pub target_file: String,
    /// The operations, in any order; every line number refers to the file before any op.
    pub ops: Vec<OpParam>,
}

/// `apply_ops`: line-numbered insert/replace/delete operations.
#[derive(Debug, Default)]
pub struct ApplyOps;

impl TypedTool for ApplyOps {
    type Params = ApplyOpsParams;
    const NAME: &'static str = "apply_ops";
    const DESCRIPTION: &'static str = "Edit a file with line operations (insert after a line, replace or delete a line range), numbered as in the file now (read it first). Ops may come in any order; overlapping or out-of-range ops are refused and nothing changes. Returns the diff.";

    fn run(&self, ctx: &ToolContext, p: ApplyOpsParams) -> Result<ToolOutput, ToolError> {
        let text = serde_json::to_string(&p.ops).map_err(|e| ToolError::Failed {
            tool: Self::NAME.to_owned(),
            message: e.to_string(),
        })?;
        apply_one(ctx, Self::NAME, &p.target_file, Format::Op, &text, false)
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchParams {
    /// The file to edit, relative to the workspace root.
    pub target_file: String,
    /// diff-match-patch patch text (`@@ -12,7 +12,8 @@` hunks with %-encoded lines), as
    /// `patch_toText` writes it.
    pub patch: String,
}

/// `apply_patch`: diff-match-patch patches.
#[derive(Debug, Default)]
pub struct ApplyPatch;

impl TypedTool for ApplyPatch {
    type Params = ApplyPatchParams;
    const NAME: &'static str = "apply_patch";
    const DESCRIPTION: &'static str = "Edit a file with diff-match-patch patch text (patch_toText form). Each patch is placed near its expected position even if the file drifted; if any patch cannot be placed, nothing changes. Returns the diff.";

    fn run(&self, ctx: &ToolContext, p: ApplyPatchParams) -> Result<ToolOutput, ToolError> {
        apply_one(
            ctx,
            Self::NAME,
            &p.target_file,
            Format::Dmp,
            &p.patch,
            false,
        )
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteFileParams {
    /// The file to delete, relative to the workspace root.
    pub target_file: String,
    /// One sentence: why the file should go.
    pub explanation: String,
}

/// `delete_file`: removes one file (journaled, so `undo_edit` restores it).
#[derive(Debug, Default)]
pub struct DeleteFile;

impl TypedTool for DeleteFile {
    type Params = DeleteFileParams;
    const NAME: &'static str = "delete_file";
    const DESCRIPTION: &'static str = "Delete a file of the workspace (not a folder). The old content is kept in the undo journal, so undo_edit brings it back.";

    fn run(&self, ctx: &ToolContext, p: DeleteFileParams) -> Result<ToolOutput, ToolError> {
        check_writable(ctx, Self::NAME)?;
        let path = ctx.workspace.resolve(&p.target_file, Access::Write)?;
        // Delete the link itself when the path is a symbolic link, never its target.
        let meta = match std::fs::symlink_metadata(&path.lexical) {
            Ok(m) => m,
            Err(_) => {
                let text = format!("{}: no such file; nothing was deleted", path.rel);
                return Ok(ToolOutput::refused(
                    text.clone(),
                    json!({"path": path.rel, "error": text}),
                ));
            }
        };
        if meta.is_dir() {
            let text = format!(
                "{}: is a folder; delete_file removes single files only",
                path.rel
            );
            return Ok(ToolOutput::refused(
                text.clone(),
                json!({"path": path.rel, "error": text}),
            ));
        }
        let coder = Coder::new(ctx.workspace.root()).described_as(Self::NAME);
        let rel = coder_path(ctx, &path.lexical);
        if ctx.edit_mode == EditMode::DryRun {
            let text = format!("Would delete {} (dry run: nothing was deleted)", path.rel);
            return Ok(ToolOutput::ok(
                text,
                json!({"path": path.rel, "deleted": false, "dry_run": true}),
            ));
        }
        match coder.delete(&rel) {
            Ok(entry) => Ok(ToolOutput::ok(
                format!("Deleted {} (undo_edit restores it)", path.rel),
                json!({"path": path.rel, "deleted": true, "journal_entry": entry, "files": [path.rel]}),
            )
            .with_change(ChangeSummary {
                paths: vec![path.rel.clone()],
                diff: format!("deleted {}\n", path.rel),
                dry_run: false,
            })),
            Err(CoderError::Refused(r)) => Ok(refusal_output(ctx, &path.rel, &r.to_string())),
            Err(e) => Err(ToolError::Failed {
                tool: Self::NAME.to_owned(),
                message: relative_paths(ctx, &e.to_string()),
            }),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoEditParams {
    /// How many change sets to take back, newest first. Default 1.
    pub steps: Option<usize>,
}

/// `undo_edit`: takes back the last change sets.
#[derive(Debug, Default)]
pub struct UndoEdit;

impl TypedTool for UndoEdit {
    type Params = UndoEditParams;
    const NAME: &'static str = "undo_edit";
    const DESCRIPTION: &'static str = "Undo the last edit (or the last `steps` edits), restoring the files' previous bytes, including files an edit created or deleted. It stops, changing nothing further, at an edit whose files were changed since by something else.";

    fn run(&self, ctx: &ToolContext, p: UndoEditParams) -> Result<ToolOutput, ToolError> {
        check_writable(ctx, Self::NAME)?;
        if ctx.edit_mode == EditMode::DryRun {
            return Ok(ToolOutput::refused(
                "undo_edit does not run in a dry run: nothing was written to undo",
                json!({"error": "dry run"}),
            ));
        }
        let coder = Coder::new(ctx.workspace.root());
        match coder.undo(p.steps.unwrap_or(1).max(1), false) {
            Ok(entries) => {
                let mut text = String::new();
                let mut files = Vec::new();
                for e in &entries {
                    let paths: Vec<String> = e
                        .files
                        .iter()
                        .map(|f| relative_paths(ctx, &f.path.to_string_lossy()))
                        .collect();
                    text.push_str(&format!(
                        "Undid #{} ({}): {}\n",
                        e.id,
                        e.description,
                        paths.join(", ")
                    ));
                    files.extend(paths);
                }
                Ok(ToolOutput::ok(
                    text,
                    json!({"undone": entries.len(), "files": files}),
                ))
            }
            Err(e) => {
                let text = relative_paths(ctx, &e.to_string());
                Ok(ToolOutput::refused(text.clone(), json!({"error": text})))
            }
        }
    }
}

/// The name under which a reply of `<file-edit>` blocks is applied and recorded (it is not a
/// tool a model calls: the agent turns such a reply into this call).
pub const FILE_EDITS: &str = "file_edits";

/// Applies a model reply holding `<file-edit filePath="…">` blocks of SEARCH/REPLACE edits (the
/// text protocol's way to edit several files in one answer): every path through the sandbox,
/// then all files or none.
pub fn apply_file_edits(ctx: &ToolContext, reply: &str) -> Result<ToolOutput, ToolError> {
    const NAME: &str = FILE_EDITS;
    check_writable(ctx, NAME)?;
    let parsed = match FileEdit::from_reply(reply) {
        Ok(edits) if !edits.is_empty() => edits,
        Ok(_) => {
            let text = "no <file-edit filePath=\"…\"> block with SEARCH/REPLACE edits was found";
            return Ok(ToolOutput::refused(text, json!({"error": text})));
        }
        Err(refusal) => return Ok(refusal_output(ctx, "the files", &refusal.to_string())),
    };
    let mut edits = Vec::with_capacity(parsed.len());
    for fe in parsed {
        let path = ctx
            .workspace
            .resolve(&fe.path.to_string_lossy(), Access::Write)?;
        if !path.real.exists() && !fe.edit.can_create() {
            let text = format!("{}: no such file; nothing was changed", path.rel);
            return Ok(ToolOutput::refused(
                text.clone(),
                json!({"path": path.rel, "error": text}),
            ));
        }
        edits.push(FileEdit::new(coder_path(ctx, &path.real), fe.edit));
    }
    apply_edits(ctx, NAME, edits)
}
