//! JavaScript (`.js .mjs .cjs .jsx`): tree-sitter-javascript and the queries in
//! the `.scm` files of its folder (which TypeScript reads too).
//!
//! Functions bound to names count as functions (`const f = () => {}`, `exports.f = function`);
//! `F.prototype.m = function` is the method `F.m`. Exported top-level constants are symbols.
//! Imports keep the specifier as written (`./util`, `react`); `require(…)` is an import.

pub(crate) mod names;

use tree_sitter::Node;

use crate::SymbolKind;
use crate::description::{Declared, ImportEnd, LanguageDescription, SkeletonStyle};
use crate::modules::{CommonNames, ModuleFamily, ModuleRules};
use crate::ts;

/// Statements a definition can sit in on its first line; its doc comment is above them.
pub(crate) const WRAPPERS: &[&str] = &[
    "export_statement",
    "lexical_declaration",
    "variable_declaration",
    "expression_statement",
    "ambient_declaration",
];

/// The name a function is assigned to: `f = …` and `exports.f = …` define `f`;
/// `F.prototype.m = …` defines the method `m` of `F`. Any other target (`a[k] = …`,
/// `this.#m = …`) defines nothing.
pub(crate) fn assigned<'t>(target: Node<'t>, kind: SymbolKind, text: &str) -> Option<Declared<'t>> {
    match target.kind() {
        "identifier" => Some(Declared::new(target, None, kind)),
        "member_expression" => {
            let name = target
                .child_by_field_name("property")
                .filter(|p| p.kind() == "property_identifier")?;
            let receiver = target
                .child_by_field_name("object")
                .filter(|o| o.kind() == "member_expression")
                .filter(|o| {
                    o.child_by_field_name("property").is_some_and(|p| {
                        p.kind() == "property_identifier" && ts::text(p, text) == "prototype"
                    })
                })
                .and_then(|o| o.child_by_field_name("object"))
                .filter(|class| class.kind() == "identifier");
            Some(Declared::new(name, receiver, kind))
        }
        _ => None,
    }
}

/// The JavaScript description.
pub static JAVASCRIPT: LanguageDescription = LanguageDescription {
    name: "javascript",
    extensions: &["js", "mjs", "cjs", "jsx"],
    grammar: tree_sitter_javascript::LANGUAGE,
    definitions: concat!(
        include_str!("../javascript/definitions.scm"),
        include_str!("../javascript/js_only.scm")
    ),
    references: concat!(
        include_str!("../javascript/references.scm"),
        include_str!("../javascript/js_heritage.scm")
    ),
    imports: include_str!("../javascript/imports.scm"),
    docs: include_str!("../javascript/docs.scm"),
    separator: ".",
    path_separator: ".",
    wrappers: WRAPPERS,
    decorators: &["decorator"],
    plain_comments: &["comment"],
    import_tree: None,
    preprocessed: false,
    variable_parents: &[],
    skeleton: SkeletonStyle {
        import_end: ImportEnd::Specifier,
        ..SkeletonStyle::BRACES
    },
    fixup: None,
    returns: None,
    declarator: Some(assigned),
    modules: ModuleRules {
        family: ModuleFamily::Js,
        common: CommonNames {
            methods: names::METHODS,
            types: names::TYPES,
        },
    },
};
