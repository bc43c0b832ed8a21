//! CAST's errors as Python exceptions.
//!
//! Work runs without the GIL and fails with a [`Failure`]: the name of an exception class of
//! `cast.errors` (defined in Python, so they carry typed attributes and docstrings), CAST's own
//! message, and details as JSON where a program can use them (an edit's refusal, the symbols a
//! name matched). Back under the GIL, [`Failure::into_py`] raises it.

use cast_analyzer::AnalyzerError;
use cast_coder::CoderError;
use cast_searcher::SearchError;
use cast_tools::{SandboxError, ToolError};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// Why a call failed, ready to become a `cast.errors` exception.
#[derive(Debug)]
pub(crate) struct Failure {
    /// A class of `cast.errors`: `CastError` or one of its subclasses.
    class: &'static str,
    /// CAST's message, as the `cast` command prints it.
    message: String,
    /// Details as JSON, or `None`.
    detail: Option<String>,
}

impl Failure {
    /// A plain `cast.CastError`.
    pub(crate) fn new(message: impl Into<String>) -> Failure {
        Failure::of("CastError", message)
    }

    /// An error of a subclass of `cast.CastError`.
    pub(crate) fn of(class: &'static str, message: impl Into<String>) -> Failure {
        Failure {
            class,
            message: message.into(),
            detail: None,
        }
    }

    fn with_detail(mut self, detail: &impl serde::Serialize) -> Failure {
        self.detail = serde_json::to_string(detail).ok();
        self
    }

    /// The Python exception: `cast.errors.<class>(message, detail)`.
    pub(crate) fn into_py(self, py: Python<'_>) -> PyErr {
        let class = py
            .import("cast.errors")
            .and_then(|errors| errors.getattr(self.class));
        match class {
            Ok(class) => match class.call1((self.message, self.detail)) {
                Ok(exception) => PyErr::from_value(exception),
                Err(err) => err,
            },
            // Only when `_native` is imported without its package.
            Err(_) => PyRuntimeError::new_err(self.message),
        }
    }
}

/// Runs `work` with the GIL released (other Python threads run meanwhile) and raises its
/// failure as a `cast.errors` exception.
pub(crate) fn without_gil<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    py.detach(work).map_err(|failure| failure.into_py(py))
}

/// A result as JSON text (the Python side reads it into dataclasses).
pub(crate) fn to_json(value: &impl serde::Serialize) -> Result<String, Failure> {
    serde_json::to_string(value).map_err(|e| Failure::new(format!("cannot encode a result: {e}")))
}

/// A result object as JSON text with more fields: `text`, what the `cast` command prints for
/// it, and the like.
pub(crate) fn to_json_with(
    value: &impl serde::Serialize,
    more: &[(&str, serde_json::Value)],
) -> Result<String, Failure> {
    let mut json = serde_json::to_value(value)
        .map_err(|e| Failure::new(format!("cannot encode a result: {e}")))?;
    if let Some(object) = json.as_object_mut() {
        for (key, value) in more {
            object.insert((*key).to_owned(), value.clone());
        }
    }
    to_json(&json)
}

impl From<AnalyzerError> for Failure {
    fn from(err: AnalyzerError) -> Failure {
        match &err {
            AnalyzerError::SymbolNotFound { query, named } => {
                let detail = serde_json::json!({ "query": query, "named": named });
                Failure::of("SymbolNotFound", err.to_string()).with_detail(&detail)
            }
            _ => Failure::new(err.to_string()),
        }
    }
}

impl From<CoderError> for Failure {
    fn from(err: CoderError) -> Failure {
        match &err {
            CoderError::Refused(refusal) => {
                Failure::of("EditRefused", err.to_string()).with_detail(refusal)
            }
            CoderError::Undo(_) => Failure::of("UndoRefused", err.to_string()),
            _ => Failure::new(err.to_string()),
        }
    }
}

impl From<SearchError> for Failure {
    fn from(err: SearchError) -> Failure {
        Failure::new(err.to_string())
    }
}

impl From<SandboxError> for Failure {
    fn from(err: SandboxError) -> Failure {
        Failure::of("OutsideWorkspace", err.to_string())
    }
}

impl From<ToolError> for Failure {
    fn from(err: ToolError) -> Failure {
        match err {
            ToolError::Sandbox(err) => err.into(),
            ToolError::UnknownTool { .. } | ToolError::InvalidArguments { .. } => {
                Failure::of("InvalidToolCall", err.to_string())
            }
            err if err.is_refusal() => Failure::of("ToolRefused", err.to_string()),
            err => Failure::new(err.to_string()),
        }
    }
}
