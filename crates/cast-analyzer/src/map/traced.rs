//! The map's use of a trace ([`crate::trace`]): the calls it saw per symbol and per file, its
//! errors at their lines with the code there, and the files it names that the index lacks.

use std::collections::HashMap;

use super::FileInfo;
use super::results::MapError;
use crate::Result;
use crate::reader::Reader;
use crate::show::relative_path;
use crate::trace::{Trace, TraceError};

/// What a trace says of the tree's files and symbols (all empty without a trace).
#[derive(Debug, Default)]
pub(super) struct Traced {
    /// Calls per symbol.
    pub(super) calls: HashMap<i64, u32>,
    /// Calls per file: every file that ran (or failed) is a key.
    pub(super) file_calls: HashMap<i64, u32>,
    /// Each error with its file and the symbol around its line.
    pub(super) errors: Vec<(i64, Option<i64>, MapError)>,
    /// Files of the trace that are not in the index (outside the root, or not code).
    pub(super) unmatched: Vec<String>,
}

impl Traced {
    /// The symbols the trace asks to show first: those where its errors are, then those that
    /// ran, the most calls first.
    pub(super) fn asked_first(&self) -> Vec<i64> {
        let mut ran: Vec<(i64, u32)> = self.calls.iter().map(|(k, v)| (*k, *v)).collect();
        ran.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        self.errors
            .iter()
            .filter_map(|(_, s, _)| *s)
            .chain(ran.iter().map(|(id, _)| *id))
            .collect()
    }

    /// Notes a file of the trace that the index lacks (once).
    fn unmatched(&mut self, file: &str) {
        if !self.unmatched.iter().any(|u| u == file) {
            self.unmatched.push(file.to_owned());
        }
    }
}

impl Reader<'_> {
    /// What `trace` says of the indexed `files`.
    pub(super) fn traced(&self, trace: &Trace, files: &HashMap<i64, FileInfo>) -> Result<Traced> {
        let by_path: HashMap<&str, i64> = files.values().map(|f| (f.path.as_str(), f.id)).collect();
        let mut out = Traced::default();
        for fr in &trace.frames {
            let Some(fid) = self.match_trace_file(&by_path, &fr.file) else {
                out.unmatched(&fr.file);
                continue;
            };
            *out.file_calls.entry(fid).or_default() += fr.count;
            let sym = match (fr.line, &fr.function) {
                (Some(line), _) => self.enclosing(fid, line)?,
                (None, Some(func)) => self.by_qualname(fid, func)?,
                (None, None) => None,
            };
            if let Some(s) = sym {
                *out.calls.entry(s).or_default() += fr.count;
            }
        }
        for e in &trace.errors {
            let Some(fid) = self.match_trace_file(&by_path, &e.file) else {
                out.unmatched(&e.file);
                continue;
            };
            out.file_calls.entry(fid).or_default();
            let sym = self.enclosing(fid, e.line)?;
            if let Some(s) = sym {
                out.calls.entry(s).or_insert(1);
            }
            let error = self.map_error(files.get(&fid), e)?;
            out.errors.push((fid, sym, error));
        }
        Ok(out)
    }

    /// A trace's error as the map shows it: its message on one line (at most 200 characters)
    /// and the code at its line of `file`.
    fn map_error(&self, file: Option<&FileInfo>, e: &TraceError) -> Result<MapError> {
        let code = file
            .map(|f| self.read_lines(&f.path, e.line, e.line))
            .transpose()?
            .unwrap_or_default();
        let mut message = e.message.replace('\n', " ");
        if message.chars().count() > 200 {
            message = message.chars().take(197).collect::<String>() + "…";
        }
        Ok(MapError {
            line: e.line,
            message,
            code: code.trim_end().chars().take(160).collect(),
        })
    }

    /// The innermost symbol of a file enclosing a line.
    fn enclosing(&self, file_id: i64, line: u32) -> Result<Option<i64>> {
        Ok(self
            .snap
            .enclosing_sym_row(file_id, line)
            .map(|row| row.map(|r| r.id))?)
    }

    /// The symbol of a file a trace names by its function (`Class.method`): the one of that
    /// qualified name, else the first of that name.
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
}
