//! What needs no index: symbols, skeletons, grep, glob, read — each the library call the
//! `cast` command of the same name makes, its result as the JSON `--json` prints.

use std::path::PathBuf;

use cast_analyzer::cast_parser::{
    DEFAULT_MAX_FILESIZE, ParseError, Registry, SymbolKind, WalkOptions, parse_tree,
};
use cast_analyzer::{AnalyzerError, skeleton::skeleton_of_file};
use cast_searcher::{GlobOptions, GrepOptions, ReadOptions};
use pyo3::prelude::*;
use serde::Serialize;

use crate::error::{Failure, to_json, to_json_with, without_gil};

/// The walk flags the commands share (`--hidden`, `--no-ignore`, `--follow`).
fn walk(hidden: bool, no_ignore: bool, follow_links: bool) -> WalkOptions {
    WalkOptions {
        hidden,
        no_ignore,
        follow_links,
        ..WalkOptions::default()
    }
}

/// One symbol, as a line of `cast symbols --json`.
#[derive(Serialize)]
struct SymbolRow<'a> {
    path: &'a str,
    kind: SymbolKind,
    name: &'a str,
    qualname: &'a str,
    start_line: u32,
    end_line: u32,
    language: &'static str,
    signature: &'a str,
    decorated_line: u32,
    doc: Option<&'a str>,
    root: &'a str,
}

/// A file that was not parsed, or parsed with an error.
#[derive(Serialize)]
struct FileProblem<'a> {
    path: &'a str,
    message: String,
}

/// `cast symbols --json PATH`: the symbols of the files under `path` (in path, line order),
/// with the files skipped and those that did not parse.
#[pyfunction]
#[pyo3(signature = (path, kinds, hidden, no_ignore, follow_links))]
pub(crate) fn symbols(
    py: Python<'_>,
    path: PathBuf,
    kinds: Vec<String>,
    hidden: bool,
    no_ignore: bool,
    follow_links: bool,
) -> PyResult<String> {
    without_gil(py, || {
        if !path.exists() {
            return Err(Failure::new(format!(
                "{}: no such file or folder",
                path.display()
            )));
        }
        let kinds = kinds
            .iter()
            .map(|name| {
                SymbolKind::from_name(name).ok_or_else(|| {
                    let all: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
                    Failure::new(format!(
                        "unknown kind {name:?}; expected one of: {}",
                        all.join(", ")
                    ))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let options = WalkOptions {
            max_filesize: Some(DEFAULT_MAX_FILESIZE),
            ..walk(hidden, no_ignore, follow_links)
        };
        let root = path.to_string_lossy();
        let outcomes = parse_tree(&path, &options, &Registry::default());
        let (mut rows, mut skipped, mut syntax_errors) = (Vec::new(), Vec::new(), Vec::new());
        for outcome in &outcomes {
            let parsed = match &outcome.result {
                Ok(parsed) => parsed,
                Err(ParseError::Unsupported { .. }) => continue,
                Err(err) => {
                    skipped.push(FileProblem {
                        path: &outcome.rel,
                        message: err.to_string(),
                    });
                    continue;
                }
            };
            if let Some(error) = &parsed.syntax_error {
                syntax_errors.push(FileProblem {
                    path: &outcome.rel,
                    message: error.to_string(),
                });
            }
            rows.extend(
                parsed
                    .symbols
                    .iter()
                    .filter(|s| kinds.is_empty() || kinds.contains(&s.kind))
                    .map(|s| SymbolRow {
                        path: &outcome.rel,
                        kind: s.kind,
                        name: &s.name,
                        qualname: &s.qualname,
                        start_line: s.start_line,
                        end_line: s.end_line,
                        language: parsed.language,
                        signature: &s.signature,
                        decorated_line: s.decorated_line,
                        doc: s.docstring.as_deref().and_then(|d| d.lines().next()),
                        root: &root,
                    }),
            );
        }
        rows.sort_by(|a, b| {
            (a.path, a.start_line, a.qualname).cmp(&(b.path, b.start_line, b.qualname))
        });
        to_json(&serde_json::json!({
            "symbols": rows,
            "skipped": skipped,
            "syntax_errors": syntax_errors,
        }))
    })
}

/// `cast skeleton --json FILE`: the skeleton (L2) of one file, named `name` in the result.
#[pyfunction]
pub(crate) fn skeleton(py: Python<'_>, path: PathBuf, name: String) -> PyResult<String> {
    without_gil(py, || {
        if !path.is_file() {
            return Err(Failure::new(format!("{}: no such file", path.display())));
        }
        let skeleton = skeleton_of_file(&path, &name, &Registry::default())
            .map_err(|err: AnalyzerError| Failure::from(err))?;
        to_json_with(&skeleton, &[("text", skeleton.render().into())])
    })
}

/// `cast grep --json`: the lines matching `pattern` under `path`, with the search's counts.
#[pyfunction]
#[pyo3(signature = (pattern, path, fixed_strings, ignore_case, include, exclude, max_results, context, hidden, no_ignore, follow_links))]
#[allow(clippy::too_many_arguments)] // one per flag of `cast grep`
pub(crate) fn grep(
    py: Python<'_>,
    pattern: String,
    path: PathBuf,
    fixed_strings: bool,
    ignore_case: bool,
    include: Vec<String>,
    exclude: Vec<String>,
    max_results: usize,
    context: usize,
    hidden: bool,
    no_ignore: bool,
    follow_links: bool,
) -> PyResult<String> {
    without_gil(py, || {
        let options = GrepOptions {
            fixed_strings,
            case_sensitive: !ignore_case,
            include,
            exclude,
            max_results,
            context,
            walk: walk(hidden, no_ignore, follow_links),
            ..GrepOptions::default()
        };
        let found = cast_searcher::grep(&path, &pattern, &options)?;
        let lines: Vec<_> = found.lines().collect();
        to_json(&serde_json::json!({
            "lines": lines,
            "match_count": found.match_count(),
            "files_with_matches": found.files_with_matches(),
            "capped": found.capped,
            "max_results": found.max_results,
            "files_searched": found.files_searched,
            "binary_files": found.binary_files,
            "errors": found.errors,
        }))
    })
}

/// `cast glob --json`: the files under `path` whose path matches `pattern`.
#[pyfunction]
#[pyo3(signature = (pattern, path, max_results, hidden, no_ignore, follow_links))]
pub(crate) fn glob(
    py: Python<'_>,
    pattern: String,
    path: PathBuf,
    max_results: usize,
    hidden: bool,
    no_ignore: bool,
    follow_links: bool,
) -> PyResult<String> {
    without_gil(py, || {
        let options = GlobOptions {
            max_results,
            walk: walk(hidden, no_ignore, follow_links),
        };
        to_json(&cast_searcher::glob(&path, &pattern, &options)?)
    })
}

/// `cast read --json`: numbered lines of a file, within the size guard.
#[pyfunction]
#[pyo3(signature = (path, start, end, max_lines, max_bytes))]
pub(crate) fn read(
    py: Python<'_>,
    path: PathBuf,
    start: Option<u64>,
    end: Option<u64>,
    max_lines: usize,
    max_bytes: usize,
) -> PyResult<String> {
    without_gil(py, || {
        let options = ReadOptions {
            start_line: start,
            end_line: end,
            max_lines,
            max_bytes,
            ..ReadOptions::default()
        };
        to_json(&cast_searcher::read(&path, &options)?)
    })
}
