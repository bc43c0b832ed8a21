//! Finding files by name: [`glob`] (a pattern) and [`find_files`] (a fuzzy query ranked like an
//! editor's quick-open).

use std::fmt;
use std::path::Path;
use std::sync::Mutex;

use globset::GlobMatcher;
use ignore::{DirEntry, WalkState};
use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use serde::{Deserialize, Serialize};

use crate::FileError;
use crate::engine::walk_error;
use crate::text::grouped;
use crate::{SearchError, WalkOptions};
use cast_workspace::{path_order, relative};

/// The default cap on file results: what an agent's `glob_search` and `file_search` return.
pub const DEFAULT_FILE_MAX_RESULTS: usize = 10;

/// How to [`glob`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GlobOptions {
    /// Stop after this many files (0: no cap). The first N in path order.
    pub max_results: usize,
    /// Which files are walked.
    #[serde(flatten)]
    pub walk: WalkOptions,
}

impl Default for GlobOptions {
    fn default() -> Self {
        GlobOptions {
            max_results: DEFAULT_FILE_MAX_RESULTS,
            walk: WalkOptions::default(),
        }
    }
}

/// Files found by [`glob`], in path order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GlobResult {
    /// Relative to the root, with forward slashes.
    pub paths: Vec<String>,
    /// The cap stopped the walk; more files may match.
    pub capped: bool,
    /// The cap that applied (0: none).
    pub max_results: usize,
    /// Files looked at (in path order) before the walk ended or stopped.
    pub files_walked: u64,
    /// Folders that could not be read.
    pub errors: Vec<FileError>,
}

impl fmt::Display for GlobResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for path in &self.paths {
            writeln!(f, "{path}")?;
        }
        for err in &self.errors {
            writeln!(f, "error: {}: {}", err.path, err.message)?;
        }
        let n = self.paths.len();
        if n == 0 {
            write!(
                f,
                "No file matches ({} files looked at).",
                grouped(self.files_walked)
            )
        } else if self.capped {
            write!(
                f,
                "{n} files shown, the first in path order; capped at {}: more may match, so \
                 narrow the pattern or raise the cap.",
                self.max_results
            )
        } else {
            write!(f, "{n} file{} found.", if n == 1 { "" } else { "s" })
        }
    }
}

/// Compiles a file pattern the way agents write them: `*` stays within a folder, `**` crosses
/// folders, `{a,b}` is either; a pattern matches at any depth (`*.py`, `tests/*.py`) unless it
/// starts with `/`, which anchors it at the root ([`cast_workspace::compile_glob`], the one rule
/// for file patterns across CAST).
pub fn compile_glob(pattern: &str) -> Result<GlobMatcher, SearchError> {
    cast_workspace::compile_glob(pattern).map_err(|e| SearchError::InvalidGlob {
        glob: pattern.to_owned(),
        message: e.kind().to_string(),
    })
}

/// Lists the files under `root` whose path (relative to `root`) matches `pattern` (see
/// [`compile_glob`]), in path order. With a cap, the walk goes in path order and stops at the
/// cap. Folders are walked as ripgrep walks them (see [`WalkOptions`]).
pub fn glob(root: &Path, pattern: &str, options: &GlobOptions) -> Result<GlobResult, SearchError> {
    crate::walk::check_root(root)?;
    let matcher = compile_glob(pattern)?;
    let mut builder = options.walk.builder(root);
    let mut result = GlobResult {
        paths: Vec::new(),
        capped: false,
        max_results: options.max_results,
        files_walked: 0,
        errors: Vec::new(),
    };
    if options.max_results == 0 {
        let files = all_files(root, &options.walk)?;
        result.files_walked = files.paths.len() as u64;
        result.errors = files.errors;
        result.paths = files
            .paths
            .into_iter()
            .filter(|p| matcher.is_match(p))
            .collect();
        return Ok(result);
    }
    for entry in builder.sort_by_file_name(|a, b| a.cmp(b)).build() {
        match entry {
            Ok(entry) if is_file(&entry) => {
                if result.paths.len() == options.max_results {
                    result.capped = true;
                    break;
                }
                result.files_walked += 1;
                let rel = relative(root, entry.path());
                if matcher.is_match(&rel) {
                    result.paths.push(rel);
                }
            }
            Ok(_) => {}
            Err(err) => result.errors.push(walk_error(root, &err)),
        }
    }
    Ok(result)
}

