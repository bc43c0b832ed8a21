//! The languages parsed through tree-sitter descriptions, each behind a cargo feature of the
//! same name (all on by default). A description is data — grammar, extensions, queries — read
//! by the one extractor in `extract.rs`; see `description.rs` for the query conventions.

use crate::LanguageParser;
use crate::description::{SkeletonStyle, TreeSitterLanguage};

#[cfg(any(feature = "c", feature = "cpp"))]
pub mod c;
#[cfg(feature = "cpp")]
pub mod cpp;
#[cfg(feature = "csharp")]
pub mod csharp;
#[cfg(feature = "go")]
pub mod go;
#[cfg(feature = "java")]
pub mod java;
#[cfg(any(feature = "javascript", feature = "typescript"))]
pub mod javascript;
#[cfg(feature = "php")]
pub mod php;
#[cfg(feature = "ruby")]
pub mod ruby;
#[cfg(feature = "rust")]
pub mod rust;
#[cfg(feature = "typescript")]
pub mod typescript;

#[cfg(feature = "c")]
static C: TreeSitterLanguage = TreeSitterLanguage::new(&c::C);
#[cfg(feature = "cpp")]
static CPP: TreeSitterLanguage = TreeSitterLanguage::new(&cpp::CPP);

/// The parsers of the described languages, as the registry holds them: each description, but
/// C's reads a C++ header (`.h` is both languages' extension) with C++'s description.
pub(crate) fn parsers() -> Vec<Box<dyn LanguageParser>> {
    described()
        .into_iter()
        .map(|language| -> Box<dyn LanguageParser> {
            #[cfg(feature = "c")]
            if std::ptr::eq(language, &C) {
                #[cfg(feature = "cpp")]
                let cpp = Some(&CPP);
                #[cfg(not(feature = "cpp"))]
                let cpp = None;
                return Box::new(c::CHeaders { c: &C, cpp });
            }
            Box::new(language)
        })
        .collect()
}

/// How a skeleton writes a described language, by the language's name (`go`, `tsx`).
pub fn skeleton_style(language: &str) -> Option<SkeletonStyle> {
    described()
        .into_iter()
        .find(|l| l.description().name == language)
        .map(|l| l.description().skeleton)
}

/// Every described language compiled in, with its queries compiled once per process.
pub fn described() -> Vec<&'static TreeSitterLanguage> {
    #[allow(unused_mut)]
    let mut all: Vec<&'static TreeSitterLanguage> = Vec::new();
    #[cfg(feature = "rust")]
    {
        static RUST: TreeSitterLanguage = TreeSitterLanguage::new(&rust::RUST);
        all.push(&RUST);
    }
    #[cfg(feature = "go")]
    {
        static GO: TreeSitterLanguage = TreeSitterLanguage::new(&go::GO);
        all.push(&GO);
    }
    #[cfg(feature = "javascript")]
    {
        static JAVASCRIPT: TreeSitterLanguage = TreeSitterLanguage::new(&javascript::JAVASCRIPT);
        all.push(&JAVASCRIPT);
    }
    #[cfg(feature = "typescript")]
    {
        static TYPESCRIPT: TreeSitterLanguage = TreeSitterLanguage::new(&typescript::TYPESCRIPT);
        static TSX: TreeSitterLanguage = TreeSitterLanguage::new(&typescript::TSX);
        all.push(&TYPESCRIPT);
        all.push(&TSX);
    }
    #[cfg(feature = "java")]
    {
        static JAVA: TreeSitterLanguage = TreeSitterLanguage::new(&java::JAVA);
        all.push(&JAVA);
    }
    #[cfg(feature = "c")]
    all.push(&C);
    #[cfg(feature = "cpp")]
    all.push(&CPP);
    #[cfg(feature = "csharp")]
    {
        static CSHARP: TreeSitterLanguage = TreeSitterLanguage::new(&csharp::CSHARP);
        all.push(&CSHARP);
    }
    #[cfg(feature = "ruby")]
    {
        static RUBY: TreeSitterLanguage = TreeSitterLanguage::new(&ruby::RUBY);
        all.push(&RUBY);
    }
    #[cfg(feature = "php")]
    {
        static PHP: TreeSitterLanguage = TreeSitterLanguage::new(&php::PHP);
        all.push(&PHP);
    }
    all
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_description_compiles() {
        for language in super::described() {
            if let Err(err) = language.check() {
                panic!("{}: {err}", language.description().name);
            }
        }
    }
}
