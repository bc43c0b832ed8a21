use std::path::PathBuf;

/// Why a file could not be parsed. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} looks binary (it contains NUL bytes); only text files are parsed")]
    Binary { path: PathBuf },
    #[error(
        "{path} is {size} bytes, over the {limit}-byte limit for parsing; raise the limit (--max-filesize) to parse it"
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    /// The message leaves the path out: every caller puts it first (`a.kt: not a supported …`).
    #[error("not a supported file type; CAST parses {supported} files")]
    Unsupported { path: PathBuf, supported: String },
    #[error("tree-sitter could not load the {language} grammar: {message}")]
    Grammar {
        language: &'static str,
        message: String,
    },
    #[error("parsing {language} stopped before the end of the input (cancelled or out of memory)")]
    Incomplete { language: &'static str },
    #[error(
        "parsing {language} took over {millis} ms and was stopped; the file is likely generated or garbled (the parser's error recovery is slow on it)"
    )]
    TooSlow { language: &'static str, millis: u64 },
    /// A parser panicked: a bug, which costs the one file when a tree is parsed.
    #[error("the parser failed on this file (a bug: please report it)")]
    Panicked,
}

impl ParseError {
    /// Whether this error means "skip the file" (binary, too large, or too slow to parse)
    /// rather than a failure.
    pub fn is_skip(&self) -> bool {
        matches!(
            self,
            ParseError::Binary { .. } | ParseError::TooLarge { .. } | ParseError::TooSlow { .. }
        )
    }
}
