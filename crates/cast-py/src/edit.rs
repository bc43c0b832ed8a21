//! Edits: `cast.apply_edit` (every format, dry run, journaled for undo) and `cast.undo`, as
//! `cast apply --root ROOT` and `cast undo --root ROOT` do them, with every path confined to
//! the root as the agent tools confine theirs.

use std::path::PathBuf;

use cast_coder::{Coder, Edit, FileEdit, Format, JournalEntry, names_file};
use cast_tools::{Access, Workspace};
use pyo3::prelude::*;
use serde::Serialize;

use crate::error::{Failure, to_json, without_gil};

/// Applies (or with `dry_run` previews) `edit` to `target`, or to the files the edit names
/// when `target` is `None`; the JSON of the change set's files (`cast apply --json`).
#[pyfunction]
#[pyo3(signature = (root, edit, target, format, dry_run, exact_match_only, refuse_syntax_errors, journal))]
#[allow(clippy::too_many_arguments)] // one per flag of `cast apply`
pub(crate) fn apply_edit(
    py: Python<'_>,
    root: PathBuf,
    edit: String,
    target: Option<String>,
    format: Option<String>,
    dry_run: bool,
    exact_match_only: bool,
    refuse_syntax_errors: bool,
    journal: bool,
) -> PyResult<String> {
    without_gil(py, || {
        let workspace = Workspace::new(&root)?;
        let format = match format {
            Some(name) => name.parse::<Format>().map_err(Failure::new)?,
            None => Format::detect(&edit).ok_or_else(|| {
                Failure::new(
                    "cannot tell the format of the edit; give format='search-replace', 'op', \
                     'dmp' or 'lazy'",
                )
            })?,
        };
        if exact_match_only && format != Format::SearchReplace {
            return Err(Failure::new(format!(
                "exact_match_only applies to search-replace edits, not {format} edits"
            )));
        }
        let mut edits = match &target {
            Some(target) => {
                let resolved = workspace.resolve(target, Access::Write)?;
                if resolved.rel.is_empty() {
                    return Err(Failure::new(format!(
                        "{target:?} is the workspace root; name the file to edit"
                    )));
                }
                let parsed = Edit::parse_for(format, &edit, target, |name| {
                    names_file(workspace.root(), name, &resolved.lexical)
                        || names_file(workspace.root(), name, &resolved.real)
                });
                let parsed = parsed
                    .map_err(|refusal| cast_coder::CoderError::from(refusal.with_path(target)))?;
                vec![FileEdit::new(resolved.rel, parsed)]
            }
            None => {
                let named =
                    FileEdit::parse_named(format, &edit).map_err(cast_coder::CoderError::from)?;
                named
                    .into_iter()
                    .map(|fe| {
                        let resolved =
                            workspace.resolve(&fe.path.to_string_lossy(), Access::Write)?;
                        Ok(FileEdit::new(resolved.rel, fe.edit))
                    })
                    .collect::<Result<Vec<_>, Failure>>()?
            }
        };
        if exact_match_only {
            for file_edit in &mut edits {
                file_edit.edit.set_exact_only();
            }
        }
        let mut coder = Coder::new(workspace.root())
            .described_as(format!("cast.apply_edit (python, {format})"))
            .refusing_syntax_errors(refuse_syntax_errors);
        if !journal {
            coder = coder.without_journal();
        }
        let set = if dry_run {
            coder.preview(&edits)?
        } else {
            coder.apply(&edits)?
        };
        to_json(&set.files)
    })
}

/// A change set of the undo journal, as a line of `cast undo --json`, without `when`.
#[derive(Serialize)]
struct JournalRow<'a> {
    id: u64,
    time: u64,
    description: &'a str,
    files: Vec<String>,
}

fn rows(entries: &[JournalEntry]) -> Result<String, Failure> {
    let rows: Vec<JournalRow<'_>> = entries
        .iter()
        .map(|e| JournalRow {
            id: e.id,
            time: e.time,
            description: &e.description,
            files: e
                .files
                .iter()
                .map(|f| f.path.to_string_lossy().replace('\\', "/"))
                .collect(),
        })
        .collect();
    to_json(&rows)
}

/// Reverts the last `steps` change sets of the journal in `root/.cast/undo/`.
#[pyfunction]
pub(crate) fn undo(py: Python<'_>, root: PathBuf, steps: usize, force: bool) -> PyResult<String> {
    without_gil(py, || {
        let workspace = Workspace::new(&root)?;
        let undone = Coder::new(workspace.root()).undo(steps.max(1), force)?;
        rows(&undone)
    })
}

/// The change sets that can be undone, newest first.
#[pyfunction]
pub(crate) fn undo_history(py: Python<'_>, root: PathBuf) -> PyResult<String> {
    without_gil(py, || {
        let workspace = Workspace::new(&root)?;
        rows(&Coder::new(workspace.root()).history()?)
    })
}
