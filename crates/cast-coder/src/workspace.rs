//! Applying edits to files of a workspace: plan all, write all (atomically, journaled) or none.

use cast_workspace::StateDir;
use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::diff::{Hunk, hunks, unified_diff};
use crate::edit::{Edit, Format, plan};
use crate::error::CoderError;
use crate::fsio::{read_optional, remove_if_exists, write_atomic};
use crate::journal::{Journal, JournalEntry, Pending};
use crate::refusal::{Reason, Refusal};
use crate::search_replace::BlockReport;
use crate::syntax::{self, NewSyntaxError, ReindentHint};
use crate::text::{Document, NotText};

/// An edit to one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileEdit {
    /// The file: absolute, or relative to the workspace root.
    pub path: PathBuf,
    /// The edit.
    pub edit: Edit,
}

impl FileEdit {
    /// An edit to one file.
    pub fn new(path: impl Into<PathBuf>, edit: Edit) -> FileEdit {
        FileEdit {
            path: path.into(),
            edit,
        }
    }

    /// The edits of a model's reply: every `<file-edit filePath="…">` section, in order. Paths
    /// must be relative and stay inside the workspace (no `..` above it).
    pub fn from_reply(reply: &str) -> Result<Vec<FileEdit>, Refusal> {
        if !crate::search_replace::has_file_edit_tags(reply) {
            // Parse for the message: a reply without sections.
            crate::search_replace::parse_reply(reply)?;
        }
        FileEdit::parse_named(Format::SearchReplace, reply)
    }

    /// The edits of a text that names the file of each part: a reply's `<file-edit>`
    /// sections, ops or JSON operations with a `file_path`. Every part must name its file;
    /// paths must be relative and stay inside the workspace.
    pub fn parse_named(format: Format, text: &str) -> Result<Vec<FileEdit>, Refusal> {
        Edit::parse_named(format, text)?
            .into_iter()
            .map(|part| {
                let Some(path) = part.path else {
                    return Err(Refusal::new(Reason::BadChangeSet {
                        message: format!(
                            "{} names no file; without a target file every part of the edit \
                             must name its file (`file_path`, or `<file-edit filePath=\"…\">`)",
                            part.what
                        ),
                    }));
                };
                check_relative(&path)?;
                Ok(FileEdit {
                    path: PathBuf::from(path),
                    edit: part.edit,
                })
            })
            .collect()
    }
}

fn check_relative(path: &str) -> Result<(), Refusal> {
    let p = Path::new(path);
    let mut depth: i64 = 0;
    for c in p.components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => depth -= 1,
            Component::RootDir | Component::Prefix(_) => depth = -1,
        }
        if depth < 0 {
            break;
        }
    }
    if path.trim().is_empty() || depth <= 0 {
        return Err(Refusal::new(Reason::BadChangeSet {
            message: format!(
                "the path {path:?} is not a file inside the workspace; use a path relative to \
                 the workspace root"
            ),
        })
        .with_path(path));
    }
    Ok(())
}

/// What an edit did (or, in a dry run, would do) to one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileChange {
    /// The file, as the edit named it.
    pub path: PathBuf,
    /// Whether the file is new.
    pub created: bool,
    /// Whether the bytes change at all.
    pub changed: bool,
    /// The unified diff (empty when nothing changes).
    pub diff: String,
    /// The changed line ranges.
    pub hunks: Vec<Hunk>,
    /// For search-replace edits, how each block matched.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<BlockReport>,
    /// A syntax error the change brings into a file that parsed before (files a parser
    /// handles only): the edit was applied, and the file no longer parses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_syntax_error: Option<NewSyntaxError>,
    #[serde(skip)]
    old: Option<Vec<u8>>,
    #[serde(skip)]
    new: Vec<u8>,
    #[serde(skip)]
    resolved: PathBuf,
}

impl FileChange {
    /// The new bytes.
    pub fn new_bytes(&self) -> &[u8] {
        &self.new
    }
}

/// The result of applying (or previewing) a change set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeSet {
    /// One entry per file, in the order first named.
    pub files: Vec<FileChange>,
    /// Whether nothing was written (a dry run).
    pub dry_run: bool,
    /// The undo journal entry, when files were written and the journal is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub journal_entry: Option<u64>,
}

impl ChangeSet {
    /// The unified diffs of every file, concatenated.
    pub fn diff(&self) -> String {
        self.files.iter().map(|f| f.diff.as_str()).collect()
    }
}

