//! cast-tools integration tests: the sandbox against hostile paths, the schemas, and each tool
//! on a small real project.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod mcp;
mod schemas;
mod security;
mod tools;
