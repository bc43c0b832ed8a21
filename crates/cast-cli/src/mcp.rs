//! `cast mcp`: serve the tool registry over MCP on stdio.

use std::path::PathBuf;

use anyhow::Context;
use cast_tools::mcp::McpServer;
use cast_tools::{Registry, RegistryOptions, ToolContext};

use crate::{Exit, Out};

/// Serve CAST's tools to any MCP client over stdio (initialize, tools/list, tools/call).
///
/// Every path is confined to --root. `run_command` is offered only with --allow-commands.
/// stdout carries the protocol; logs go to stderr.
///
/// Example client configuration (Claude Desktop, Cursor, …):
///   {"mcpServers": {"cast": {"command": "cast", "args": ["mcp", "--root", "/path/to/repo"]}}}
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workspace root the tools are confined to.
    #[arg(long, value_name = "PATH", default_value = ".")]
    root: PathBuf,
    /// Offer `run_command` (confined by --sandbox).
    #[arg(long)]
    allow_commands: bool,
    #[command(flatten)]
    guard: crate::sandbox::GuardArgs,
}

pub fn run(args: Args, _out: &mut Out) -> anyhow::Result<Exit> {
    let mut ctx = ToolContext::new(&args.root)?;
    args.guard.apply_to(&mut ctx)?;
    let registry = Registry::standard(RegistryOptions {
        commands: args.allow_commands,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(McpServer::new(registry, ctx).serve_stdio())?;
    Ok(Exit::Success)
}
