//! Integration tests of cast-coder: scenario folders, property tests, the crash test, and the
//! workspace layer (journal, undo, change sets).

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod crash;
mod properties;
mod scenarios;
mod workspace;
