//! Understanding: `analyze_repository` (L1), `get_skeleton` (L2), `show_symbol` (L3) and
//! `find_symbol`, over cast-analyzer's index of the workspace.

use cast_analyzer::{AnalyzerError, FindMode, Index, MapOptions, Queries};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::search::relative_paths;
use crate::{Access, ToolContext, ToolError, ToolOutput, TypedTool};

/// Answers `query` from the index of the workspace, current with the files on disk (only
/// changed files re-parsed; see [`Index::query_current`]). The outer error is a failure to open
/// or refresh the index; the inner result is the query's own answer.
fn query_index<T>(
    ctx: &ToolContext,
    tool: &str,
    mut query: impl FnMut(&Index) -> Result<T, AnalyzerError>,
) -> Result<Result<T, AnalyzerError>, ToolError> {
    ctx.index
        .query(ctx.workspace.root(), |index| {
            Ok::<_, AnalyzerError>(query(index))
        })
        .map_err(|e| ToolError::Failed {
            tool: tool.to_owned(),
            message: relative_paths(ctx, &e.to_string()),
        })
}

/// Errors about the question (an unknown symbol, an empty query) are refusals the model can
/// act on; the rest are failures.
fn answer_error(
    ctx: &ToolContext,
    tool: &str,
    err: AnalyzerError,
) -> Result<ToolOutput, ToolError> {
    let text = relative_paths(ctx, &err.to_string());
    match err {
        AnalyzerError::SymbolNotFound { .. }
        | AnalyzerError::EmptyQuery
        | AnalyzerError::FileNotIndexed { .. }
        | AnalyzerError::LineOutOfRange { .. }
        | AnalyzerError::Trace { .. }
        | AnalyzerError::Parse { .. } => {
            Ok(ToolOutput::refused(text.clone(), json!({"error": text})))
        }
        _ => Err(ToolError::Failed {
            tool: tool.to_owned(),
            message: text,
        }),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnalyzeRepositoryParams {
    /// Tokens the map may use (about 4 bytes each). Default 2000.
    pub budget: Option<usize>,
    /// An execution trace to map onto the code — a Python traceback, pytest output, JSON-lines
    /// call events or a CAST session trace — or the path of a workspace file holding one. The
    /// map then ranks the code the trace ran through first.
    pub trace: Option<String>,
    /// The task at hand, in words: the map then shows the files and symbols the task is about
    /// first, and the rest of the code base by importance.
    pub focus: Option<String>,
    /// Map only these: folders or files relative to the workspace root (`src/http`) or globs
    /// (`*.rs`); `!` before one leaves it out (`!tests`). Default: the whole workspace.
    pub paths: Option<Vec<String>>,
}

/// `analyze_repository`: the L1 logic map.
#[derive(Debug, Default)]
pub struct AnalyzeRepository;

impl TypedTool for AnalyzeRepository {
    type Params = AnalyzeRepositoryParams;
    const NAME: &'static str = "analyze_repository";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Get a map of the whole code base within a token budget: its folders, the most important classes and functions (ranked by how much the code uses them, with signatures), what imports what, and one-line module descriptions. Call it first on an unfamiliar repository. With a trace (a traceback or test output), the map centres on the code that ran; with a focus (the task in words), on the code the task is about.";

    fn run(&self, ctx: &ToolContext, p: AnalyzeRepositoryParams) -> Result<ToolOutput, ToolError> {
        let trace = match p.trace.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(given) => {
                let text = match trace_text(ctx, given)? {
                    Ok(text) => text,
                    Err(why) => return Ok(ToolOutput::refused(why.clone(), json!({"error": why}))),
                };
                match cast_analyzer::trace::parse_trace(&text) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        let text = format!("the trace cannot be read: {e}");
                        return Ok(ToolOutput::refused(text.clone(), json!({"error": text})));
                    }
                }
            }
        };
        let scope = match scope_of(ctx, p.paths)? {
            Ok(scope) => scope,
            Err(refused) => return Ok(refused),
        };
        let options = MapOptions {
            budget: p.budget.unwrap_or(MapOptions::default().budget).max(100),
            trace,
            focus: p.focus.filter(|f| !f.trim().is_empty()),
            root_name: None,
            scope,
        };
        match query_index(ctx, Self::NAME, |index| index.map(&options))? {
            Ok(map) => Ok(ToolOutput::ok(
                map.render(),
                json!({
                    "files_total": map.files_total,
                    "symbols_total": map.symbols_total,
                    "tokens": map.tokens,
                    "budget": map.budget,
                    "traced": map.traced,
                }),
            )),
            Err(e) => answer_error(ctx, Self::NAME, e),
        }
    }
}

