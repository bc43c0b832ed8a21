//! Test code: whether a symbol is a test (by its file's roles, its scope or its decorators), and
//! whether a query speaks of tests. Search demotes tests; the map lists them after other code.

use cast_parser::roles::FileRoles;

/// Words that make a query about tests (then tests are not demoted).
const TEST_WORDS: &[&str] = &[
    "test", "tests", "testing", "pytest", "unittest", "fixture", "conftest",
];

/// Whether a symbol is test code: in a test file (by its stored roles), in a `tests` scope of another file, or
/// marked as a test by a decorator (`decorators` as stored: one per line; see
/// [`is_test_decorator`]).
pub(crate) fn is_test_symbol(roles: FileRoles, qualname: &str, decorators: Option<&str>) -> bool {
    roles.test || in_test_scope(qualname) || marked_as_test(decorators)
}

/// Whether any of a symbol's stored decorators (one per line) marks it as a test.
pub(crate) fn marked_as_test(decorators: Option<&str>) -> bool {
    decorators.is_some_and(|d| d.lines().any(is_test_decorator))
}

/// Whether a decorator marks a test: Rust's `#[test]`, `#[tokio::test]`, `#[test_case(…)]`,
/// `#[rstest]` and `#[cfg(test)]`; Java's `@Test`, `@ParameterizedTest`, `@RepeatedTest`;
/// Python's `@pytest.mark.…` (Python's tests are otherwise known by their files; a
/// `@pytest.fixture` or `@pytest.hookimpl` outside them is a plugin's own code). Rust writes unit
/// tests beside the code, often outside a `mod tests` (ripgrep's flags keep a `#[test] fn
/// test_max_depth()` next to each flag), where only the attribute says what they are.
fn is_test_decorator(decorator: &str) -> bool {
    let d = decorator.trim();
    let d = d
        .strip_prefix("#[")
        .map_or(d, |d| d.strip_suffix(']').unwrap_or(d));
    let d = d.strip_prefix('@').unwrap_or(d);
    let (path, args) = d.split_once('(').unwrap_or((d, ""));
    let path = path.trim();
    if path == "cfg" {
        return args.trim_end_matches(')').trim() == "test";
    }
    if path.starts_with("pytest.mark.") {
        return true;
    }
    let last = path.rsplit([':', '.']).next().unwrap_or(path);
    last == "test"
        || last.starts_with("test_")
        || last == "rstest"
        || (last.ends_with("Test") && last.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// Whether a query or task speaks of tests.
pub(crate) fn speaks_of_tests(query: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    cast_index::text::for_each_word(query, |w| words.push(w.to_owned()));
    about_tests(&words)
}

/// Whether any of a query's words (as [`cast_index::text::for_each_word`] cuts them) is about
/// tests.
pub(crate) fn about_tests(query_words: &[String]) -> bool {
    query_words.iter().any(|w| TEST_WORDS.contains(&w.as_str()))
}

/// Whether a symbol is inside a scope named `tests` or `test` (Rust's `#[cfg(test)] mod
/// tests`, the usual home of a file's own tests), or is such a scope itself.
pub(crate) fn in_test_scope(qualname: &str) -> bool {
    let mut parts = qualname
        .split(['.', ':'])
        .filter(|p| !p.is_empty())
        .peekable();
    while let Some(part) = parts.next() {
        let last = parts.peek().is_none();
        if part == "tests" || (part == "test" && !last) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_beside_the_code_are_known_by_their_scope() {
        for q in [
            "tests::parses_globs",
            "tests",
            "walk::tests::helper::run",
            "test::bench_one",
            "TestCase.tests.run",
        ] {
            assert!(in_test_scope(q), "{q}");
        }
        for q in [
            "test",
            "Parser.test",
            "latest::x",
            "testing::f",
            "contest.tests_run",
            "re.Pattern.search",
        ] {
            assert!(!in_test_scope(q), "{q}");
        }
    }

    #[test]
    fn tests_are_known_by_their_decorators() {
        for d in [
            "#[test]",
            "#[tokio::test]",
            "#[tokio::test(flavor = \"multi_thread\")]",
            "#[cfg(test)]",
            "#[test_case(1, 2)]",
            "#[rstest]",
            "@Test",
            "@ParameterizedTest",
            "@org.junit.jupiter.api.Test",
            "pytest.mark.parametrize(\"x\", [1, 2])",
            "pytest.mark.slow",
        ] {
            assert!(is_test_decorator(d), "{d}");
        }
        for d in [
            "#[derive(Debug)]",
            "#[cfg(feature = \"test\")]",
            "#[cfg(not(test))]",
            "#[inline]",
            "@Override",
            "@Latest",
            "property",
            "functools.lru_cache(maxsize=None)",
            "app.route(\"/test\")",
            "contest",
            "pytest.fixture",
            "pytest.hookimpl(tryfirst=True)",
        ] {
            assert!(!is_test_decorator(d), "{d}");
        }
        assert!(is_test_symbol(
            FileRoles::of_path("crates/core/flags/defs.rs"),
            "test_max_depth",
            Some("#[cfg(test)]\n#[test]")
        ));
        assert!(!is_test_symbol(
            FileRoles::of_path("crates/core/flags/defs.rs"),
            "MaxDepth",
            Some("#[derive(Debug)]")
        ));
        assert!(!is_test_symbol(
            FileRoles::of_path("src/lib.rs"),
            "parse",
            None
        ));
        assert!(is_test_symbol(
            FileRoles::of_path("src/lib_test.go"),
            "Parse",
            None
        ));
    }

    #[test]
    fn a_query_speaks_of_tests_by_its_words() {
        assert!(speaks_of_tests("add a pytest fixture for the parser"));
        assert!(speaks_of_tests("Tests fail on Windows"));
        assert!(!speaks_of_tests("parse an HTTP date"));
        assert!(!speaks_of_tests("the latest contest"));
    }
}
