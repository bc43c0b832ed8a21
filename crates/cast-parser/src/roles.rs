//! What a file is for, from its path: source, a test, a stub, an example (or docs, a
//! benchmark, a packaging script), installed third-party code, or generated code. Each
//! language's conventions are here, and `find`, `map` and `show` all ask these functions, so
//! they agree on what a test file is in every language.
//!
//! ```
//! use cast_parser::roles::{FileRole, role_of};
//!
//! assert_eq!(role_of("src/tui/light_test.go"), FileRole::Test);
//! assert_eq!(role_of("spec/models/user_spec.rb"), FileRole::Test);
//! assert_eq!(role_of("src/index.d.ts"), FileRole::Stub);
//! assert_eq!(role_of("dist/chart.min.js"), FileRole::Generated);
//! assert_eq!(role_of("src/store.c"), FileRole::Source);
//! ```

/// What a file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileRole {
    /// The code base's own code.
    Source,
    /// A test, or test data and helpers.
    Test,
    /// A type stub (`.pyi`, `.d.ts`): signatures of code that lives elsewhere.
    Stub,
    /// Examples, documentation, benchmarks, packaging scripts: code about the code.
    Example,
    /// Installed third-party code (`site-packages/`, `node_modules/`) or a vendored copy
    /// (`vendor/`, `third_party/`).
    Installed,
    /// Built or generated, not written: minified bundles, protobuf output, designer files.
    Generated,
}

impl FileRole {
    /// The lower-case name: `source`, `test`, `stub`, `example`, `installed`, `generated`.
    pub fn as_str(self) -> &'static str {
        match self {
            FileRole::Source => "source",
            FileRole::Test => "test",
            FileRole::Stub => "stub",
            FileRole::Example => "example",
            FileRole::Installed => "installed",
            FileRole::Generated => "generated",
        }
    }
}

/// The role of a file, by its path relative to the root. Where several apply, the first of
/// installed, generated, test, stub, example wins.
pub fn role_of(path: &str) -> FileRole {
    if installed_package(path).is_some() || is_vendored(path) {
        FileRole::Installed
    } else if is_generated_path(path) {
        FileRole::Generated
    } else if is_test_path(path) {
        FileRole::Test
    } else if is_stub_path(path) {
        FileRole::Stub
    } else if is_example_path(path) {
        FileRole::Example
    } else {
        FileRole::Source
    }
}

/// Whether a path is a test file's: by its folders (`tests/`, `testdata/`, `__tests__/`,
/// `spec/`, …) or its name in its language's convention.
pub fn is_test_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/').rev().skip(1).any(|p| {
        p == "test"
            || p == "tests"
            || p == "testing"
            || p == "testdata"
            || p == "e2e"
            || p.starts_with("test_")
            || p.starts_with("test-")
            || p.ends_with("_tests")
            // JavaScript's names for them: `runtime-tests`, `e2e-test`. A singular `*-test` is
            // as often the product (Playwright's `playwright-test`, an `ab-test` feature).
            || p.ends_with("-tests")
            || matches!(p, "e2e-test" | "integration-test" | "unit-test")
    }) || name.starts_with("test_")
        || name.ends_with("_test.py")
        || name == "conftest.py"
        // Go, JavaScript/TypeScript (`x.test.ts`, `x.spec.js`, `__tests__/`), Java.
        || name.ends_with("_test.go")
        || name.contains(".test.")
        || name.contains(".spec.")
        || path.split('/').any(|p| p == "__tests__")
        || name.ends_with("Test.java")
        || name.ends_with("Tests.java")
        // C and C++ (`x_test.cc`, `x_unittest.cc`), C# (`FooTests.cs`), Ruby (`x_spec.rb`,
        // `x_test.rb`, `spec/`), PHP (PHPUnit's `FooTest.php`).
        || is_test_name_of_new_languages(name)
        || path.split('/').rev().skip(1).any(|p| p == "spec")
}

fn is_test_name_of_new_languages(name: &str) -> bool {
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    match ext {
        "c" | "cc" | "cpp" | "cxx" => {
            stem.ends_with("_test") || stem.ends_with("_unittest") || stem.ends_with("_tests")
        }
        "cs" | "php" => stem.ends_with("Test") || stem.ends_with("Tests"),
        "rb" => stem.ends_with("_spec") || stem.ends_with("_test"),
        _ => false,
    }
}

/// Whether a path is a type stub's: `.pyi`, `.d.ts` (and `.d.mts`, `.d.cts`).
pub fn is_stub_path(path: &str) -> bool {
    path.ends_with(".pyi")
        || path.ends_with(".d.ts")
        || path.ends_with(".d.mts")
        || path.ends_with(".d.cts")
}

