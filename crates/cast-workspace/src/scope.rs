//! Which files of a tree a command covers: folders, files and globs, named relative to the root.
//!
//! One rule for file patterns across CAST ([`compile_glob`]: `cast glob`, `cast grep --glob`,
//! `cast find --in`), and a [`Scope`] of several patterns that a path is in when one of them
//! matches it and none of its exclusions (`!tests`) does.

use globset::{GlobBuilder, GlobMatcher};

/// Compiles a file pattern the way agents write them: `*` stays within a folder, `**` crosses
/// folders, `{a,b}` is either; a pattern matches at any depth (`*.py`, `tests/*.py`) unless it
/// starts with `/`, which anchors it at the root.
pub fn compile_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    let full = match pattern.strip_prefix('/') {
        Some(rest) => rest.to_owned(),
        None if pattern.starts_with("**/") => pattern.to_owned(),
        None => format!("**/{pattern}"),
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|g| g.compile_matcher())
}

/// Whether `pattern` is a glob (holds `*`, `?`, `[` or `{`) rather than a plain path.
pub fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// `pattern` with the absolute file-system path it names (after `!` or not; a glob never names
/// one) replaced by what `relative` makes of it, a path from the root; any other pattern as it
/// is. Front ends bring absolute paths inside the root this way, and refuse the others in
/// `relative`, before [`Scope::new`] (which reads every pattern from the root).
pub fn relative_pattern<E>(
    pattern: &str,
    relative: impl FnOnce(&std::path::Path) -> Result<String, E>,
) -> Result<String, E> {
    let (not, given) = match pattern.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => ("", pattern),
    };
    let path = std::path::Path::new(given);
    if !path.is_absolute() || is_glob(given) {
        return Ok(pattern.to_owned());
    }
    let rel = relative(path)?;
    Ok(format!("{not}{}", if rel.is_empty() { "." } else { &rel }))
}

/// Why a pattern cannot make a [`Scope`].
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error("{pattern:?} names nothing; give a folder, file or glob (`.` is the whole tree)")]
    Empty { pattern: String },
    #[error("{pattern:?} is not a valid glob: {message}")]
    InvalidGlob { pattern: String, message: String },
    #[error("{pattern:?} leaves the root; name a folder, file or glob inside it")]
    OutsideRoot { pattern: String },
}

/// Some of a tree's files, by patterns relative to its root: a folder (`src/http`: everything
/// under it), a file (`src/app.py`), or a glob (see [`compile_glob`]: `*.rs`, `/docs/**`,
/// `tests/test_*.py`; a glob that matches a folder takes everything under it, as in
/// `.gitignore`); a pattern after `!` excludes what it names (`!tests`, `!**/vendor`). A path is
/// in the scope when a pattern names it (or there are only exclusions) and no exclusion does;
/// no pattern, or `.`, is the whole tree. Patterns are always read from the root: a leading
/// `/` or `./` says so again and changes nothing; front ends turn absolute file-system paths
/// into such patterns, or refuse them.
///
/// ```
/// use cast_workspace::Scope;
///
/// let scope = Scope::new(["src/http", "*.md"])?;
/// assert!(scope.contains("src/http/client.py"));
/// assert!(scope.contains("docs/guide.md"));
/// assert!(!scope.contains("src/httpx.py"));
/// let no_tests = Scope::new(["!tests", "!test_*.py"])?;
/// assert!(no_tests.contains("src/app.py"));
/// assert!(!no_tests.contains("tests/conftest.py"));
/// assert!(!no_tests.contains("src/test_app.py"));
/// assert!(Scope::new(["."])?.is_whole_tree());
/// # Ok::<(), cast_workspace::ScopeError>(())
/// ```
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "Vec<String>", into = "Vec<String>")]
pub struct Scope {
    included: Patterns,
    excluded: Patterns,
    /// The patterns as given, for messages.
    patterns: Vec<String>,
}

/// Folders, files and globs; `whole` when one of them is the root itself.
#[derive(Debug, Clone, Default)]
struct Patterns {
    /// Folders and files, without a trailing `/`.
    paths: Vec<String>,
    globs: Vec<GlobMatcher>,
    whole: bool,
}

impl Patterns {
    fn is_empty(&self) -> bool {
        !self.whole && self.paths.is_empty() && self.globs.is_empty()
    }

