//! The language registry: which parser handles which file extension.

use std::path::Path;
use std::sync::OnceLock;

use crate::{ParseError, ParsedFile, SkeletonForm, SourceText};

/// One language CAST can parse. Adding a language is one file that implements this trait and
/// one [`Registry::register`] call; see `python.rs` and `html.rs`.
pub trait LanguageParser: Send + Sync {
    /// Lower-case name, e.g. `python`.
    fn name(&self) -> &'static str;
    /// File extensions without the dot, e.g. `["py", "pyi"]`.
    fn extensions(&self) -> &'static [&'static str];
    /// Parses decoded text. Must not panic on any input: broken code yields best-effort symbols
    /// with [`ParsedFile::syntax_error`] set.
    fn parse_text(&self, text: &str) -> Result<ParsedFile, ParseError>;

    /// [`LanguageParser::parse_text`], a panic (a bug of the parser) turned into
    /// [`ParseError::Panicked`], so that it costs the one text rather than the process: what
    /// every caller uses.
    fn parse(&self, text: &str) -> Result<ParsedFile, ParseError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.parse_text(text)))
            .unwrap_or(Err(ParseError::Panicked))
    }

    /// What a listing of symbols (`cast symbols`) needs of a text: the [`ParsedFile`] of
    /// [`LanguageParser::parse_text`] with the same symbols, syntax error and line count, whose
    /// imports and references a parser may leave empty to save the work. By default the whole
    /// parse.
    fn parse_symbols_text(&self, text: &str) -> Result<ParsedFile, ParseError> {
        self.parse_text(text)
    }

    /// [`LanguageParser::parse_symbols_text`], a panic turned into [`ParseError::Panicked`]
    /// as [`LanguageParser::parse`] does.
    fn parse_symbols(&self, text: &str) -> Result<ParsedFile, ParseError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.parse_symbols_text(text)
        }))
        .unwrap_or(Err(ParseError::Panicked))
    }

    /// How `cast skeleton` lays the language out; by default an outline of its symbols.
    fn skeleton_form(&self) -> SkeletonForm {
        SkeletonForm::Outline
    }
}

/// How `cast skeleton` lays out the language a [`ParsedFile`] names (`python`, `tsx`): what
/// its parser in [`Registry::default`] says, or an outline for a name it does not know.
pub fn skeleton_form(language: &str) -> SkeletonForm {
    static LANGUAGES: OnceLock<Registry> = OnceLock::new();
    LANGUAGES
        .get_or_init(Registry::default)
        .languages()
        .find(|l| l.name() == language)
        .map_or(SkeletonForm::Outline, |l| l.skeleton_form())
}

/// Languages by extension. [`Registry::default`] knows Python, HTML and every described
/// language compiled in (by default Rust, Go, JavaScript, TypeScript, Java, C, C++, C#, Ruby, PHP).
pub struct Registry {
    languages: Vec<Box<dyn LanguageParser>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.languages.iter().map(|l| l.name()))
            .finish()
    }
}

impl Default for Registry {
    fn default() -> Self {
        let mut registry = Registry::empty();
        registry.register(Box::new(crate::python::Python));
        registry.register(Box::new(crate::html::Html));
        for language in crate::languages::parsers() {
            registry.register(language);
        }
        registry
    }
}

impl Registry {
    /// A registry with no languages.
    pub fn empty() -> Self {
        Registry {
            languages: Vec::new(),
        }
    }

    /// Adds a language. A later registration wins for an extension both claim.
    pub fn register(&mut self, language: Box<dyn LanguageParser>) {
        self.languages.insert(0, language);
    }

    /// All registered languages.
    pub fn languages(&self) -> impl Iterator<Item = &dyn LanguageParser> {
        self.languages.iter().map(|l| l.as_ref())
    }

    /// The parser for a path, chosen by its extension (case-insensitive).
    pub fn for_path(&self, path: &Path) -> Option<&dyn LanguageParser> {
        let ext = path.extension()?.to_str()?;
        self.languages
            .iter()
            .find(|l| l.extensions().iter().any(|e| e.eq_ignore_ascii_case(ext)))
            .map(|l| l.as_ref())
    }

