//! What a map is, as data and as text: [`LogicMap`] with its files and symbols (their JSON is
//! the serde derive), the options that ask for one, and how it renders for a model.

use std::collections::{BTreeMap, HashMap};

use cast_parser::{SymbolKind, SyntaxError};
use cast_workspace::Scope;
use serde::{Deserialize, Serialize};

use crate::plural;
use crate::trace::Trace;

/// What the map shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MapOptions {
    /// Tokens the rendered map may use (estimated as bytes / 4).
    pub budget: usize,
    /// An execution trace to map onto the code (see [`crate::trace`]).
    pub trace: Option<Trace>,
    /// A task to focus on: the files and symbols relevant to it (by the same ranking as
    /// `cast find`) come first, then the rest by PageRank.
    pub focus: Option<String>,
    /// How the map's header names the root (the budget counts it); `None`: as the index was
    /// opened. A server that opened it once answers in the words each asker used.
    pub root_name: Option<String>,
    /// The part of the tree mapped (`src/http`, `!tests`): its files, ranked and focused among
    /// themselves, with the counts of the header theirs.
    pub scope: Scope,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            budget: 2000,
            trace: None,
            focus: None,
            root_name: None,
            scope: Scope::whole_tree(),
        }
    }
}

/// An error of the trace at a line of a shown file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MapError {
    /// 0 when the error is about the whole file.
    pub line: u32,
    pub message: String,
    /// The code at that line.
    pub code: String,
}

/// A symbol in the map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MapSymbol {
    pub kind: SymbolKind,
    pub qualname: String,
    pub signature: String,
    pub line: u32,
    pub end_line: u32,
    pub rank: f64,
    /// Nesting depth (0 for top level).
    pub depth: usize,
    /// Calls seen in the trace.
    pub calls: Option<u32>,
    pub errors: Vec<MapError>,
    /// What it calls (resolved to one definition), the highest ranked first, at most three:
    /// `Store.count`, `round_money`.
    pub calls_to: Vec<String>,
}

/// A file in the map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MapFile {
    pub path: String,
    pub rank: f64,
    pub description: Option<String>,
    pub lines: u32,
    /// Files this one imports (among the shown ones).
    pub imports: Vec<String>,
    /// Calls in this file seen in the trace.
    pub calls: Option<u32>,
    pub symbols: Vec<MapSymbol>,
    /// Errors at module level (outside any definition).
    pub errors: Vec<MapError>,
    /// The file's first syntax error, when it does not parse.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax_error: Option<SyntaxError>,
}

/// A file of the code base that does not parse.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UnparsedFile {
    pub path: String,
    /// The first syntax error.
    pub error: SyntaxError,
}

/// The L1 map.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogicMap {
    pub root: String,
    pub files_total: usize,
    pub symbols_total: usize,
    /// The shown files: in path order, or with a focus the task's files first (its best files,
    /// then the files of its best symbols), the rest in path order.
    pub files: Vec<MapFile>,
    pub omitted_files: usize,
    pub omitted_symbols: usize,
    pub budget: usize,
    /// Estimated tokens of [`LogicMap::render`].
    pub tokens: usize,
    /// Files of the trace that are not in the index (outside the root, or not code).
    pub trace_unmatched: Vec<String>,
    pub traced: bool,
    /// Files that do not parse (the first [`MAX_UNPARSED`], by path), and how many there are.
    pub unparsed: Vec<UnparsedFile>,
    pub unparsed_total: usize,
    /// The task the map is focused on, if any.
    pub focus: Option<String>,
    /// The patterns of the part of the tree mapped ([`MapOptions::scope`]); empty: all of it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scope: Vec<String>,
}

/// How many files that do not parse the map names.
pub const MAX_UNPARSED: usize = 10;

/// A file's line: its name, calls, syntax error, description and imports.
pub(super) fn file_line(f: &MapFile) -> String {
    let name = f.path.rsplit('/').next().unwrap_or(&f.path);
    let mut s = format!("  {name}");
    if let Some(c) = f.calls {
        s.push_str(&format!(" [ran {c}×]"));
    }
    if let Some(e) = &f.syntax_error {
        s.push_str(&format!(" [SYNTAX ERROR at line {}]", e.line));
    }
    if let Some(d) = &f.description {
        s.push_str(" — ");
        s.push_str(d);
    }
    if !f.imports.is_empty() {
        s.push_str(" → ");
        s.push_str(&f.imports.join(", "));
    }
    s.push('\n');
    s
}

