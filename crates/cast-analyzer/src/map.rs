//! L1: the logic map — the project's tree, its key symbols ranked by PageRank, the imports
//! between its modules and each module's one-line description, fitted to a token budget.
//!
//! Selection is greedy by rank: symbols in PageRank order, each bringing its file's line (and
//! its enclosing class) the first time, while the estimated tokens stay within the budget; then
//! files without a shown symbol, by file rank, while room remains. With a trace, only files
//! that ran are shown; the functions that ran come first (marked `[ran N×]`), and each error is
//! shown at its line, with the line's code, as `[ERROR: …]`.

use std::collections::{BTreeMap, HashMap, HashSet};

use cast_parser::{SourceText, SymbolKind, SyntaxError};
use cast_workspace::Scope;
use serde::{Deserialize, Serialize};

use crate::plural;
use crate::reader::Reader;
use crate::scope::InScope;
use cast_index::RankedTable;
use cast_index::graph::resolve::{decode_deps_raw, decode_edges_raw};
use cast_index::rows::{FileBlob, SymbolInfo as SymInfo};

use crate::description::short_description;
use crate::show::relative_path;
use crate::trace::Trace;
use crate::{Result, estimate_tokens};

/// Calls shown after a key symbol.
const CALLEES: usize = 3;

/// Symbols and files of a focused map's task that are placed first.
const FOCUS_SYMBOLS: usize = 30;
const FOCUS_FILES: usize = 8;

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