    /// Every extension some language handles, sorted, for messages and file filters.
    pub fn extensions(&self) -> Vec<&'static str> {
        let mut all: Vec<_> = self
            .languages
            .iter()
            .flat_map(|l| l.extensions().iter().copied())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// The error for a file no language parses, listing the extensions that are parsed.
    pub fn unsupported(&self, path: &Path) -> ParseError {
        ParseError::Unsupported {
            path: path.to_path_buf(),
            supported: self
                .extensions()
                .iter()
                .map(|e| format!(".{e}"))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// Reads and parses one file. Binary files, files over `max_size` bytes and unknown
    /// extensions are errors (see [`ParseError::is_skip`]).
    pub fn parse_file(&self, path: &Path, max_size: u64) -> Result<ParsedFile, ParseError> {
        self.read_and_parse(path, max_size, |language, text| language.parse(text))
    }

    /// [`Registry::parse_file`] for a listing of symbols: the file's imports and references may
    /// be left empty (see [`LanguageParser::parse_symbols_text`]).
    pub fn parse_file_symbols(&self, path: &Path, max_size: u64) -> Result<ParsedFile, ParseError> {
        self.read_and_parse(path, max_size, |language, text| {
            language.parse_symbols(text)
        })
    }

    fn read_and_parse(
        &self,
        path: &Path,
        max_size: u64,
        parse: impl FnOnce(&dyn LanguageParser, &str) -> Result<ParsedFile, ParseError>,
    ) -> Result<ParsedFile, ParseError> {
        let language = self.for_path(path).ok_or_else(|| self.unsupported(path))?;
        let source = SourceText::read(path, max_size)?;
        let mut parsed = parse(language, &source.text)?;
        parsed.lossy_utf8 = source.lossy;
        Ok(parsed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parser with a bug: it panics on every text.
    struct Panics;

    impl LanguageParser for Panics {
        fn name(&self) -> &'static str {
            "panics"
        }
        fn extensions(&self) -> &'static [&'static str] {
            &["pan"]
        }
        fn parse_text(&self, _text: &str) -> Result<ParsedFile, ParseError> {
            panic!("a parser bug");
        }
    }

    #[test]
    fn a_parser_panic_costs_the_one_file() {
        assert!(matches!(Panics.parse("x"), Err(ParseError::Panicked)));
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.pan"), "x\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "def b():\n    pass\n").unwrap();
        let mut registry = Registry::default();
        registry.register(Box::new(Panics));
        let outcomes = crate::parse_tree(dir.path(), &crate::WalkOptions::default(), &registry);
        let results: Vec<(&str, bool)> = outcomes
            .iter()
            .map(|o| {
                (
                    o.rel.as_str(),
                    matches!(o.result, Err(ParseError::Panicked)),
                )
            })
            .collect();
        assert_eq!(results, [("a.pan", true), ("b.py", false)]);
        assert!(
            outcomes[1]
                .result
                .as_ref()
                .is_ok_and(|f| f.symbols.len() == 1)
        );
    }

    #[test]
    fn each_language_says_how_its_skeleton_is_laid_out() {
        assert_eq!(skeleton_form("python"), SkeletonForm::Indented);
        assert_eq!(skeleton_form("html"), SkeletonForm::Outline);
        assert_eq!(skeleton_form("no such language"), SkeletonForm::Outline);
        let registry = Registry::default();
        for language in registry.languages() {
            let form = skeleton_form(language.name());
            assert_eq!(form, language.skeleton_form(), "{}", language.name());
            if !matches!(language.name(), "python" | "html") {
                assert!(
                    matches!(form, SkeletonForm::Braced(_)),
                    "{}: {form:?}",
                    language.name()
                );
            }
        }
        #[cfg(feature = "ruby")]
        assert!(matches!(
            skeleton_form("ruby"),
            SkeletonForm::Braced(style) if style.body_end == "end"
        ));
        #[cfg(feature = "cpp")]
        assert!(matches!(skeleton_form("cpp"), SkeletonForm::Braced(_)));
    }

    #[test]
    fn extensions_pick_the_language() {
        let registry = Registry::default();
        for (path, lang) in [
            ("a.py", "python"),
            ("a.pyi", "python"),
            ("a.pyx", "python"),
            ("A.PY", "python"),
            ("t.html", "html"),
            ("t.htm", "html"),
            ("lib.rs", "rust"),
            ("main.go", "go"),
            ("a.js", "javascript"),
            ("a.mjs", "javascript"),
            ("a.cjs", "javascript"),
            ("App.jsx", "javascript"),
            ("a.ts", "typescript"),
            ("a.d.ts", "typescript"),
            ("a.mts", "typescript"),
            ("a.cts", "typescript"),
            ("App.tsx", "tsx"),
            ("Main.java", "java"),
            ("jv.c", "c"),
            ("jv.h", "c"),
            ("format.cc", "cpp"),
            ("format.hpp", "cpp"),
            ("JsonReader.cs", "csharp"),
            ("base.rb", "ruby"),
            ("Route.php", "php"),
        ] {
            assert_eq!(
                registry.for_path(Path::new(path)).map(|l| l.name()),
                Some(lang)
            );
        }
        assert!(registry.for_path(Path::new("a.kt")).is_none());
        assert!(registry.for_path(Path::new("Makefile")).is_none());
    }

    #[test]
    fn unsupported_extension_names_the_supported_ones() {
        let err = Registry::default()
            .parse_file(Path::new("x.kt"), 1000)
            .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(".py") && msg.contains(".html") && msg.contains(".rs"),
            "{msg}"
        );
    }
}
