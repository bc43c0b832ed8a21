//! HTML (`.html`, `.htm`) with tree-sitter-html, plus Django/Jinja template tags.
//!
//! Symbols: elements with an `id`, `<script>` and `<style>` blocks, headings `<h1>`–`<h6>`, and
//! template blocks `{% block name %}` … `{% endblock %}`. Imports: `{% extends %}`,
//! `{% include %}`, `{% import %}`/`{% from %}` targets, `<script src>` and stylesheet
//! `<link href>`. References: calls inside `{{ … }}` and `{% … %}`, such as `url_for(...)`.

use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::Node;

use crate::python::count_lines;
use crate::ts;
use crate::{
    Import, LanguageParser, ParseError, ParsedFile, RefKind, Reference, Symbol, SymbolKind,
};

/// The HTML language.
#[derive(Debug, Clone, Copy, Default)]
pub struct Html;

impl LanguageParser for Html {
    fn name(&self) -> &'static str {
        "html"
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["html", "htm"]
    }

    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        let language = tree_sitter_html::LANGUAGE.into();
        let tree = ts::parse(&language, "html", text)?;
        let root = tree.root_node();
        let mut out = Outline {
            src: text,
            symbols: Vec::new(),
            imports: Vec::new(),
            title: None,
        };
        out.elements(root);
        out.template_blocks();
        out.template_imports();
        let mut symbols = out.symbols;
        nest(&mut symbols);
        let mut references = template_calls(text);
        for r in &mut references {
            r.scope = innermost(&symbols, r.line);
        }
        Ok(ParsedFile {
            language: "html",
            symbols,
            imports: out.imports,
            references,
            type_facts: Vec::new(),
            description: out.title,
            line_count: count_lines(text),
            syntax_error: ts::first_error(root, text),
            lossy_utf8: false,
        })
    }
}

struct Outline<'s> {
    src: &'s str,
    symbols: Vec<Symbol>,
    imports: Vec<Import>,
    title: Option<String>,
}

