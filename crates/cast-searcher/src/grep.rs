//! `grep`: the lines of a tree that match a regex or a literal text, as ripgrep finds them.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use serde::{Deserialize, Serialize, Serializer};

use crate::engine::{self, FileHits, Rec, SearchConfig};
use crate::text::{DEFAULT_MAX_LINE_BYTES, grouped, line_text};
use crate::{FileError, SearchError, WalkOptions};

/// The default cap on matches: what an agent's `grep_search` returns.
pub const DEFAULT_GREP_MAX_RESULTS: usize = 50;

/// How to grep. `Default` is ripgrep's behaviour with a cap of 50 matches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrepOptions {
    /// Take the query as exact text, not a regex.
    pub fixed_strings: bool,
    /// Match case exactly (the default, as ripgrep); `false` ignores case.
    pub case_sensitive: bool,
    /// Only files matching one of these globs (ripgrep's `-g GLOB`: `*.py` matches at any
    /// depth, `src/**/*.py` is relative to the root).
    pub include: Vec<String>,
    /// Skip files and folders matching these globs (ripgrep's `-g '!GLOB'`).
    pub exclude: Vec<String>,
    /// Stop after this many matching lines (0: no cap). The first N in path-then-line order.
    pub max_results: usize,
    /// Lines of context shown before and after each match.
    pub context: usize,
    /// Cut lines longer than this many bytes, with a marker (0: never cut).
    pub max_line_bytes: usize,
    /// Which files are walked.
    #[serde(flatten)]
    pub walk: WalkOptions,
}

impl Default for GrepOptions {
    fn default() -> Self {
        GrepOptions {
            fixed_strings: false,
            case_sensitive: true,
            include: Vec::new(),
            exclude: Vec::new(),
            max_results: DEFAULT_GREP_MAX_RESULTS,
            context: 0,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            walk: WalkOptions::default(),
        }
    }
}

/// What [`grep`] found: matching lines (and context lines) in path-then-line order.
#[derive(Debug, Clone)]
pub struct GrepResult {
    files: Vec<FileHits>,
    /// The cap stopped the search; more matches may exist past the last one shown.
    pub capped: bool,
    /// The cap that applied (0: none).
    pub max_results: usize,
    /// Files searched: all of them, or with a cap the files (in path order) up to the last one
    /// shown.
    pub files_searched: u64,
    /// Files where a NUL byte showed binary data; the search of such a file stopped there (matches
    /// before it are kept, as ripgrep keeps them).
    pub binary_files: u64,
    /// Files and folders that could not be read.
    pub errors: Vec<FileError>,
    max_line_bytes: usize,
}

/// One line of a [`GrepResult`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepLine<'a> {
    /// Relative to the root searched, with forward slashes (the file name if the root is a file).
    pub path: &'a str,
    /// 1-based line number.
    pub line: u64,
    /// The line without its ending; invalid UTF-8 shown as U+FFFD; cut with a marker if long.
    pub text: Cow<'a, str>,
    /// A context line around a match, not a match.
    #[serde(skip_serializing_if = "is_false")]
    pub context: bool,
    /// The text was cut.
    #[serde(skip_serializing_if = "is_false")]
    pub cut: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl GrepResult {
    /// Every line kept, matches and context, in path-then-line order.
    pub fn lines(&self) -> impl Iterator<Item = GrepLine<'_>> + '_ {
        self.files
            .iter()
            .flat_map(move |f| f.recs.iter().map(move |r| self.line(f, r)))
    }

    /// The matching lines only, in path-then-line order.
    pub fn matches(&self) -> impl Iterator<Item = GrepLine<'_>> + '_ {
        self.lines().filter(|l| !l.context)
    }

    /// The number of matching lines.
    pub fn match_count(&self) -> usize {
        self.files.iter().map(|f| f.matches).sum()
    }

    /// The number of files with a matching line.
    pub fn files_with_matches(&self) -> usize {
        self.files.iter().filter(|f| f.matches > 0).count()
    }

    fn line<'a>(&self, file: &'a FileHits, rec: &Rec) -> GrepLine<'a> {
        let (text, cut) = line_text(file.text(rec), self.max_line_bytes);
        GrepLine {
            path: &file.rel,
            line: rec.number,
            text,
            context: !rec.is_match,
            cut,
        }
    }

    /// A one-line summary: how many matches, whether capped, how far the search got.
    pub fn summary(&self) -> String {
        let (matches, files) = (self.match_count(), self.files_with_matches());
        let mut s = if matches == 0 {
            format!(
                "No matches in {} files searched",
                grouped(self.files_searched)
            )
        } else {
            format!(
                "{} matching line{} in {} file{}",
                grouped(matches as u64),
                plural(matches),
                grouped(files as u64),
                plural(files)
            )
        };
        if self.capped {
            s.push_str(&format!(
                "; capped at {} (the first in path order, after searching {} files): more may \
                 exist, so narrow the query or the include pattern, or raise the cap",
                self.max_results,
                grouped(self.files_searched)
            ));
        } else if matches > 0 {
            s.push_str(&format!(
                " ({} files searched)",
                grouped(self.files_searched)
            ));
        }
        if self.binary_files > 0 {
            s.push_str(&format!(
                "; {} binary file{} skipped from the first NUL byte",
                grouped(self.binary_files),
                plural(self.binary_files as usize)
            ));
        }
        if !self.errors.is_empty() {
            s.push_str(&format!(
                "; {} path{} could not be read",
                self.errors.len(),
                plural(self.errors.len())
            ));
        }
        s.push('.');
        s
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The text a model reads: each file's path, then its lines as `LINE:text` (matches) or
/// `LINE-text` (context), `--` between separate groups, and a summary line at the end.
impl fmt::Display for GrepResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            writeln!(f, "{}", file.rel)?;
            let mut previous: Option<u64> = None;
            for rec in &file.recs {
                if previous.is_some_and(|p| rec.number > p + 1) {
                    writeln!(f, "--")?;
                }
                previous = Some(rec.number);
                let line = self.line(file, rec);
                let sep = if line.context { '-' } else { ':' };
                writeln!(f, "{}{}{}", line.line, sep, line.text)?;
            }
            writeln!(f)?;
        }
        for err in &self.errors {
            writeln!(f, "error: {}: {}", err.path, err.message)?;
        }
        write!(f, "{}", self.summary())
    }
}

