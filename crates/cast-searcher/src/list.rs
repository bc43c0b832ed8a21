//! `list_dir`: a folder as a tree drawing, with file sizes and line counts.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::FileError;
use crate::engine::walk_error;
use crate::text::{grouped, human_size};
use crate::{SearchError, WalkOptions};
use cast_workspace::relative;

/// How deep a listing goes by default: the folder's entries and theirs.
pub const DEFAULT_LIST_DEPTH: usize = 2;
/// At most this many entries are listed by default.
pub const DEFAULT_LIST_MAX_ENTRIES: usize = 500;
/// Lines are counted only in files up to this size.
const MAX_COUNTED_FILE: u64 = 64 * 1024 * 1024;

/// How to [`list_dir`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ListOptions {
    /// Levels listed: 1 is the folder's own entries (0 means 1).
    pub depth: usize,
    /// List at most this many entries (0: no cap), level by level, so a cap keeps the top.
    pub max_entries: usize,
    /// Count the lines of text files.
    pub line_counts: bool,
    /// Which entries are listed (ripgrep's rules: ignore files respected, hidden skipped).
    #[serde(flatten)]
    pub walk: WalkOptions,
}

impl Default for ListOptions {
    fn default() -> Self {
        ListOptions {
            depth: DEFAULT_LIST_DEPTH,
            max_entries: DEFAULT_LIST_MAX_ENTRIES,
            line_counts: true,
            walk: WalkOptions::default(),
        }
    }
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    File,
    Folder,
    Symlink,
}

/// One entry of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// Relative to the folder listed, with forward slashes.
    pub path: String,
    pub kind: EntryKind,
    /// 1 for the folder's own entries, 2 for theirs, and so on.
    pub depth: usize,
    /// Size in bytes (files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Line count (text files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    /// A NUL byte shows the file is binary.
    #[serde(skip_serializing_if = "is_false")]
    pub binary: bool,
    /// Entries inside (folders), ignored ones left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entries: Option<usize>,
    /// Entries inside that are not listed, because of the depth or the cap (folders).
    #[serde(skip_serializing_if = "is_zero")]
    pub entries_not_listed: usize,
    /// Where a symbolic link points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What [`list_dir`] found: entries in tree order (each folder followed by its contents, names
/// sorted bytewise).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListResult {
    /// The folder's name, as the tree's first line shows it.
    pub root: String,
    pub entries: Vec<Entry>,
    /// The cap left entries out (see each folder's `entries_not_listed`).
    pub capped: bool,
    /// Entries found within the depth, listed or not.
    pub total_entries: usize,
    /// Entries directly in the folder, listed or not.
    pub root_entries: usize,
    /// Entries that could not be read.
    pub errors: Vec<FileError>,
}

impl ListResult {
    fn describe(entry: &Entry) -> String {
        let name = entry.path.rsplit('/').next().unwrap_or(&entry.path);
        match entry.kind {
            EntryKind::Folder => match entry.entries {
                Some(n) if n > 0 && n == entry.entries_not_listed => {
                    format!("{name}/  ({} entr{})", n, if n == 1 { "y" } else { "ies" })
                }
                Some(0) => format!("{name}/  (empty)"),
                _ => format!("{name}/"),
            },
            EntryKind::Symlink => match &entry.target {
                Some(target) => format!("{name} -> {target}"),
                None => name.to_owned(),
            },
            EntryKind::File => {
                let size = entry.size.map(human_size).unwrap_or_default();
                match (entry.binary, entry.lines) {
                    (true, _) => format!("{name}  ({size}, binary)"),
                    (false, Some(n)) => format!(
                        "{name}  ({size}, {} line{})",
                        grouped(n),
                        if n == 1 { "" } else { "s" }
                    ),
                    (false, None) => format!("{name}  ({size})"),
                }
            }
        }
    }
}

/// The text a model reads: a tree drawing (`├──`, `└──`) with each file's size and line count,
/// each unexpanded folder's number of entries, and `… N more` where the cap left entries out.
impl fmt::Display for ListResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.root)?;
        // For each open ancestor: whether it was the last of its siblings, and how many of its
        // entries are left out (a `… N more` line closes it).
        let mut open: Vec<(bool, usize)> = Vec::new();
        let close = |f: &mut fmt::Formatter<'_>, open: &mut Vec<(bool, usize)>, depth: usize| {
            while open.len() >= depth {
                // The `… N more` line is the folder's last child, drawn inside the folder.
                let prefix: String = open
                    .iter()
                    .map(|&(last, _)| if last { "    " } else { "│   " })
                    .collect();
                let Some((_, more)) = open.pop() else { break };
                if more > 0 {
                    writeln!(f, "{prefix}└── … {more} more")?;
                }
            }
            Ok(())
        };
        for (i, entry) in self.entries.iter().enumerate() {
            close(f, &mut open, entry.depth)?;
            let parent_more = open
                .last()
                .map_or(self.root_not_listed(), |&(_, more)| more);
            let has_later_sibling = self.entries[i + 1..]
                .iter()
                .take_while(|e| e.depth >= entry.depth)
                .any(|e| e.depth == entry.depth);
            let last = !has_later_sibling && parent_more == 0;
            let prefix: String = open
                .iter()
                .map(|&(last, _)| if last { "    " } else { "│   " })
                .collect();
            let branch = if last { "└── " } else { "├── " };
            writeln!(f, "{prefix}{branch}{}", Self::describe(entry))?;
            let expanded = entry.kind == EntryKind::Folder
                && entry.entries_not_listed < entry.entries.unwrap_or(0);
            if expanded {
                open.push((last, entry.entries_not_listed));
            }
        }
        close(f, &mut open, 1)?;
        let root_more = self.root_not_listed();
        if root_more > 0 {
            writeln!(f, "└── … {root_more} more")?;
        }
        for err in &self.errors {
            writeln!(f, "error: {}: {}", err.path, err.message)?;
        }
        if self.capped {
            writeln!(
                f,
                "({} of {} entries listed; list a subfolder or lower the depth to see the rest)",
                grouped(self.entries.len() as u64),
                grouped(self.total_entries as u64)
            )?;
        }
        Ok(())
    }
}

