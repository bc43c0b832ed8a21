//! L2: a file's skeleton — imports, class and def signatures, decorators and the first
//! paragraph of each docstring, every line prefixed with its original line number, bodies
//! elided. HTML gets an outline of its ids, template blocks, scripts, styles and headings.
//!
//! A skeleton is made from a fresh parse of the file, so it is always current and needs no
//! index. Python lines look like this:
//!
//! ```text
//! (Line 1) """The shopping cart."""
//! (Line 3) from .pricing import price_of, TAX as tax
//! (Line 7) class Cart(Base):
//! (Line 8)     """A cart of items."""
//! (Line 12)     @property
//! (Line 13)     def total(self) -> float: ...
//! ```
//!
//! A def shows `: ...` (its body elided) unless a docstring or nested definitions follow it.
//! Decorators are placed on consecutive lines from the first decorator's line. The
//! tree-sitter languages' skeletons (Rust, Go, JavaScript, TypeScript, Java, C, C++, C#, Ruby,
//! PHP) are made in their own syntax ([`braced`]).

use std::path::Path;

use cast_parser::{
    Import, ParsedFile, Registry, SkeletonForm, SourceText, SymbolKind, SyntaxError,
};
use serde::Serialize;

use crate::{AnalyzerError, Result};

mod braced;

/// One line of a skeleton.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkeletonLine {
    /// The line in the original file (1-based).
    pub line: u32,
    /// The text, indented by nesting depth (4 spaces a level).
    pub text: String,
}

/// The skeleton of one file.
#[derive(Debug, Clone, Serialize)]
pub struct Skeleton {
    pub path: String,
    pub language: &'static str,
    pub line_count: u32,
    /// Size of the source in bytes, to compare with the skeleton's.
    pub source_bytes: usize,
    /// The first syntax error, when the file does not parse (the skeleton is then best
    /// effort).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syntax_error: Option<SyntaxError>,
    pub lines: Vec<SkeletonLine>,
}

impl Skeleton {
    /// The skeleton as a model reads it: `(Line N) text`, one line each.
    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Some(error) = &self.syntax_error {
            out.push_str(&format!(
                "(Line {}) # SYNTAX ERROR: {}. This file does not parse; the skeleton below is \
                 best effort.\n",
                error.line, error.message
            ));
        }
        for l in &self.lines {
            out.push_str("(Line ");
            out.push_str(&l.line.to_string());
            out.push_str(") ");
            out.push_str(&l.text);
            out.push('\n');
        }
        out
    }
}

/// L2 for one file of the code base at `root`: `file` relative to the root (absolute paths
/// under the root are accepted). The file is read and parsed afresh, so the skeleton is current
/// even when the index is not. A path outside the root is refused with
/// [`AnalyzerError::FileNotIndexed`]; an unsupported or unreadable file with
/// [`AnalyzerError::Parse`].
pub(crate) fn skeleton_in(root: &Path, registry: &Registry, file: &str) -> Result<Skeleton> {
    let rel = crate::show::relative_path(root, file);
    let inside = Path::new(&rel)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    let path = root.join(&rel);
    if !inside || !path.is_file() {
        return Err(AnalyzerError::FileNotIndexed {
            path: rel,
            root: root.to_path_buf(),
        });
    }
    skeleton_of_file(&path, &rel, registry)
}

/// The skeleton of a file on disk. `rel` is the path shown in the result.
pub fn skeleton_of_file(path: &Path, rel: &str, registry: &Registry) -> Result<Skeleton> {
    let language = registry
        .for_path(path)
        .ok_or_else(|| AnalyzerError::Parse {
            path: rel.to_owned(),
            source: registry.unsupported(path),
        })?;
    let source = SourceText::read(path, cast_parser::DEFAULT_MAX_FILESIZE).map_err(|source| {
        AnalyzerError::Parse {
            path: rel.to_owned(),
            source,
        }
    })?;
    let parsed = language
        .parse(&source.text)
        .map_err(|source| AnalyzerError::Parse {
            path: rel.to_owned(),
            source,
        })?;
    Ok(skeleton_of_parsed(rel, &source.text, &parsed))
}

/// The skeleton of parsed text.
pub fn skeleton_of_parsed(rel: &str, text: &str, parsed: &ParsedFile) -> Skeleton {
    let lines = match cast_parser::skeleton_form(parsed.language) {
        SkeletonForm::Indented => python_lines(text, parsed),
        SkeletonForm::Braced(style) => braced::lines(text, parsed, style),
        SkeletonForm::Outline => outline_lines(parsed),
    };
    Skeleton {
        path: rel.to_owned(),
        language: parsed.language,
        line_count: parsed.line_count,
        source_bytes: text.len(),
        syntax_error: parsed.syntax_error.clone(),
        lines,
    }
}

fn depth(parsed: &ParsedFile, index: usize) -> usize {
    parsed.ancestors(index).count().saturating_sub(1)
}

