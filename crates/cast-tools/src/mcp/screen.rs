//! Each line a client sends, looked at before rmcp reads it.
//!
//! rmcp drops a line that is not JSON without a word, so the client waits for an answer that
//! never comes, and answers a `tools/call` whose arguments are not an object with "method not
//! found" (-32601, the message being the method's name), and JSON that is no JSON-RPC message
//! with a bare "Invalid request" that has no `id` (JSON-RPC requires one, null when unknown).
//! Those lines are answered here instead, with the JSON-RPC error that says what was wrong:
//! -32700 (parse error, id null), -32600 (invalid request, its id or null) and -32602 (invalid
//! params, with the request's id). Everything else goes to rmcp unchanged.

use serde_json::{Value, json};

/// JSON-RPC's code for a message that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a request, a notification or a response.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC's code for a request whose params are not what the method takes.
const INVALID_PARAMS: i64 = -32602;

/// The answer to `line` when it must not reach rmcp (one JSON-RPC error object, without its
/// newline), or `None` to pass it on.
pub(super) fn screen(line: &[u8]) -> Option<String> {
    if line.trim_ascii().is_empty() {
        return None;
    }
    let message: Value = match serde_json::from_slice(line.trim_ascii_end()) {
        Ok(message) => message,
        Err(err) => {
            return Some(error(
                &Value::Null,
                PARSE_ERROR,
                format!(
                    "parse error: {err}; each message must be one JSON-RPC object on a line of its own"
                ),
            ));
        }
    };
    if let Some(why) = not_a_message(&message) {
        // The id, when there is a usable one, so the client can tell which message it was.
        let id = message
            .get("id")
            .filter(|id| id.is_string() || id.is_number())
            .unwrap_or(&Value::Null);
        return Some(error(id, INVALID_REQUEST, why));
    }
    let (Some(id), Some("tools/call")) = (
        message.get("id"),
        message.get("method").and_then(Value::as_str),
    ) else {
        return None;
    };
    call_params_problem(message.get("params")).map(|why| error(id, INVALID_PARAMS, why))
}

/// Why `message` is no JSON-RPC message at all (neither a request or notification, which have
/// a `method`, nor a response, which has a `result` or an `error`), if it is not.
fn not_a_message(message: &Value) -> Option<String> {
    let Some(object) = message.as_object() else {
        return Some(format!(
            "invalid request: a message is one JSON-RPC object, not {} (batches are not taken)",
            kind(message)
        ));
    };
    if object.get("method").is_some_and(Value::is_string)
        || object.contains_key("result")
        || object.contains_key("error")
    {
        return None;
    }
    Some(if object.contains_key("method") {
        "invalid request: `method` must be a string, the method's name".to_owned()
    } else {
        "invalid request: a JSON-RPC request needs `method` (with `jsonrpc`: \"2.0\", and an `id` unless it is a notification)".to_owned()
    })
}

/// What is wrong with the params of a `tools/call`, if anything rmcp would not say clearly.
fn call_params_problem(params: Option<&Value>) -> Option<String> {
    let Some(params) = params.and_then(Value::as_object) else {
        return Some(
            "tools/call takes params: an object with the tool's `name` and its `arguments`"
                .to_owned(),
        );
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Some(
            "tools/call params need `name`, the tool's name as a string (tools/list lists them)"
                .to_owned(),
        );
    };
    let arguments = params.get("arguments")?;
    if arguments.is_object() || arguments.is_null() {
        return None;
    }
    let mut why = format!(
        "the arguments of `{name}` must be a JSON object of its parameters, not {}",
        kind(arguments)
    );
    if arguments
        .as_str()
        .and_then(|s| serde_json::from_str::<Value>(s).ok())
        .is_some_and(|v| v.is_object())
    {
        why.push_str(
            " (this string holds a JSON object: send the object itself, not encoded as a string)",
        );
    }
    Some(why)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn error(id: &Value, code: i64, message: String) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Option<Value> {
        screen(line.as_bytes()).map(|a| serde_json::from_str(&a).unwrap())
    }

    #[test]
    fn requests_rmcp_understands_pass_unchanged() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"target_file":"a.py"}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"finish"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            // Not a request rmcp serves, but one it answers itself (-32601).
            r#"{"jsonrpc":"2.0","id":4,"method":"nosuch"}"#,
            // A client's response to the server's request.
            r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#,
            r#"{"jsonrpc":"2.0","id":"s2","error":{"code":-1,"message":"no"}}"#,
            "",
            "   ",
        ] {
            assert_eq!(screen(line.as_bytes()), None, "{line}");
        }
    }

    #[test]
    fn a_line_that_is_not_json_is_a_parse_error() {
        for line in [
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file""#,
            "hello",
            "{\"a\": \"\u{fffd}\" ",
        ] {
            let a = answer(line).unwrap();
            assert_eq!(a["id"], Value::Null, "{line}");
            assert_eq!(a["error"]["code"], PARSE_ERROR, "{line}");
            assert!(
                a["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("parse error: "),
                "{a}"
            );
        }
        let bytes = b"{\"a\": \"\xff\"}";
        let a: Value = serde_json::from_str(&screen(bytes).unwrap()).unwrap();
        assert_eq!(a["error"]["code"], PARSE_ERROR);
    }

    #[test]
    fn json_that_is_no_json_rpc_message_is_an_invalid_request_with_an_id() {
        for (line, id, says) in [
            (r#"{"foo":1}"#, Value::Null, "needs `method`"),
            (r#"{"jsonrpc":"2.0","id":9}"#, json!(9), "needs `method`"),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":3}"#,
                json!("x"),
                "must be a string",
            ),
            (r#"{"id":{"a":1}}"#, Value::Null, "needs `method`"),
            ("[1,2]", Value::Null, "not an array (batches"),
            ("42", Value::Null, "not a number"),
            (r#""tools/list""#, Value::Null, "not a string"),
        ] {
            let a = answer(line).unwrap();
            assert_eq!(a["id"], id, "{line}");
            assert!(a.as_object().unwrap().contains_key("id"), "{line}");
            assert_eq!(a["error"]["code"], INVALID_REQUEST, "{line}");
            let message = a["error"]["message"].as_str().unwrap();
            assert!(message.contains(says), "{line}: {message}");
        }
    }

    #[test]
    fn a_tool_call_with_arguments_that_are_no_object_says_so_under_its_id() {
        let a = answer(
            r#"{"jsonrpc":"2.0","id":"c7","method":"tools/call","params":{"name":"read_file","arguments":"{\"target_file\": \"a.py\"}"}}"#,
        )
        .unwrap();
        assert_eq!(a["id"], "c7");
        assert_eq!(a["error"]["code"], INVALID_PARAMS);
        let message = a["error"]["message"].as_str().unwrap();
        assert!(message.contains("`read_file`"), "{message}");
        assert!(message.contains("not a string"), "{message}");
        assert!(message.contains("not encoded as a string"), "{message}");

        let a = answer(
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"grep_search","arguments":[1]}}"#,
        )
        .unwrap();
        assert_eq!(a["id"], 5);
        let message = a["error"]["message"].as_str().unwrap();
        assert!(message.ends_with("not an array"), "{message}");

        for params in [r#""#, r#","params":7"#, r#","params":{"arguments":{}}"#] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":6,"method":"tools/call"{params}}}"#);
            let a = answer(&line).unwrap();
            assert_eq!(a["id"], 6, "{line}");
            assert_eq!(a["error"]["code"], INVALID_PARAMS, "{line}");
        }
    }
}
