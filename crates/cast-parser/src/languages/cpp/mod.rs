//! C++ (`.cc .cpp .cxx .c++ .hh .hpp .hxx .h++ .ipp`; a `.h` header is read as C): tree-sitter-cpp
//! and the queries in the `.scm` files of its folder.
//!
//! C's symbols, and classes, namespaces (modules), `using` aliases and methods: a method
//! defined in its class nests in it (`buffer::push`); one defined outside (`void buffer::push()
//! {}`) is qualified by its class. A `template <…>` on the line above a definition is not part
//! of its signature. Includes are C's.

use crate::description::{ImportEnd, LanguageDescription, SkeletonStyle};
use crate::modules::{ModuleFamily, ModuleRules};

/// The C++ description.
pub static CPP: LanguageDescription = LanguageDescription {
    name: "cpp",
    extensions: &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp"],
    grammar: tree_sitter_cpp::LANGUAGE,
    definitions: concat!(
        include_str!("../cpp/definitions.scm"),
        include_str!("../c/declarations.scm")
    ),
    references: include_str!("../cpp/references.scm"),
    imports: include_str!("../cpp/imports.scm"),
    docs: include_str!("../cpp/docs.scm"),
    separator: "::",
    path_separator: "::",
    wrappers: &["declaration", "type_definition", "template_declaration"],
    decorators: &["attribute_declaration"],
    plain_comments: &[],
    import_tree: Some(super::c::include),
    preprocessed: true,
    variable_parents: &[
        "translation_unit",
        "declaration_list",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
    ],
    skeleton: SkeletonStyle {
        import_end: ImportEnd::Line,
        ..SkeletonStyle::BRACES
    },
    fixup: Some(super::c::blank_annotation_macros),
    returns: None,
    declarator: Some(super::c::declarator),
    modules: ModuleRules::of(ModuleFamily::C),
};