/// Plans an edit against a file's bytes (`None`: the file does not exist): pure, no I/O.
pub fn plan_bytes(edit: &Edit, old: Option<&[u8]>) -> Result<(Vec<u8>, Vec<BlockReport>), Refusal> {
    let doc = match old {
        Some(bytes) => Document::decode(bytes).map_err(|e| {
            Refusal::new(Reason::NotText {
                detail: match e {
                    NotText::Binary => "is binary (it holds NUL bytes)".to_owned(),
                    NotText::NotUtf8 { valid_up_to } => {
                        format!("is not UTF-8 text (invalid bytes at offset {valid_up_to})")
                    }
                    NotText::NotInDeclared { encoding } => format!(
                        "is not valid {encoding} text, the encoding its coding line declares"
                    ),
                    NotText::TooLarge { bytes } => format!(
                        "is too large ({bytes} bytes; the limit is {})",
                        crate::text::MAX_FILE_BYTES
                    ),
                },
            })
        })?,
        None if edit.can_create() => Document::new_file(),
        None => return Err(Refusal::new(Reason::NoSuchFile)),
    };
    let planned = plan(edit, &doc.text)?;
    let bytes = doc.encode(&planned.text).map_err(|character| {
        Refusal::new(Reason::Unencodable {
            encoding: cast_parser::SourceEncoding::declared(planned.text.as_bytes())
                .map_or("UTF-8", |e| e.name())
                .to_owned(),
            character,
        })
    })?;
    Ok((bytes, planned.blocks))
}

/// The text of file bytes as planning sees it, or `None` when they are not text.
fn text_of(bytes: &[u8]) -> Option<String> {
    Document::decode(bytes).ok().map(|d| d.text)
}

/// The text of file bytes for a diff: as planning reads them (a declared encoding too), else
/// lossy UTF-8.
fn shown_text(bytes: &[u8]) -> String {
    text_of(bytes).unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned())
}

/// The syntax error a change brings into its file, if the file parsed before (a new file
/// counts as parsing). For one search-replace edit, a re-indentation of one block's REPLACE
/// with which the file would parse is looked for too.
fn new_syntax_error(
    registry: &cast_parser::Registry,
    change: &FileChange,
    edits: &[&FileEdit],
) -> Option<NewSyntaxError> {
    let path = &change.resolved;
    let new_text = text_of(&change.new)?;
    let error = syntax::first_error(registry, path, &new_text)?;
    let old_text = match &change.old {
        Some(bytes) => Some(text_of(bytes)?),
        None => None,
    };
    if let Some(old) = &old_text
        && syntax::first_error(registry, path, old).is_some()
    {
        return None; // it did not parse before either
    }
    let mut reindent = None;
    if let ([only], Some(old)) = (edits, change.old.as_deref())
        && let Edit::SearchReplace { blocks } = &only.edit
    {
        'blocks: for (i, block) in blocks.iter().enumerate() {
            for candidate in syntax::reindent_candidates(block) {
                let mut tried = blocks.clone();
                tried[i].replace = candidate.clone();
                let edit = Edit::SearchReplace { blocks: tried };
                let Ok((bytes, _)) = plan_bytes(&edit, Some(old)) else {
                    continue;
                };
                if text_of(&bytes)
                    .is_some_and(|t| syntax::first_error(registry, path, &t).is_none())
                {
                    reindent = Some(ReindentHint {
                        block: i + 1,
                        replace: candidate,
                    });
                    break 'blocks;
                }
            }
        }
    }
    Some(NewSyntaxError {
        line: error.line,
        message: error.message,
        reindent,
    })
}

/// Applies edits to the files of one workspace, journaling every write for undo.
///
/// Relative paths are resolved against the root; the journal lives in `ROOT/.cast/undo/`.
#[derive(Debug, Clone)]
pub struct Coder {
    root: PathBuf,
    journal: Option<Journal>,
    description: String,
    refuse_syntax_errors: bool,
}

impl Coder {
    /// A coder for the workspace at `root`, with the undo journal on.
    pub fn new(root: impl Into<PathBuf>) -> Coder {
        let root = root.into();
        Coder {
            journal: Some(Journal::new(&root)),
            root,
            description: "edit".to_owned(),
            refuse_syntax_errors: false,
        }
    }