fn is_file(entry: &DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file())
}

/// Every file under a root, relative, in path order.
pub(crate) struct AllFiles {
    pub paths: Vec<String>,
    pub errors: Vec<FileError>,
}

/// Walks `root` in parallel and returns every file's relative path, sorted.
pub(crate) fn all_files(root: &Path, walk: &WalkOptions) -> Result<AllFiles, SearchError> {
    let builder = walk.builder(root);
    let found = Mutex::new(AllFiles {
        paths: Vec::new(),
        errors: Vec::new(),
    });
    builder.build_parallel().run(|| {
        let found = &found;
        // Each thread collects into its own list and hands it over when the walk ends.
        struct Flush<'a>(Vec<String>, &'a Mutex<AllFiles>);
        impl Drop for Flush<'_> {
            fn drop(&mut self) {
                let mut all = self.1.lock().unwrap_or_else(|e| e.into_inner());
                all.paths.append(&mut self.0);
            }
        }
        let mut flush = Flush(Vec::new(), found);
        Box::new(move |entry| {
            match entry {
                Ok(entry) if is_file(&entry) => flush.0.push(relative(root, entry.path())),
                Ok(_) => {}
                Err(err) => {
                    let mut all = found.lock().unwrap_or_else(|e| e.into_inner());
                    all.errors.push(walk_error(root, &err));
                }
            }
            WalkState::Continue
        })
    });
    let mut all = found.into_inner().unwrap_or_else(|e| e.into_inner());
    all.paths.sort_unstable_by(|a, b| path_order(a, b));
    all.errors.sort_by(|a, b| path_order(&a.path, &b.path));
    Ok(all)
}

/// How to [`find_files`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FindFilesOptions {
    /// Show at most this many files, the best first (0: all that match).
    pub max_results: usize,
    /// Which files are walked.
    #[serde(flatten)]
    pub walk: WalkOptions,
}

impl Default for FindFilesOptions {
    fn default() -> Self {
        FindFilesOptions {
            max_results: DEFAULT_FILE_MAX_RESULTS,
            walk: WalkOptions::default(),
        }
    }
}

/// A file found by [`find_files`], with its score (higher is better).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RankedFile {
    /// Relative to the root, with forward slashes.
    pub path: String,
    pub score: u32,
}

/// Files found by [`find_files`], the best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindFilesResult {
    pub files: Vec<RankedFile>,
    /// How many files matched the query in all (more than shown when capped).
    pub matched: usize,
    /// Fewer files are shown than matched.
    pub capped: bool,
    /// The cap that applied (0: none).
    pub max_results: usize,
    /// Files looked at.
    pub files_walked: u64,
    /// Folders that could not be read.
    pub errors: Vec<FileError>,
}

impl fmt::Display for FindFilesResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            writeln!(f, "{}", file.path)?;
        }
        if self.files.is_empty() {
            write!(
                f,
                "No file name matches ({} files looked at).",
                grouped(self.files_walked)
            )
        } else if self.capped {
            write!(
                f,
                "The best {} of {} matching files; add more of the name to narrow it.",
                self.files.len(),
                grouped(self.matched as u64)
            )
        } else {
            write!(
                f,
                "{} matching file{}.",
                self.files.len(),
                if self.files.len() == 1 { "" } else { "s" }
            )
        }
    }
}

