//! What a map shows: symbols greedily by rank (what a trace or a focus asks for first, test
//! code last), each with its file and its enclosing symbols, while the token budget lasts; then
//! the files without a shown symbol; then the order they are shown in.

use std::collections::{HashMap, HashSet};

use cast_index::SortedRanks;
use cast_index::rows::SymbolInfo as SymInfo;

use super::FileInfo;
use super::calls::CalleesByFile;
use super::results::{
    MapFile, MapSymbol, UnparsedFile, dir_of, error_line, file_line, symbol_line,
};
use super::traced::Traced;
use crate::description::short_description;
use crate::reader::Reader;
use crate::scope::InScope;
use crate::test_code::is_test_symbol;
use crate::{AnalyzerError, Result, estimate_tokens};

/// Symbols of a focused map's task that are placed first.
const FOCUS_SYMBOLS: usize = 30;
/// Files of a focused map's task that are placed first…
const FOCUS_FILES: usize = 8;
/// …with this many of their key symbols (by rank).
const FOCUS_FILE_SYMBOLS: usize = 3;
/// Imports a file's line names at most (before those not shown are dropped).
const IMPORTS: usize = 6;
/// After this many symbols that did not fit, the budget is spent: the rest of the ranking
/// (every symbol of the tree, sorted only when it is read this far) is not read.
const MISSES: usize = 200;
/// Enclosing symbols counted for a symbol's indentation, at most (past it, the chain stops).
const MAX_DEPTH: usize = 20;

/// The tree a map is chosen from: its files, their ranks, the trace and the scope.
pub(super) struct Tree<'a> {
    pub(super) files: &'a HashMap<i64, FileInfo>,
    pub(super) file_ranks: &'a SortedRanks,
    pub(super) sym_ranks: &'a SortedRanks,
    /// Whether the map is of a trace (then only files that ran are shown).
    pub(super) traced: bool,
    pub(super) trace: &'a Traced,
    pub(super) unparsed: &'a [UnparsedFile],
    pub(super) in_scope: Option<&'a InScope>,
}

impl<'a> Tree<'a> {
    /// Whether a file may be shown: it is in the scope and, in a map of a trace, it ran.
    pub(super) fn allowed(&self, fid: i64) -> bool {
        (!self.traced || self.trace.file_calls.contains_key(&fid))
            && self.in_scope.is_none_or(|s| s.files.contains(&fid))
    }

    /// The paths of the files `f` imports, the first few.
    fn dep_names(&self, f: &FileInfo) -> Vec<String> {
        f.deps
            .iter()
            .filter_map(|d| self.files.get(d))
            .map(|d| d.path.clone())
            .take(IMPORTS)
            .collect()
    }

    /// A file as the map shows it, without its symbols yet.
    fn map_file(&self, f: &FileInfo) -> MapFile {
        MapFile {
            path: f.path.clone(),
            rank: self.file_ranks.get(f.id).unwrap_or(0.0),
            description: f
                .description
                .as_deref()
                .map(short_description)
                .filter(|d| !d.is_empty()),
            lines: f.lines,
            imports: self.dep_names(f),
            calls: self
                .traced
                .then(|| self.trace.file_calls.get(&f.id).copied().unwrap_or(0)),
            symbols: Vec::new(),
            errors: self
                .trace
                .errors
                .iter()
                .filter(|(fid, s, _)| *fid == f.id && s.is_none())
                .map(|(_, _, e)| e.clone())
                .collect(),
            syntax_error: self
                .unparsed
                .iter()
                .find(|u| u.path == f.path)
                .map(|u| u.error.clone()),
        }
    }

