//! The languages parsed through tree-sitter descriptions, each behind a cargo feature of the
//! same name (all on by default). A description is data — grammar, extensions, queries — read
//! by the one extractor in `extract.rs`; see `description.rs` for the query conventions.

use crate::description::TreeSitterLanguage;

#[cfg(feature = "go")]
pub mod go;
#[cfg(feature = "java")]
pub mod java;
#[cfg(any(feature = "javascript", feature = "typescript"))]
pub mod javascript;
#[cfg(feature = "rust")]
pub mod rust;
#[cfg(feature = "typescript")]
pub mod typescript;

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
