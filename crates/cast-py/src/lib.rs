//! CAST for Python: the extension module `cast._native` behind `import cast`.
//!
//! `pip install crates/cast-py` (or the wheel `maturin build` makes of it) gives a Python
//! user both halves of CAST:
//!
//! ```python
//! import cast
//!
//! index = cast.Index(".")                        # builds or refreshes .cast/index.sqlite
//! print(index.map(budget=1000).render())          # L1, as `cast map` prints it
//! for hit in index.find("parse an HTTP date").symbols:
//!     print(hit.path, hit.line, hit.qualname)     # typed results (dataclasses)
//! cast.apply_edit(edit_text, "app.py", root=".")  # or raises cast.EditRefused(reason)
//! ```
//!
//! and the `cast` command itself on PATH.
//!
//! # How the package is put together
//!
//! - **This crate** is a PyO3 `cdylib` built against the stable ABI (`abi3-py39`: one wheel for
//!   every CPython from 3.9). Each function takes plain arguments, releases the GIL while the
//!   libraries work (`Python::detach`), and returns its result as the JSON the `cast` command's
//!   `--json` prints (the same serde types), which the Python layer turns into dataclasses.
//!   Failures become the exceptions of `cast.errors` ([`error`]), with CAST's messages.
//! - **The Python layer** (`python/cast/`) is what users import: typed functions with
//!   Google-style docstrings, the result dataclasses, the exceptions, `py.typed`, and the
//!   framework adapters (`cast.langchain`, `cast.pocketflow`), which import their framework only
//!   when used.
//! - **The `cast` command** cannot come from the module (maturin builds one kind of artefact
//!   per crate). The wheel carries real programs — `cast` and its sandbox helper
//!   `cast-sandbox`, `cast_cli::main` and the helper as cast-cli's binaries are, release
//!   profile — in its data folder (`cast_toolkit-VERSION.data/scripts/`), which pip installs
//!   into the environment's `bin/` as it installs console scripts: the command starts as fast
//!   as a `cargo install`ed one (no Python in front) and finds its helper beside itself. The
//!   build backend `build_backend/cast_build.py` (maturin's, with one step first) builds them
//!   from this package (`src/bin/`, `--features wheel-binaries`) and copies them there. They
//!   are built from this package, not from cast-cli, because cargo resolves features per
//!   package selection: with the same package and features as the module (maturin builds it
//!   with `wheel-binaries` too), the module and the programs share one build of every
//!   dependency, where cast-cli's own binaries would need a second release build of nearly
//!   all of them.
//!
//! The module never links libpython (`pyo3/extension-module`): it is loaded by a Python that
//! already has those symbols, and `cargo build`, `clippy` and `cargo test` of the workspace
//! build it on any machine with a Python 3 interpreter, shared library or not. Its tests are
//! in Python (`tests/`, run by pytest on the installed wheel); it has no Rust test target.

mod edit;
mod error;
mod files;
mod index;
mod tools;

use pyo3::prelude::*;

/// `cast._native`: the Rust half of `import cast`. Use the `cast` package, not this module.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<index::NativeIndex>()?;
    module.add_class::<tools::NativeToolbox>()?;
    module.add_function(wrap_pyfunction!(files::symbols, module)?)?;
    module.add_function(wrap_pyfunction!(files::skeleton, module)?)?;
    module.add_function(wrap_pyfunction!(files::grep, module)?)?;
    module.add_function(wrap_pyfunction!(files::glob, module)?)?;
    module.add_function(wrap_pyfunction!(files::read, module)?)?;
    module.add_function(wrap_pyfunction!(edit::apply_edit, module)?)?;
    module.add_function(wrap_pyfunction!(edit::undo, module)?)?;
    module.add_function(wrap_pyfunction!(edit::undo_history, module)?)?;
    Ok(())
}