    /// The symbols by rank, best first. In a scope, its own symbols by rank (ties by id, as
    /// `best_first`): a small scope would otherwise read and skip most of the tree's ranking.
    fn ranking(&self) -> Box<dyn Iterator<Item = i64> + 'a> {
        match self.in_scope {
            Some(scope) => {
                let mut own: Vec<(i64, f64)> = scope
                    .symbols
                    .iter()
                    .map(|id| (*id, self.sym_ranks.get(*id).unwrap_or(0.0)))
                    .collect();
                own.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
                Box::new(own.into_iter().map(|(id, _)| id))
            }
            None => Box::new(self.sym_ranks.best_first()),
        }
    }
}

/// What a focus asks of a map (all empty without one).
#[derive(Debug, Default)]
pub(super) struct Focused {
    /// Shown first: the task's best symbols, then the key symbols of its best files.
    pub(super) symbols: Vec<i64>,
    /// The task's best files, best first: among the files without a shown symbol, these first.
    pub(super) files: Vec<i64>,
    /// The task's files in the order they are shown: its best files, then the files of its
    /// best symbols.
    pub(super) order: Vec<i64>,
}

/// What the map shows so far, and the tokens it costs.
pub(super) struct Shown {
    files: HashMap<i64, MapFile>,
    symbols: HashSet<i64>,
    /// The shown symbols with their files' ids, put in their files at the end.
    pending: Vec<(i64, MapSymbol)>,
    /// The folders of the shown files (a folder's line is paid once).
    dirs: HashSet<String>,
    used: usize,
    budget: usize,
}

/// What showing one more symbol adds: its file's line (when the file is not shown yet), its
/// own line and those of its enclosing symbols not shown yet, and what all that costs.
struct Addition {
    cost: usize,
    file_id: i64,
    file: Option<MapFile>,
    /// (symbol id, file id, line) each, outermost first.
    symbols: Vec<(i64, i64, MapSymbol)>,
}

impl Shown {
    /// Nothing shown yet; `used` tokens are spent already (the header and what every map
    /// shows).
    pub(super) fn new(budget: usize, used: usize) -> Shown {
        Shown {
            files: HashMap::new(),
            symbols: HashSet::new(),
            pending: Vec::new(),
            dirs: HashSet::new(),
            used,
            budget,
        }
    }

    /// The tokens of a folder's line, when none of its files is shown yet.
    fn dir_cost(&self, path: &str) -> usize {
        if self.dirs.contains(dir_of(path)) {
            0
        } else {
            estimate_tokens(dir_of(path)) + 1
        }
    }

    /// Shows `file` as a file of the map.
    fn show_file(&mut self, id: i64, file: MapFile) {
        self.dirs.insert(dir_of(&file.path).to_owned());
        self.files.insert(id, file);
    }

    /// Takes `add` if it fits the budget; says whether it did.
    fn take(&mut self, add: Addition) -> bool {
        if self.used + add.cost > self.budget {
            return false;
        }
        self.used += add.cost;
        if let Some(mf) = add.file {
            self.show_file(add.file_id, mf);
        }
        for (sid, fid, ms) in add.symbols {
            self.symbols.insert(sid);
            self.pending.push((fid, ms));
        }
        true
    }