    /// The same coder refusing an edit that leaves a file which parses unparseable
    /// ([`Reason::NewSyntaxError`]); by default such an edit is applied and
    /// [`FileChange::new_syntax_error`] says what broke.
    pub fn refusing_syntax_errors(mut self, refuse: bool) -> Coder {
        self.refuse_syntax_errors = refuse;
        self
    }

    /// The same coder without the undo journal (nothing is written under `.cast/`).
    pub fn without_journal(mut self) -> Coder {
        self.journal = None;
        self
    }

    /// Labels the journal entries this coder writes (e.g. the tool or command name).
    pub fn described_as(mut self, description: impl Into<String>) -> Coder {
        self.description = description.into();
        self
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_owned()
        } else {
            self.root.join(path)
        }
    }

    /// Plans every edit against the current files: the changes, or the first refusal (naming
    /// its file). Edits naming the same file apply in order.
    fn plan_all(&self, edits: &[FileEdit]) -> Result<Vec<FileChange>, CoderError> {
        let mut changes: Vec<FileChange> = Vec::new();
        let mut index: HashMap<PathBuf, usize> = HashMap::new();
        // The edits of each file, for the syntax check's hint.
        let mut edits_of: Vec<Vec<&FileEdit>> = Vec::new();
        for fe in edits {
            let resolved = self.resolve(&fe.path);
            if resolved.is_dir() {
                return Err(Refusal::new(Reason::NotText {
                    detail: "is a folder".to_owned(),
                })
                .with_path(&fe.path)
                .into());
            }
            let slot = match index.get(&resolved) {
                Some(&i) => i,
                None => {
                    let old = read_optional(&resolved)?;
                    changes.push(FileChange {
                        path: fe.path.clone(),
                        created: old.is_none(),
                        changed: false,
                        diff: String::new(),
                        hunks: Vec::new(),
                        blocks: Vec::new(),
                        new_syntax_error: None,
                        new: old.clone().unwrap_or_default(),
                        old,
                        resolved: resolved.clone(),
                    });
                    edits_of.push(Vec::new());
                    index.insert(resolved.clone(), changes.len() - 1);
                    changes.len() - 1
                }
            };
            edits_of[slot].push(fe);
            let change = &mut changes[slot];
            let current = if change.created && change.new.is_empty() && !change.changed {
                None
            } else {
                Some(change.new.as_slice())
            };
            let (new, blocks) = plan_bytes(&fe.edit, current).map_err(|r| r.with_path(&fe.path))?;
            change.new = new;
            change.changed = true;
            change.blocks.extend(blocks);
        }
        for change in &mut changes {
            let old_text = change.old.as_deref().map(shown_text).unwrap_or_default();
            let new_text = shown_text(&change.new);
            change.changed = change.old.as_deref() != Some(change.new.as_slice());
            if change.changed {
                // Diffs name files relative to the root (`--- a/src/app.py`), also when the edit
                // named them by an absolute path.
                let shown = match change.resolved.strip_prefix(&self.root) {
                    Ok(rel) if change.path.is_absolute() => rel,
                    _ => change.path.as_path(),
                };
                let name = shown.to_string_lossy().replace('\\', "/");
                let name = name.trim_start_matches('/');
                change.diff = unified_diff(&old_text, &new_text, name);
                change.hunks = hunks(&old_text, &new_text);
            }
        }
        let registry = cast_parser::Registry::default();
        for (change, edits) in changes.iter_mut().zip(&edits_of) {
            if !change.changed || !syntax::is_checked(&registry, &change.resolved) {
                continue;
            }
            let Some(error) = new_syntax_error(&registry, change, edits) else {
                continue;
            };
            if self.refuse_syntax_errors {
                return Err(Refusal::new(Reason::NewSyntaxError { error })
                    .with_path(&change.path)
                    .into());
            }
            change.new_syntax_error = Some(error);
        }
        Ok(changes)
    }

    /// Plans the edits and returns what they would change, writing nothing.
    pub fn preview(&self, edits: &[FileEdit]) -> Result<ChangeSet, CoderError> {
        Ok(ChangeSet {
            files: self.plan_all(edits)?,
            dry_run: true,
            journal_entry: None,
        })
    }

    /// Applies the edits: all of them, or — if any is refused or a write fails — none.
    pub fn apply(&self, edits: &[FileEdit]) -> Result<ChangeSet, CoderError> {
        let files = self.plan_all(edits)?;
        let to_write: Vec<&FileChange> = files.iter().filter(|f| f.changed).collect();
        let journal_entry = match (&self.journal, to_write.is_empty()) {
            (Some(journal), false) => {
                let pending: Vec<Pending<'_>> = to_write
                    .iter()
                    .map(|f| Pending {
                        path: &f.resolved,
                        old: f.old.as_deref(),
                        new: &f.new,
                        deleted: false,
                    })
                    .collect();
                Some(journal.record(&self.description, &pending)?)
            }
            _ => None,
        };
        for (done, f) in to_write.iter().enumerate() {
            if let Err(err) = write_atomic(&f.resolved, &f.new) {
                // Put back what was already written, newest first.
                for g in to_write[..done].iter().rev() {
                    let _ = match &g.old {
                        Some(old) => write_atomic(&g.resolved, old),
                        None => remove_if_exists(&g.resolved),
                    };
                }
                if let (Some(journal), Some(id)) = (&self.journal, journal_entry) {
                    journal.discard(id);
                }
                return Err(err);
            }
        }
        Ok(ChangeSet {
            files,
            dry_run: false,
            journal_entry,
        })
    }

    /// Undoes the last `steps` change sets, newest first. Stops with an error, before touching
    /// that change set's files, at one whose files were changed since (unless `force`).
    pub fn undo(&self, steps: usize, force: bool) -> Result<Vec<JournalEntry>, CoderError> {
        let journal = Journal::new(&self.root);
        let mut undone = Vec::new();
        for _ in 0..steps {
            match journal.undo_last(force)? {
                Some(entry) => undone.push(entry),
                None => break,
            }
        }
        if undone.is_empty() {
            return Err(CoderError::Undo(format!(
                "nothing to undo: the journal {} is empty",
                self.root.join(".cast/undo").display()
            )));
        }
        Ok(undone)
    }

    /// Deletes one file (not a folder, not through a symbolic link: a link is removed itself),
    /// after recording its bytes in the journal so [`Coder::undo`] brings it back. Returns the
    /// journal entry's id (`None` without a journal).
    pub fn delete(&self, path: &Path) -> Result<Option<u64>, CoderError> {
        let resolved = self.resolve(path);
        let meta = fs::symlink_metadata(&resolved).map_err(|e| CoderError::io(&resolved, e))?;
        if meta.is_dir() {
            return Err(Refusal::new(Reason::NotText {
                detail: "is a folder".to_owned(),
            })
            .with_path(path)
            .into());
        }
        let old = if meta.file_type().is_symlink() {
            None
        } else {
            Some(fs::read(&resolved).map_err(|e| CoderError::io(&resolved, e))?)
        };
        let entry = match (&self.journal, &old) {
            (Some(journal), Some(old)) => Some(journal.record(
                &self.description,
                &[Pending {
                    path: &resolved,
                    old: Some(old),
                    new: &[],
                    deleted: true,
                }],
            )?),
            _ => None,
        };
        if let Err(e) = fs::remove_file(&resolved) {
            if let (Some(journal), Some(id)) = (&self.journal, entry) {
                journal.discard(id);
            }
            return Err(CoderError::io(&resolved, e));
        }
        Ok(entry)
    }

    /// The journal's change sets, newest first.
    pub fn history(&self) -> Result<Vec<JournalEntry>, CoderError> {
        Journal::new(&self.root).list()
    }
}

/// Whether `name` (as an edit wrote it: relative to `root`, or absolute) is the file `file`
/// (absolute, or relative to `root`). Paths are compared with `.` and `..` resolved, and by
/// their real location when both exist (a symbolic link names its target).
pub fn names_file(root: &Path, name: &str, file: &Path) -> bool {
    fn normal(path: &Path) -> PathBuf {
        let mut out = PathBuf::new();
        for c in path.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    out.pop();
                }
                other => out.push(other),
            }
        }
        out
    }
    let name = root.join(name.trim());
    let file = root.join(file);
    if normal(&name) == normal(&file) {
        return true;
    }
    match (fs::canonicalize(&name), fs::canonicalize(&file)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// The workspace root for a target: the nearest folder at or above `start` that holds `.git`
/// or `.cast`, else `start` itself.
pub fn find_root(start: &Path) -> PathBuf {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.join(".git").exists() || StateDir::of(d).path().is_dir() {
            return d.to_owned();
        }
        dir = d.parent();
    }
    start.to_owned()
}