fn file_line(f: &MapFile) -> String {
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

fn symbol_line(s: &MapSymbol) -> String {
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

fn error_line(e: &MapError, depth: usize) -> String {
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

/// Per file, per calling symbol: each callee some call resolved to (not by name alone).
type CalleesByFile = HashMap<i64, HashMap<i64, Vec<i64>>>;

fn dir_of(path: &str) -> &str {
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

    fn header(&self) -> String {
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

#[derive(Debug, Clone)]
struct FileInfo {
    id: i64,
    path: String,
    /// The module docstring as stored; shortened only for the files a map shows.
    description: Option<String>,
    lines: u32,
    deps: Vec<i64>,
}

impl Reader<'_> {
    fn map_files(&self) -> Result<HashMap<i64, FileInfo>> {
        let mut out = HashMap::new();
        for f in self.snap.mapped_files()? {
            let info = FileInfo {
                id: f.id,
                path: f.path,
                description: f.description,
                lines: f.lines,
                deps: f
                    .deps
                    .and_then(|d| decode_deps_raw(&d))
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(id, _)| id)
                    .collect(),
            };
            out.insert(info.id, info);
        }
        Ok(out)
    }

    fn sym_info(&self, id: i64) -> Result<Option<SymInfo>> {
        Ok(self.snap.symbol_info(id)?)
    }

    /// The innermost symbol of a file enclosing a line.
    fn enclosing(&self, file_id: i64, line: u32) -> Result<Option<i64>> {
        Ok(self
            .snap
            .enclosing_sym_row(file_id, line)
            .map(|row| row.map(|r| r.id))?)
    }

    /// What `sym` calls, for its line of the map: the best [`CALLEES`] by rank, each resolved to
    /// one definition (the file's edges are decoded once and kept in `cache`). A call found by
    /// name alone (`x.rstrip()`, the receiver's type unknown) is a guess, and the map states no
    /// guess as a fact: it is left out (`cast show` lists guesses apart, marked `?`). A
    /// generated file (a minified bundle, protobuf output) shows no calls: they are the
    /// generator's, not code anyone reads.
    fn callees(
        &self,
        cache: &mut CalleesByFile,
        file_id: i64,
        sym: i64,
        ranks: &cast_index::SortedRanks,
    ) -> Result<Vec<String>> {
        if self.snap.file_roles()?.of(file_id).generated {
            return Ok(Vec::new());
        }
        if let std::collections::hash_map::Entry::Vacant(slot) = cache.entry(file_id) {
            let blob = self.snap.file_blob(file_id, FileBlob::Edges)?;
            // Each callee once, when some call to it resolved.
            let mut by_src: HashMap<i64, Vec<i64>> = HashMap::new();
            for e in blob.and_then(|b| decode_edges_raw(&b)).unwrap_or_default() {
                if e.kind == cast_parser::RefKind::Call
                    && e.k == 1
                    && e.src != e.dst
                    && e.how != cast_index::graph::resolve::How::Name
                {
                    let list = by_src.entry(e.src).or_default();
                    if !list.contains(&e.dst) {
                        list.push(e.dst);
                    }
                }
            }
            slot.insert(by_src);
        }
        let mut dsts = cache
            .get(&file_id)
            .and_then(|m| m.get(&sym))
            .cloned()
            .unwrap_or_default();
        dsts.sort_by(|a, b| {
            let ra = ranks.get(*a).unwrap_or(0.0);
            let rb = ranks.get(*b).unwrap_or(0.0);
            rb.total_cmp(&ra).then(a.cmp(b))
        });
        let mut out = Vec::new();
        for d in dsts {
            if out.len() == CALLEES {
                break;
            }
            let Some(info) = self.sym_info(d)? else {
                continue;
            };
            out.push(info.qualname);
        }
        Ok(out)
    }

    fn symbols_of_file(&self, file_id: i64) -> Result<Vec<i64>> {
        Ok(self.snap.symbols_of_file(file_id)?)
    }

    fn by_qualname(&self, file_id: i64, function: &str) -> Result<Option<i64>> {
        let name = function.rsplit('.').next().unwrap_or(function);
        let named = self.snap.symbols_named_in_file(file_id, name)?;
        Ok(named
            .iter()
            .find(|(_, q)| q == function || function.ends_with(&format!(".{q}")))
            .or(named.first())
            .map(|(id, _)| *id))
    }

    /// The indexed file a trace's path names: the same relative path, a path under the root,
    /// or else the indexed path that is the longest component-wise suffix of it.
    fn match_trace_file(&self, files_by_path: &HashMap<&str, i64>, traced: &str) -> Option<i64> {
        let rel = relative_path(self.snap.root(), traced);
        if let Some(id) = files_by_path.get(rel.as_str()) {
            return Some(*id);
        }
        let parts: Vec<&str> = traced
            .split(['/', '\\'])
            .filter(|p| !p.is_empty())
            .collect();
        for start in 0..parts.len() {
            let suffix = parts[start..].join("/");
            if let Some(id) = files_by_path.get(suffix.as_str()) {
                return Some(*id);
            }
        }
        None
    }

    /// The files of `scope` flagged as not parsing (by path), each with its first error (parsed
    /// again when an older index did not store it), at most [`MAX_UNPARSED`]; and how many.
    fn unparsed_files(&self, scope: &Scope) -> Result<(Vec<UnparsedFile>, usize)> {
        let mut files = self.snap.unparsed_files()?;
        files.retain(|(path, _)| scope.contains(path));
        let total = files.len();
        let mut out = Vec::new();
        for (path, stored) in files.into_iter().take(MAX_UNPARSED) {
            let error = stored.or_else(|| {
                // An index from before errors were stored: parse the file again.
                let full = self.snap.root().join(&path);
                let language = self.snap.registry().for_path(&full)?;
                SourceText::read(&full, cast_parser::DEFAULT_MAX_FILESIZE)
                    .ok()
                    .and_then(|source| language.parse(&source.text).ok())
                    .and_then(|parsed| parsed.syntax_error)
            });
            if let Some(error) = error {
                out.push(UnparsedFile { path, error });
            }
        }
        Ok((out, total))
    }

    /// L1: the logic map within `options.budget` tokens.
    /// L1, the logic map ([`crate::Queries::map`]).
    pub(crate) fn map(&self, options: &MapOptions) -> Result<LogicMap> {
        // A process that keeps the index open reads these once while the database is unchanged.
        // A blank task is no focus (the header and the order say so too).
        let focus = options.focus.clone().filter(|t| !t.trim().is_empty());
        let files = self.snap.memoized("map:files", || self.map_files())?;
        let (unparsed, unparsed_total) = self.unparsed_files(&options.scope)?;
        let file_ranks = self.stored_ranks(RankedTable::Files)?;
        let sym_ranks = self.stored_ranks(RankedTable::Symbols)?;
        // As counted when the content last changed: counting scans the whole table.
        let in_scope = if options.scope.is_whole_tree() {
            None
        } else {
            // The parsed files are at hand already (the map's own list).
            let own = files
                .values()
                .filter(|f| options.scope.contains(&f.path))
                .map(|f| f.id)
                .collect();
            Some(InScope::with_symbols(self.snap, own)?)
        };
        let symbols_total = match (&in_scope, self.snap.counts()?) {
            (Some(scope), _) => scope.symbols.len(),
            (None, Some(counts)) => counts.symbols,
            (None, None) => self.snap.count_rows()?.symbols,
        };
        let files_total = in_scope.as_ref().map_or(files.len(), |s| s.files.len());
        let root = options
            .root_name
            .clone()
            .unwrap_or_else(|| self.snap.root().display().to_string());

        // With a trace: calls per symbol and per file, errors, and the files that ran.
        let mut calls: HashMap<i64, u32> = HashMap::new();
        let mut file_calls: HashMap<i64, u32> = HashMap::new();
        let mut errors: Vec<(i64, Option<i64>, MapError)> = Vec::new();
        let mut unmatched: Vec<String> = Vec::new();
        if let Some(trace) = &options.trace {
            let by_path: HashMap<&str, i64> =
                files.values().map(|f| (f.path.as_str(), f.id)).collect();
            for fr in &trace.frames {
                let Some(fid) = self.match_trace_file(&by_path, &fr.file) else {
                    if !unmatched.contains(&fr.file) {
                        unmatched.push(fr.file.clone());
                    }
                    continue;
                };
                *file_calls.entry(fid).or_default() += fr.count;
                let sym = match (fr.line, &fr.function) {
                    (Some(line), _) => self.enclosing(fid, line)?,
                    (None, Some(func)) => self.by_qualname(fid, func)?,
                    (None, None) => None,
                };
                if let Some(s) = sym {
                    *calls.entry(s).or_default() += fr.count;
                }
            }
            for e in &trace.errors {
                let Some(fid) = self.match_trace_file(&by_path, &e.file) else {
                    if !unmatched.contains(&e.file) {
                        unmatched.push(e.file.clone());
                    }
                    continue;
                };
                file_calls.entry(fid).or_default();
                let sym = self.enclosing(fid, e.line)?;
                if let Some(s) = sym {
                    calls.entry(s).or_insert(1);
                }
                let code = files
                    .get(&fid)
                    .map(|f| self.read_lines(&f.path, e.line, e.line))
                    .transpose()?
                    .unwrap_or_default();
                let mut message = e.message.replace('\n', " ");
                if message.chars().count() > 200 {
                    message = message.chars().take(197).collect::<String>() + "…";
                }
                errors.push((
                    fid,
                    sym,
                    MapError {
                        line: e.line,
                        message,
                        code: code.trim_end().chars().take(160).collect(),
                    },
                ));
            }
        }
        let traced = options.trace.is_some();
        let allowed = |fid: i64| {
            (!traced || file_calls.contains_key(&fid))
                && in_scope.as_ref().is_none_or(|s| s.files.contains(&fid))
        };

        // Candidate symbols: those that ran first (by calls), then by rank.
        let mut ran: Vec<(i64, u32)> = calls.iter().map(|(k, v)| (*k, *v)).collect();
        ran.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let error_syms: Vec<i64> = errors.iter().filter_map(|(_, s, _)| *s).collect();
        let mut first: Vec<i64> = error_syms
            .iter()
            .copied()
            .chain(ran.iter().map(|(id, _)| *id))
            .collect();
        // Focused: the task's best symbols, then the key symbols of its best files.
        let mut focus_files: Vec<i64> = Vec::new();
        // The task's files in the order they are shown: its best files, then the files of its
        // best symbols.
        let mut focus_order: Vec<i64> = Vec::new();
        if let Some(task) = focus.as_deref() {
            let (syms, files) =
                match self.focus(task, FOCUS_SYMBOLS, FOCUS_FILES, in_scope.as_ref()) {
                    Ok(found) => found,
                    Err(crate::AnalyzerError::EmptyQuery) => (Vec::new(), Vec::new()),
                    Err(e) => return Err(e),
                };
            focus_order.extend(&files);
            for id in &syms {
                if let Some(info) = self.sym_info(*id)?
                    && !focus_order.contains(&info.file_id)
                {
                    focus_order.push(info.file_id);
                }
            }
            first.extend(syms);
            for f in &files {
                let mut in_file: Vec<(i64, f64)> = self
                    .symbols_of_file(*f)?
                    .into_iter()
                    .map(|id| (id, sym_ranks.sorted.get(id).unwrap_or(0.0)))
                    .collect();
                in_file.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                first.extend(in_file.into_iter().take(3).map(|(id, _)| id));
            }
            focus_files = files;
        }

        let mut shown_files: HashMap<i64, MapFile> = HashMap::new();
        let mut shown_syms: HashSet<i64> = HashSet::new();
        let mut pending_syms: Vec<(i64, MapSymbol)> = Vec::new();
        let dep_names = |f: &FileInfo| -> Vec<String> {
            f.deps
                .iter()
                .filter_map(|d| files.get(d))
                .map(|d| d.path.clone())
                .take(6)
                .collect()
        };
        let make_file = |f: &FileInfo| MapFile {
            path: f.path.clone(),
            rank: file_ranks.sorted.get(f.id).unwrap_or(0.0),
            description: f
                .description
                .as_deref()
                .map(short_description)
                .filter(|d| !d.is_empty()),
            lines: f.lines,
            imports: dep_names(f),
            calls: traced.then(|| file_calls.get(&f.id).copied().unwrap_or(0)),
            symbols: Vec::new(),
            errors: errors
                .iter()
                .filter(|(fid, s, _)| *fid == f.id && s.is_none())
                .map(|(_, _, e)| e.clone())
                .collect(),
            syntax_error: unparsed
                .iter()
                .find(|u| u.path == f.path)
                .map(|u| u.error.clone()),
        };
        let mut used = estimate_tokens(
            &LogicMap {
                root: root.clone(),
                files_total,
                symbols_total,
                files: Vec::new(),
                omitted_files: 1,
                omitted_symbols: 1,
                budget: options.budget,
                tokens: 0,
                trace_unmatched: Vec::new(),
                traced,
                unparsed: Vec::new(),
                unparsed_total: 0,
                focus: focus.clone(),
                scope: options.scope.patterns().to_vec(),
            }
            .header(),
        ) + 25
            + unparsed
                .iter()
                .map(|u| estimate_tokens(&u.path) + estimate_tokens(&u.error.message) + 3)
                .sum::<usize>();
        let mut dirs: HashSet<String> = HashSet::new();
        let mut callee_cache: CalleesByFile = HashMap::new();
        let budget = options.budget;
        let mut misses = 0;
        // Test code comes after all other code of the ranking (a test helper that every test
        // calls ranks high, and says little of the code base), unless the task is about tests;
        // what the focus or a trace asked for comes first, tests or not.
        let tests_last = !options
            .focus
            .as_deref()
            .is_some_and(crate::test_code::speaks_of_tests);
        let mut asked = first.iter().copied();
        // In a scope, its own symbols by rank (ties by id, as `best_first`): a small scope
        // would otherwise read and skip most of the tree's ranking.
        let mut ranked: Box<dyn Iterator<Item = i64>> = match &in_scope {
            Some(scope) => {
                let mut own: Vec<(i64, f64)> = scope
                    .symbols
                    .iter()
                    .map(|id| (*id, sym_ranks.sorted.get(*id).unwrap_or(0.0)))
                    .collect();
                own.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                Box::new(own.into_iter().map(|(id, _)| id))
            }
            None => Box::new(sym_ranks.sorted.best_first()),
        };
        let mut tests: Vec<i64> = Vec::new();
        let file_roles = self.snap.file_roles()?;
        let mut next_test = 0;
        loop {
            let (id, from_ranking) = if let Some(id) = asked.next() {
                (id, false)
            } else if let Some(id) = ranked.next() {
                (id, true)
            } else if let Some(id) = tests.get(next_test) {
                next_test += 1;
                (*id, false)
            } else {
                break;
            };
            // After 200 symbols that did not fit, the budget is spent: the rest of the ranking
            // (every symbol of the tree, sorted only when it is read this far) is not read.
            if misses > 200 {
                break;
            }
            if shown_syms.contains(&id) {
                continue;
            }
            let Some(info) = self.sym_info(id)? else {
                continue;
            };
            if !allowed(info.file_id) {
                continue;
            }
            let Some(file) = files.get(&info.file_id) else {
                continue;
            };
            if from_ranking
                && tests_last
                && crate::test_code::is_test_symbol(
                    file_roles.of(info.file_id),
                    &info.qualname,
                    info.decorators.as_deref(),
                )
            {
                tests.push(id);
                continue;
            }
            // This symbol plus enclosing symbols not yet shown.
            let mut chain = vec![info.clone()];
            let mut parent = info.parent;
            while let Some(p) = parent {
                if shown_syms.contains(&p) {
                    break;
                }
                match self.sym_info(p)? {
                    Some(pi) => {
                        parent = pi.parent;
                        chain.push(pi);
                    }
                    None => break,
                }
            }
            let mut cost = 0;
            let mut new_file = None;
            if !shown_files.contains_key(&file.id) {
                let mf = make_file(file);
                cost += estimate_tokens(&file_line(&mf));
                cost += mf
                    .errors
                    .iter()
                    .map(|e| estimate_tokens(&error_line(e, 0)))
                    .sum::<usize>();
                if !dirs.contains(dir_of(&file.path)) {
                    cost += estimate_tokens(dir_of(&file.path)) + 1;
                }
                new_file = Some(mf);
            }
            let mut new_syms = Vec::new();
            for s in chain.iter().rev() {
                let depth = {
                    let mut d = 0;
                    let mut p = s.parent;
                    while let Some(pp) = p {
                        d += 1;
                        p = match self.sym_info(pp)? {
                            Some(x) => x.parent,
                            None => None,
                        };
                        if d > 20 {
                            break;
                        }
                    }
                    d
                };
                let ms = MapSymbol {
                    kind: s.kind,
                    qualname: s.qualname.clone(),
                    signature: s.signature.clone(),
                    line: s.line,
                    end_line: s.end_line,
                    rank: sym_ranks.sorted.get(s.id).unwrap_or(0.0),
                    depth,
                    calls: traced.then(|| calls.get(&s.id).copied()).flatten(),
                    errors: errors
                        .iter()
                        .filter(|(_, sid, _)| *sid == Some(s.id))
                        .map(|(_, _, e)| e.clone())
                        .collect(),
                    calls_to: if s.kind.is_callable() && files.contains_key(&s.file_id) {
                        self.callees(&mut callee_cache, s.file_id, s.id, &sym_ranks.sorted)?
                    } else {
                        Vec::new()
                    },
                };
                cost += estimate_tokens(&symbol_line(&ms));
                cost += ms
                    .errors
                    .iter()
                    .map(|e| estimate_tokens(&error_line(e, depth)))
                    .sum::<usize>();
                new_syms.push((s.id, s.file_id, ms));
            }
            if used + cost > budget {
                misses += 1;
                continue;
            }
            used += cost;
            if let Some(mf) = new_file {
                dirs.insert(dir_of(&mf.path).to_owned());
                shown_files.insert(file.id, mf);
            }
            for (sid, fid, ms) in new_syms {
                shown_syms.insert(sid);
                pending_syms.push((fid, ms));
            }
        }
        // Files without a shown symbol, by rank (or, with a trace, every file that ran).
        // The focus's files first, then by rank, then by path; the keys are looked up once per
        // file rather than at every comparison.
        let focus_pos = |id: i64| {
            focus_files
                .iter()
                .position(|f| *f == id)
                .unwrap_or(usize::MAX)
        };
        let mut rest: Vec<(usize, f64, &FileInfo)> = files
            .values()
            .filter(|f| !shown_files.contains_key(&f.id) && allowed(f.id))
            .map(|f| {
                let rank = file_ranks.sorted.get(f.id).unwrap_or(0.0);
                (focus_pos(f.id), rank, f)
            })
            .collect();
        rest.sort_by(|(fa, ra, a), (fb, rb, b)| {
            fa.cmp(fb).then(rb.total_cmp(ra)).then(a.path.cmp(&b.path))
        });
        for (_, _, f) in rest {
            // Its line holds at least "  NAME\n": a file that cannot fit even so is passed
            // over without building its line.
            let name = f.path.rsplit('/').next().unwrap_or(&f.path);
            let mut least = (name.len() + 3).div_ceil(4);
            if !dirs.contains(dir_of(&f.path)) {
                least += estimate_tokens(dir_of(&f.path)) + 1;
            }
            if used + least > budget {
                continue;
            }
            let mf = make_file(f);
            let mut cost = estimate_tokens(&file_line(&mf));
            if !dirs.contains(dir_of(&f.path)) {
                cost += estimate_tokens(dir_of(&f.path)) + 1;
            }
            if used + cost > budget {
                continue;
            }
            used += cost;
            dirs.insert(dir_of(&f.path).to_owned());
            shown_files.insert(f.id, mf);
        }
        for (fid, ms) in pending_syms {
            if let Some(f) = shown_files.get_mut(&fid) {
                f.symbols.push(ms);
            }
        }
        let shown_paths: HashSet<String> = shown_files.values().map(|f| f.path.clone()).collect();
        let mut out_files: Vec<(i64, MapFile)> = shown_files.into_iter().collect();
        for (_, f) in &mut out_files {
            f.symbols.sort_by_key(|s| s.line);
            f.imports.retain(|p| shown_paths.contains(p));
        }
        // A focused map shows the task's files first (a reader starts at the top), the rest in
        // path order.
        let shown_at = |id: i64| {
            focus_order
                .iter()
                .position(|f| *f == id)
                .unwrap_or(usize::MAX)
        };
        // The rest by folder, then path: in a focused map, folders in the order of a map without
        // a focus (`a/` before `a/b/`, which path order alone does not give).
        out_files.sort_by(|(ia, a), (ib, b)| {
            shown_at(*ia)
                .cmp(&shown_at(*ib))
                .then_with(|| match focus {
                    Some(_) => dir_of(&a.path).cmp(dir_of(&b.path)),
                    None => std::cmp::Ordering::Equal,
                })
                .then_with(|| a.path.cmp(&b.path))
        });
        let out_files: Vec<MapFile> = out_files.into_iter().map(|(_, f)| f).collect();
        let candidate_files = files.values().filter(|f| allowed(f.id)).count();
        let candidate_syms = if traced { calls.len() } else { symbols_total };
        let shown_sym_count = out_files.iter().map(|f| f.symbols.len()).sum::<usize>();
        let mut map = LogicMap {
            root,
            files_total,
            symbols_total,
            omitted_files: candidate_files.saturating_sub(out_files.len()),
            omitted_symbols: candidate_syms.saturating_sub(shown_sym_count),
            files: out_files,
            budget,
            tokens: 0,
            trace_unmatched: unmatched,
            traced,
            unparsed,
            unparsed_total,
            focus: focus.clone(),
            scope: if in_scope.is_some() {
                options.scope.patterns().to_vec()
            } else {
                Vec::new()
            },
        };
        map.tokens = estimate_tokens(&map.render());
        Ok(map)
    }
}
