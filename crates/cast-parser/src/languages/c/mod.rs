//! C (`.c .h`): tree-sitter-c and the queries in the `.scm` files of its folder; C++ reads the same includes.
//!
//! Functions with a body, structs, unions, enums, typedefs, macros and file-level variables
//! are symbols; prototypes and `extern` declarations are not (the definition is). The comments
//! right above a definition are its doc. `#include "a.h"` and `#include <a.h>` are imports of
//! every name the header declares (module `a.h`, name `*`); the analyzer looks for a quoted
//! header beside the including file first, then anywhere in the tree by path suffix.
//!
//! `.h` is C++'s header extension too: a header that says it is C++ (a `namespace`, a `class`,
//! a `template`, an access label, `#include <vector>`) is read with the C++ grammar
//! ([`CHeaders`]).

use std::sync::OnceLock;

use regex::Regex;
use tree_sitter::Node;

use crate::description::{
    Declared, ImportEnd, LanguageDescription, SkeletonStyle, TreeSitterLanguage,
};
use crate::modules::{ModuleFamily, ModuleRules};
use crate::ts;
use crate::{Import, LanguageParser, ParseError, ParsedFile, SymbolKind};

/// The C description.
#[cfg(feature = "c")]
pub static C: LanguageDescription = LanguageDescription {
    name: "c",
    extensions: &["c", "h"],
    grammar: tree_sitter_c::LANGUAGE,
    definitions: concat!(
        include_str!("../c/definitions.scm"),
        include_str!("../c/declarations.scm")
    ),
    references: include_str!("../c/references.scm"),
    imports: include_str!("../c/imports.scm"),
    docs: include_str!("../c/docs.scm"),
    separator: ".",
    path_separator: ".",
    wrappers: &["declaration", "type_definition"],
    decorators: &[],
    plain_comments: &[],
    import_tree: Some(include),
    preprocessed: true,
    variable_parents: &[
        "translation_unit",
        "preproc_if",
        "preproc_ifdef",
        "preproc_else",
        "preproc_elif",
    ],
    skeleton: SkeletonStyle {
        import_end: ImportEnd::Line,
        ..SkeletonStyle::BRACES
    },
    fixup: Some(blank_annotation_macros),
    returns: None,
    declarator: Some(declarator),
    modules: ModuleRules::of(ModuleFamily::C),
};

/// `#include "a/b.h"` → module `a/b.h`; `#include <stdio.h>` → module `<stdio.h>` (the angle
/// brackets kept: such a header is looked for on the include path, not beside the file).
/// A macro name (`#include HEADER`) is no import.
pub(crate) fn include(path: Node, text: &str, out: &mut Vec<Import>) {
    let written = ts::text(path, text).trim();
    let module = match path.kind() {
        "string_literal" => written.trim_matches('"'),
        "system_lib_string" => written,
        _ => return,
    };
    if module.is_empty() {
        return;
    }
    out.push(Import {
        module: module.to_owned(),
        name: Some("*".to_owned()),
        alias: None,
        level: 0,
        line: 0,
        scope: None,
    });
}

