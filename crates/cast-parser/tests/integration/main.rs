//! cast-parser's integration tests: every language on fixtures written for them, broken and
//! hostile input (truncations, random bytes, deep nesting, huge files and lines).

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod c_csharp_ruby_php;
mod languages;
mod robustness;
