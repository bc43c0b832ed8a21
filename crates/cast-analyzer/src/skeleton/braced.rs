//! Skeletons of the tree-sitter languages (Rust, Go, JavaScript, TypeScript, Java, C, C++, C#,
//! Ruby, PHP): the file's doc comment, import statements, and every definition's doc comment
//! (first paragraph, in the file's own comment style), attributes or annotations, and
//! signature; a body is elided as `{ ... }` (Ruby's as `... end`), and a definition holding
//! others shows them between its `{` and `}` (Ruby's signature and `end`).
//!
//! ```text
//! (Line 1) //! The index.
//! (Line 3) use std::path::{Path, PathBuf};
//! (Line 8) /// An open index.
//! (Line 9) #[derive(Debug)]
//! (Line 10) pub struct Index { ... }
//! (Line 15) impl Index {
//! (Line 16)     /// Opens it.
//! (Line 17)     pub fn open(root: &Path) -> Result<Index> { ... }
//! (Line 40) }
//! ```

use cast_parser::{ImportEnd, ParsedFile, SkeletonStyle, Symbol};

use super::{SkeletonLine, depth};

/// An import statement longer than this is cut (with `…`).
const MAX_IMPORT: usize = 300;

pub(super) fn lines(text: &str, parsed: &ParsedFile, style: SkeletonStyle) -> Vec<SkeletonLine> {
    let source: Vec<&str> = text.lines().collect();
    let mut out: Vec<SkeletonLine> = Vec::new();
    // A file described by a definition's own doc comment (a Java file by its type's Javadoc)
    // shows that comment once, with the definition.
    if let Some(doc) = &parsed.description
        && let Some(line) = description_line(&source, doc)
        && !parsed.symbols.iter().any(|s| {
            s.docstring_lines
                .is_some_and(|(start, end)| (start..=end).contains(&line))
        })
    {
        out.push(SkeletonLine {
            line,
            text: doc_comment(&source, line, doc),
        });
    }
    let mut seen_import_lines = Vec::new();
    for import in &parsed.imports {
        // An import inside a function is part of its elided body.
        let in_body = import
            .scope
            .and_then(|s| parsed.symbols.get(s))
            .is_some_and(|s| s.kind.is_callable());
        if in_body || seen_import_lines.contains(&import.line) {
            continue;
        }
        seen_import_lines.push(import.line);
        let indent = import.scope.map_or(0, |s| depth(parsed, s) + 1);
        out.push(SkeletonLine {
            line: import.line,
            text: format!(
                "{}{}",
                "    ".repeat(indent),
                import_statement(&source, import.line, style)
            ),
        });
    }
    // Closing lines go after everything on their line, innermost first (`{ void f(); }` on
    // one line; `}}` closing two namespaces): the sort below is stable.
    let mut closing = Vec::new();
    for (index, symbol) in parsed.symbols.iter().enumerate() {
        definition(
            &source,
            parsed,
            style,
            index,
            symbol,
            &mut out,
            &mut closing,
        );
    }
    out.extend(closing.into_iter().rev());
    out.sort_by_key(|l| l.line);
    out
}

