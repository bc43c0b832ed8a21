//! Skipping a test whose outside tool is missing, without hiding it.

use std::io::Write;

/// Set to `1` (as `.ci/run` does) to turn every skip into a failure, so a green run proves the
/// tests that need python3, rg, tmux or the `mcp` package really ran.
pub const REQUIRE_TOOLS_VAR: &str = "CAST_REQUIRE_TOOLS";

/// Called by a test that cannot run here (`reason` says what is missing and how to get it),
/// right before it returns. With [`REQUIRE_TOOLS_VAR`] set it panics, failing the test;
/// otherwise it prints `SKIPPED <test>: <reason>` straight to the terminal's stderr — past
/// libtest's output capture, which would hide a note printed with `eprintln!` from a passing
/// test.
pub fn skip_test(reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    if std::env::var(REQUIRE_TOOLS_VAR).is_ok_and(|v| v == "1") {
        panic!("{test} cannot run: {reason} ({REQUIRE_TOOLS_VAR}=1 requires every test to run)");
    }
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {reason}");
}
