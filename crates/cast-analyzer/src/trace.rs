//! Traces mapped onto the code: what ran, how often, and where it failed.
//!
//! [`parse_trace`] reads three formats, detected from the text (a file may mix the first two):
//!
//! 1. **A Python traceback** (`Traceback (most recent call last):` then `File "…", line N, in f`
//!    frames and the exception line; chained tracebacks give one error each). Every frame
//!    counts as one call of its function; the error is at the last frame.
//! 2. **A pytest log** in any `--tb` style: `path.py:N: in func` / `path.py:N: Error` location
//!    lines (the last one of each failure section is the error, with the first `E   ` line as
//!    its message), `path.py::test PASSED|FAILED` lines of `-v`, and `FAILED path.py::test - msg`
//!    summary lines (each marks the test as run).
//! 3. **A JSON-lines execution log** (CAST's own; one object per line):
//!
//!    ```text
//!    {"event": "call",  "file": "shop/cart.py", "function": "Cart.add", "line": 13, "count": 3}
//!    {"event": "line",  "file": "shop/cart.py", "line": 14}
//!    {"event": "error", "file": "shop/cart.py", "line": 15, "message": "ZeroDivisionError: division by zero"}
//!    ```
//!
//!    `file` is required (absolute, or relative to the indexed root); `event` is `call`
//!    (default), `line` or `error`; `function` (a qualified name or a plain name) and/or
//!    `line` say where; `count` defaults to 1. Other fields (`ts`, `tool`, …) and other events
//!    are ignored, so an agent's own step log can carry these fields as it goes. Blank lines are
//!    skipped; a line that is not JSON is an error naming its line number.
//!
//!    **A CAST session trace** (`.cast/traces/ID.jsonl`, events without `file`) is read as the
//!    same: each tool call naming a file (`target_file`, `path`, …) is a call there, each edit
//!    one at its first changed line, and a tool call that failed or was refused an error at its
//!    file with the result's summary.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// One executed place: a function call or a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The file as the trace names it.
    pub file: String,
    pub line: Option<u32>,
    pub function: Option<String>,
    pub count: u32,
}

/// An error at a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceError {
    pub file: String,
    /// 0 when the error is about the whole file (a session's refused tool call named no line).
    pub line: u32,
    pub message: String,
}

/// What a trace says ran and failed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub frames: Vec<Frame>,
    pub errors: Vec<TraceError>,
}

/// Why a trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParseError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for TraceParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[derive(Deserialize)]
struct JsonEvent {
    #[serde(default)]
    event: Option<String>,
    file: String,
    #[serde(default)]
    line: Option<u32>,
    #[serde(default)]
    function: Option<String>,
    #[serde(default)]
    count: Option<u32>,
    #[serde(default)]
    message: Option<String>,
}

static TB_FRAME: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"^\s*File "(.+)", line (\d+)(?:, in (.+))?\s*$"#).ok());
static PY_LOCATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(\S+?\.pyx?):(\d+):(?: (.*))?$").ok());
static PY_RESULT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(\S+?\.py)::(\S+?)(?:\[.*\])? +(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)").ok()
});
static PY_SUMMARY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(FAILED|ERROR|PASSED) (\S+?\.py)::(\S+?)(?:\[.*?\])?(?: - (.*))?$").ok()
});
static PY_SECTION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^_{3,} (.+?) _{3,}$").ok());

fn test_function(id: &str) -> String {
    id.replace("::", ".")
}

/// Reads a trace in any of the three formats.
pub fn parse_trace(text: &str) -> Result<Trace, TraceParseError> {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    if first.trim_start().starts_with('{') {
        return parse_json_lines(text);
    }
    let mut trace = Trace::default();
    parse_traceback(text, &mut trace);
    parse_pytest(text, &mut trace);
    Ok(trace)
}

