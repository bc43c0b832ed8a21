//! Go (`.go`): tree-sitter-go and the queries in the `.scm` files of its folder.
//!
//! A method is qualified by its receiver's type (`Server.Start`, `(*Server) Start` in Go's own
//! notation); the type may live in another file of the package, so the method has no parent
//! symbol. Package-level `const` and `var` are symbols. Imports keep the package path
//! (`github.com/x/y`); the analyzer maps a path to the files of a folder.

pub(crate) mod names;

use crate::description::{ImportEnd, LanguageDescription, SkeletonStyle};
use crate::modules::{CommonNames, ModuleFamily, ModuleRules};

/// The Go description.
pub static GO: LanguageDescription = LanguageDescription {
    name: "go",
    extensions: &["go"],
    grammar: tree_sitter_go::LANGUAGE,
    definitions: include_str!("../go/definitions.scm"),
    references: include_str!("../go/references.scm"),
    imports: include_str!("../go/imports.scm"),
    docs: include_str!("../go/docs.scm"),
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
    returns: Some("result"),
    declarator: None,
    modules: ModuleRules {
        family: ModuleFamily::Go,
        common: CommonNames {
            methods: names::METHODS,
            types: names::TYPES,
        },
    },
};
