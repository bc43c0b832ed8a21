//! Parsing for CAST: which parser handles a file, and what a parse yields.
//!
//! `cast-parser` owns the bottom layer of CAST. For one file it returns [`Symbol`]s (kind, name,
//! qualified name, signature, docstring, lines, parent), [`Import`]s and [`Reference`]s (calls,
//! attribute uses, decorators, base classes, each with its line). Python symbols agree exactly
//! with the standard library's `ast`; HTML yields an outline (ids, scripts, styles, headings,
//! template blocks). Python goes through Ruff's parser (a full AST, fast), HTML through
//! tree-sitter. Broken code still parses — both parsers recover — and no input makes it
//! panic. It knows nothing of storage, search or editing; the analyzer builds on it.
//!
//! ```
//! use cast_parser::{Registry, SymbolKind};
//!
//! let registry = Registry::default();
//! let python = registry.for_path("app.py".as_ref()).unwrap();
//! let file = python.parse_text("class Cache:\n    def get(self, key):\n        return load(key)\n")?;
//! let get = &file.symbols[1];
//! assert_eq!((get.qualname.as_str(), get.kind), ("Cache.get", SymbolKind::Method));
//! assert_eq!((get.start_line, get.end_line), (2, 3));
//! assert_eq!(file.references[0].name, "load");
//! # Ok::<(), cast_parser::ParseError>(())
//! ```
//!
//! A whole tree parses on all cores with [`parse_tree`], which walks like ripgrep does
//! (`.gitignore` respected, hidden files skipped; see [`WalkOptions`]).
//!
//! Adding a language is one file implementing [`LanguageParser`] plus a
//! [`Registry::register`] call.

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod error;
mod html;
mod language;
mod model;
mod python;
mod source;
mod ts;
mod walk;

pub use cast_workspace::{WalkOptions, relative};
pub use error::ParseError;
pub use html::Html;
pub use language::{LanguageParser, Registry};
pub use model::{Import, ParsedFile, RefKind, Reference, Symbol, SymbolKind, SyntaxError};
pub use python::Python;
pub use source::{DEFAULT_MAX_FILESIZE, SourceText};
pub use walk::{FileOutcome, parse_tree, source_files};
