//! The registry: each tool's name, model-facing description, parameter schema and dispatch.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{ToolContext, ToolError, ToolOutput};

/// A tool with typed parameters. Implement this; the registry derives the JSON Schema from
/// `Params` (doc comments become descriptions) and validates every call against it.
pub trait TypedTool: Send + Sync + 'static {
    /// The parameters. Use `#[serde(deny_unknown_fields)]` so extra arguments are refused.
    type Params: DeserializeOwned + JsonSchema;
    /// The tool's name as models call it.
    const NAME: &'static str;
    /// What the tool does and when to use it, written for a model.
    const DESCRIPTION: &'static str;
    /// The tool never changes files or runs commands (it stays in a read-only registry).
    const READ_ONLY: bool = false;
    /// Runs the call. A refusal is `Ok(ToolOutput::refused(..))`; `Err` is for calls that
    /// could not run at all (sandbox, disabled tool).
    fn run(&self, ctx: &ToolContext, params: Self::Params) -> Result<ToolOutput, ToolError>;
}

/// A tool as the registry holds it (object-safe).
pub trait Tool: Send + Sync {
    fn name(&self) -> &'static str;
    fn description(&self) -> &'static str;
    /// The tool never changes files or runs commands.
    fn read_only(&self) -> bool;
    /// The JSON Schema of the parameters.
    fn schema(&self) -> Value;
    /// Validates `args` against the parameters and runs the call.
    fn call(&self, ctx: &ToolContext, args: Value) -> Result<ToolOutput, ToolError>;
}

impl<T: TypedTool> Tool for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn description(&self) -> &'static str {
        T::DESCRIPTION
    }

    fn read_only(&self) -> bool {
        T::READ_ONLY
    }

    fn schema(&self) -> Value {
        schema_for::<T::Params>()
    }

    fn call(&self, ctx: &ToolContext, args: Value) -> Result<ToolOutput, ToolError> {
        let params = parse_args::<T::Params>(T::NAME, args)?;
        Ok(self.run(ctx, params)?.capped(ctx.max_output_bytes))
    }
}

/// A tool's public description: what `cast tools` prints and what models and MCP clients see.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    /// JSON Schema (draft 2020-12) of the parameters: an object with `properties`, `required`
    /// and `additionalProperties: false`.
    pub parameters: Value,
}

/// The tools, in a fixed order.
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name()))
            .finish()
    }
}

impl Registry {
    /// An empty registry, for custom tool sets.
    pub fn empty() -> Self {
        Registry { tools: Vec::new() }
    }

    /// Adds a tool; a tool of the same name is replaced.
    pub fn register(&mut self, tool: Box<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Removes a tool by name (a preset that must not edit removes the edit tools).
    pub fn remove(&mut self, name: &str) {
        self.tools.retain(|t| t.name() != name);
    }

    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Every tool's name, description and parameter schema.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name(),
                description: t.description(),
                parameters: t.schema(),
            })
            .collect()
    }

    /// Runs one call by name with JSON arguments.
    pub fn call(
        &self,
        ctx: &ToolContext,
        name: &str,
        args: Value,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self.get(name).ok_or_else(|| {
            // A tool CAST has but was not offered: say how to turn it on.
            if name == crate::tools::RUN_COMMAND {
                ToolError::Disabled {
                    tool: name.to_owned(),
                    reason: "commands are off; start CAST with --allow-commands (`cast run`, \
                             `chat`, `tool`, `mcp`) to offer run_command"
                        .to_owned(),
                }
            } else {
                ToolError::UnknownTool {
                    name: name.to_owned(),
                    known: self.names().join(", "),
                }
            }
        })?;
        tool.call(ctx, args)
    }
}

/// The JSON Schema for a parameter type, cleaned for model providers: subschemas inlined, no
/// `$schema`/`title`, optional fields without a `null` type, no non-standard `format`s.
pub fn schema_for<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("title");
    }
    clean(&mut schema);
    schema
}

