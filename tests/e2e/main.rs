//! End-to-end tests of the `cast` binary, one module per command.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod analyzer;
mod apply;
mod chat;
mod first_contact;
mod mcp;
mod run;
mod sandbox;
mod searcher;
mod serve;
mod skills;
mod support;
mod symbols;
mod tools;
mod workspace;