fn parse_json_lines(text: &str) -> Result<Trace, TraceParseError> {
    let mut trace = Trace::default();
    let mut session = SessionEvents::default();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let not_an_event = |e: serde_json::Error| TraceParseError {
            line: i + 1,
            message: format!(
                "not a JSON execution event ({e}); see the format in docs/analyzer.md"
            ),
        };
        let value: serde_json::Value = serde_json::from_str(line).map_err(not_an_event)?;
        // A CAST session trace (`.cast/traces/ID.jsonl`) names files in its tool calls and
        // edits, not in a `file` field.
        if value.get("file").is_none()
            && let Some(event) = value.get("event").and_then(|e| e.as_str())
        {
            session.read(event, &value, &mut trace);
            continue;
        }
        let ev: JsonEvent = serde_json::from_value(value).map_err(not_an_event)?;
        match ev.event.as_deref().unwrap_or("call") {
            "call" | "line" => trace.frames.push(Frame {
                file: ev.file,
                line: ev.line,
                function: ev.function,
                count: ev.count.unwrap_or(1),
            }),
            "error" => trace.errors.push(TraceError {
                file: ev.file,
                line: ev.line.unwrap_or(1),
                message: ev.message.unwrap_or_else(|| "error".into()),
            }),
            _ => {}
        }
    }
    Ok(trace)
}

/// The parameters of CAST's tools that name a file.
const FILE_PARAMS: [&str; 4] = [
    "target_file",
    "path",
    "file_path",
    "relative_workspace_path",
];

/// Reads the events of a CAST session trace: each tool call naming a file counts as one call
/// there (at `start_line` when given), each edit as one at its first changed line, and a tool
/// call that failed or was refused is an error at its file with the result's summary.
#[derive(Default)]
struct SessionEvents {
    /// Tool call id → the place it named.
    calls: std::collections::HashMap<String, (String, u32)>,
}

impl SessionEvents {
    fn read(&mut self, event: &str, value: &serde_json::Value, trace: &mut Trace) {
        let text = |v: &serde_json::Value, key: &str| {
            v.get(key).and_then(|x| x.as_str()).map(str::to_owned)
        };
        match event {
            "tool_call" => {
                let Some(params) = value.get("params") else {
                    return;
                };
                let Some(file) = FILE_PARAMS.iter().find_map(|k| text(params, k)) else {
                    return;
                };
                let line = ["start_line", "line"]
                    .iter()
                    .find_map(|k| params.get(*k).and_then(|x| x.as_u64()))
                    .and_then(|l| u32::try_from(l).ok());
                if let Some(id) = text(value, "id") {
                    self.calls.insert(id, (file.clone(), line.unwrap_or(0)));
                }
                trace.frames.push(Frame {
                    file,
                    line,
                    function: None,
                    count: 1,
                });
            }
            "edit" => {
                let Some(file) = text(value, "path") else {
                    return;
                };
                let line = text(value, "diff").and_then(|d| first_changed_line(&d));
                trace.frames.push(Frame {
                    file,
                    line,
                    function: None,
                    count: 1,
                });
            }
            "tool_result" => {
                let failed = matches!(
                    value.get("status").and_then(|s| s.as_str()),
                    Some("error" | "refused")
                );
                let place = text(value, "id").and_then(|id| self.calls.get(&id));
                if let (true, Some((file, line))) = (failed, place) {
                    trace.errors.push(TraceError {
                        file: file.clone(),
                        line: *line,
                        message: text(value, "summary").unwrap_or_else(|| "refused".into()),
                    });
                }
            }
            _ => {}
        }
    }
}

/// The first line a unified diff adds or removes, in the new file's numbering.
fn first_changed_line(diff: &str) -> Option<u32> {
    let mut line = None;
    for l in diff.lines() {
        if let Some(rest) = l.strip_prefix("@@ ") {
            let new = rest.split_whitespace().find(|p| p.starts_with('+'))?;
            let start = new.trim_start_matches('+').split(',').next()?;
            line = start.parse::<u32>().ok();
        } else if let Some(n) = line.as_mut() {
            if (l.starts_with('+') || l.starts_with('-')) && !l.starts_with("+++") {
                return Some(*n);
            }
            *n += 1;
        }
    }
    line
}

