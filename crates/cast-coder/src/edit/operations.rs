//! The JSON operation form of the design documents: line ops and `search_replace` operations,
//! each optionally naming its file.
//!
//! ```json
//! {"operation": {"type": "search_replace", "file_path": "cart.py",
//!                "search": "    return 0", "replace": "    return 1", "exact_match_only": true}}
//! [{"type": "insert", "file_path": "cart.py", "after_line": 3, "content": ["x = 1"]}]
//! ```
//!
//! A text is one operation, a JSON array of them, `{"ops": [...]}` or `{"operations": [...]}`;
//! an operation may be wrapped as `{"operation": {...}}`. The ops of one file become one op edit
//! (their line numbers all refer to the original file); the `search_replace` operations of one
//! file become one search-replace edit whose blocks apply in order. One file may not get both.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Edit, NamedEdit};
use crate::Format;
use crate::ops::Op;
use crate::refusal::Refusal;
use crate::search_replace::Block;

/// The keys an operation may name its file with.
const PATH_KEYS: [&str; 2] = ["file_path", "filePath"];

/// A `search_replace` operation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchReplaceOperation {
    search: String,
    replace: String,
    #[serde(default)]
    exact_match_only: bool,
}

enum Item {
    Op(Op),
    Block(Block),
}

/// Strips a Markdown code fence around the whole text.
pub(crate) fn strip_fence(text: &str) -> &str {
    let text = text.trim();
    if let Some(rest) = text.strip_prefix("```") {
        let body = rest.split_once('\n').map_or("", |(_, b)| b);
        return body.trim_end().strip_suffix("```").unwrap_or(body).trim();
    }
    text
}

/// The text as JSON, when it is JSON (an object or an array).
pub(crate) fn json_value(text: &str) -> Option<Value> {
    let body = strip_fence(text);
    if !body.starts_with(['{', '[']) {
        return None;
    }
    serde_json::from_str(body).ok()
}

/// The operations of a JSON value, in order.
fn items(value: Value, format: Format) -> Result<Vec<Map<String, Value>>, Refusal> {
    let malformed = |message: &str| Refusal::malformed(format, message, None);
    let list = match value {
        Value::Array(items) => items,
        Value::Object(mut map) => {
            let key = ["operations", "ops"]
                .into_iter()
                .find(|k| map.contains_key(*k));
            match key.and_then(|k| map.remove(k)) {
                Some(Value::Array(items)) => items,
                Some(_) => return Err(malformed("`operations` must be an array of operations")),
                None => vec![Value::Object(map)],
            }
        }
        _ => {
            return Err(malformed(
                "the JSON must be an operation or an array of operations",
            ));
        }
    };
    list.into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(mut map) => match map.remove("operation") {
                Some(Value::Object(inner)) if map.is_empty() => Ok(inner),
                Some(_) => Err(malformed(&format!(
                    "operation {}: `operation` must be the only key, holding one object",
                    i + 1
                ))),
                None => Ok(map),
            },
            _ => Err(malformed(&format!(
                "operation {} is not a JSON object",
                i + 1
            ))),
        })
        .collect()
}