impl Outline<'_> {
    fn elements(&mut self, root: Node) {
        let mut cursor = root.walk();
        'outer: loop {
            let node = cursor.node();
            if matches!(node.kind(), "element" | "script_element" | "style_element") {
                self.element(node);
            }
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
            }
        }
    }

    fn element(&mut self, node: Node) {
        let mut cursor = node.walk();
        let Some(tag) = node
            .children(&mut cursor)
            .find(|c| matches!(c.kind(), "start_tag" | "self_closing_tag"))
        else {
            return;
        };
        let (name, attrs) = self.tag(tag);
        let attr = |key: &str| {
            attrs
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v.clone())
        };
        let line = ts::start_line(node);
        let kind_and_name = match name.as_str() {
            "script" => {
                let src = attr("src");
                if let Some(src) = &src {
                    self.import(src, line);
                }
                Some((
                    SymbolKind::Script,
                    src.unwrap_or_else(|| "script".to_owned()),
                ))
            }
            "style" => Some((SymbolKind::Style, "style".to_owned())),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Some((
                SymbolKind::Heading,
                ts::one_line(&self.inner_text(node), 80),
            )),
            _ => {
                if name == "link"
                    && attr("rel").is_some_and(|r| r.eq_ignore_ascii_case("stylesheet"))
                    && let Some(href) = attr("href")
                {
                    self.import(&href, line);
                }
                if name == "title" && self.title.is_none() {
                    self.title = Some(ts::one_line(&self.inner_text(node), 200));
                }
                attr("id").map(|id| (SymbolKind::Element, id))
            }
        };
        let Some((kind, symbol_name)) = kind_and_name else {
            return;
        };
        self.symbols.push(Symbol {
            kind,
            qualname: symbol_name.clone(),
            name: symbol_name,
            signature: ts::one_line(ts::text(tag, self.src), 200),
            docstring: None,
            start_line: line,
            end_line: ts::end_line(node),
            decorated_line: line,
            header_end_line: ts::end_line(tag),
            docstring_lines: None,
            decorators: Vec::new(),
            parent: None,
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            body_start: None,
            returns: None,
        });
    }

    /// Tag name (lower case) and attributes of a start tag.
    fn tag(&self, tag: Node) -> (String, Vec<(String, String)>) {
        let mut name = String::new();
        let mut attrs = Vec::new();
        let mut cursor = tag.walk();
        for child in tag.named_children(&mut cursor) {
            match child.kind() {
                "tag_name" => name = ts::text(child, self.src).to_ascii_lowercase(),
                "attribute" => {
                    let mut key = String::new();
                    let mut value = String::new();
                    let mut inner = child.walk();
                    for part in child.named_children(&mut inner) {
                        match part.kind() {
                            "attribute_name" => key = ts::text(part, self.src).to_owned(),
                            "attribute_value" => value = ts::text(part, self.src).to_owned(),
                            "quoted_attribute_value" => {
                                let raw = ts::text(part, self.src);
                                value = raw
                                    .get(1..raw.len().saturating_sub(1))
                                    .unwrap_or("")
                                    .to_owned();
                            }
                            _ => {}
                        }
                    }
                    attrs.push((key, value));
                }
                _ => {}
            }
        }
        (name, attrs)
    }

    fn inner_text(&self, node: Node) -> String {
        let mut text = String::new();
        let mut cursor = node.walk();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "text" {
                text.push_str(ts::text(n, self.src));
                text.push(' ');
                continue;
            }
            let children: Vec<_> = n.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        text
    }

    fn import(&mut self, target: &str, line: u32) {
        self.imports.push(Import {
            module: target.to_owned(),
            name: None,
            alias: None,
            level: 0,
            line,
            scope: None,
        });
    }

    fn template_blocks(&mut self) {
        static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
            Regex::new(r"\{%-?\s*(block|endblock)\b\s*([A-Za-z_][A-Za-z0-9_]*)?[^%]*?-?%\}").ok()
        });
        let Some(tag) = TAG.as_ref() else { return };
        let mut open: Vec<(usize, regex::Match, String)> = Vec::new();
        let mut blocks = Vec::new();
        for caps in tag.captures_iter(self.src) {
            let (Some(whole), Some(word)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            if word.as_str() == "block" {
                let name = caps.get(2).map_or("", |m| m.as_str()).to_owned();
                open.push((whole.start(), whole, name));
            } else if let Some((start, opening, name)) = open.pop() {
                blocks.push((start, whole.end(), opening.as_str().to_owned(), name));
            }
        }
        for (start, end, opening, name) in blocks {
            let start_line = line_of(self.src, start);
            self.symbols.push(Symbol {
                kind: SymbolKind::Block,
                qualname: name.clone(),
                name,
                signature: ts::one_line(&opening, 200),
                docstring: None,
                start_line,
                end_line: line_of(self.src, end.saturating_sub(1)),
                decorated_line: start_line,
                header_end_line: start_line,
                docstring_lines: None,
                decorators: Vec::new(),
                parent: None,
                start_byte: start,
                end_byte: end,
                body_start: None,
                returns: None,
            });
        }
    }

    fn template_imports(&mut self) {
        static TAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
            Regex::new(r#"\{%-?\s*(?:extends|include|import|from)\s+["']([^"']+)["']"#).ok()
        });
        let Some(tag) = TAG.as_ref() else { return };
        let found: Vec<_> = tag
            .captures_iter(self.src)
            .filter_map(|c| c.get(1))
            .map(|m| (m.as_str().to_owned(), line_of(self.src, m.start())))
            .collect();
        for (target, line) in found {
            self.import(&target, line);
        }
    }
}

