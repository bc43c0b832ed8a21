//! The priors of a query: what it speaks of (tests, stubs, examples, dependencies, errors), and
//! so the factor of each file and symbol by what it is (its roles, its name, its scope).

use cast_index::rows::SymbolNaming;
use cast_parser::SymbolKind;
use cast_parser::roles::{FileRoles, installed_package};

use super::blend::{
    ASKED_FACTOR, ERROR_TYPE_FACTOR, EXAMPLE_FACTOR, INSTALLED_FACTOR, PRIVATE_FACTOR, STUB_FACTOR,
    TEST_FACTOR,
};
use crate::test_code::{about_tests, in_test_scope, marked_as_test};

/// Words of a query about errors: error types are not demoted then.
const ERROR_WORDS: &[&str] = &[
    "error",
    "errors",
    "err",
    "panic",
    "panics",
    "catch",
    "except",
    "warn",
    "exception",
    "exceptions",
    "raise",
    "raises",
    "raised",
    "raising",
    "throw",
    "throws",
    "thrown",
    "warning",
    "warnings",
    "fail",
    "fails",
    "failed",
    "failure",
    "failures",
];

/// Whether a symbol is an error type by the usual conventions: a type (class, struct, enum,
/// trait, interface, impl block or type alias; not a Go or Java function such as `LogError` or
/// Go's `Error()` method) whose name is capitalised and ends in `Error`, `Exception` or
/// `Warning` (Python's PEP 8, Java's and JavaScript's `…Exception` and `…Error` classes, Rust's
/// `Error` types).
fn is_error_type(kind: SymbolKind, name: &str) -> bool {
    (kind.is_type() || kind == SymbolKind::Type)
        && name.starts_with(|c: char| c.is_ascii_uppercase())
        && ["Error", "Exception", "Warning"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// Words of a query about stubs: stubs are not demoted then.
const STUB_WORDS: &[&str] = &["stub", "stubs", "pyi", "typeshed"];

/// Words of a query about examples and docs: they are demoted less then.
const EXAMPLE_WORDS: &[&str] = &[
    "example",
    "examples",
    "doc",
    "docs",
    "documentation",
    "setup",
    "benchmark",
    "sphinx",
];

/// Words of a query about dependencies: installed code is not demoted then.
const INSTALLED_WORDS: &[&str] = &[
    "dependency",
    "dependencies",
    "installed",
    "vendored",
    "thirdparty",
];

/// Whether every word of a package's name is among the query's words (`_pytest` is named by
/// "pytest", `google_auth` by "google auth").
fn names_package(query_words: &[String], package: &str) -> bool {
    let mut all = true;
    let mut any = false;
    cast_index::text::for_each_word(package, |w| {
        any = true;
        all &= query_words.iter().any(|q| q == w);
    });
    any && all
}

/// Whether any of the query's words is one of `words`.
fn about(query_words: &[String], words: &[&str]) -> bool {
    query_words.iter().any(|w| words.contains(&w.as_str()))
}

/// The priors of one query: what it speaks of, and so which factors apply.
pub(super) struct Priors {
    query_words: Vec<String>,
    tests_ok: bool,
    stubs_ok: bool,
    examples_ok: bool,
    installed_ok: bool,
    errors_ok: bool,
}

impl Priors {
    pub(super) fn new(query: &str) -> Priors {
        let mut query_words: Vec<String> = Vec::new();
        cast_index::text::for_each_word(query, |w| query_words.push(w.to_owned()));
        let tests_ok = about_tests(&query_words);
        let stubs_ok = about(&query_words, STUB_WORDS);
        let examples_ok = about(&query_words, EXAMPLE_WORDS);
        let installed_ok = about(&query_words, INSTALLED_WORDS);
        let errors_ok = about(&query_words, ERROR_WORDS);
        Priors {
            query_words,
            tests_ok,
            stubs_ok,
            examples_ok,
            installed_ok,
            errors_ok,
        }
    }

    /// package, read from the path), examples, tests, stubs. Generated code is ranked as source
    /// is: it changes in the same commit as what it is generated from (fzf's `stringer`
    /// output), and a factor of 0.3 or 0.6 pushed such an answer out of the top ten.
    pub(super) fn of_file(&self, path: &str, roles: FileRoles) -> f64 {
        let mut f = 1.0;
        if roles.installed
            && !self.installed_ok
            && !installed_package(path).is_some_and(|p| names_package(&self.query_words, p))
        {
            f *= INSTALLED_FACTOR;
        }
        if roles.example {
            f *= if self.examples_ok {
                ASKED_FACTOR
            } else {
                EXAMPLE_FACTOR
            };
        }
        if roles.test {
            f *= self.test_factor();
        }
        if !self.stubs_ok && roles.stub {
            f *= STUB_FACTOR;
        }
        f
    }

    /// The factor of a symbol: its file's, a little less for a private name, and a test's when
    /// it sits in a `tests` scope (Rust's `mod tests`) or carries a test's decorator (`#[test]`)
    /// in a file that is not a test already.
    pub(super) fn of_symbol(&self, path: &str, roles: FileRoles, named: &SymbolNaming) -> f64 {
        let (qualname, decorators) = (named.qualname.as_str(), named.decorators.as_deref());
        let mut f = self.of_file(path, roles);
        let short = qualname.rsplit('.').next().unwrap_or("");
        if short.starts_with('_') && !short.starts_with("__") {
            f *= PRIVATE_FACTOR;
        }
        // Rust's qualified names use `::`.
        let last = qualname.rsplit(['.', ':']).next().unwrap_or("");
        if !self.errors_ok && is_error_type(named.kind, last) {
            f *= ERROR_TYPE_FACTOR;
        }
        if !roles.test && (in_test_scope(qualname) || marked_as_test(decorators)) {
            f *= self.test_factor();
        }
        f
    }

    pub(super) fn test_factor(&self) -> f64 {
        if self.tests_ok {
            ASKED_FACTOR
        } else {
            TEST_FACTOR
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_types_are_known_by_their_kind_and_names() {
        use SymbolKind::{Class, Enum, Function, Method, Struct};
        for (kind, name) in [
            (Class, "BadOptionError"),
            (Enum, "Error"),
            (Class, "HTTPException"),
            (Class, "DeprecationWarning"),
            (Struct, "ParseError"),
        ] {
            assert!(is_error_type(kind, name), "{kind:?} {name}");
        }
        for (kind, name) in [
            (Function, "raise_error"),
            (Class, "ErrorHandler"),
            (Class, "Errors"),
            (Class, "_Error"),
            // Go's exported functions and every error type's `Error()` method are capitalised.
            (Function, "LogError"),
            (Method, "Error"),
        ] {
            assert!(!is_error_type(kind, name), "{kind:?} {name}");
        }
        let named = |kind, qualname: &str| SymbolNaming {
            kind,
            qualname: qualname.to_owned(),
            decorators: None,
        };
        let factor = |query: &str, n: &SymbolNaming| {
            Priors::new(query).of_symbol("opts.py", FileRoles::of_path("opts.py"), n)
        };
        let error = named(Class, "BadOptionError");
        assert_eq!(factor("parse the options", &error), ERROR_TYPE_FACTOR);
        assert_eq!(
            factor("parse the options", &named(Class, "OptionParser")),
            1.0
        );
        assert_eq!(factor("the error of a bad option", &error), 1.0);
        assert_eq!(factor("what is raised for a bad option", &error), 1.0);
        // Nested and Rust-qualified names are judged by their last part.
        let nested = named(Class, "Parser.OptionError");
        assert_eq!(factor("parse the options", &nested), ERROR_TYPE_FACTOR);
        let rust = named(Enum, "config::Error");
        assert_eq!(factor("read the config", &rust), ERROR_TYPE_FACTOR);
    }

    #[test]
    fn installed_code_is_recognised_by_its_folder_and_named_by_its_package() {
        assert_eq!(
            installed_package("lib/python3.11/site-packages/werkzeug/security.py"),
            Some("werkzeug")
        );
        assert_eq!(installed_package("site-packages/six.py"), Some("six"));
        assert_eq!(
            installed_package("web/node_modules/left-pad/index.js"),
            Some("left-pad")
        );
        assert_eq!(
            installed_package("dist-packages/_pytest/main.py"),
            Some("_pytest")
        );
        assert_eq!(installed_package("src/site/packages.py"), None);
        assert_eq!(installed_package("site-packages"), None);
        let words = |q: &str| {
            let mut w = Vec::new();
            cast_index::text::for_each_word(q, |x| w.push(x.to_owned()));
            w
        };
        assert!(names_package(
            &words("hash a password with werkzeug"),
            "werkzeug"
        ));
        assert!(names_package(&words("a pytest fixture"), "_pytest"));
        assert!(names_package(
            &words("refresh Google auth tokens"),
            "google_auth"
        ));
        assert!(!names_package(&words("refresh auth tokens"), "google_auth"));
        assert!(!names_package(&words("hash a password"), "werkzeug"));
    }
}