/// The map of the code a trace (test output, a traceback) ran through, within `budget` tokens;
/// `None` when the trace names no indexed code, or cannot be read, or the index cannot be
/// opened. The agent's test-fix loop shows it with a failing test run.
pub fn trace_map(ctx: &ToolContext, trace: &str, budget: usize) -> Option<String> {
    let trace = cast_analyzer::trace::parse_trace(trace).ok()?;
    let options = MapOptions {
        budget: budget.max(100),
        trace: Some(trace),
        focus: None,
        root_name: None,
        scope: cast_analyzer::Scope::whole_tree(),
    };
    let map = query_index(ctx, AnalyzeRepository::NAME, |index| index.map(&options))
        .ok()?
        .ok()?;
    map.traced.then(|| map.render())
}

/// A trace given inline (several lines), or the text of the workspace file a single line names.
/// `Ok(Err(why))` is a refusal the model can act on.
fn trace_text(ctx: &ToolContext, given: &str) -> Result<Result<String, String>, ToolError> {
    if given.contains('\n') {
        return Ok(Ok(given.to_owned()));
    }
    let path = ctx.workspace.resolve(given, Access::Read)?;
    if !path.real.is_file() {
        return Ok(Err(format!(
            "{}: no such trace file; pass the trace text itself (several lines) or a file of the workspace",
            path.rel
        )));
    }
    std::fs::read(&path.real)
        .map(|b| Ok(String::from_utf8_lossy(&b).into_owned()))
        .map_err(|e| ToolError::Failed {
            tool: AnalyzeRepository::NAME.to_owned(),
            message: format!("{}: {e}", path.rel),
        })
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetSkeletonParams {
    /// The file, relative to the workspace root.
    pub target_file: String,
}

/// `get_skeleton`: a file's L2 skeleton.
#[derive(Debug, Default)]
pub struct GetSkeleton;

impl TypedTool for GetSkeleton {
    type Params = GetSkeletonParams;
    const NAME: &'static str = "get_skeleton";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Get a file's skeleton: its imports, class and function signatures, decorators and docstrings, each with its line number (`(Line N) …`), bodies left out — about a tenth of the file's size. Use it to see what a file contains before reading the lines you need.";

    fn run(&self, ctx: &ToolContext, p: GetSkeletonParams) -> Result<ToolOutput, ToolError> {
        let path = ctx.workspace.resolve(&p.target_file, Access::Read)?;
        if !path.real.is_file() {
            let text = format!(
                "{}: no such file; check the path (list_dir, file_search)",
                path.rel
            );
            return Ok(ToolOutput::refused(text.clone(), json!({"error": text})));
        }
        let registry = cast_parser::Registry::default();
        match cast_analyzer::skeleton::skeleton_of_file(&path.real, &path.rel, &registry) {
            Ok(skeleton) => {
                let text = skeleton.render();
                Ok(ToolOutput::ok(
                    text,
                    json!({
                        "path": skeleton.path,
                        "language": skeleton.language,
                        "line_count": skeleton.line_count,
                        "syntax_error": skeleton.syntax_error,
                    }),
                ))
            }
            Err(e) => answer_error(ctx, Self::NAME, e),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindSymbolParams {
    /// Words, identifiers or a whole task: "parse an HTTP date", "UserSerializer", "CliRunner
    /// loses stderr when the command fails".
    pub query: String,
    /// How many results. Default 10.
    pub top: Option<usize>,
    /// true: rank files (where to look for a task); false (default): classes and functions.
    pub files: Option<bool>,
    /// Search only these: folders or files relative to the workspace root (`src/http`) or globs
    /// (`*.rs`, `tests/test_*.py`); `!` before one leaves it out (`!tests`). Default: the whole
    /// workspace.
    pub paths: Option<Vec<String>>,
}

/// The part of the workspace a `paths` parameter names (see [`cast_analyzer::Scope`]);
/// `Ok(Err(refusal))` when a pattern is not one. An absolute path is taken as the workspace
/// names it, and refused outside it as every tool refuses it.
fn scope_of(
    ctx: &ToolContext,
    paths: Option<Vec<String>>,
) -> Result<Result<cast_analyzer::Scope, ToolOutput>, ToolError> {
    let within = paths
        .unwrap_or_default()
        .iter()
        .map(|p| {
            cast_analyzer::relative_pattern(p, |path| {
                Ok::<_, ToolError>(
                    ctx.workspace
                        .resolve(&path.to_string_lossy(), Access::Read)?
                        .rel,
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(cast_analyzer::Scope::new(&within).map_err(|e| {
        let text = format!("paths: {e}");
        ToolOutput::refused(text.clone(), json!({"error": text}))
    }))
}

/// `find_symbol`: relevance search over the index.
#[derive(Debug, Default)]
pub struct FindSymbol;

impl TypedTool for FindSymbol {
    type Params = FindSymbolParams;
    const NAME: &'static str = "find_symbol";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Find the code a task or question is about: the query (words, identifiers such as `Session.send` or `client.py`, or the whole task) is matched against file paths, names, signatures, docstrings and bodies, and ranked with what the code imports and calls and, in a git repository, with the files that past commits with a similar message changed. Returns path:line, kind and signature for each class or function, or with files=true the files to look at first, each with its best matching symbols. Use show_symbol or get_skeleton on a hit next.";

    fn run(&self, ctx: &ToolContext, p: FindSymbolParams) -> Result<ToolOutput, ToolError> {
        let mode = if p.files.unwrap_or(false) {
            FindMode::Files
        } else {
            FindMode::Symbols
        };
        let top = p.top.unwrap_or(10).clamp(1, 100);
        let scope = match scope_of(ctx, p.paths)? {
            Ok(scope) => scope,
            Err(refused) => return Ok(refused),
        };
        match query_index(ctx, Self::NAME, |index| {
            index.find_in(&p.query, top, mode, &scope)
        })? {
            Ok(found) => {
                let text = match found.nothing_found(&p.query) {
                    Some(why) if found.searched.files == 0 => why,
                    Some(why) => format!("{why}; try other words, or grep_search for exact text"),
                    None => found.render(),
                };
                Ok(ToolOutput::ok(text, json!({"found": found})))
            }
            Err(e) => answer_error(ctx, Self::NAME, e),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowSymbolParams {
    /// A qualified name (`Cart.total`, `pkg.module.func`), a plain name, or `path:line`.
    pub symbol: String,
}

/// `show_symbol`: a symbol's exact source (L3) and who uses it.
#[derive(Debug, Default)]
pub struct ShowSymbol;

impl TypedTool for ShowSymbol {
    type Params = ShowSymbolParams;
    const NAME: &'static str = "show_symbol";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Show one class or function's exact source with its line numbers, plus where it is referenced from and what it references. Name it by qualified name (`Cart.total`), plain name, or `path:line`.";

    fn run(&self, ctx: &ToolContext, p: ShowSymbolParams) -> Result<ToolOutput, ToolError> {
        match query_index(ctx, Self::NAME, |index| index.show(&p.symbol))? {
            Ok(shown) => Ok(ToolOutput::ok(
                shown.render(),
                json!({
                    "path": shown.path,
                    "qualname": shown.qualname,
                    "start_line": shown.start_line,
                    "end_line": shown.end_line,
                }),
            )),
            Err(e) => answer_error(ctx, Self::NAME, e),
        }
    }
}
