//! Reading and searching: `read_file`, `grep_search`, `glob_search`, `file_search`, `list_dir`,
//! all over cast-searcher, all confined to the workspace.

use cast_searcher::{
    FindFilesOptions, GlobOptions, GrepOptions, ListOptions, ReadOptions, SearchError,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::{Access, ReadSummary, ToolContext, ToolError, ToolOutput, TypedTool};

/// A searcher error as a refusal the model can act on, with paths shown relative to the root.
fn refused(ctx: &ToolContext, err: &SearchError) -> ToolOutput {
    let text = relative_paths(ctx, &err.to_string());
    ToolOutput::refused(text.clone(), json!({ "error": text }))
}

/// Replaces the absolute root in a message by nothing, so the model sees workspace paths.
pub(crate) fn relative_paths(ctx: &ToolContext, message: &str) -> String {
    let root = ctx.workspace.root().display().to_string();
    message.replace(&format!("{root}/"), "").replace(&root, ".")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileParams {
    /// The file to read, relative to the workspace root.
    pub target_file: String,
    /// One sentence: why you read this file.
    pub explanation: String,
    /// First line to read (1-based, inclusive). Default: the first line.
    pub start_line: Option<u64>,
    /// Last line to read (1-based, inclusive). Default: the end of the file, up to the size guard.
    pub end_line: Option<u64>,
}

/// `read_file`: a file's lines, numbered.
#[derive(Debug, Default)]
pub struct ReadFile;

impl TypedTool for ReadFile {
    type Params = ReadFileParams;
    const NAME: &'static str = "read_file";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Read a text file of the workspace, whole or a line range, with line numbers (`12 | text`). Long files are cut by a size guard and the result says from which line to read on. Prefer get_skeleton first for a large file, then read the lines you need.";

    fn run(&self, ctx: &ToolContext, p: ReadFileParams) -> Result<ToolOutput, ToolError> {
        let path = ctx.workspace.resolve(&p.target_file, Access::Read)?;
        let options = ReadOptions {
            start_line: p.start_line,
            end_line: p.end_line,
            ..ReadOptions::default()
        };
        let result = match cast_searcher::read(&path.real, &options) {
            Ok(r) => r,
            Err(e) => return Ok(refused(ctx, &e)),
        };
        let width = result.lines.last().map_or(1, |l| l.line.to_string().len());
        let mut text = String::new();
        for line in &result.lines {
            text.push_str(&format!("{:>width$} | {}\n", line.line, line.text));
        }
        if let Some(note) = result.note() {
            text.push_str(&note);
            text.push('\n');
        }
        let shown = result.shown();
        let read = ReadSummary {
            path: path.rel.clone(),
            whole: result.is_whole_file() && result.next_start.is_none(),
        };
        Ok(ToolOutput::ok(
            text,
            json!({
                "path": path.rel,
                "total_lines": result.total_lines,
                "size": result.size,
                "start_line": shown.map(|s| s.0),
                "end_line": shown.map(|s| s.1),
                "next_start": result.next_start,
            }),
        )
        .with_read(read))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepSearchParams {
    /// A regular expression (Rust/ripgrep syntax), e.g. `def parse_\w+`. If it is not a valid
    /// regex it is searched for as exact text.
    pub query: String,
    /// Match case exactly. Default: true.
    pub case_sensitive: Option<bool>,
    /// Only search files matching this glob, e.g. `*.py` or `src/**/*.ts`.
    pub include_pattern: Option<String>,
    /// Skip files matching this glob, e.g. `tests/**`.
    pub exclude_pattern: Option<String>,
    /// One sentence: what you are looking for.
    pub explanation: String,
}

/// `grep_search`: ripgrep-equal search over the workspace.
#[derive(Debug, Default)]
pub struct GrepSearch;

impl TypedTool for GrepSearch {
    type Params = GrepSearchParams;
    const NAME: &'static str = "grep_search";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Search the text of the workspace's files with a regular expression (as ripgrep does: .gitignore respected, hidden and binary files skipped). Returns at most 50 matching lines grouped by file, with line numbers; narrow the query or use include_pattern when it says it was capped. Use it for exact names and strings; use find_symbol to search by meaning.";

    fn run(&self, ctx: &ToolContext, p: GrepSearchParams) -> Result<ToolOutput, ToolError> {
        let mut options = GrepOptions {
            case_sensitive: p.case_sensitive.unwrap_or(true),
            include: p
                .include_pattern
                .into_iter()
                .filter(|g| !g.is_empty())
                .collect(),
            exclude: p
                .exclude_pattern
                .into_iter()
                .filter(|g| !g.is_empty())
                .collect(),
            ..GrepOptions::default()
        };
        let root = ctx.workspace.root();
        let mut note = String::new();
        let result = match cast_searcher::grep(root, &p.query, &options) {
            Err(SearchError::InvalidRegex { message, .. }) => {
                note = format!(
                    "(not a valid regex ({}); searched for the exact text instead)\n",
                    message.lines().last().unwrap_or("").trim()
                );
                options.fixed_strings = true;
                cast_searcher::grep(root, &p.query, &options)
            }
            other => other,
        };
        let result = match result {
            Ok(r) => r,
            Err(e) => return Ok(refused(ctx, &e)),
        };
        let text = format!("{note}{result}");
        Ok(ToolOutput::ok(
            text,
            json!({
                "matches": result.matches().map(|m| json!({"path": m.path, "line": m.line, "text": m.text})).collect::<Vec<_>>(),
                "capped": result.capped,
                "fixed_strings": options.fixed_strings,
            }),
        ))
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobSearchParams {
    /// A glob over paths relative to the workspace root, e.g. `**/*.py` or `src/*/models.py`.
    pub pattern: String,
}

/// `glob_search`: files whose path matches a glob.
#[derive(Debug, Default)]
pub struct GlobSearch;

impl TypedTool for GlobSearch {
    type Params = GlobSearchParams;
    const NAME: &'static str = "glob_search";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "List the workspace's files whose path matches a glob (e.g. `**/test_*.py`), in path order, at most 10. Ignored and hidden files are skipped.";

    fn run(&self, ctx: &ToolContext, p: GlobSearchParams) -> Result<ToolOutput, ToolError> {
        let options = GlobOptions {
            max_results: cast_searcher::DEFAULT_FILE_MAX_RESULTS,
            ..GlobOptions::default()
        };
        match cast_searcher::glob(ctx.workspace.root(), &p.pattern, &options) {
            Ok(r) => Ok(ToolOutput::ok(
                r.to_string(),
                json!({"paths": r.paths, "capped": r.capped}),
            )),
            Err(e) => Ok(refused(ctx, &e)),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileSearchParams {
    /// Part of a file name or path, fuzzy: `usrmdl` finds `users/models.py`.
    pub query: String,
}

/// `file_search`: fuzzy file-name search, ranked like an editor's quick-open.
#[derive(Debug, Default)]
pub struct FileSearch;

impl TypedTool for FileSearch {
    type Params = FileSearchParams;
    const NAME: &'static str = "file_search";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Find files by a fuzzy part of their name or path (like an editor's quick-open): the 10 best matches, best first. Use it when you know roughly what a file is called but not where it is.";

    fn run(&self, ctx: &ToolContext, p: FileSearchParams) -> Result<ToolOutput, ToolError> {
        let options = FindFilesOptions::default();
        match cast_searcher::find_files(ctx.workspace.root(), &p.query, &options) {
            Ok(r) => Ok(ToolOutput::ok(
                r.to_string(),
                json!({"paths": r.files.iter().map(|f| &f.path).collect::<Vec<_>>(), "capped": r.capped}),
            )),
            Err(e) => Ok(refused(ctx, &e)),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListDirParams {
    /// The folder to list, relative to the workspace root (`.` or empty for the root).
    pub relative_workspace_path: String,
    /// One sentence: why you list this folder.
    pub explanation: String,
}

/// `list_dir`: a tree drawing of a folder.
#[derive(Debug, Default)]
pub struct ListDir;

impl TypedTool for ListDir {
    type Params = ListDirParams;
    const NAME: &'static str = "list_dir";
    const READ_ONLY: bool = true;
    const DESCRIPTION: &'static str = "Show a folder of the workspace as a tree drawing, a few levels deep, with file sizes and line counts (ignored and hidden files skipped). Use it to get oriented; analyze_repository gives a map of the code itself.";

    fn run(&self, ctx: &ToolContext, p: ListDirParams) -> Result<ToolOutput, ToolError> {
        let path = ctx
            .workspace
            .resolve(&p.relative_workspace_path, Access::Read)?;
        match cast_searcher::list_dir(&path.real, &ListOptions::default()) {
            Ok(r) => {
                let text = relative_paths(ctx, &r.to_string());
                Ok(ToolOutput::ok(
                    text,
                    json!({"path": path.rel, "listing": r}),
                ))
            }
            Err(e) => Ok(refused(ctx, &e)),
        }
    }
}