/// The package a path of installed third-party code belongs to: the folder (or module) right
/// below `site-packages/`, `dist-packages/` or `node_modules/`.
pub fn installed_package(path: &str) -> Option<&str> {
    let mut parts = path.split('/');
    while let Some(part) = parts.next() {
        if matches!(part, "site-packages" | "dist-packages" | "node_modules") {
            let package = parts.next()?;
            // The last part is a file: a module of its own (`six.py`) or no package at all.
            return match parts.next() {
                Some(_) => Some(package),
                None => package.split('.').next().filter(|m| !m.is_empty()),
            };
        }
    }
    None
}

/// Whether a path is in a vendored copy of another project: `vendor/`, `third_party/`,
/// `third-party/`.
fn is_vendored(path: &str) -> bool {
    path.split('/')
        .rev()
        .skip(1)
        .any(|p| matches!(p, "vendor" | "third_party" | "third-party"))
}

/// Whether a path names generated or bundled code: a minified or bundled script
/// (`x.min.js`, `x.bundle.js`, a script under `dist/`), protobuf and gRPC output
/// (`x_pb2.py`, `x.pb.go`), C#'s `x.g.cs` and `X.Designer.cs`, `*_generated.*`.
pub fn is_generated_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let script = [".js", ".mjs", ".cjs"].iter().any(|e| name.ends_with(e));
    (script
        && (name.contains(".min.")
            || name.contains(".bundle.")
            || path.split('/').rev().skip(1).any(|p| p == "dist")))
        || name.ends_with(".min.css")
        || name.ends_with("_pb2.py")
        || name.ends_with("_pb2_grpc.py")
        || name.ends_with(".pb.go")
        || name.ends_with(".g.cs")
        || name.ends_with(".Designer.cs")
        || name.contains("_generated.")
        || name.contains(".generated.")
}

/// Examples, documentation and benchmark folders, and packaging scripts: code about the code.
pub fn is_example_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.split('/').rev().skip(1).any(|p| {
        matches!(
            p,
            "examples" | "example" | "docs" | "doc" | "benchmarks" | "bench"
        )
    }) || matches!(
        name,
        "setup.py" | "conftest.py" | "noxfile.py" | "fabfile.py"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_are_recognised_by_folder_and_name_in_every_language() {
        for p in [
            "tests/test_x.py",
            "pkg/tests/util.py",
            "test_a.py",
            "a/conftest.py",
            "src/x_test.py",
            "src/tui/light_test.go",
            "src/utils/url.test.ts",
            "src/a.spec.tsx",
            "src/__tests__/a.js",
            "gson/src/test/java/com/google/gson/GsonTest.java",
            "lib/FooTests.java",
            "runtime-tests/lambda/stream-mock.ts",
            "packages/e2e-test/app.ts",
            "packages/api-tests/users.ts",
            "test-utils/render.js",
            "src/e2e/login.ts",
            "cmd/testdata/input.go",
            "src/jv_test.c",
            "test/format_unittest.cc",
            "Src/Newtonsoft.Json.Tests/JsonReaderTests.cs",
            "spec/models/user_spec.rb",
            "test/helpers_test.rb",
            "tests/Unit/RouteTest.php",
        ] {
            assert!(is_test_path(p), "{p}");
            assert_eq!(role_of(p), FileRole::Test, "{p}");
        }
        for p in [
            "pkg/testing.py",
            "src/attest.py",
            "contest/app.py",
            "src/latest.go",
            "src/Contest.java",
            "src/testable.ts",
            "src/attest-x/a.ts",
            "src/latest-test-run/a.ts",
            "packages/playwright-test/src/index.ts",
            "src/features/ab-test/flag.ts",
            "src/jv_parse.c",
            "lib/sinatra/base.rb",
            "Slim/Routing/Route.php",
            "Src/Newtonsoft.Json/JsonReader.cs",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
    }

    #[test]
    fn roles_of_stubs_examples_installed_and_generated_code() {
        assert!(is_stub_path("src/adapter/deno/deno.d.ts"));
        assert!(!is_stub_path("src/d.ts.ts") && !is_stub_path("src/index.ts"));
        for (path, role) in [
            ("src/adapter/deno/deno.d.ts", FileRole::Stub),
            ("typeshed/os/__init__.pyi", FileRole::Stub),
            ("examples/hello.py", FileRole::Example),
            ("docs/conf.py", FileRole::Example),
            ("setup.py", FileRole::Example),
            ("lib/python3.11/site-packages/six.py", FileRole::Installed),
            ("web/node_modules/left-pad/index.js", FileRole::Installed),
            ("vendor/decNumber/decNumber.c", FileRole::Installed),
            ("dist/chart.umd.js", FileRole::Generated),
            ("static/jquery.min.js", FileRole::Generated),
            ("api/v1/service_pb2.py", FileRole::Generated),
            ("api/service.pb.go", FileRole::Generated),
            ("Forms/Main.Designer.cs", FileRole::Generated),
            ("src/dist.rs", FileRole::Source),
            ("src/index.ts", FileRole::Source),
        ] {
            assert_eq!(role_of(path), role, "{path}");
        }
    }
}
