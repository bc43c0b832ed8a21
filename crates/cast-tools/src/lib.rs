//! The tools an agent sees, over the analyzer, searcher and coder.
//!
//! This crate will own the tool registry (each tool with a model-facing description, a JSON
//! schema for its parameters, validated dispatch and a capped result), the workspace sandbox
//! that keeps every path inside the root, and the MCP server that serves the same registry over
//! stdio. The `cast` subcommands, the agent loop and MCP clients all call the same entry points.
//!
//! It is filled by the tools issue.

pub use cast_analyzer;
pub use cast_coder;
pub use cast_parser;
pub use cast_searcher;