    fn matches(&self, rel: &str) -> bool {
        self.whole
            || self.paths.iter().any(|p| {
                rel.strip_prefix(p.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            })
            || (!self.globs.is_empty() && {
                // The path itself, then each folder it is in (`src/http/x.py`: `src/http`,
                // `src`), so a glob that names a folder covers what is under it.
                let folders = rel.match_indices('/').map(|(i, _)| &rel[..i]);
                std::iter::once(rel)
                    .chain(folders)
                    .any(|p| self.globs.iter().any(|g| g.is_match(p)))
            })
    }
}

/// A scope travels (to a `cast serve`, in a request) as its patterns, and is compiled again on
/// arrival.
impl From<Scope> for Vec<String> {
    fn from(scope: Scope) -> Vec<String> {
        scope.patterns
    }
}

impl TryFrom<Vec<String>> for Scope {
    type Error = ScopeError;

    fn try_from(patterns: Vec<String>) -> Result<Scope, ScopeError> {
        Scope::new(patterns)
    }
}

impl Scope {
    /// The whole tree.
    pub fn whole_tree() -> Scope {
        Scope::default()
    }

    /// The files `patterns` name. Paths use `/`; a leading `./` and a trailing `/` are ignored.
    pub fn new<I, S>(patterns: I) -> Result<Scope, ScopeError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut scope = Scope::default();
        for pattern in patterns {
            let written = pattern.as_ref();
            scope.patterns.push(written.to_owned());
            let (given, into) = match written.strip_prefix('!') {
                Some(rest) => (rest, &mut scope.excluded),
                None => (written, &mut scope.included),
            };
            if given.trim().is_empty() {
                return Err(ScopeError::Empty {
                    pattern: written.to_owned(),
                });
            }
            if given.split('/').any(|part| part == "..") {
                return Err(ScopeError::OutsideRoot {
                    pattern: written.to_owned(),
                });
            }
            // From the root, whatever says so: `/src`, `./src`, `.//src/` are `src`; a glob
            // written so is anchored there (`/docs/*.md`), any other matches at any depth.
            let anchored = given.starts_with('/') || given.starts_with("./");
            let mut path = given.trim_end_matches('/');
            loop {
                let rest = path.trim_start_matches('/');
                let rest = rest.strip_prefix("./").unwrap_or(rest);
                if rest == path {
                    break;
                }
                path = rest;
            }
            if path.is_empty() || path == "." {
                into.whole = true;
            } else if is_glob(path) {
                let glob = if anchored {
                    compile_glob(&format!("/{path}"))
                } else {
                    compile_glob(path)
                };
                let glob = glob.map_err(|e| ScopeError::InvalidGlob {
                    pattern: written.to_owned(),
                    message: e.kind().to_string(),
                })?;
                into.globs.push(glob);
                // `app/[id]` or `{slug}` may be a folder's real name (Next.js, SvelteKit routes):
                // a pattern with no wildcard names that path too.
                if !path.contains(['*', '?']) {
                    into.paths.push(path.to_owned());
                }
            } else {
                into.paths.push(path.to_owned());
            }
        }
        Ok(scope)
    }

    /// Whether every file of the tree is in the scope.
    pub fn is_whole_tree(&self) -> bool {
        self.excluded.is_empty() && (self.included.whole || self.included.is_empty())
    }

    /// Whether `rel`, a path relative to the root with `/` between its parts, is in the scope.
    pub fn contains(&self, rel: &str) -> bool {
        (self.included.is_empty() || self.included.matches(rel)) && !self.excluded.matches(rel)
    }