/// A symbol's line: indented by depth, its line number, signature, calls and calls seen.
pub(super) fn symbol_line(s: &MapSymbol) -> String {
    let mut out = format!("    {}{:>4} {}", "  ".repeat(s.depth), s.line, s.signature);
    if !s.calls_to.is_empty() {
        out.push_str(" → ");
        out.push_str(
            &s.calls_to
                .iter()
                .map(|c| format!("{c}()"))
                .collect::<Vec<_>>()
                .join(", "),
        );
    }
    if let Some(c) = s.calls {
        out.push_str(&format!("  [ran {c}×]"));
    }
    out.push('\n');
    out
}

/// An error's line, under the file (`depth` 0) or the symbol it is in.
pub(super) fn error_line(e: &MapError, depth: usize) -> String {
    if e.line == 0 {
        // An error of the whole file (a tool call on it that was refused).
        return format!("    {}[ERROR: {}]\n", "  ".repeat(depth + 1), e.message);
    }
    format!(
        "    {}{:>4} │ {}  [ERROR: {}]\n",
        "  ".repeat(depth + 1),
        e.line,
        e.code.trim(),
        e.message
    )
}

/// The folder of a path (`""` at the root).
pub(super) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

impl LogicMap {
    /// The map as a model reads it.
    pub fn render(&self) -> String {
        let mut out = self.header();
        for (dir, files) in self.folders() {
            out.push_str(if dir.is_empty() { "./" } else { dir });
            if !dir.is_empty() {
                out.push('/');
            }
            out.push('\n');
            for f in files {
                out.push_str(&file_line(f));
                for e in &f.errors {
                    out.push_str(&error_line(e, 0));
                }
                for s in &f.symbols {
                    out.push_str(&symbol_line(s));
                    for e in &s.errors {
                        out.push_str(&error_line(e, s.depth));
                    }
                }
            }
        }
        if self.omitted_files + self.omitted_symbols > 0 {
            out.push_str(&format!(
                "… {} more files and {} more symbols not shown (raise the budget to see more)\n",
                self.omitted_files, self.omitted_symbols
            ));
        }
        if !self.unparsed.is_empty() {
            out.push_str(&format!(
                "Files that do not parse ({}; their symbols are best effort):\n",
                self.unparsed_total
            ));
            for u in &self.unparsed {
                out.push_str(&format!(
                    "  {}:{}: {}\n",
                    u.path, u.error.line, u.error.message
                ));
            }
            if self.unparsed_total > self.unparsed.len() {
                out.push_str(&format!(
                    "  … and {} more\n",
                    self.unparsed_total - self.unparsed.len()
                ));
            }
        }
        if !self.trace_unmatched.is_empty() {
            out.push_str(&format!(
                "Trace files outside the index: {}\n",
                self.trace_unmatched.join(", ")
            ));
        }
        out
    }

    /// The shown files by folder: in path order, or in a focused map in the order of
    /// [`LogicMap::files`] (the task's files first), each folder where its first file is.
    fn folders(&self) -> Vec<(&str, Vec<&MapFile>)> {
        if self.focus.is_none() {
            let mut by_dir: BTreeMap<&str, Vec<&MapFile>> = BTreeMap::new();
            for f in &self.files {
                by_dir.entry(dir_of(&f.path)).or_default().push(f);
            }
            return by_dir.into_iter().collect();
        }
        let mut folders: Vec<(&str, Vec<&MapFile>)> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for f in &self.files {
            let dir = dir_of(&f.path);
            let i = *at.entry(dir).or_insert_with(|| {
                folders.push((dir, Vec::new()));
                folders.len() - 1
            });
            folders[i].1.push(f);
        }
        folders
    }

    pub(super) fn header(&self) -> String {
        if self.traced {
            format!(
                "Execution map of {}: {} of {} files ran; functions that ran marked [ran N×], errors [ERROR: …]; → imports\n",
                self.root,
                self.files.len() + self.omitted_files,
                self.files_total
            )
        } else {
            let within = if self.scope.is_empty() {
                String::new()
            } else {
                format!(" (in {})", self.scope.join(", "))
            };
            format!(
                "Logic map of {}{within}: {} {}, {} {}; key symbols {} (line, signature); → imports\n",
                self.root,
                self.files_total,
                plural(self.files_total, "file", "files"),
                self.symbols_total,
                plural(self.symbols_total, "symbol", "symbols"),
                if self.focus.is_some() {
                    "for the task first, then by PageRank"
                } else {
                    "by PageRank"
                }
            )
        }
    }
}