/// Reads the parts of a JSON edit, grouped by the file each names (in the order the files are
/// first named; operations naming no file form one group).
pub(crate) fn parse_json(value: Value, format: Format) -> Result<Vec<NamedEdit>, Refusal> {
    let items = items(value, format)?;
    if items.is_empty() {
        return Err(Refusal::malformed(
            format,
            "the operation list is empty",
            None,
        ));
    }
    // (path, what, items): `what` names the first operation of the group, for messages.
    let mut groups: Vec<(Option<String>, String, Vec<Item>)> = Vec::new();
    for (i, mut map) in items.into_iter().enumerate() {
        let number = i + 1;
        let mut path = None;
        for key in PATH_KEYS {
            match map.remove(key) {
                Some(Value::String(p)) if !p.trim().is_empty() => path = Some(p),
                Some(Value::String(_)) | None => {}
                Some(_) => {
                    return Err(Refusal::malformed(
                        format,
                        format!("operation {number}: `{key}` must be a string"),
                        None,
                    ));
                }
            }
        }
        let kind = map
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let item = match kind.as_str() {
            "search_replace" | "search-replace" => {
                map.remove("type");
                let op: SearchReplaceOperation = serde_json::from_value(Value::Object(map))
                    .map_err(|e| {
                        Refusal::malformed(
                            format,
                            format!(
                                "operation {number}: {e}. A search_replace operation is \
                                 {{\"type\":\"search_replace\",\"file_path\":\"…\",\"search\":\"…\",\
                                 \"replace\":\"…\",\"exact_match_only\":false}}"
                            ),
                            None,
                        )
                    })?;
                let mut block = Block::new(&op.search, &op.replace);
                block.exact_only = op.exact_match_only;
                Item::Block(block)
            }
            _ => Item::Op(crate::ops::op_from_value(number, Value::Object(map))?),
        };
        let what = format!("operation {number}");
        match groups.iter_mut().find(|(p, _, _)| *p == path) {
            Some((_, _, items)) => items.push(item),
            None => groups.push((path, what, vec![item])),
        }
    }
    groups
        .into_iter()
        .map(|(path, what, items)| {
            let mut ops = Vec::new();
            let mut blocks = Vec::new();
            for item in items {
                match item {
                    Item::Op(op) => ops.push(op),
                    Item::Block(b) => blocks.push(b),
                }
            }
            let edit = match (ops.is_empty(), blocks.is_empty()) {
                (false, true) => Edit::Op { ops },
                (true, false) => Edit::SearchReplace { blocks },
                _ => {
                    return Err(Refusal::malformed(
                        format,
                        format!(
                            "{} mixes line ops (numbered in the original file) with \
                             search_replace operations for the same file; send them as two edits",
                            path.as_deref()
                                .map_or("the edit".to_owned(), |p| format!("the edit of {p}"))
                        ),
                        None,
                    ));
                }
            };
            Ok(NamedEdit { path, what, edit })
        })
        .collect()
}

/// Whether a JSON value looks like operations of the design's JSON form that are all
/// `search_replace` (for telling formats apart).
pub(crate) fn all_search_replace(value: &Value) -> bool {
    let Ok(items) = items(value.clone(), Format::Op) else {
        return false;
    };
    !items.is_empty()
        && items.iter().all(|m| {
            matches!(
                m.get("type").and_then(Value::as_str),
                Some("search_replace" | "search-replace")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<NamedEdit>, Refusal> {
        parse_json(json_value(text).unwrap(), Format::Op)
    }

    #[test]
    fn the_design_documents_operation_form_is_read() {
        let parts = parse(
            r#"{"operation": {"type": "search_replace", "file_path": "a.py", "search": "x = 1\n", "replace": "x = 2", "exact_match_only": true}}"#,
        )
        .unwrap();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].path.as_deref(), Some("a.py"));
        let Edit::SearchReplace { blocks } = &parts[0].edit else {
            panic!("{:?}", parts[0].edit)
        };
        assert_eq!(
            (blocks[0].search.as_slice(), blocks[0].exact_only),
            (&["x = 1".to_owned()][..], true)
        );
    }

    #[test]
    fn ops_are_grouped_by_the_file_they_name() {
        let parts = parse(
            r#"[{"type":"insert","file_path":"a.py","after_line":0,"content":["a"]},
                {"type":"delete","file_path":"b.py","start_line":1,"end_line":1},
                {"operation":{"type":"insert","file_path":"a.py","after_line":1,"content":"b"}}]"#,
        )
        .unwrap();
        let summary: Vec<(Option<&str>, usize)> = parts
            .iter()
            .map(|p| match &p.edit {
                Edit::Op { ops } => (p.path.as_deref(), ops.len()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(summary, [(Some("a.py"), 2), (Some("b.py"), 1)]);
    }

    #[test]
    fn mixing_ops_and_search_replace_for_one_file_is_refused() {
        let err = parse(
            r#"[{"type":"insert","after_line":0,"content":["a"]},
                {"type":"search_replace","search":"a","replace":"b"}]"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("mixes line ops"), "{err}");
        let err = parse(r#"{"operation":{"type":"search_replace","search":"a"}}"#).unwrap_err();
        assert!(err.to_string().contains("operation 1"), "{err}");
    }
}