fn definition(
    source: &[&str],
    parsed: &ParsedFile,
    style: SkeletonStyle,
    index: usize,
    symbol: &Symbol,
    out: &mut Vec<SkeletonLine>,
    closing: &mut Vec<SkeletonLine>,
) {
    let indent = "    ".repeat(depth(parsed, index));
    if let (Some(doc), Some((start, _))) = (&symbol.docstring, symbol.docstring_lines) {
        out.push(SkeletonLine {
            line: start,
            text: format!("{indent}{}", doc_comment(source, start, doc)),
        });
    }
    // Decorators on their own lines above the signature keep their lines; those on the
    // signature's line stay in front of it.
    let mut inline = String::new();
    for (k, decorator) in symbol.decorators.iter().enumerate() {
        let line = symbol.decorated_line + k as u32;
        if line < symbol.start_line {
            out.push(SkeletonLine {
                line,
                text: format!("{indent}{decorator}"),
            });
        } else {
            inline.push_str(decorator);
            inline.push(' ');
        }
    }
    let has_children = parsed
        .symbols
        .get(index + 1)
        .is_some_and(|next| next.parent == Some(index));
    // A braced body opens on the signature's line; Ruby's runs from it to `end`.
    let braces = style.body_end == "}";
    let elided = if braces {
        " { ... }".to_owned()
    } else {
        format!(" ... {}", style.body_end)
    };
    let body = match (symbol.body_start.is_some(), has_children) {
        (true, true) if braces => " {",
        (true, true) => "",
        (true, false) => elided.as_str(),
        (false, _) => "",
    };
    out.push(SkeletonLine {
        line: symbol.start_line,
        text: format!("{indent}{inline}{}{body}", symbol.signature),
    });
    if has_children && symbol.body_start.is_some() {
        closing.push(SkeletonLine {
            line: symbol.end_line,
            text: format!("{indent}{}", style.body_end),
        });
    }
}

/// The line of the file's doc comment: the first comment line holding the description's
/// first words.
fn description_line(source: &[&str], doc: &str) -> Option<u32> {
    let first = doc.lines().next()?.trim();
    source
        .iter()
        .position(|l| {
            let t = l.trim_start();
            (t.starts_with("//") || t.starts_with("/*") || t.starts_with('*') || t.starts_with('#'))
                && t.contains(first)
        })
        .map(|i| i as u32 + 1)
}

/// A doc comment's first paragraph on one line, in the comment style of the source line it
/// starts on: `/// …`, `//! …`, `// …`, `/** … */`.
fn doc_comment(source: &[&str], line: u32, doc: &str) -> String {
    let para: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    let para = para.join(" ");
    let written = source
        .get(line.saturating_sub(1) as usize)
        .map_or("", |l| l.trim_start());
    for marker in ["///", "//!", "//", "#"] {
        if written.starts_with(marker) {
            return format!("{marker} {para}");
        }
    }
    let open = if written.starts_with("/*!") {
        "/*!"
    } else {
        "/**"
    };
    format!("{open} {} */", para.replace("*/", "* /"))
}

/// An import statement as written, on one line: from its first line to the line that ends it
/// (a `;`, or for JavaScript and TypeScript the line naming the module). A Go import inside an
/// `import ( … )` block is shown with its `import` keyword.
fn import_statement(source: &[&str], line: u32, style: SkeletonStyle) -> String {
    let start = line.saturating_sub(1) as usize;
    let Some(first) = source.get(start) else {
        return String::new();
    };
    // Lines joined as one: no space inside the brackets a line break opened or closed, and
    // no trailing comma before the closing one (`{\n    a,\n    b,\n}` → `{a, b}`).
    let mut statement = String::new();
    for l in source.iter().skip(start).take(50) {
        let piece = l.trim();
        if piece.starts_with(['}', ')', ']']) {
            while statement.ends_with([' ', ',']) {
                statement.pop();
            }
        } else if !statement.is_empty() && !statement.ends_with(['{', '(', '[']) {
            statement.push(' ');
        }
        statement.push_str(piece);
        let ends = match style.import_end {
            ImportEnd::Line => true,
            ImportEnd::Specifier => {
                piece.ends_with(';')
                    || piece.ends_with('\'')
                    || piece.ends_with('"')
                    || piece.ends_with(')')
            }
            ImportEnd::Semicolon => piece.ends_with(';'),
        };
        if ends || statement.len() > MAX_IMPORT {
            break;
        }
    }
    let statement = cut(&statement, MAX_IMPORT);
    match style.import_keyword {
        Some(keyword) if !first.trim_start().starts_with(keyword) => {
            format!("{keyword} {statement}")
        }
        _ => statement,
    }
}

