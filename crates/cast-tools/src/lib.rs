//! The tools an agent sees, over CAST's analyzer, searcher and coder.
//!
//! `cast-tools` owns one registry of tools — each with a name, a description written for a
//! model, a JSON Schema for its parameters (from serde + schemars), validated dispatch, and a
//! capped result with a text for the model and structured data — the workspace sandbox that keeps
//! every path inside the root, the one function that spawns every command run for a model
//! ([`tools::run_shell`], confined by [`ToolContext::sandbox`], see [`cast_sandbox`]), and the
//! MCP server that serves the same registry over stdio. The
//! `cast` subcommands, the agent loop and MCP clients all call [`Registry::call`].
//!
//! ```
//! use cast_tools::{Registry, RegistryOptions, Status, ToolContext};
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! let ctx = ToolContext::new(dir.path())?;
//! let registry = Registry::standard(RegistryOptions::default());
//! let out = registry.call(&ctx, "finish", json!({"response": "Nothing to do."}))?;
//! assert_eq!((out.status, out.text.as_str()), (Status::Ok, "Nothing to do."));
//!
//! // Arguments are validated against the schema; the error names the field.
//! let err = registry.call(&ctx, "finish", json!({"answer": "x"})).unwrap_err();
//! assert!(err.to_string().contains("unknown field `answer`"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod context;
mod error;
pub mod mcp;
mod output;
mod registry;
pub mod render;
mod sandbox;
pub mod tools;

pub use cast_analyzer;
pub use cast_coder;
pub use cast_parser;
pub use cast_sandbox;
pub use cast_searcher;

pub use context::{DEFAULT_MAX_OUTPUT_BYTES, EditMode, ToolContext};
pub use error::ToolError;
pub use output::{ChangeSummary, ReadSummary, Status, ToolOutput};
pub use registry::{Registry, Tool, ToolSpec, TypedTool, parse_args, schema_for};
pub use sandbox::{Access, ResolvedPath, SandboxError, Workspace};
pub use tools::RegistryOptions;