/// Ranks the files under `root` by how well their path matches `query`, fuzzily, the way an
/// editor's quick-open does: the characters of the query in order, with bonuses for matches at
/// the start of a name or word and for consecutive characters, and the file name counting more
/// than its folders; case is ignored unless the query has a capital letter; words separated by
/// spaces must all match. Ties go to the shorter path, then path order.
pub fn find_files(
    root: &Path,
    query: &str,
    options: &FindFilesOptions,
) -> Result<FindFilesResult, SearchError> {
    crate::walk::check_root(root)?;
    let files = all_files(root, &options.walk)?;
    let ranker = Ranker::new(query);
    let mut ranked: Vec<RankedFile> = Vec::new();
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut buf = Vec::new();
    for path in &files.paths {
        if let Some(score) = ranker.score(path, &mut matcher, &mut buf) {
            ranked.push(RankedFile {
                path: path.clone(),
                score,
            });
        }
    }
    ranked.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(a.path.len().cmp(&b.path.len()))
            .then_with(|| path_order(&a.path, &b.path))
    });
    let matched = ranked.len();
    if options.max_results > 0 {
        ranked.truncate(options.max_results);
    }
    Ok(FindFilesResult {
        capped: ranked.len() < matched,
        files: ranked,
        matched,
        max_results: options.max_results,
        files_walked: files.paths.len() as u64,
        errors: files.errors,
    })
}

/// Scores a path against a fuzzy query.
struct Ranker {
    pattern: Pattern,
    /// The query without spaces, lowercase, to spot an exact file name or stem.
    plain: String,
}

impl Ranker {
    fn new(query: &str) -> Self {
        Ranker {
            pattern: Pattern::new(
                query,
                CaseMatching::Smart,
                Normalization::Smart,
                AtomKind::Fuzzy,
            ),
            plain: query.trim().to_lowercase(),
        }
    }

    fn score(&self, path: &str, matcher: &mut Matcher, buf: &mut Vec<char>) -> Option<u32> {
        let whole = self.pattern.score(Utf32Str::new(path, buf), matcher)?;
        let name = path.rsplit('/').next().unwrap_or(path);
        // The file name counts double, as quick-open favours it over the folders.
        let in_name = self
            .pattern
            .score(Utf32Str::new(name, buf), matcher)
            .unwrap_or(0);
        let mut score = whole + 2 * in_name;
        let lower = name.to_lowercase();
        let stem = lower.split('.').next().unwrap_or(&lower);
        if lower == self.plain || stem == self.plain {
            score += 1000;
        }
        Some(score)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_patterns_match_at_any_depth_unless_anchored() {
        let m = compile_glob("*.py").unwrap();
        assert!(m.is_match("a.py") && m.is_match("x/y/a.py") && !m.is_match("a.pyc"));
        let m = compile_glob("tests/*.py").unwrap();
        assert!(m.is_match("tests/a.py") && m.is_match("lib/tests/a.py"));
        assert!(!m.is_match("tests/deep/a.py"));
        let m = compile_glob("/tests/**/*.py").unwrap();
        assert!(m.is_match("tests/deep/a.py") && !m.is_match("lib/tests/a.py"));
        let m = compile_glob("**/*.{py,pyi}").unwrap();
        assert!(m.is_match("a/b.pyi") && m.is_match("b.py"));
        assert!(matches!(
            compile_glob("a[").err(),
            Some(SearchError::InvalidGlob { .. })
        ));
    }

    #[test]
    fn fuzzy_ranking_prefers_the_file_name() {
        let ranker = Ranker::new("cart");
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut buf = Vec::new();
        let mut score = |p: &str| ranker.score(p, &mut matcher, &mut buf);
        let exact = score("shop/cart.py").unwrap();
        let prefix = score("shop/cartography.py").unwrap();
        let folder = score("cart/views.py").unwrap();
        let scattered = score("c/a/r/t.py").unwrap();
        assert!(exact > prefix, "{exact} {prefix}");
        assert!(prefix > folder, "{prefix} {folder}");
        assert!(folder > scattered, "{folder} {scattered}");
        assert_eq!(score("shop/pricing.py"), None);
    }
}