impl ListResult {
    fn root_not_listed(&self) -> usize {
        self.root_entries
            .saturating_sub(self.entries.iter().filter(|e| e.depth == 1).count())
    }
}

/// Lists the folder `root` as a tree, `depth` levels deep, respecting ignore files and skipping
/// hidden entries (as ripgrep's walk does; see [`WalkOptions`]).
///
/// With more entries than `max_entries`, whole levels are listed first (all of the folder's own
/// entries before any of their contents), so a capped listing still shows the top. Errors: a
/// missing root, or a root that is a file.
pub fn list_dir(root: &Path, options: &ListOptions) -> Result<ListResult, SearchError> {
    let meta = crate::walk::check_root(root)?;
    if !meta.is_dir() {
        return Err(SearchError::NotAFolder {
            path: root.to_path_buf(),
        });
    }
    let depth = options.depth.max(1);
    let mut builder = options.walk.builder(root);
    builder
        .max_depth(Some(depth + 1))
        .sort_by_file_name(|a, b| a.cmp(b));
    let mut entries: Vec<Entry> = Vec::new();
    let mut errors = Vec::new();
    let mut root_entries = 0usize;
    // Indices of the folders enclosing the current entry, by depth.
    let mut parents: Vec<usize> = Vec::new();
    for item in builder.build() {
        let item = match item {
            Ok(item) => item,
            Err(err) => {
                errors.push(walk_error(root, &err));
                continue;
            }
        };
        let d = item.depth();
        if d == 0 {
            continue;
        }
        parents.truncate(d - 1);
        match parents.last() {
            Some(&p) => {
                if let Some(parent) = entries.get_mut(p) {
                    *parent.entries.get_or_insert(0) += 1;
                }
            }
            None => root_entries += 1,
        }
        if d > depth {
            continue;
        }
        let file_type = item.file_type();
        let kind = match file_type {
            Some(t) if t.is_dir() => EntryKind::Folder,
            Some(t) if t.is_symlink() => EntryKind::Symlink,
            _ => EntryKind::File,
        };
        let mut entry = Entry {
            path: relative(root, item.path()),
            kind,
            depth: d,
            size: None,
            lines: None,
            binary: false,
            entries: (kind == EntryKind::Folder).then_some(0),
            entries_not_listed: 0,
            target: None,
        };
        match kind {
            EntryKind::File => entry.size = item.metadata().ok().map(|m| m.len()),
            EntryKind::Symlink => {
                entry.target = std::fs::read_link(item.path())
                    .ok()
                    .map(|t| t.to_string_lossy().replace('\\', "/"));
            }
            EntryKind::Folder => {}
        }
        entries.push(entry);
        if kind == EntryKind::Folder {
            parents.push(entries.len() - 1);
        }
    }
    let total_entries = entries.len();
    // The cap: keep whole levels first, then tree order within the level that is cut.
    let mut keep = vec![true; entries.len()];
    let mut capped = false;
    if options.max_entries > 0 && entries.len() > options.max_entries {
        capped = true;
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by_key(|&i| (entries[i].depth, i));
        for &i in &order[options.max_entries..] {
            keep[i] = false;
        }
    }
    // Count what each folder does not show: contents past the depth, or entries cut by the cap.
    let mut shown_children = vec![0usize; entries.len()];
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..entries.len() {
        let d = entries[i].depth;
        stack.truncate(d - 1);
        if let (true, Some(&p)) = (keep[i], stack.last()) {
            shown_children[p] += 1;
        }
        if entries[i].kind == EntryKind::Folder {
            stack.push(i);
        }
    }
    for (i, entry) in entries.iter_mut().enumerate() {
        if let Some(n) = entry.entries {
            entry.entries_not_listed = n.saturating_sub(shown_children[i]);
        }
    }
    let mut entries: Vec<Entry> = entries
        .into_iter()
        .zip(keep)
        .filter_map(|(e, k)| k.then_some(e))
        .collect();
    if options.line_counts {
        for entry in entries.iter_mut().filter(|e| e.kind == EntryKind::File) {
            if entry.size.is_some_and(|s| s <= MAX_COUNTED_FILE) {
                match count_lines(&root.join(&entry.path)) {
                    Ok(Some(n)) => entry.lines = Some(n),
                    Ok(None) => entry.binary = true,
                    Err(err) => errors.push(FileError {
                        path: entry.path.clone(),
                        message: err.to_string(),
                    }),
                }
            }
        }
    }
    let root_label = match root.file_name() {
        Some(name) => format!("{}/", name.to_string_lossy()),
        None => format!("{}/", root.to_string_lossy().trim_end_matches('/')),
    };
    Ok(ListResult {
        root: root_label,
        entries,
        capped,
        total_entries,
        errors,
        root_entries,
    })
}

/// Counts a file's lines; `None` when it is binary (a NUL byte).
fn count_lines(path: &Path) -> std::io::Result<Option<u64>> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; 64 * 1024];
    let (mut lines, mut last) = (0u64, b'\n');
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        let chunk = &buf[..n];
        if memchr::memchr(0, chunk).is_some() {
            return Ok(None);
        }
        lines += memchr::memchr_iter(b'\n', chunk).count() as u64;
        last = chunk[n - 1];
    }
    Ok(Some(lines + u64::from(last != b'\n')))
}
