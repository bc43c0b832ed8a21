//! Parsing for CAST: which parser handles a file, and what a parse yields.
//!
//! `cast-parser` owns the bottom layer of CAST. For one file it returns [`Symbol`]s (kind, name,
//! qualified name, signature, docstring, lines, parent), [`Import`]s and [`Reference`]s (calls,
//! attribute uses, decorators, base classes, type uses, each with its line). It knows nothing of
//! storage, search or editing; the analyzer builds on it. Broken code still parses (every parser
//! recovers; the file is flagged [`ParsedFile::has_syntax_errors`]) and no input makes it panic.
//!
//! | language | extensions | parser |
//! |---|---|---|
//! | Python | `.py .pyi .pyx` | Ruff's `ruff_python_parser` (symbols agree exactly with `ast`) |
//! | Rust | `.rs` | tree-sitter-rust, described by data ([`languages::rust`]) |
//! | Go | `.go` | tree-sitter-go ([`languages::go`]) |
//! | JavaScript | `.js .mjs .cjs .jsx` | tree-sitter-javascript ([`languages::javascript`]) |
//! | TypeScript | `.ts .mts .cts .tsx` (`.d.ts` as stubs) | tree-sitter-typescript ([`languages::typescript`]) |
//! | Java | `.java` | tree-sitter-java ([`languages::java`]) |
//! | C | `.c .h` (a header that is C++ is read as C++) | tree-sitter-c ([`languages::c`]) |
//! | C++ | `.cc .cpp .cxx .c++ .hh .hpp .hxx .h++ .ipp` | tree-sitter-cpp ([`languages::cpp`]) |
//! | C# | `.cs` | tree-sitter-c-sharp ([`languages::csharp`]) |
//! | Ruby | `.rb .rake .gemspec` | tree-sitter-ruby ([`languages::ruby`]) |
//! | PHP | `.php` | tree-sitter-php ([`languages::php`]) |
//! | HTML | `.html .htm` | tree-sitter-html: an outline (ids, scripts, styles, headings, template blocks) |
//!
//! The ten tree-sitter languages are each a cargo feature of the same name, all on by default.
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
//!
//! let rust = registry.for_path("cache.rs".as_ref()).unwrap();
//! let file = rust.parse_text("struct Cache;\nimpl Cache {\n    fn get(&self) {}\n}\n")?;
//! let get = file.symbols.iter().find(|s| s.name == "get").unwrap();
//! assert_eq!((get.qualname.as_str(), get.kind), ("Cache::get", SymbolKind::Method));
//! # Ok::<(), cast_parser::ParseError>(())
//! ```
//!
//! A whole tree parses on all cores with [`parse_tree`], which walks like ripgrep does
//! (`.gitignore` respected, hidden files skipped; see [`WalkOptions`]).
//!
//! Adding a language with a tree-sitter grammar is data, not a walker: a
//! [`LanguageDescription`] (grammar crate, extensions, qualified-name separator, wrapper and
//! decorator node kinds, skeleton style, [`modules::ModuleRules`]) in `src/languages/NAME/mod.rs`
//! and four queries beside it
//! (`definitions.scm`, `references.scm`, `imports.scm`, `docs.scm`, with the capture names the
//! top of `src/description.rs` lists, in the spirit of the grammar's own `tags.scm`; a grammar
//! close to another can share its queries, as TypeScript does JavaScript's), a cargo feature,
//! and a line in [`languages::described`]. The one extractor turns it into symbols, skeletons,
//! imports and references. A language that needs its own parser implements
//! [`LanguageParser`] and is added with [`Registry::register`].

// A library never prints: stdout and stderr belong to the `cast` binary (cast-cli).
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod description;
mod encoding;
mod error;
mod extract;
mod html;
mod language;
pub mod languages;
mod model;
pub mod modules;
mod python;
pub mod roles;
mod rooted;
mod source;
mod ts;
mod walk;

pub use cast_workspace::{WalkOptions, relative};
pub use description::{
    ImportEnd, LanguageDescription, SkeletonForm, SkeletonStyle, TreeSitterLanguage,
};
pub use encoding::SourceEncoding;
pub use error::ParseError;
pub use html::Html;
pub use language::{LanguageParser, Registry, skeleton_form};
pub use model::{
    Import, ParsedFile, RefKind, Reference, Symbol, SymbolKind, SyntaxError, TypeFact, TypeSource,
};
pub use python::Python;
pub use source::{DEFAULT_MAX_FILESIZE, SourceText};
pub use walk::{FileOutcome, parse_tree, source_files, source_files_watched, source_paths};
