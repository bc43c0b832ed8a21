//! `cast.Index`: the code index of one tree, kept open between questions.
//!
//! This is the one module that calls the index's query methods (`map`, `find_in`, `show`), so
//! a change in where they live touches only this file.

use std::path::{Path, PathBuf};

use cast_analyzer::trace::parse_trace;
use cast_analyzer::{FindMode, KeptIndex, MapOptions, Queries, Scope, relative_pattern};
use pyo3::prelude::*;

use crate::error::{Failure, to_json_with, without_gil};

/// The index of one tree (`ROOT/.cast/index.sqlite`), opened once and kept: every question is
/// answered as if the index were refreshed first, as the `cast` command answers (the kernel
/// watches the tree between questions, so one asked while nothing changed checks no file).
/// Questions from several threads take turns.
#[pyclass(module = "cast._native", name = "Index", frozen)]
pub struct NativeIndex {
    root: PathBuf,
    kept: KeptIndex,
}

impl NativeIndex {
    /// Answers `query` from the index, current with the files on disk.
    fn ask<T: Send>(
        &self,
        py: Python<'_>,
        query: impl FnMut(&cast_analyzer::Index) -> cast_analyzer::Result<T> + Send,
    ) -> PyResult<T> {
        without_gil(py, || Ok(self.kept.query(&self.root, query)?))
    }
}

#[pymethods]
impl NativeIndex {
    /// Opens (building or refreshing) the index of `root`.
    #[new]
    fn new(py: Python<'_>, root: PathBuf) -> PyResult<Self> {
        if !root.is_dir() {
            let message = format!(
                "{}: no such folder; give the root of a code base to index",
                root.display()
            );
            return Err(Failure::new(message).into_py(py));
        }
        let index = NativeIndex {
            root,
            kept: KeptIndex::default(),
        };
        index.ask(py, |_| Ok(()))?;
        Ok(index)
    }

    /// The root, as given.
    #[getter]
    fn root(&self) -> PathBuf {
        self.root.clone()
    }

    /// The logic map (L1) as JSON: `cast_analyzer::LogicMap`, and `text` as `cast map` prints it.
    #[pyo3(signature = (budget, focus, within, trace))]
    fn map(
        &self,
        py: Python<'_>,
        budget: usize,
        focus: Option<String>,
        within: Vec<String>,
        trace: Option<PathBuf>,
    ) -> PyResult<String> {
        let options = without_gil(py, || {
            let trace = match &trace {
                Some(path) => Some(read_trace(path)?),
                None => None,
            };
            Ok(MapOptions {
                budget,
                trace,
                focus,
                root_name: None,
                scope: scope(&self.root, &within)?,
            })
        })?;
        let map = self.ask(py, |index| index.map(&options))?;
        without_gil(py, || to_json_with(&map, &[("text", map.render().into())]))
    }

    /// What `find` found as JSON: `cast_analyzer::Found`, `text` as `cast find` prints it, and
    /// `note`, the reason when nothing was found.
    #[pyo3(signature = (query, top, files, within))]
    fn find(
        &self,
        py: Python<'_>,
        query: String,
        top: usize,
        files: bool,
        within: Vec<String>,
    ) -> PyResult<String> {
        let scope = without_gil(py, || scope(&self.root, &within))?;
        let mode = if files {
            FindMode::Files
        } else {
            FindMode::Symbols
        };
        let found = self.ask(py, |index| index.find_in(&query, top.max(1), mode, &scope))?;
        without_gil(py, || {
            let note = found.nothing_found(&query).into();
            to_json_with(&found, &[("text", found.render().into()), ("note", note)])
        })
    }

    /// A symbol's source (L3) as JSON: `cast_analyzer::SymbolSource`, and `text` as `cast show`
    /// prints it.
    fn show(&self, py: Python<'_>, target: String) -> PyResult<String> {
        let shown = self.ask(py, |index| index.show(&target))?;
        without_gil(py, || {
            to_json_with(&shown, &[("text", shown.render().into())])
        })
    }
}

/// The files `within` names, as `cast find --in` reads them: paths and globs from the root; an
/// absolute path must lie inside it.
fn scope(root: &Path, within: &[String]) -> Result<Scope, Failure> {
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let patterns = within
        .iter()
        .map(|pattern| {
            relative_pattern(pattern, |path| {
                let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
                match real.strip_prefix(&real_root) {
                    Ok(rel) => Ok(rel
                        .to_string_lossy()
                        .replace(std::path::MAIN_SEPARATOR, "/")),
                    Err(_) => Err(Failure::new(format!(
                        "within {pattern}: outside the root {}; name a folder, file or glob \
                         inside it",
                        root.display()
                    ))),
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Scope::new(&patterns).map_err(|e| Failure::new(format!("within: {e}")))
}

fn read_trace(path: &Path) -> Result<cast_analyzer::trace::Trace, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::new(format!("cannot read the trace {}: {e}", path.display())))?;
    parse_trace(&String::from_utf8_lossy(&bytes))
        .map_err(|e| Failure::new(format!("trace {}: {e}", path.display())))
}