/// Reads a C or C++ definition's name out of its declarator, which wraps the name in the
/// shapes of the type around it: `*f(…)`, `&f(…)`, `A::m(…)`, `(*handler_t)(int)`,
/// `*table[4] = …`.
/// - A function (`function_definition`): through pointers and references to the function's
///   declarator, then its name; a qualified name (`A::B::m`) makes a method of the last scope.
/// - A typedef: through pointers, arrays and a function pointer's parentheses to the type's name.
/// - A variable: past its initializer, through pointers, arrays and references to the name; a
///   function's declarator there is a prototype, no variable, unless it declares a pointer to a
///   function (`int (*hook)(void) = 0;`).
pub(crate) fn declarator<'t>(
    node: Node<'t>,
    kind: SymbolKind,
    _text: &str,
) -> Option<Declared<'t>> {
    match kind {
        SymbolKind::Function | SymbolKind::Method => {
            let mut at = node;
            while at.kind() != "function_declarator" {
                at = inner_declarator(at)?;
            }
            let mut name = at.child_by_field_name("declarator")?;
            let mut receiver = None;
            while name.kind() == "qualified_identifier" {
                receiver = name.child_by_field_name("scope");
                name = name.child_by_field_name("name")?;
            }
            matches!(
                name.kind(),
                "identifier" | "field_identifier" | "destructor_name" | "operator_name"
            )
            .then(|| Declared::new(name, receiver, kind))
        }
        SymbolKind::Type => named(node, "type_identifier", kind),
        SymbolKind::Variable => {
            let at = match node.kind() {
                "init_declarator" => node.child_by_field_name("declarator")?,
                _ => node,
            };
            named(at, "identifier", kind)
        }
        _ => None,
    }
}

/// The name of kind `leaf` inside a declarator, through pointers, arrays and references, and
/// into a function's declarator only where it declares a pointer to a function
/// (`(*handler_t)(int)`): a plain `f(int)` is a function, not a type or a variable.
fn named<'t>(node: Node<'t>, leaf: &str, kind: SymbolKind) -> Option<Declared<'t>> {
    let mut at = node;
    loop {
        if at.kind() == leaf {
            return Some(Declared::new(at, None, kind));
        }
        at = match at.kind() {
            // `(*handler_t)(int)`: the parentheses must hold a pointer.
            "function_declarator" => {
                let inner = at.child_by_field_name("declarator")?;
                if inner.kind() != "parenthesized_declarator" {
                    return None;
                }
                inner_declarator(inner).filter(|p| p.kind() == "pointer_declarator")?
            }
            // Elsewhere, parentheses around a name are a macro's call read as a declaration
            // (`GTEST_DEFINE_STATIC_MUTEX_(g_log_mutex);`), not a variable.
            "parenthesized_declarator" => return None,
            _ => inner_declarator(at)?,
        };
    }
}

/// The declarator a pointer, reference, array or parenthesized declarator wraps.
fn inner_declarator(node: Node) -> Option<Node> {
    match node.kind() {
        "pointer_declarator" | "array_declarator" => node.child_by_field_name("declarator"),
        // C++'s `&f()` and `(…)` name no field: the wrapped declarator is the one named child
        // that is not an attribute.
        "reference_declarator" | "parenthesized_declarator" => (0..node.named_child_count())
            .filter_map(|i| u32::try_from(i).ok().and_then(|i| node.named_child(i)))
            .find(|child| {
                child.kind().ends_with("declarator") || child.kind().ends_with("identifier")
            }),
        _ => None,
    }
}

/// Blanks an annotation macro between a function's parameters and its body, which the grammar
/// cannot read (`void f(Mutex* mu) EXCLUSIVE_LOCKS_REQUIRED(mu) {`, googletest's
/// `GTEST_LOCK_EXCLUDED_(mutex_)`): an all-caps call there can only be a macro. Byte offsets are
/// kept (each byte becomes a space; line breaks stay).
pub(crate) fn blank_annotation_macros(text: &str) -> Option<String> {
    static MACRO: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = MACRO
        .get_or_init(|| {
            Regex::new(concat!(
                r"\)(?:\s|const\b|noexcept\b|override\b|final\b)*",
                r"([A-Z][A-Z0-9_]*\s*\((?:[^()]|\([^()]*\))*\))\s*\{",
            ))
            .ok()
        })
        .as_ref()?;
    let mut out: Option<String> = None;
    for found in pattern.captures_iter(text) {
        let Some(call) = found.get(1) else { continue };
        let fixed = out.get_or_insert_with(|| text.to_owned());
        let blank: String = text[call.range()]
            .chars()
            .map(|c| match c {
                '\n' => "\n".to_owned(),
                c => " ".repeat(c.len_utf8()),
            })
            .collect();
        fixed.replace_range(call.range(), &blank);
    }
    out
}

