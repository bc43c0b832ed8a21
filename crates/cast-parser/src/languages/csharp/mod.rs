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
    fixup: Some(blank_directives_in_type_headers),
    returns: None,
    declarator: None,
    modules: ModuleRules::of(ModuleFamily::CSharp),
};

/// tree-sitter-c-sharp 0.23 reads a preprocessor line between a type's name and its `{` —
/// `partial class JsonReader`, then `#if HAVE_ASYNC_DISPOSABLE`, `: IAsyncDisposable`,
/// `#endif` — as a class named by the condition, which then holds the type's members under the
/// wrong name. There, the directive lines become spaces, and so do the lines of any `#elif` or
/// `#else` branch, so that one base list is left (the first branch's): same length, same lines.
fn blank_directives_in_type_headers(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    memchr::memchr(b'#', bytes)?;
    let mut fixed: Option<Vec<u8>> = None;
    // One pass over the lines (every C# file comes through here): the code since the last
    // `{`, `}` or `;` is looked at for a type's keyword only when a directive line follows it,
    // and each of its lines once, so a file of many directives and few braces costs no more.
    // `checked`: where the lines not yet looked at start.
    let mut checked = 0;
    let mut declares = false;
    let mut offset = 0;
    while offset < text.len() {
        let end = memchr::memchr(b'\n', &bytes[offset..]).map_or(text.len(), |i| offset + i + 1);
        let line = &text[offset..end];
        if line.trim_start().starts_with('#') {
            declares = declares || text[checked..offset].lines().any(declares_type);
            checked = offset;
            if declares {
                offset = blank_header(text, offset, &mut fixed);
                (checked, declares) = (offset, false);
                continue;
            }
        } else if let Some(i) = memchr::memrchr3(b'{', b'}', b';', line.as_bytes()) {
            (checked, declares) = (offset + i + 1, false);
        }
        offset = end;
    }
    // Only bytes other than line ends became spaces, whole lines at a time: still UTF-8.
    fixed.and_then(|bytes| String::from_utf8(bytes).ok())
}

/// Blanks the directive lines of a type's header from `from` (a directive's line) to its `{`
/// or `;`, and the lines of branches after the first; returns where it stopped.
fn blank_header(text: &str, from: usize, fixed: &mut Option<Vec<u8>>) -> usize {
    let mut blank = |offset: usize, line: &str| {
        let bytes = fixed.get_or_insert_with(|| text.as_bytes().to_vec());
        for (i, b) in line.bytes().enumerate() {
            if b != b'\n' && b != b'\r' {
                bytes[offset + i] = b' ';
            }
        }
    };
    // How deep in `#if`s, and whether in a branch after the first.
    let (mut depth, mut later_branch) = (0usize, false);
    let mut offset = from;
    for line in text[from..].split_inclusive('\n') {
        let trimmed = line.split("//").next().unwrap_or("").trim();
        if let Some(directive) = trimmed.strip_prefix('#') {
            let word = directive.trim_start();
            if word.starts_with("if") {
                depth += 1;
            } else if word.starts_with("elif") || word.starts_with("else") {
                later_branch |= depth == 1;
            } else if word.starts_with("endif") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    later_branch = false;
                }
            }
            blank(offset, line);
        } else if later_branch {
            blank(offset, line);
        } else if trimmed.contains(['{', ';']) {
            break;
        }
        offset += line.len();
    }
    offset
}

/// Whether a line of code declares a class, struct, interface, record or enum.
fn declares_type(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("").trim();
    !code.starts_with('#')
        && code
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| matches!(word, "class" | "struct" | "interface" | "record" | "enum"))
}

#[cfg(test)]
mod tests {
    use super::blank_directives_in_type_headers;

    #[test]
    fn directives_in_a_type_header_are_blanked_and_members_keep_their_type() {
        let src = "namespace N\n{\n    public partial class Reader\n#if HAVE_ASYNC\n        : IAsyncDisposable\n#endif\n    {\n#if HAVE_ASYNC\n        public void DisposeAsync() { }\n#endif\n        public void Read() { }\n    }\n}\n";
        let fixed = blank_directives_in_type_headers(src).unwrap();
        assert_eq!(fixed.len(), src.len());
        assert_eq!(fixed.lines().count(), src.lines().count());
        let blanked = format!(
            "class Reader\n{}\n        : IAsyncDisposable\n{}\n    {{",
            " ".repeat("#if HAVE_ASYNC".len()),
            " ".repeat("#endif".len())
        );
        assert!(fixed.contains(&blanked), "{fixed}");
        // Directives inside the body are left to the grammar.
        assert!(fixed.contains("    {\n#if HAVE_ASYNC\n        public void DisposeAsync"));
        let parsed = crate::languages::parsers()
            .into_iter()
            .find(|l| l.name() == "csharp")
            .unwrap()
            .parse(src)
            .unwrap();
        let names: Vec<&str> = parsed.symbols.iter().map(|s| s.qualname.as_str()).collect();
        assert!(names.contains(&"N.Reader.Read"), "{names:?}");
        assert!(names.contains(&"N.Reader.DisposeAsync"), "{names:?}");
        assert!(!names.iter().any(|n| n.contains("HAVE_ASYNC")), "{names:?}");
    }

    #[test]
    fn a_later_branch_of_a_header_is_blanked_whole() {
        let src = "class A\n#if X\n    : B\n#elif Y\n    : C\n#else\n    : D\n#endif\n{\n}\n";
        let fixed = blank_directives_in_type_headers(src).unwrap();
        assert_eq!(fixed.len(), src.len());
        assert_eq!(fixed.replace(' ', ""), "classA\n\n:B\n\n\n\n\n\n{\n}\n");
        // Lines that only look like directives, in a comment before any type, stay.
        let src = "/*\n# a heading\n# another\n*/\nclass A\n#if X\n    : B\n#endif\n{\n}\n";
        let fixed = blank_directives_in_type_headers(src).unwrap();
        assert!(fixed.starts_with("/*\n# a heading\n# another\n*/\nclass A\n     \n"));
        // Nothing to change: no directive between a type's name and its `{`.
        assert_eq!(
            blank_directives_in_type_headers("#if X\nclass A { }\n#endif\n"),
            None
        );
        assert_eq!(
            blank_directives_in_type_headers("class A : B\n{\n#if X\n    int x;\n#endif\n}\n"),
            None
        );
    }
}