fn parse_traceback(text: &str, trace: &mut Trace) {
    let Some(frame_re) = TB_FRAME.as_ref() else {
        return;
    };
    let mut block: Vec<(String, u32, Option<String>)> = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line
            .trim_start()
            .starts_with("Traceback (most recent call last)")
        {
            in_block = true;
            block.clear();
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(c) = frame_re.captures(line) {
            let line_no = c.get(2).and_then(|m| m.as_str().parse().ok()).unwrap_or(0);
            block.push((
                c[1].to_owned(),
                line_no,
                c.get(3).map(|m| m.as_str().trim().to_owned()),
            ));
            continue;
        }
        let starts_at_col0 = !line.starts_with(char::is_whitespace) && !line.trim().is_empty();
        if starts_at_col0 && !block.is_empty() {
            for (file, line_no, function) in &block {
                trace.frames.push(Frame {
                    file: file.clone(),
                    line: Some(*line_no),
                    function: function.clone().filter(|f| f != "<module>"),
                    count: 1,
                });
            }
            if let Some((file, line_no, _)) = block.last() {
                trace.errors.push(TraceError {
                    file: file.clone(),
                    line: *line_no,
                    message: line.trim().to_owned(),
                });
            }
            block.clear();
            in_block = false;
        }
    }
}

