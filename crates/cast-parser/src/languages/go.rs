//! Go (`.go`): tree-sitter-go and the queries in `queries/go/`.
//!
//! A method is qualified by its receiver's type (`Server.Start`, `(*Server) Start` in Go's own
//! notation); the type may live in another file of the package, so the method has no parent
//! symbol. Package-level `const` and `var` are symbols. Imports keep the package path
//! (`github.com/x/y`); the analyzer maps a path to the files of a folder.

use crate::description::{ImportEnd, LanguageDescription, SkeletonStyle};

/// The Go description.
pub static GO: LanguageDescription = LanguageDescription {
    name: "go",
    extensions: &["go"],
    grammar: tree_sitter_go::LANGUAGE,
    definitions: include_str!("../../queries/go/definitions.scm"),
    references: include_str!("../../queries/go/references.scm"),
    imports: include_str!("../../queries/go/imports.scm"),
    docs: include_str!("../../queries/go/docs.scm"),
    separator: ".",
    path_separator: ".",
    wrappers: &["type_declaration", "const_declaration", "var_declaration"],
    decorators: &[],
    plain_comments: &[],
    import_tree: None,
    preprocessed: false,
    variable_parents: &[],
    skeleton: SkeletonStyle {
        import_end: ImportEnd::Line,
        import_keyword: Some("import"),
        ..SkeletonStyle::BRACES
    },
    fixup: None,
};
