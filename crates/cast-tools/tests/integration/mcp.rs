//! The MCP server driven over an in-memory pipe with raw JSON-RPC lines, as a client that makes
//! mistakes would send them.

use cast_tools::mcp::McpServer;
use cast_tools::{Registry, RegistryOptions, ToolContext};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Sends `lines` after the handshake, closes the input, and returns every answer after the
/// handshake's.
async fn exchange(lines: &[String]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
    let ctx = ToolContext::new(dir.path()).unwrap();
    let server = McpServer::new(Registry::standard(RegistryOptions::default()), ctx);
    let (mut client_in, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_out) = tokio::io::duplex(1 << 16);
    let serving = tokio::spawn(server.serve_lines(server_in, server_out));
    let mut answers = BufReader::new(client_out).lines();
    let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    client_in
        .write_all(format!("{hello}\n").as_bytes())
        .await
        .unwrap();
    let first: Value = serde_json::from_str(&answers.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(first["id"], 0, "{first}");
    client_in
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .unwrap();
    for line in lines {
        client_in.write_all(line.as_bytes()).await.unwrap();
        client_in.write_all(b"\n").await.unwrap();
    }
    drop(client_in);
    let mut out = Vec::new();
    while let Some(line) = answers.next_line().await.unwrap() {
        out.push(serde_json::from_str(&line).unwrap());
    }
    serving.await.unwrap().unwrap();
    out
}

fn call(id: u64, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "read_file", "arguments": arguments}})
    .to_string()
}

#[tokio::test]
async fn every_line_gets_an_answer_that_says_what_was_wrong() {
    let good = json!({"target_file": "a.py", "explanation": "look"});
    let answers = exchange(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file""#.to_owned(),
        call(2, Value::String(good.to_string())),
        call(3, good.clone()),
    ])
    .await;
    assert_eq!(answers.len(), 3, "{answers:?}");
    let by_id = |id: Value| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer for {id}: {answers:?}"))
    };
    // The truncated line: a parse error, with no id to answer under.
    assert_eq!(by_id(Value::Null)["error"]["code"], -32700);
    // The arguments sent as a string: invalid params, under the call's id, saying how to fix it.
    let encoded = by_id(json!(2));
    assert_eq!(encoded["error"]["code"], -32602, "{encoded}");
    assert!(
        encoded["error"]["message"]
            .as_str()
            .unwrap()
            .contains("send the object itself"),
        "{encoded}"
    );
    // And the server still serves the good call after both.
    let read = by_id(json!(3));
    assert_eq!(read["result"]["isError"], false, "{read}");
    assert!(
        read["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("x = 1"),
        "{read}"
    );
}