/// Calls inside template expressions: `{{ url_for('index') }}`, `{% if user.is_admin() %}`.
fn template_calls(src: &str) -> Vec<Reference> {
    static EXPR: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?s)\{\{.*?\}\}|\{%.*?%\}").ok());
    static CALL: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\(").ok()
    });
    let (Some(expr), Some(call)) = (EXPR.as_ref(), CALL.as_ref()) else {
        return Vec::new();
    };
    let mut refs = Vec::new();
    for e in expr.find_iter(src) {
        for c in call.captures_iter(e.as_str()) {
            let Some(m) = c.get(1) else { continue };
            let full = m.as_str();
            let (receiver, name) = match full.rsplit_once('.') {
                Some((recv, name)) => (Some(recv.to_owned()), name.to_owned()),
                None => (None, full.to_owned()),
            };
            refs.push(Reference {
                kind: RefKind::Call,
                name,
                receiver,
                line: line_of(src, e.start() + m.start()),
                scope: None,
            });
        }
    }
    refs
}

fn line_of(src: &str, byte: usize) -> u32 {
    let upto = src.as_bytes().get(..byte).unwrap_or(src.as_bytes());
    memchr::memchr_iter(b'\n', upto).count() as u32 + 1
}

/// Orders symbols by position and links each to the innermost symbol containing it.
fn nest(symbols: &mut [Symbol]) {
    symbols.sort_by_key(|s| (s.start_byte, std::cmp::Reverse(s.end_byte)));
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..symbols.len() {
        let (start, end) = (symbols[i].start_byte, symbols[i].end_byte);
        while let Some(&top) = stack.last() {
            if symbols[top].end_byte >= end && symbols[top].start_byte <= start {
                break;
            }
            stack.pop();
        }
        if let Some(&parent) = stack.last() {
            symbols[i].parent = Some(parent);
            symbols[i].qualname = format!("{}.{}", symbols[parent].qualname, symbols[i].name);
        }
        stack.push(i);
    }
}

fn innermost(symbols: &[Symbol], line: u32) -> Option<usize> {
    symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.start_line <= line && line <= s.end_line)
        .min_by_key(|(_, s)| s.end_line - s.start_line)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"{% extends "base.html" %}
<html><head><title>Demo page</title>
<link rel="stylesheet" href="/static/site.css">
<style>body { margin: 0 }</style>
</head>
<body>
{% block content %}
<div id="main" class="wrap">
  <h1>Hello <em>there</em></h1>
  <p>{{ url_for('index') }}</p>
</div>
{% endblock %}
<script src="/static/app.js"></script>
<script>console.log(1)</script>
</body></html>
"#;

    #[test]
    fn regression_the_first_syntax_error_has_its_line() {
        let file = Html
            .parse_text("<html>\n<body>\n<div id=\"a\">\n</body>\n<p <<\n</html>\n")
            .unwrap();
        let error = file.syntax_error.expect("a syntax error");
        assert_eq!(error.line, 5, "{error}");
        assert_eq!(error.message, "unexpected `<p <<`");
        let clean = Html.parse_text("<p id=\"x\">hi</p>\n").unwrap();
        assert_eq!(clean.syntax_error, None);
    }

    #[test]
    fn outline_has_ids_blocks_scripts_styles_and_headings() {
        let file = Html.parse_text(PAGE).unwrap();
        let got: Vec<_> = file
            .symbols
            .iter()
            .map(|s| {
                (
                    s.kind.as_str(),
                    s.qualname.as_str(),
                    s.start_line,
                    s.end_line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("style", "style", 4, 4),
                ("block", "content", 7, 12),
                ("element", "content.main", 8, 11),
                ("heading", "content.main.Hello there", 9, 9),
                ("script", "/static/app.js", 13, 13),
                ("script", "script", 14, 14),
            ]
        );
        assert_eq!(file.description.as_deref(), Some("Demo page"));
        let imports: Vec<_> = file.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(
            imports,
            vec!["/static/site.css", "/static/app.js", "base.html"]
        );
        let call = &file.references[0];
        assert_eq!((call.name.as_str(), call.line), ("url_for", 10));
        assert_eq!(call.scope, Some(2));
    }

    #[test]
    fn inline_and_unclosed_blocks() {
        let file = Html
            .parse_text("<p>{% block intro %}{% endblock %}</p>\n{% block open %}\n")
            .unwrap();
        let names: Vec<_> = file
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.start_line, s.end_line))
            .collect();
        assert_eq!(names, vec![("intro", 1, 1)]);
    }
}