impl Serialize for GrepResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Lines<'a>(&'a GrepResult);
        impl Serialize for Lines<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.lines())
            }
        }
        #[derive(Serialize)]
        struct Shape<'a> {
            lines: Lines<'a>,
            match_count: usize,
            files_with_matches: usize,
            capped: bool,
            max_results: usize,
            files_searched: u64,
            binary_files: u64,
            errors: &'a [FileError],
        }
        Shape {
            lines: Lines(self),
            match_count: self.match_count(),
            files_with_matches: self.files_with_matches(),
            capped: self.capped,
            max_results: self.max_results,
            files_searched: self.files_searched,
            binary_files: self.binary_files,
            errors: &self.errors,
        }
        .serialize(serializer)
    }
}

/// Builds the matcher ripgrep would build for `query`: line-oriented, `^`/`$` at line ends,
/// Unicode-aware.
pub fn matcher(query: &str, options: &GrepOptions) -> Result<RegexMatcher, SearchError> {
    RegexMatcherBuilder::new()
        .case_insensitive(!options.case_sensitive)
        .fixed_strings(options.fixed_strings)
        .multi_line(true)
        .unicode(true)
        .octal(false)
        .line_terminator(Some(b'\n'))
        .build(query)
        .map_err(|e| SearchError::InvalidRegex {
            query: query.to_owned(),
            message: e.to_string(),
        })
}

/// Searches the files under `root` (a folder or one file) for lines matching `query`.
///
/// Folders are walked as ripgrep walks them (see [`WalkOptions`]); a file with a NUL byte is
/// binary and searched only up to it. Results are in path-then-line order; with a cap, they are
/// exactly the first `max_results` matches of that order, and the search stops as soon as they
/// are known. Unreadable files are listed in [`GrepResult::errors`], not fatal.
///
/// Errors: a missing root, an invalid regex or an invalid glob.
pub fn grep(root: &Path, query: &str, options: &GrepOptions) -> Result<GrepResult, SearchError> {
    crate::walk::check_root(root)?;
    let matcher = matcher(query, options)?;
    let builder = crate::walk::builder(&options.walk, root, &options.include, &options.exclude)?;
    let config = SearchConfig {
        context: options.context,
        per_file_limit: None,
    };
    let outcome = if options.max_results == 0 {
        engine::search_all(root, &builder, &matcher, config)
    } else {
        let threads = options.walk.thread_count();
        engine::search_capped(
            root,
            &builder,
            &matcher,
            config,
            options.max_results,
            threads,
            engine::ORDERED_FILES,
        )
    };
    Ok(GrepResult {
        files: outcome.files,
        capped: outcome.capped,
        max_results: options.max_results,
        files_searched: outcome.files_searched,
        binary_files: outcome.binary_files,
        errors: outcome.errors,
        max_line_bytes: options.max_line_bytes,
    })
}
