use std::path::PathBuf;

/// Why a query (search, map, show, skeleton) failed. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum AnalyzerError {
    /// Building, refreshing or reading the index failed.
    #[error(transparent)]
    Index(#[from] cast_index::IndexError),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is not in the index of {root} (unsupported file type, ignored, or outside the root)"
    )]
    FileNotIndexed { path: String, root: PathBuf },
    /// `named`: symbols with the name the query ends in, where its qualifier did not fit
    /// (`fzf.Reader` when Go's `Reader` is `src.Reader`, named by folder), as
    /// `FULL.NAME (PATH:LINE)`, the most central first.
    #[error(
        "no symbol matches {query:?}{}; try `cast find {query}` to search by relevance",
        same_name(query, named)
    )]
    SymbolNotFound { query: String, named: Vec<String> },
    #[error("{path}:{line} is past the end of the file ({lines} lines)")]
    LineOutOfRange { path: String, line: u32, lines: u32 },
    #[error("{path}: {source}")]
    Parse {
        path: String,
        #[source]
        source: cast_parser::ParseError,
    },
    #[error("trace {path}: {message}")]
    Trace { path: String, message: String },
    #[error("the query is empty; give words or an identifier to search for")]
    EmptyQuery,
}

/// Shorthand for results in this crate.
pub type Result<T, E = AnalyzerError> = std::result::Result<T, E>;

/// What [`AnalyzerError::SymbolNotFound`] says of the symbols with the query's last name.
fn same_name(query: &str, named: &[String]) -> String {
    if named.is_empty() {
        return String::new();
    }
    let name = query.rsplit(['.', ':']).next().unwrap_or(query);
    format!("; symbols named {name}: {}", named.join(", "))
}