fn clean(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            if let Some(Value::String(format)) = obj.get("format")
                && !matches!(
                    format.as_str(),
                    "date-time" | "date" | "time" | "uri" | "email"
                )
            {
                obj.remove("format");
            }
            let required: Vec<String> = obj
                .get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                for (name, prop) in props.iter_mut() {
                    if !required.contains(name) {
                        drop_null_type(prop);
                    }
                }
            }
            for v in obj.values_mut() {
                clean(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(clean),
        _ => {}
    }
}

/// `{"type": ["integer", "null"]}` → `{"type": "integer"}`; `anyOf: [X, {"type":"null"}]` → X.
fn drop_null_type(prop: &mut Value) {
    let Some(obj) = prop.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            obj.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Array(any)) = obj.get("anyOf").cloned() {
        let rest: Vec<Value> = any
            .into_iter()
            .filter(|v| v.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        if rest.len() == 1 {
            obj.remove("anyOf");
            if let Some(Value::Object(inner)) = rest.into_iter().next() {
                for (k, v) in inner {
                    obj.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// Parses a model's arguments. Accepts a JSON object, `null` (no arguments), or a string holding
/// a JSON object (some models encode arguments twice). Errors name the field and show the schema.
pub fn parse_args<P: DeserializeOwned + JsonSchema>(
    tool: &str,
    args: Value,
) -> Result<P, ToolError> {
    let invalid = |problem: String| ToolError::InvalidArguments {
        tool: tool.to_owned(),
        problem,
        schema: schema_for::<P>().to_string(),
    };
    let args = match args {
        Value::Null => Value::Object(Default::default()),
        Value::String(text) => match serde_json::from_str::<Value>(&text) {
            Ok(obj @ Value::Object(_)) => obj,
            _ => {
                return Err(invalid(format!(
                    "arguments must be a JSON object, got the string {:?}",
                    crate::render::clip(&text, 200)
                )));
            }
        },
        obj @ Value::Object(_) => obj,
        other => {
            return Err(invalid(format!(
                "arguments must be a JSON object, got {}",
                crate::render::clip(&other.to_string(), 200)
            )));
        }
    };
    serde_path_to_error::deserialize::<_, P>(args).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner().to_string();
        if path == "." || path.is_empty() {
            invalid(inner)
        } else {
            invalid(format!("field `{path}`: {inner}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)] // only the schema and the validation are under test
    struct Params {
        /// What to look for.
        query: String,
        /// Match case exactly.
        case_sensitive: Option<bool>,
        /// How many.
        top: Option<u32>,
    }

    #[test]
    fn schema_is_clean_for_models() {
        let schema = schema_for::<Params>();
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], serde_json::json!(["query"]));
        assert_eq!(schema["properties"]["case_sensitive"]["type"], "boolean");
        assert_eq!(schema["properties"]["top"]["type"], "integer");
        assert!(schema["properties"]["top"].get("format").is_none());
        assert_eq!(
            schema["properties"]["query"]["description"],
            "What to look for."
        );
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    }

    fn problem(args: Value) -> String {
        match parse_args::<Params>("demo", args) {
            Err(ToolError::InvalidArguments {
                problem, schema, ..
            }) => {
                assert!(schema.contains("\"query\""));
                problem
            }
            other => panic!("expected invalid arguments, got {other:?}"),
        }
    }

    #[test]
    fn validation_names_the_field() {
        assert!(problem(serde_json::json!({})).contains("missing field `query`"));
        let extra = problem(serde_json::json!({"query": "x", "bogus": 1}));
        assert!(extra.contains("unknown field `bogus`"), "{extra}");
        let typed = problem(serde_json::json!({"query": "x", "case_sensitive": "yes"}));
        assert!(
            typed.contains("case_sensitive") && typed.contains("boolean"),
            "{typed}"
        );
        assert!(problem(serde_json::json!([1])).contains("JSON object"));
    }

    #[test]
    fn twice_encoded_arguments_are_accepted() {
        let p: Params = parse_args("demo", Value::String(r#"{"query": "x"}"#.into())).unwrap();
        assert_eq!(p.query, "x");
    }
}
