//! Java (`.java`): tree-sitter-java and the queries in the `.scm` files of its folder.
//!
//! Classes, records, interfaces, annotation types, enums, methods and constructors, and
//! `static final` fields. Annotations are decorators. Imports are split at the last dot
//! (`import a.b.C;` → module `a.b`, name `C`); the analyzer maps packages to folders.

pub(crate) mod names;

use crate::description::{LanguageDescription, SkeletonStyle};
use crate::modules::{CommonNames, ModuleFamily, ModuleRules};

/// The Java description.
pub static JAVA: LanguageDescription = LanguageDescription {
    name: "java",
    extensions: &["java"],
    grammar: tree_sitter_java::LANGUAGE,
    definitions: include_str!("../java/definitions.scm"),
    references: include_str!("../java/references.scm"),
    imports: include_str!("../java/imports.scm"),
    docs: include_str!("../java/docs.scm"),
    separator: ".",
    path_separator: ".",
    wrappers: &[],
    decorators: &["marker_annotation", "annotation"],
    plain_comments: &["line_comment"],
    import_tree: None,
    preprocessed: false,
    variable_parents: &[],
    skeleton: SkeletonStyle::BRACES,
    fixup: None,
    returns: Some("type"),
    declarator: None,
    modules: ModuleRules {
        family: ModuleFamily::Java,
        common: CommonNames {
            methods: names::METHODS,
            types: names::TYPES,
        },
    },
};