/// The C parser, which reads a file that is C++ (a header, as a rule) with the C++ grammar.
pub(crate) struct CHeaders {
    pub(crate) c: &'static TreeSitterLanguage,
    pub(crate) cpp: Option<&'static TreeSitterLanguage>,
}

impl CHeaders {
    fn pick(&self, text: &str) -> &'static TreeSitterLanguage {
        match self.cpp {
            Some(cpp) if looks_like_cpp(text) => cpp,
            _ => self.c,
        }
    }
}

impl LanguageParser for CHeaders {
    fn name(&self) -> &'static str {
        self.c.name()
    }

    fn extensions(&self) -> &'static [&'static str] {
        self.c.extensions()
    }

    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        self.pick(text).parse_text(text)
    }

    fn parse_symbols_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        self.pick(text).parse_symbols_text(text)
    }

    fn skeleton_form(&self) -> crate::SkeletonForm {
        self.c.skeleton_form()
    }
}

/// Whether a text says it is C++: a line opening with a namespace, a class with a body or
/// bases, a template, an access label, `using namespace`, or an include of an extensionless
/// standard header (`<vector>`; every C header ends in `.h`).
pub(crate) fn looks_like_cpp(text: &str) -> bool {
    static CPP: OnceLock<Option<Regex>> = OnceLock::new();
    let pattern = CPP.get_or_init(|| {
        Regex::new(concat!(
            r"(?m)^[ \t]*(?:",
            r"namespace(?:[ \t]+[A-Za-z_][\w:]*)?[ \t]*\{",
            r"|template[ \t]*<",
            r"|class[ \t]+[A-Za-z_]\w*[ \t]*(?:final[ \t]*)?(?::|\{|$)",
            r"|(?:public|private|protected)[ \t]*:",
            r"|using[ \t]+namespace[ \t]",
            r"|#[ \t]*include[ \t]*<[a-z_]+>",
            r")",
        ))
        .ok()
    });
    pattern.as_ref().is_some_and(|p| p.is_match(text))
}

#[cfg(test)]
mod tests {
    use super::looks_like_cpp;

    #[test]
    fn annotation_macros_are_blanked_keeping_offsets() {
        let text = "void Mock::AllowLeak(const void* p)\n    GTEST_LOCK_EXCLUDED_(internal::mu) {\n}\nint f(int a) const LOCKS(a, (b)) { return 0; }\n";
        let fixed = super::blank_annotation_macros(text).unwrap();
        assert_eq!(fixed.len(), text.len());
        let blanked = |call: &str| " ".repeat(call.len());
        let want = text
            .replace(
                "GTEST_LOCK_EXCLUDED_(internal::mu)",
                &blanked("GTEST_LOCK_EXCLUDED_(internal::mu)"),
            )
            .replace("LOCKS(a, (b))", &blanked("LOCKS(a, (b))"));
        assert_eq!(fixed, want);
        assert_eq!(
            super::blank_annotation_macros("int f(void) { return g(X(1)); }\n"),
            None
        );
    }

    #[test]
    fn a_header_is_cpp_when_it_says_so() {
        for cpp in [
            "namespace fmt {\n}\n",
            "template <typename T>\nstruct S;\n",
            "class Buffer : public Base {\n",
            "class Buffer\n{\n",
            "  public:\n",
            "#include <vector>\n",
            "using namespace std;\n",
        ] {
            assert!(looks_like_cpp(cpp), "{cpp:?}");
        }
        for c in [
            "#include <stdio.h>\nint class_count;\nstruct s { int class; };\n",
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\nvoid f(void);\n",
            "/* a namespace of names */\nint f(void) { return 0; }\n",
        ] {
            assert!(!looks_like_cpp(c), "{c:?}");
        }
    }
}
