//! TypeScript (`.ts .mts .cts`, and `.d.ts` declaration files, whose signatures without
//! bodies are what they hold) and TSX (`.tsx`): tree-sitter-typescript's two grammars with the
//! JavaScript queries plus `typescript/*.scm` (interfaces, type aliases, enums, namespaces,
//! signatures, `implements`).

use crate::description::{ImportEnd, LanguageDescription, SkeletonStyle};
use crate::languages::javascript::{JAVASCRIPT, WRAPPERS};

macro_rules! typescript_queries {
    ($name:literal, $extensions:expr, $grammar:expr, $fixup:expr) => {
        LanguageDescription {
            name: $name,
            extensions: $extensions,
            grammar: $grammar,
            definitions: concat!(
                include_str!("../javascript/definitions.scm"),
                include_str!("../typescript/definitions.scm")
            ),
            references: concat!(
                include_str!("../javascript/references.scm"),
                include_str!("../typescript/references.scm")
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
            fixup: $fixup,
            returns: Some("return_type"),
            declarator: JAVASCRIPT.declarator,
            // JavaScript's module rules and common names: the two import each other.
            modules: JAVASCRIPT.modules,
        }
    };
}

/// The TypeScript description.
pub static TYPESCRIPT: LanguageDescription = typescript_queries!(
    "typescript",
    &["ts", "mts", "cts"],
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
    Some(separate_call_signatures)
);

/// The TSX description: TypeScript with JSX.
pub static TSX: LanguageDescription =
    typescript_queries!("tsx", &["tsx"], tree_sitter_typescript::LANGUAGE_TSX, None);

/// tree-sitter-typescript 0.23 cannot parse generic call signatures that only a line break
/// separates (`<T>(x: T): T` on the line after another member; upstream issue #335): the rest
/// of the file becomes one error, losing every definition after it. TypeScript allows a `;`
/// there, so one goes into the indentation before such a `<`: same length, same lines.
/// Not for TSX, where a line starting with `<` is JSX.
fn separate_call_signatures(text: &str) -> Option<String> {
    let mut fixed: Option<Vec<u8>> = None;
    // The last character of the previous line of code (comments and blank lines skipped).
    let mut previous_end: Option<u8> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.trim_end();
        let trimmed = code.trim_start();
        let indent = code.len() - trimmed.len();
        if opens_type_parameters(trimmed)
            && indent > 0
            && previous_end.is_some_and(|c| !b"{([,;|&=<?:".contains(&c))
        {
            let bytes = fixed.get_or_insert_with(|| text.as_bytes().to_vec());
            bytes[offset + indent - 1] = b';';
        }
        let comment =
            trimmed.starts_with("//") || trimmed.starts_with('*') || trimmed.starts_with("/*");
        if !trimmed.is_empty() && !comment {
            previous_end = trimmed.bytes().last();
        }
        offset += line.len();
    }
    // Only ASCII whitespace was replaced by an ASCII byte, so the text is still UTF-8.
    fixed.and_then(|bytes| String::from_utf8(bytes).ok())
}

/// `<`, `<T>(…`, `<P extends …`, `<A, B>`: a line that starts a type parameter list (not a
/// comparison such as `< limit`).
fn opens_type_parameters(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('<') else {
        return false;
    };
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    if name_len == 0 {
        return rest.trim().is_empty();
    }
    let after = rest[name_len..].trim_start();
    after.starts_with("extends") || after.starts_with([',', '>', '='])
}

#[cfg(test)]
mod tests {
    use super::separate_call_signatures;

    #[test]
    fn call_signatures_on_their_own_lines_are_separated() {
        let src = "interface I {\n  <T>(x: T): T\n  // two\n  <T>(x: T, y: T): T\n}\nconst a = b\n  < c\n";
        let fixed = separate_call_signatures(src).unwrap();
        assert_eq!(fixed.len(), src.len());
        assert_eq!(
            fixed,
            "interface I {\n  <T>(x: T): T\n  // two\n ;<T>(x: T, y: T): T\n}\nconst a = b\n  < c\n"
        );
        assert_eq!(separate_call_signatures("f(\n  <T>(x: T) => x\n)\n"), None);
    }
}
