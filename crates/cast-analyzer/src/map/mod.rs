//! L1: the logic map — the project's tree, its key symbols ranked by PageRank, the imports
//! between its modules and each module's one-line description, fitted to a token budget. This
//! is the entry ([`Reader::map`]); `select`, `calls`, `traced` and `results` are its parts.
//!
//! Selection is greedy by rank: symbols in PageRank order, each bringing its file's line (and
//! its enclosing class) the first time, while the estimated tokens stay within the budget; then
//! files without a shown symbol, by file rank, while room remains. With a trace, only files
//! that ran are shown; the functions that ran come first (marked `[ran N×]`), and each error is
//! shown at its line, with the line's code, as `[ERROR: …]`. With a focus, the task's files
//! and symbols by search's ranking come first.

mod calls;
mod results;
mod select;
mod traced;

pub use results::{LogicMap, MAX_UNPARSED, MapError, MapFile, MapOptions, MapSymbol, UnparsedFile};

use std::collections::HashMap;

use cast_index::RankedTable;
use cast_index::graph::resolve::decode_deps_raw;
use cast_index::rows::SymbolInfo as SymInfo;
use cast_parser::SourceText;
use cast_workspace::Scope;

use crate::reader::Reader;
use crate::scope::InScope;
use crate::test_code::speaks_of_tests;
use crate::{Result, estimate_tokens};
use select::{Focused, Shown, Tree};
use traced::Traced;

/// Tokens kept for the line that says what was left out.
const OMITTED_LINE: usize = 25;

/// A file as the map reads it.
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
    /// L1, the logic map within `options.budget` tokens ([`crate::Queries::map`]).
    pub(crate) fn map(&self, options: &MapOptions) -> Result<LogicMap> {
        // A blank task is no focus (the header and the order say so too).
        let focus = options.focus.clone().filter(|t| !t.trim().is_empty());
        // A process that keeps the index open reads these once while the database is unchanged.
        let files = self.snap.memoized("map:files", || self.map_files())?;
        let (unparsed, unparsed_total) = self.unparsed_files(&options.scope)?;
        let file_ranks = self.stored_ranks(RankedTable::Files)?;
        let sym_ranks = self.stored_ranks(RankedTable::Symbols)?;
        let in_scope = self.map_scope(&files, &options.scope)?;
        // As counted when the content last changed: counting scans the whole table.
        let symbols_total = match (&in_scope, self.snap.counts()?) {
            (Some(scope), _) => scope.symbols.len(),
            (None, Some(counts)) => counts.symbols,
            (None, None) => self.snap.count_rows()?.symbols,
        };
        let files_total = in_scope.as_ref().map_or(files.len(), |s| s.files.len());
        let traced = options.trace.is_some();
        let trace = match &options.trace {
            Some(trace) => self.traced(trace, &files)?,
            None => Traced::default(),
        };
        let tree = Tree {
            files: &files,
            file_ranks: &file_ranks.sorted,
            sym_ranks: &sym_ranks.sorted,
            traced,
            trace: &trace,
            unparsed: &unparsed,
            in_scope: in_scope.as_ref(),
        };
        let focused = match focus.as_deref() {
            Some(task) => self.focused(task, &tree)?,
            None => Focused::default(),
        };
        // The header as the map will have it, its counts at their widest (files and symbols
        // left out), before anything is chosen: its cost is paid first.
        let mut map = LogicMap {
            root: options
                .root_name
                .clone()
                .unwrap_or_else(|| self.snap.root().display().to_string()),
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
        };
        let used = estimate_tokens(&map.header())
            + OMITTED_LINE
            + unparsed
                .iter()
                .map(|u| estimate_tokens(&u.path) + estimate_tokens(&u.error.message) + 3)
                .sum::<usize>();
        let mut shown = Shown::new(options.budget, used);
        // Test code comes after all other code of the ranking, unless the task is about tests;
        // what the focus or a trace asked for comes first, tests or not.
        let tests_last = !options.focus.as_deref().is_some_and(speaks_of_tests);
        let mut asked = trace.asked_first();
        asked.extend(&focused.symbols);
        self.show_symbols(&tree, &mut shown, &asked, tests_last)?;
        shown.add_files(&tree, &focused.files);
        let shown_files = shown.into_files(&focused.order, focus.is_some());

        let candidate_files = files.values().filter(|f| tree.allowed(f.id)).count();
        let candidate_syms = if traced {
            trace.calls.len()
        } else {
            symbols_total
        };
        let shown_syms = shown_files.iter().map(|f| f.symbols.len()).sum::<usize>();
        map.omitted_files = candidate_files.saturating_sub(shown_files.len());
        map.omitted_symbols = candidate_syms.saturating_sub(shown_syms);
        map.files = shown_files;
        map.trace_unmatched = trace.unmatched;
        map.unparsed = unparsed;
        map.unparsed_total = unparsed_total;
        if in_scope.is_none() {
            map.scope = Vec::new();
        }
        map.tokens = estimate_tokens(&map.render());
        Ok(map)
    }

    /// The map's scope as ids, or `None` for the whole tree. The parsed files are at hand
    /// already (the map's own list).
    fn map_scope(&self, files: &HashMap<i64, FileInfo>, scope: &Scope) -> Result<Option<InScope>> {
        if scope.is_whole_tree() {
            return Ok(None);
        }
        let own = files
            .values()
            .filter(|f| scope.contains(&f.path))
            .map(|f| f.id)
            .collect();
        Ok(Some(InScope::with_symbols(self.snap, own)?))
    }

    /// Every parsed file as the map reads it.
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

    fn sym_info(&self, id: i64) -> Result<Option<SymInfo>> {
        Ok(self.snap.symbol_info(id)?)
    }

    fn symbols_of_file(&self, file_id: i64) -> Result<Vec<i64>> {
        Ok(self.snap.symbols_of_file(file_id)?)
    }
}