/// `text` cut to at most `max` bytes on a char boundary, marked with `…` when cut.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use cast_parser::Registry;

    use crate::skeleton::skeleton_of_parsed;

    fn skeleton(path: &str, src: &str) -> String {
        let registry = Registry::default();
        let language = registry.for_path(path.as_ref()).unwrap();
        let parsed = language.parse_text(src).unwrap();
        skeleton_of_parsed(path, src, &parsed).render()
    }

    #[test]
    fn rust_skeleton_nests_impls_and_elides_bodies() {
        let src = "//! The cache.\n\nuse std::collections::{\n    HashMap,\n    HashSet,\n};\n\n/// A cache.\n///\n/// More.\n#[derive(Debug)]\npub struct Cache {\n    map: HashMap<u32, u32>,\n}\n\nimpl Cache {\n    /// Gets.\n    pub fn get(&self, k: u32) -> Option<u32> {\n        self.map.get(&k).copied()\n    }\n}\n\npub const MAX: usize = 3;\n";
        assert_eq!(
            skeleton("cache.rs", src),
            "(Line 1) //! The cache.\n\
             (Line 3) use std::collections::{HashMap, HashSet};\n\
             (Line 8) /// A cache.\n\
             (Line 11) #[derive(Debug)]\n\
             (Line 12) pub struct Cache { ... }\n\
             (Line 16) impl Cache {\n\
             (Line 17)     /// Gets.\n\
             (Line 18)     pub fn get(&self, k: u32) -> Option<u32> { ... }\n\
             (Line 21) }\n\
             (Line 23) pub const MAX: usize = 3;\n"
        );
    }

    #[test]
    fn go_skeleton_shows_imports_and_receivers() {
        let src = "// Package demo serves.\npackage demo\n\nimport (\n\t\"fmt\"\n\tstr \"strings\"\n)\n\n// Server serves.\ntype Server struct {\n\taddr string\n}\n\n// Start starts.\nfunc (s *Server) Start() error {\n\treturn nil\n}\n";
        assert_eq!(
            skeleton("demo.go", src),
            "(Line 1) // Package demo serves.\n\
             (Line 5) import \"fmt\"\n\
             (Line 6) import str \"strings\"\n\
             (Line 9) // Server serves.\n\
             (Line 10) type Server struct { ... }\n\
             (Line 14) // Start starts.\n\
             (Line 15) func (s *Server) Start() error { ... }\n"
        );
    }

    #[test]
    fn typescript_skeleton_keeps_decorators_and_jsdoc() {
        let src = "import {\n  a,\n  b as c,\n} from './x'\n\n/**\n * A widget.\n *\n * Details.\n */\n@Component({})\nexport class Widget extends Base {\n  @Input() name = ''\n  /** Draws. */\n  draw(): void {\n    a()\n  }\n}\n";
        assert_eq!(
            skeleton("w.ts", src),
            "(Line 1) import {a, b as c} from './x'\n\
             (Line 6) /** A widget. */\n\
             (Line 11) @Component({})\n\
             (Line 12) export class Widget extends Base {\n\
             (Line 14)     /** Draws. */\n\
             (Line 15)     draw(): void { ... }\n\
             (Line 18) }\n"
        );
    }

    #[test]
    fn java_skeleton_puts_same_line_annotations_in_front() {
        let src = "package a;\n\nimport java.util.List;\n\n/** A demo. */\npublic class Demo {\n  @Override public String toString() { return \"\"; }\n  abstract void run();\n}\n";
        assert_eq!(
            skeleton("Demo.java", src),
            "(Line 3) import java.util.List;\n\
             (Line 5) /** A demo. */\n\
             (Line 6) public class Demo {\n\
             (Line 7)     @Override public String toString() { ... }\n\
             (Line 8)     abstract void run();\n\
             (Line 9) }\n"
        );
    }
}