fn outline_lines(parsed: &ParsedFile) -> Vec<SkeletonLine> {
    parsed
        .symbols
        .iter()
        .enumerate()
        .map(|(i, s)| SkeletonLine {
            line: s.start_line,
            text: format!("{}{}", "  ".repeat(depth(parsed, i)), s.signature),
        })
        .collect()
}

/// The first paragraph of a docstring on one line, quoted.
fn first_paragraph(doc: &str) -> String {
    let para: Vec<&str> = doc
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::trim)
        .collect();
    format!(
        "\"\"\"{}\"\"\"",
        para.join(" ").replace("\"\"\"", "\\\"\\\"\\\"")
    )
}

/// The line of the module docstring: the first statement, when the description exists.
fn module_doc_line(text: &str) -> u32 {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        return i as u32 + 1;
    }
    1
}

fn import_text(group: &[&Import]) -> String {
    let Some(first) = group.first() else {
        return String::new();
    };
    let alias = |name: &str, alias: &Option<String>| match alias {
        Some(a) => format!("{name} as {a}"),
        None => name.to_owned(),
    };
    if first.name.is_none() && first.level == 0 {
        let names: Vec<String> = group.iter().map(|i| alias(&i.module, &i.alias)).collect();
        return format!("import {}", names.join(", "));
    }
    let module = format!("{}{}", ".".repeat(first.level as usize), first.module);
    let names: Vec<String> = group
        .iter()
        .map(|i| alias(i.name.as_deref().unwrap_or("*"), &i.alias))
        .collect();
    format!("from {module} import {}", names.join(", "))
}

fn python_lines(text: &str, parsed: &ParsedFile) -> Vec<SkeletonLine> {
    let mut out: Vec<SkeletonLine> = Vec::new();
    if let Some(doc) = &parsed.description {
        out.push(SkeletonLine {
            line: module_doc_line(text),
            text: first_paragraph(doc),
        });
    }
    // Imports: one line per statement (same line, same module form), indented by scope.
    let mut i = 0;
    let imports = &parsed.imports;
    while i < imports.len() {
        let first = &imports[i];
        let mut group = vec![first];
        let mut j = i + 1;
        let same_statement = |other: &Import| {
            other.line == first.line
                && other.scope == first.scope
                && match (&first.name, &other.name) {
                    (None, None) => first.level == 0 && other.level == 0,
                    (Some(_), Some(_)) => {
                        other.module == first.module && other.level == first.level
                    }
                    _ => false,
                }
        };
        while j < imports.len() && same_statement(&imports[j]) {
            group.push(&imports[j]);
            j += 1;
        }
        let indent = first.scope.map_or(0, |s| depth(parsed, s) + 1);
        out.push(SkeletonLine {
            line: first.line,
            text: format!("{}{}", "    ".repeat(indent), import_text(&group)),
        });
        i = j;
    }
    for (idx, s) in parsed.symbols.iter().enumerate() {
        let indent = "    ".repeat(depth(parsed, idx));
        for (k, d) in s.decorators.iter().enumerate() {
            let line = (s.decorated_line + k as u32)
                .min(s.start_line.saturating_sub(1).max(s.decorated_line));
            out.push(SkeletonLine {
                line,
                text: format!("{indent}@{d}"),
            });
        }
        let has_children = parsed
            .symbols
            .get(idx + 1)
            .is_some_and(|n| n.parent == Some(idx));
        let elide = s.kind != SymbolKind::Class && s.docstring.is_none() && !has_children;
        out.push(SkeletonLine {
            line: s.start_line,
            text: format!(
                "{indent}{}:{}",
                s.signature,
                if elide { " ..." } else { "" }
            ),
        });
        if let (Some(doc), Some((start, _))) = (&s.docstring, s.docstring_lines) {
            out.push(SkeletonLine {
                line: start,
                text: format!("{indent}    {}", first_paragraph(doc)),
            });
        }
    }
    out.sort_by_key(|l| l.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cast_parser::LanguageParser;

    #[test]
    fn python_skeleton_keeps_lines_and_elides_bodies() {
        let src = "\"\"\"The cart.\n\nMore text.\"\"\"\nimport os, sys as system\nfrom .pricing import (price_of,\n    TAX as tax)\n\nclass Cart(Base):\n    \"\"\"A cart.\"\"\"\n\n    @property\n    def total(self) -> float:\n        return sum(self.items)\n\n    def add(self, sku):\n        '''Add one.\n\n        Details.'''\n        self.items.append(sku)\n";
        let parsed = cast_parser::Python.parse_text(src).unwrap();
        let sk = skeleton_of_parsed("cart.py", src, &parsed);
        assert_eq!(
            sk.render(),
            "(Line 1) \"\"\"The cart.\"\"\"\n\
             (Line 4) import os, sys as system\n\
             (Line 5) from .pricing import price_of, TAX as tax\n\
             (Line 8) class Cart(Base):\n\
             (Line 9)     \"\"\"A cart.\"\"\"\n\
             (Line 11)     @property\n\
             (Line 12)     def total(self) -> float: ...\n\
             (Line 15)     def add(self, sku):\n\
             (Line 16)         \"\"\"Add one.\"\"\"\n"
        );
    }
}
