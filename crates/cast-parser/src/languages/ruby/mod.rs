//! Ruby (`.rb .rake .gemspec`, and `Rakefile`/`Gemfile` by extension only): tree-sitter-ruby
//! and the queries in the `.scm` files of its folder.
//!
//! Classes, modules, methods (`def m`, `def self.m`) and constants are symbols, nested by
//! where they sit (`Sinatra::Base::call`). A body runs to `end`, so the signature is the
//! `def`/`class` line. `include`/`extend`/`prepend` of a module is inheritance. `require
//! 'a/b'` imports file `a/b.rb` from the load path (found by path suffix); `require_relative
//! 'b'` the file beside this one (module `./b`). Both bring every name the file defines.

use tree_sitter::Node;

use crate::description::{Declared, ImportEnd, LanguageDescription, SkeletonStyle};
use crate::modules::{ModuleFamily, ModuleRules};
use crate::ts;
use crate::{Import, SymbolKind};

/// The Ruby description.
pub static RUBY: LanguageDescription = LanguageDescription {
    name: "ruby",
    extensions: &["rb", "rake", "gemspec"],
    grammar: tree_sitter_ruby::LANGUAGE,
    definitions: include_str!("../ruby/definitions.scm"),
    references: include_str!("../ruby/references.scm"),
    imports: include_str!("../ruby/imports.scm"),
    docs: include_str!("../ruby/docs.scm"),
    separator: "::",
    path_separator: "::",
    wrappers: &["assignment"],
    decorators: &[],
    plain_comments: &[],
    import_tree: Some(require),
    preprocessed: false,
    variable_parents: &[],
    skeleton: SkeletonStyle {
        body_end: "end",
        import_end: ImportEnd::Line,
        import_keyword: None,
    },
    fixup: None,
    returns: None,
    declarator: Some(declarator),
    modules: ModuleRules::of(ModuleFamily::Ruby),
};

/// `require 'a/b'` → module `a/b`; `require_relative 'b'` → module `./b` (relative, as a
/// JavaScript specifier is). Only a literal string is an import.
/// The name a class, module or constant is given: `Foo`, or `A::B::Foo` (the scope is the
/// receiver; `::Foo` has none). Anything else assigned (`x = 1`, `@x = 1`) defines no constant.
fn declarator<'t>(name: Node<'t>, kind: SymbolKind, _text: &str) -> Option<Declared<'t>> {
    let (name, receiver) = match name.kind() {
        "constant" => (name, None),
        "scope_resolution" if kind != SymbolKind::Constant => (
            name.child_by_field_name("name")
                .filter(|n| n.kind() == "constant")?,
            name.child_by_field_name("scope"),
        ),
        _ => return None,
    };
    Some(Declared::new(name, receiver, kind))
}

fn require(call: Node, text: &str, out: &mut Vec<Import>) {
    let relative = call
        .child_by_field_name("method")
        .is_some_and(|m| ts::text(m, text) == "require_relative");
    let Some(arguments) = call.child_by_field_name("arguments") else {
        return;
    };
    let mut cursor = arguments.walk();
    let Some(string) = arguments.named_children(&mut cursor).next() else {
        return;
    };
    // A literal: one `string_content`, no interpolation.
    if string.kind() != "string" || string.named_child_count() != 1 {
        return;
    }
    let Some(content) = string
        .named_child(0)
        .filter(|c| c.kind() == "string_content")
    else {
        return;
    };
    let spec = ts::text(content, text).trim();
    let spec = spec.strip_suffix(".rb").unwrap_or(spec);
    if spec.is_empty() {
        return;
    }
    let module = if relative && !spec.starts_with("./") && !spec.starts_with("../") {
        format!("./{spec}")
    } else {
        spec.to_owned()
    };
    out.push(Import {
        module,
        name: Some("*".to_owned()),
        alias: None,
        level: 0,
        line: 0,
        scope: None,
    });
}