    /// The patterns as given, in order.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_covers_what_is_under_it_and_not_its_namesakes() {
        let scope = Scope::new(["./src/http/"]).unwrap();
        assert!(scope.contains("src/http"));
        assert!(scope.contains("src/http/client.py"));
        assert!(scope.contains("src/http/v2/frames.py"));
        assert!(!scope.contains("src/httpx/client.py"));
        assert!(!scope.contains("src/http.py"));
        assert!(!scope.contains("lib/src/http/client.py"));
        assert!(!scope.is_whole_tree());
    }

    #[test]
    fn a_glob_matches_at_any_depth_unless_anchored() {
        let scope = Scope::new(["*.rs", "/docs/*.md"]).unwrap();
        assert!(scope.contains("main.rs"));
        assert!(scope.contains("crates/a/src/lib.rs"));
        assert!(scope.contains("docs/guide.md"));
        assert!(!scope.contains("docs/deep/guide.md"));
        assert!(!scope.contains("src/docs/guide.md"));
        assert!(!scope.contains("README.md"));
        let tests = Scope::new(["tests/test_*.py"]).unwrap();
        assert!(tests.contains("pkg/tests/test_io.py"));
        assert!(!tests.contains("pkg/tests/io/test_io.py"));
    }

    #[test]
    fn no_pattern_or_the_root_is_the_whole_tree() {
        for patterns in [&[][..], &["."][..], &["./"][..], &["/"][..]] {
            let scope = Scope::new(patterns.iter().copied()).unwrap();
            assert!(scope.is_whole_tree(), "{patterns:?}");
            assert!(scope.contains("any/file.py"));
        }
        assert!(Scope::whole_tree().contains("x"));
    }

    #[test]
    fn exclusions_take_out_what_they_name() {
        let scope = Scope::new(["src", "!src/vendor", "!*_pb2.py"]).unwrap();
        assert!(scope.contains("src/app.py"));
        assert!(!scope.contains("src/vendor/lib.py"));
        assert!(!scope.contains("src/api_pb2.py"));
        assert!(!scope.contains("docs/conf.py"));
        assert!(!scope.is_whole_tree());
        // Exclusions alone: the rest of the tree.
        let scope = Scope::new(["!tests"]).unwrap();
        assert!(scope.contains("src/app.py") && !scope.contains("tests/test_app.py"));
        assert!(!scope.is_whole_tree());
        // Excluding the root leaves nothing.
        assert!(!Scope::new(["!."]).unwrap().contains("src/app.py"));
        for bad in ["!../x", "!/../etc"] {
            let err = Scope::new([bad]).unwrap_err();
            assert!(err.to_string().contains(bad), "{err}");
        }
    }

    #[test]
    fn patterns_are_read_from_the_root_however_written() {
        let scope = Scope::new(["./src/*.py", "/lib", "docs/"]).unwrap();
        assert!(scope.contains("src/app.py"));
        assert!(
            !scope.contains("pkg/src/app.py"),
            "./ anchors a glob at the root"
        );
        assert!(scope.contains("lib/io.py") && scope.contains("docs/a.md"));
        // A glob that names a folder takes what is under it, included or excluded.
        // Brackets and braces in a folder's real name are matched as written too.
        let routes = Scope::new(["app/[id]", "!app/{slug}/draft.tsx"]).unwrap();
        assert!(routes.contains("app/[id]/page.tsx"));
        assert!(
            routes.contains("app/i/page.tsx"),
            "and as the glob it also is"
        );
        let routes = Scope::new(["app", "!app/{slug}"]).unwrap();
        assert!(!routes.contains("app/{slug}/page.tsx") && routes.contains("app/x/page.tsx"));
        let scope = Scope::new(["src/http*", "!**/tests/"]).unwrap();
        assert!(scope.contains("src/http/client.py"));
        assert!(scope.contains("src/httpx.py"));
        assert!(!scope.contains("src/http/tests/test_client.py"));
        assert!(!scope.contains("lib/io.py"));
    }

    #[test]
    fn only_an_absolute_path_is_made_relative_and_its_exclusion_kept() {
        let rel = |p: &std::path::Path| -> Result<String, ()> {
            Ok(p.strip_prefix("/repo")
                .map_err(|_| ())?
                .display()
                .to_string())
        };
        assert_eq!(relative_pattern("/repo/src", rel), Ok("src".to_owned()));
        assert_eq!(
            relative_pattern("!/repo/tests", rel),
            Ok("!tests".to_owned())
        );
        assert_eq!(relative_pattern("/repo", rel), Ok(".".to_owned()));
        assert_eq!(
            relative_pattern("/docs/*.md", rel),
            Ok("/docs/*.md".to_owned())
        );
        assert_eq!(
            relative_pattern("src/app.py", rel),
            Ok("src/app.py".to_owned())
        );
        assert_eq!(relative_pattern("/elsewhere", rel), Err(()));
    }

    #[test]
    fn an_empty_pattern_is_refused_not_read_as_everything_or_nothing() {
        for bad in ["", "!", "  ", "!  "] {
            let err = Scope::new([bad]).unwrap_err();
            assert!(matches!(err, ScopeError::Empty { .. }), "{bad:?}: {err}");
        }
    }

    #[test]
    fn patterns_leaving_the_root_or_malformed_are_refused() {
        for bad in ["../other", "src/../../x", "/../x"] {
            let err = Scope::new([bad]).unwrap_err();
            assert!(
                matches!(err, ScopeError::OutsideRoot { .. }),
                "{bad}: {err}"
            );
            assert!(err.to_string().contains("leaves the root"));
        }
        let err = Scope::new(["src/{a,b"]).unwrap_err();
        assert!(matches!(err, ScopeError::InvalidGlob { .. }), "{err}");
        assert!(err.to_string().contains("src/{a,b"));
    }
}
