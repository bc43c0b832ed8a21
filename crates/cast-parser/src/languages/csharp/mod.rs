//! C# (`.cs`): tree-sitter-c-sharp and the queries in the `.scm` files of its folder.
//!
//! Namespaces are modules; types, methods, constructors and `const` fields are symbols,
//! nested in their type (`JsonReader.Read`). Attributes (`[Serializable]`) are decorators and
//! `///` XML comments docs (their `<summary>` tags dropped). `using A.B;` imports every type
//! of namespace `A.B`; the analyzer finds a namespace by the folders that spell its tail.

use crate::description::{LanguageDescription, SkeletonStyle};
use crate::modules::{ModuleFamily, ModuleRules};

/// The C# description.
pub static CSHARP: LanguageDescription = LanguageDescription {
    name: "csharp",
    extensions: &["cs"],
    grammar: tree_sitter_c_sharp::LANGUAGE,
    definitions: include_str!("../csharp/definitions.scm"),
    references: include_str!("../csharp/references.scm"),
    imports: include_str!("../csharp/imports.scm"),
    docs: include_str!("../csharp/docs.scm"),
    separator: ".",
    path_separator: ".",
    wrappers: &[],
    decorators: &["attribute_list"],
    plain_comments: &["comment"],
    import_tree: None,
    preprocessed: true,
    variable_parents: &[],
    skeleton: SkeletonStyle::BRACES,
    fixup: None,
    returns: None,
    declarator: None,
    modules: ModuleRules::of(ModuleFamily::CSharp),
};
