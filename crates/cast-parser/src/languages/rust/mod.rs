//! Rust (`.rs`): tree-sitter-rust and the queries in the `.scm` files of its folder.
//!
//! Methods are qualified by their impl or trait (`Index::open`); an `impl` block is a symbol
//! named by its type. Attributes (`#[derive(…)]`) are decorators. Imports keep Rust's own paths
//! (`crate::walk::WalkOptions` → module `crate::walk`, name `WalkOptions`); `mod name;` is an
//! import of module `self`, name `name`. The analyzer maps paths to files.

pub(crate) mod names;

use tree_sitter::Node;

use crate::Import;
use crate::description::{LanguageDescription, SkeletonStyle};
use crate::modules::{CommonNames, ModuleFamily, ModuleRules};
use crate::ts;

/// The Rust description.
pub static RUST: LanguageDescription = LanguageDescription {
    name: "rust",
    extensions: &["rs"],
    grammar: tree_sitter_rust::LANGUAGE,
    definitions: include_str!("../rust/definitions.scm"),
    references: include_str!("../rust/references.scm"),
    imports: include_str!("../rust/imports.scm"),
    docs: include_str!("../rust/docs.scm"),
    separator: "::",
    path_separator: "::",
    wrappers: &[],
    decorators: &["attribute_item"],
    plain_comments: &["line_comment", "block_comment"],
    import_tree: Some(use_tree),
    preprocessed: false,
    variable_parents: &[],
    skeleton: SkeletonStyle::BRACES,
    fixup: None,
    returns: Some("return_type"),
    declarator: None,
    modules: ModuleRules {
        family: ModuleFamily::Rust,
        common: CommonNames {
            methods: names::METHODS,
            types: names::TYPES,
        },
    },
};

/// Flattens a use tree (`use a::{b, c::{d as e, *}}`) or a `mod name;` into one import per
/// bound name. Iterative: a use tree can nest arbitrarily deep.
fn use_tree(node: Node, text: &str, out: &mut Vec<Import>) {
    if node.kind() == "mod_item" {
        if let Some(name) = node.child_by_field_name("name") {
            out.push(import("self", ts::text(name, text), None));
        }
        return;
    }
    let mut pending: Vec<(String, Node)> = vec![(String::new(), node)];
    while let Some((prefix, node)) = pending.pop() {
        let join = |path: &str| {
            if prefix.is_empty() {
                path.to_owned()
            } else {
                format!("{prefix}::{path}")
            }
        };
        match node.kind() {
            "use_list" => {
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                for child in children.into_iter().rev() {
                    pending.push((prefix.clone(), child));
                }
            }
            "scoped_use_list" => {
                let path = node
                    .child_by_field_name("path")
                    .map_or(String::new(), |p| join(&compact(ts::text(p, text))));
                if let Some(list) = node.child_by_field_name("list") {
                    pending.push((
                        if path.is_empty() {
                            prefix.clone()
                        } else {
                            path
                        },
                        list,
                    ));
                }
            }
            "use_as_clause" => {
                let (Some(path), Some(alias)) = (
                    node.child_by_field_name("path"),
                    node.child_by_field_name("alias"),
                ) else {
                    continue;
                };
                let (module, name) = split_path(&join(&compact(ts::text(path, text))));
                out.push(import(&module, &name, Some(ts::text(alias, text))));
            }
            "use_wildcard" => {
                let mut cursor = node.walk();
                let path = node
                    .named_children(&mut cursor)
                    .next()
                    .map(|p| compact(ts::text(p, text)));
                let module = match path {
                    Some(path) => join(&path),
                    None => prefix.clone(),
                };
                out.push(import(&module, "*", None));
            }
            "identifier" | "scoped_identifier" | "crate" | "self" | "super" => {
                let (module, name) = split_path(&join(&compact(ts::text(node, text))));
                out.push(import(&module, &name, None));
            }
            _ => {}
        }
    }
}

fn import(module: &str, name: &str, alias: Option<&str>) -> Import {
    Import {
        module: module.to_owned(),
        name: Some(name.to_owned()),
        alias: alias.map(str::to_owned),
        level: 0,
        line: 0,
        scope: None,
    }
}

/// `a :: b` → `a::b`.
fn compact(path: &str) -> String {
    path.split_whitespace().collect()
}

/// `a::b::c` → (`a::b`, `c`); `a::b::self` → (`a`, `b`); `c` → (``, `c`).
fn split_path(path: &str) -> (String, String) {
    let path = path.strip_suffix("::self").unwrap_or(path);
    match path.rsplit_once("::") {
        Some((module, name)) => (module.to_owned(), name.to_owned()),
        None => (String::new(), path.to_owned()),
    }
}