    /// Files without a shown symbol while room remains: the focus's files first, then by rank,
    /// then by path (with a trace, only files that ran are allowed).
    pub(super) fn add_files(&mut self, tree: &Tree, focus_files: &[i64]) {
        // The keys are looked up once per file rather than at every comparison.
        let focus_pos = |id: i64| {
            focus_files
                .iter()
                .position(|f| *f == id)
                .unwrap_or(usize::MAX)
        };
        let mut rest: Vec<(usize, f64, &FileInfo)> = tree
            .files
            .values()
            .filter(|f| !self.files.contains_key(&f.id) && tree.allowed(f.id))
            .map(|f| {
                let rank = tree.file_ranks.get(f.id).unwrap_or(0.0);
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
            let least = (name.len() + 3).div_ceil(4) + self.dir_cost(&f.path);
            if self.used + least > self.budget {
                continue;
            }
            let mf = tree.map_file(f);
            let cost = estimate_tokens(&file_line(&mf)) + self.dir_cost(&f.path);
            if self.used + cost > self.budget {
                continue;
            }
            self.used += cost;
            self.show_file(f.id, mf);
        }
    }

    /// The shown files with their symbols in line order and their imports among the shown
    /// files: the task's files first in `focus_order` (a reader starts at the top), the rest in
    /// path order; in a `focused` map by folder first, so folders come in the order of a map
    /// without a focus (`a/` before `a/b/`, which path order alone does not give).
    pub(super) fn into_files(self, focus_order: &[i64], focused: bool) -> Vec<MapFile> {
        let mut files = self.files;
        for (fid, ms) in self.pending {
            if let Some(f) = files.get_mut(&fid) {
                f.symbols.push(ms);
            }
        }
        let shown_paths: HashSet<String> = files.values().map(|f| f.path.clone()).collect();
        let mut out: Vec<(i64, MapFile)> = files.into_iter().collect();
        for (_, f) in &mut out {
            f.symbols.sort_by_key(|s| s.line);
            f.imports.retain(|p| shown_paths.contains(p));
        }
        let shown_at = |id: i64| {
            focus_order
                .iter()
                .position(|f| *f == id)
                .unwrap_or(usize::MAX)
        };
        out.sort_by(|(ia, a), (ib, b)| {
            shown_at(*ia)
                .cmp(&shown_at(*ib))
                .then_with(|| {
                    if focused {
                        dir_of(&a.path).cmp(dir_of(&b.path))
                    } else {
                        std::cmp::Ordering::Equal
                    }
                })
                .then_with(|| a.path.cmp(&b.path))
        });
        out.into_iter().map(|(_, f)| f).collect()
    }
}

impl Reader<'_> {
    /// What the map's focus on `task` asks for: the task's best symbols and files by search's
    /// ranking ([`Reader::focus`]), and the key symbols of those files. A task of no words
    /// asks for nothing.
    pub(super) fn focused(&self, task: &str, tree: &Tree) -> Result<Focused> {
        let (symbols, files) = match self.focus(task, FOCUS_SYMBOLS, FOCUS_FILES, tree.in_scope) {
            Ok(found) => found,
            Err(AnalyzerError::EmptyQuery) => (Vec::new(), Vec::new()),
            Err(e) => return Err(e),
        };
        let mut order = files.clone();
        for id in &symbols {
            if let Some(info) = self.sym_info(*id)?
                && !order.contains(&info.file_id)
            {
                order.push(info.file_id);
            }
        }
        let mut first = symbols;
        for f in &files {
            let mut in_file: Vec<(i64, f64)> = self
                .symbols_of_file(*f)?
                .into_iter()
                .map(|id| (id, tree.sym_ranks.get(id).unwrap_or(0.0)))
                .collect();
            in_file.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            first.extend(
                in_file
                    .into_iter()
                    .take(FOCUS_FILE_SYMBOLS)
                    .map(|(id, _)| id),
            );
        }
        Ok(Focused {
            symbols: first,
            files,
            order,
        })
    }

