//! The registry served over MCP (Model Context Protocol) on stdio, with rmcp.
//!
//! `tools/list` returns every tool's name, description and input schema; `tools/call` runs
//! [`Registry::call`] on a blocking thread. A refusal or a validation error is a tool-level error
//! (`isError: true`) whose text the model reads and can act on; an unknown tool is a protocol
//! error (invalid params). Each line the client sends is screened before rmcp reads it
//! (`mcp/screen.rs`): a line that is not JSON, or a call whose arguments are not an object, is
//! answered with the JSON-RPC error that says so (rmcp would drop the one and call the other
//! "method not found").

mod screen;

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::{Registry, Status, ToolContext, ToolError};

/// An MCP server over one registry and one workspace.
#[derive(Clone)]
pub struct McpServer {
    registry: Arc<Registry>,
    ctx: Arc<ToolContext>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("root", &self.ctx.workspace.root())
            .field("tools", &self.registry.names())
            .finish()
    }
}

/// Why the server stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    #[error("the MCP client did not complete the handshake: {0}")]
    Initialize(String),
    #[error("the MCP server task failed: {0}")]
    Task(String),
}

const INSTRUCTIONS: &str = "CAST's code tools for this workspace. Paths are relative to the workspace root and cannot leave it. Start with analyze_repository (a ranked map of the code) or grep_search, read with read_file or get_skeleton, and edit with search_replace (SEARCH/REPLACE blocks that must match exactly one place) or edit_file; undo_edit reverts the last change.";

impl McpServer {
    pub fn new(registry: Registry, ctx: ToolContext) -> Self {
        McpServer {
            registry: Arc::new(registry),
            ctx: Arc::new(ctx),
        }
    }

    /// The tools as MCP describes them.
    pub fn tools(&self) -> Vec<McpTool> {
        self.registry
            .specs()
            .into_iter()
            .map(|spec| {
                let schema = match spec.parameters {
                    serde_json::Value::Object(obj) => obj,
                    _ => serde_json::Map::new(),
                };
                let read_only = self.registry.get(spec.name).is_some_and(|t| t.read_only());
                let mut tool = McpTool::new(spec.name, spec.description, schema);
                let mut annotations = ToolAnnotations::default();
                annotations.read_only_hint = Some(read_only);
                annotations.destructive_hint = Some(!read_only);
                tool.annotations = Some(annotations);
                tool
            })
            .collect()
    }

    /// Serves on stdin/stdout until the client disconnects.
    pub async fn serve_stdio(self) -> Result<(), McpServeError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves one client that sends newline-delimited JSON-RPC on `input` and reads the answers
    /// on `output`, until `input` ends. Each line is screened (`mcp/screen.rs`) on its way to rmcp;
    /// rmcp's answers and the screen's go out whole lines, one at a time.
    pub async fn serve_lines<R, W>(self, input: R, output: W) -> Result<(), McpServeError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        const PIPE: usize = 1 << 16;
        let (to_rmcp, rmcp_input) = tokio::io::duplex(PIPE);
        let (rmcp_output, from_rmcp) = tokio::io::duplex(PIPE);
        let (lines_out, lines) = mpsc::unbounded_channel::<Vec<u8>>();
        let screening = tokio::spawn(screen_lines(input, to_rmcp, lines_out.clone()));
        let relaying = tokio::spawn(relay_lines(from_rmcp, lines_out));
        let writing = tokio::spawn(write_lines(lines, output));
        let served = async {
            let running = self
                .serve((rmcp_input, rmcp_output))
                .await
                .map_err(|e| McpServeError::Initialize(e.to_string()))?;
            running
                .waiting()
                .await
                .map_err(|e| McpServeError::Task(e.to_string()))?;
            Ok(())
        }
        .await;
        // rmcp has let go of its pipes, so the relay ends; a client still sending gets no more
        // answers. The writer ends once both have, after writing what they sent.
        screening.abort();
        let _ = relaying.await;
        let _ = writing.await;
        served
    }
}

/// Reads the client's lines: each is passed to rmcp or, when [`screen::screen`] answers it,
/// the answer is sent out. Ends at the end of `input` (or when rmcp stops reading).
async fn screen_lines<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: tokio::io::DuplexStream,
    answers: mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        match screen::screen(&line) {
            Some(answer) => {
                let mut answer = answer.into_bytes();
                answer.push(b'\n');
                if answers.send(answer).is_err() {
                    return;
                }
            }
            None => {
                if !line.ends_with(b"\n") {
                    line.push(b'\n');
                }
                if to_rmcp.write_all(&line).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Passes rmcp's answers on, a whole line at a time, until rmcp closes its output.
async fn relay_lines(from_rmcp: tokio::io::DuplexStream, out: mpsc::UnboundedSender<Vec<u8>>) {
    let mut from_rmcp = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match from_rmcp.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if out.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// Writes the lines it is sent, each flushed, until every sender is gone.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: W,
) {
    while let Some(line) = lines.recv().await {
        if output.write_all(&line).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cast", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + Send + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(self.tools())))
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        let registry = Arc::clone(&self.registry);
        let ctx = Arc::clone(&self.ctx);
        async move {
            let name = request.name.to_string();
            let args = request
                .arguments
                .map(serde_json::Value::Object)
                .unwrap_or(serde_json::Value::Null);
            let outcome =
                tokio::task::spawn_blocking(move || registry.call(&ctx, &name, args)).await;
            let result = match outcome {
                Err(join) => {
                    return Err(ErrorData::internal_error(
                        format!("the tool call crashed: {join}"),
                        None,
                    ));
                }
                Ok(Err(err @ ToolError::UnknownTool { .. })) => {
                    return Err(ErrorData::invalid_params(err.to_string(), None));
                }
                Ok(Err(err)) => CallToolResult::error(vec![ContentBlock::text(err.to_string())]),
                Ok(Ok(output)) => {
                    let mut result = match output.status {
                        Status::Ok => {
                            CallToolResult::success(vec![ContentBlock::text(output.text)])
                        }
                        Status::Refused => {
                            CallToolResult::error(vec![ContentBlock::text(output.text)])
                        }
                    };
                    if output.data.is_object() {
                        result.structured_content = Some(output.data);
                    }
                    result
                }
            };
            Ok(result.into())
        }
    }
}
