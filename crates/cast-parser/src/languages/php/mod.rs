//! PHP (`.php`): tree-sitter-php (the grammar with `<?php` tags and HTML around them) and the
//! queries in the `.scm` files of its folder.
//!
//! Classes, interfaces, traits, enums, functions, methods and constants are symbols, nested in
//! their type (`Route::run`). `/** */` comments are docs; `#[Attr]` attributes decorators. `use
//! A\B\C;` imports name `C` of namespace `A\B` (module `A.B`, dotted as Java's packages are);
//! the analyzer finds a namespace by the folders that spell its tail, as PSR-4 lays them out.

use tree_sitter::Node;

use crate::Import;
use crate::description::{LanguageDescription, SkeletonStyle};
use crate::modules::{ModuleFamily, ModuleRules};
use crate::ts;

/// The PHP description.
pub static PHP: LanguageDescription = LanguageDescription {
    name: "php",
    extensions: &["php"],
    grammar: tree_sitter_php::LANGUAGE_PHP,
    definitions: include_str!("../php/definitions.scm"),
    references: include_str!("../php/references.scm"),
    imports: include_str!("../php/imports.scm"),
    docs: include_str!("../php/docs.scm"),
    separator: "::",
    path_separator: "\\",
    wrappers: &[],
    decorators: &["attribute_list"],
    plain_comments: &[],
    import_tree: Some(use_declaration),
    preprocessed: false,
    variable_parents: &[],
    skeleton: SkeletonStyle::BRACES,
    fixup: None,
    returns: None,
    declarator: None,
    modules: ModuleRules::of(ModuleFamily::Php),
};

/// `use A\B\C;`, `use A\B\C as D;`, `use A\B\{C, D as E};`, `use function A\f;`: one import
/// per bound name, the namespace dotted (`A.B`).
fn use_declaration(node: Node, text: &str, out: &mut Vec<Import>) {
    let mut prefix = String::new();
    let mut clauses: Vec<Node> = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "namespace_name" => prefix = dotted(ts::text(child, text)),
            "namespace_use_clause" => clauses.push(child),
            "namespace_use_group" => {
                let mut inner = child.walk();
                clauses.extend(
                    child
                        .named_children(&mut inner)
                        .filter(|c| c.kind() == "namespace_use_clause"),
                );
            }
            _ => {}
        }
    }
    for clause in clauses {
        let alias = clause
            .child_by_field_name("alias")
            .map(|a| ts::text(a, text).to_owned());
        let mut inner = clause.walk();
        let Some(path) = clause
            .named_children(&mut inner)
            .find(|c| matches!(c.kind(), "qualified_name" | "name"))
        else {
            continue;
        };
        let full = dotted(ts::text(path, text));
        let full = if prefix.is_empty() {
            full
        } else {
            format!("{prefix}.{full}")
        };
        let (module, name) = full.rsplit_once('.').unwrap_or(("", &full));
        out.push(Import {
            module: module.to_owned(),
            name: Some(name.to_owned()),
            alias,
            level: 0,
            line: 0,
            scope: None,
        });
    }
}

/// `\A\B\C` → `A.B.C`.
fn dotted(path: &str) -> String {
    path.trim()
        .trim_start_matches('\\')
        .split('\\')
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(".")
}