    /// Shows symbols while the budget lasts: those `asked` for (by the trace and the focus,
    /// tests or not), then the ranking, and last the test code the ranking passed over when
    /// `tests_last` (a test helper that every test calls ranks high, and says little of the
    /// code base).
    pub(super) fn show_symbols(
        &self,
        tree: &Tree,
        shown: &mut Shown,
        asked: &[i64],
        tests_last: bool,
    ) -> Result<()> {
        let mut asked = asked.iter().copied();
        let mut ranked = tree.ranking();
        let mut tests: Vec<i64> = Vec::new();
        let file_roles = self.snap.file_roles()?;
        let mut next_test = 0;
        let mut callees: CalleesByFile = HashMap::new();
        let mut misses = 0;
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
            if misses > MISSES {
                break;
            }
            if shown.symbols.contains(&id) {
                continue;
            }
            let Some(info) = self.sym_info(id)? else {
                continue;
            };
            if !tree.allowed(info.file_id) {
                continue;
            }
            let Some(file) = tree.files.get(&info.file_id) else {
                continue;
            };
            if from_ranking
                && tests_last
                && is_test_symbol(
                    file_roles.of(info.file_id),
                    &info.qualname,
                    info.decorators.as_deref(),
                )
            {
                tests.push(id);
                continue;
            }
            let add = self.addition(tree, shown, info, file, &mut callees)?;
            if !shown.take(add) {
                misses += 1;
            }
        }
        Ok(())
    }

    /// What showing `info` (of `file`) would add to the map, and its cost.
    fn addition(
        &self,
        tree: &Tree,
        shown: &Shown,
        info: SymInfo,
        file: &FileInfo,
        callees: &mut CalleesByFile,
    ) -> Result<Addition> {
        let chain = self.unshown_chain(info, shown)?;
        let mut cost = 0;
        let mut new_file = None;
        if !shown.files.contains_key(&file.id) {
            let mf = tree.map_file(file);
            cost += estimate_tokens(&file_line(&mf));
            cost += mf
                .errors
                .iter()
                .map(|e| estimate_tokens(&error_line(e, 0)))
                .sum::<usize>();
            cost += shown.dir_cost(&file.path);
            new_file = Some(mf);
        }
        let mut symbols = Vec::new();
        for s in chain.iter().rev() {
            let depth = self.depth(s)?;
            let ms = self.map_symbol(tree, s, depth, callees)?;
            cost += estimate_tokens(&symbol_line(&ms));
            cost += ms
                .errors
                .iter()
                .map(|e| estimate_tokens(&error_line(e, depth)))
                .sum::<usize>();
            symbols.push((s.id, s.file_id, ms));
        }
        Ok(Addition {
            cost,
            file_id: file.id,
            file: new_file,
            symbols,
        })
    }

    /// `info` and its enclosing symbols not shown yet, innermost first.
    fn unshown_chain(&self, info: SymInfo, shown: &Shown) -> Result<Vec<SymInfo>> {
        let mut parent = info.parent;
        let mut chain = vec![info];
        while let Some(p) = parent {
            if shown.symbols.contains(&p) {
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
        Ok(chain)
    }

    /// How many symbols enclose `s` (0 at the top level; at most [`MAX_DEPTH`] + 1).
    fn depth(&self, s: &SymInfo) -> Result<usize> {
        let mut d = 0;
        let mut p = s.parent;
        while let Some(pp) = p {
            d += 1;
            p = match self.sym_info(pp)? {
                Some(x) => x.parent,
                None => None,
            };
            if d > MAX_DEPTH {
                break;
            }
        }
        Ok(d)
    }

    /// Symbol `s` as the map shows it, `depth` deep.
    fn map_symbol(
        &self,
        tree: &Tree,
        s: &SymInfo,
        depth: usize,
        callees: &mut CalleesByFile,
    ) -> Result<MapSymbol> {
        Ok(MapSymbol {
            kind: s.kind,
            qualname: s.qualname.clone(),
            signature: s.signature.clone(),
            line: s.line,
            end_line: s.end_line,
            rank: tree.sym_ranks.get(s.id).unwrap_or(0.0),
            depth,
            calls: tree
                .traced
                .then(|| tree.trace.calls.get(&s.id).copied())
                .flatten(),
            errors: tree
                .trace
                .errors
                .iter()
                .filter(|(_, sid, _)| *sid == Some(s.id))
                .map(|(_, _, e)| e.clone())
                .collect(),
            calls_to: if s.kind.is_callable() && tree.files.contains_key(&s.file_id) {
                self.callees(callees, s.file_id, s.id, tree.sym_ranks)?
            } else {
                Vec::new()
            },
        })
    }
}
