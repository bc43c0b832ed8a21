//! `cast.Toolbox`: the agent tools of one workspace, as `cast mcp --root ROOT` serves them —
//! the same registry, schemas, validation and confinement of every path to the root.

use std::path::PathBuf;

use cast_tools::cast_sandbox::{Helper, SandboxMode};
use cast_tools::{EditMode, Registry, RegistryOptions, ToolContext};
use pyo3::prelude::*;

use crate::error::{Failure, to_json, without_gil};

/// The tool registry with a context over one workspace root; calls from several threads run
/// side by side (the index they share takes turns).
#[pyclass(module = "cast._native", name = "Toolbox", frozen)]
pub struct NativeToolbox {
    registry: Registry,
    context: ToolContext,
}

#[pymethods]
impl NativeToolbox {
    /// Tools over `root`. `sandbox_helper` is the `cast-sandbox` program that confines the
    /// commands `run_command` runs (only offered with `allow_commands`).
    #[new]
    #[pyo3(signature = (root, allow_commands, dry_run, refuse_syntax_errors, sandbox, sandbox_helper, max_output_bytes))]
    #[allow(clippy::too_many_arguments)] // one per option of `cast mcp`
    fn new(
        py: Python<'_>,
        root: PathBuf,
        allow_commands: bool,
        dry_run: bool,
        refuse_syntax_errors: bool,
        sandbox: String,
        sandbox_helper: Option<PathBuf>,
        max_output_bytes: Option<usize>,
    ) -> PyResult<Self> {
        without_gil(py, || {
            let mut context = ToolContext::new(&root)?;
            context.refuse_syntax_errors = refuse_syntax_errors;
            if dry_run {
                context.edit_mode = EditMode::DryRun;
            }
            if let Some(max) = max_output_bytes {
                context.max_output_bytes = max;
            }
            context.sandbox.mode = sandbox
                .parse::<SandboxMode>()
                .map_err(|e| Failure::new(e.to_string()))?;
            context.sandbox.helper = sandbox_helper.map(Helper::new);
            Ok(NativeToolbox {
                registry: Registry::standard(RegistryOptions {
                    commands: allow_commands,
                }),
                context,
            })
        })
    }

    /// The canonical workspace root.
    #[getter]
    fn root(&self) -> PathBuf {
        self.context.workspace.root().to_path_buf()
    }

    /// Every tool's name, description and parameter schema, as JSON (`cast tools --json`).
    fn specs(&self, py: Python<'_>) -> PyResult<String> {
        without_gil(py, || to_json(&self.registry.specs()))
    }

    /// Runs one tool call with JSON arguments; the result as `cast tool` prints it.
    fn call(&self, py: Python<'_>, name: String, args: String) -> PyResult<String> {
        without_gil(py, || {
            let args: serde_json::Value = serde_json::from_str(&args)
                .map_err(|e| Failure::new(format!("the arguments are not JSON: {e}")))?;
            let output = self.registry.call(&self.context, &name, args)?;
            to_json(&serde_json::json!({
                "tool": name,
                "status": output.status,
                "text": output.text,
                "data": output.data,
                "truncated": output.truncated,
            }))
        })
    }
}