fn parse_pytest(text: &str, trace: &mut Trace) {
    let (Some(loc_re), Some(result_re), Some(summary_re), Some(section_re)) = (
        PY_LOCATION.as_ref(),
        PY_RESULT.as_ref(),
        PY_SUMMARY.as_ref(),
        PY_SECTION.as_ref(),
    ) else {
        return;
    };
    // Locations of the current failure section, and its first `E` line.
    let mut locations: Vec<(String, u32, String)> = Vec::new();
    let mut first_e: Option<String> = None;
    let flush = |locations: &mut Vec<(String, u32, String)>,
                 first_e: &mut Option<String>,
                 trace: &mut Trace| {
        if let Some((file, line, text)) = locations.last() {
            for (f, l, t) in locations.iter() {
                let function = t.strip_prefix("in ").map(|s| s.trim().to_owned());
                trace.frames.push(Frame {
                    file: f.clone(),
                    line: Some(*l),
                    function,
                    count: 1,
                });
            }
            let message = first_e
                .take()
                .or_else(|| (!text.trim().is_empty()).then(|| text.trim().to_owned()))
                .unwrap_or_else(|| "failed".into());
            trace.errors.push(TraceError {
                file: file.clone(),
                line: *line,
                message,
            });
        }
        locations.clear();
        *first_e = None;
    };
    for line in text.lines() {
        if section_re.is_match(line) || line.starts_with("=====") {
            flush(&mut locations, &mut first_e, trace);
            continue;
        }
        if let Some(c) = summary_re.captures(line) {
            trace.frames.push(Frame {
                file: c[2].to_owned(),
                line: None,
                function: Some(test_function(&c[3])),
                count: 1,
            });
            continue;
        }
        if let Some(c) = result_re.captures(line) {
            trace.frames.push(Frame {
                file: c[1].to_owned(),
                line: None,
                function: Some(test_function(&c[2])),
                count: 1,
            });
            continue;
        }
        if let Some(c) = loc_re.captures(line) {
            let line_no = c[2].parse().unwrap_or(0);
            locations.push((
                c[1].to_owned(),
                line_no,
                c.get(3).map_or(String::new(), |m| m.as_str().to_owned()),
            ));
            continue;
        }
        if let Some(e) = line.strip_prefix('E')
            && e.starts_with(char::is_whitespace)
            && first_e.is_none()
            && !e.trim().is_empty()
        {
            first_e = Some(e.trim().to_owned());
        }
    }
    flush(&mut locations, &mut first_e, trace);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_traceback_frames_and_error() {
        let text = "Traceback (most recent call last):\n  File \"/src/app.py\", line 10, in <module>\n    main()\n  File \"/src/shop/cart.py\", line 20, in total\n    return a / b\nZeroDivisionError: division by zero\n";
        let t = parse_trace(text).unwrap();
        assert_eq!(t.frames.len(), 2);
        assert_eq!(t.frames[1].function.as_deref(), Some("total"));
        assert_eq!(
            t.errors,
            vec![TraceError {
                file: "/src/shop/cart.py".into(),
                line: 20,
                message: "ZeroDivisionError: division by zero".into()
            }]
        );
    }

    #[test]
    fn pytest_long_log_error_is_the_last_location() {
        let text = "\
============================= FAILURES =============================
___________________________ test_total ___________________________

    def test_total():
>       assert Cart().total() == 3

tests/test_cart.py:7: 
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

    def total(self):
>       return sum(self.items) / self.count
E       ZeroDivisionError: division by zero

shop/cart.py:20: ZeroDivisionError
===================== short test summary info ======================
FAILED tests/test_cart.py::test_total - ZeroDivisionError: division by zero
";
        let t = parse_trace(text).unwrap();
        assert_eq!(
            t.errors,
            vec![TraceError {
                file: "shop/cart.py".into(),
                line: 20,
                message: "ZeroDivisionError: division by zero".into()
            }]
        );
        assert!(
            t.frames
                .iter()
                .any(|f| f.file == "tests/test_cart.py"
                    && f.function.as_deref() == Some("test_total"))
        );
    }

    #[test]
    fn json_lines_log() {
        let text = "{\"event\":\"call\",\"file\":\"a.py\",\"function\":\"f\",\"count\":3}\n\n{\"file\":\"a.py\",\"line\":4,\"ts\":1}\n{\"event\":\"error\",\"file\":\"a.py\",\"line\":5,\"message\":\"boom\"}\n";
        let t = parse_trace(text).unwrap();
        assert_eq!(t.frames.len(), 2);
        assert_eq!(t.frames[0].count, 3);
        assert_eq!(t.errors[0].message, "boom");
        let bad = parse_trace("{\"file\":\"a.py\"}\nnot json\n").unwrap_err();
        assert_eq!(bad.line, 2);
    }

    #[test]
    fn a_cast_session_trace_gives_the_files_its_tools_touched() {
        let text = concat!(
            "{\"event\":\"start\",\"task\":\"t\"}\n",
            "{\"event\":\"tool_call\",\"id\":\"a\",\"tool\":\"read_file\",\"params\":{\"target_file\":\"a.py\",\"start_line\":3}}\n",
            "{\"event\":\"tool_call\",\"id\":\"b\",\"tool\":\"grep_search\",\"params\":{\"query\":\"x\"}}\n",
            "{\"event\":\"tool_result\",\"id\":\"a\",\"status\":\"refused\",\"summary\":\"no such lines\"}\n",
            "{\"event\":\"edit\",\"path\":\"b.py\",\"diff\":\"--- a/b.py\\n+++ b/b.py\\n@@ -8,3 +8,3 @@\\n keep\\n-old\\n+new\\n\"}\n",
        );
        let t = parse_trace(text).unwrap();
        assert_eq!(t.frames.len(), 2);
        assert_eq!(
            (t.frames[0].file.as_str(), t.frames[0].line),
            ("a.py", Some(3))
        );
        assert_eq!(
            (t.frames[1].file.as_str(), t.frames[1].line),
            ("b.py", Some(9))
        );
        assert_eq!(t.errors.len(), 1);
        assert_eq!(
            (t.errors[0].line, t.errors[0].message.as_str()),
            (3, "no such lines")
        );
    }
}
