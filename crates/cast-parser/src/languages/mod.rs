//! The languages parsed through tree-sitter descriptions, each behind a cargo feature of the
//! same name (all on by default). A description is data — grammar, extensions, queries — read
//! by the one extractor in `extract.rs`; see `description.rs` for the query conventions.

use crate::LanguageParser;
use crate::description::TreeSitterLanguage;

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

/// The rules of a parser's language name (`python`, `rust`, `tsx`, …); a language without
/// modules (HTML) or not compiled in has [`ModuleFamily::Other`]'s.
pub fn module_rules(language: &str) -> crate::modules::ModuleRules {
    if language == crate::python::MODULES_LANGUAGE {
        return crate::python::MODULES;
    }
    described()
        .into_iter()
        .map(|l| l.description())
        .find(|d| d.name == language)
        .map_or_else(crate::modules::ModuleRules::default, |d| d.modules)
}

/// The rules of a file by its extension, for a file no parser read.
pub fn module_rules_of_path(rel: &str) -> crate::modules::ModuleRules {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return crate::modules::ModuleRules::default();
    };
    if crate::python::EXTENSIONS.contains(&ext) {
        return crate::python::MODULES;
    }
    described()
        .into_iter()
        .map(|l| l.description())
        .find(|d| d.extensions.contains(&ext))
        .map_or_else(crate::modules::ModuleRules::default, |d| d.modules)
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

    #[test]
    fn common_name_lists_are_sorted_for_binary_search() {
        for language in super::described() {
            let d = language.description();
            for list in [d.modules.common.methods, d.modules.common.types] {
                assert!(
                    list.windows(2).all(|w| w[0] < w[1]),
                    "{}: not sorted or not unique",
                    d.name
                );
            }
        }
    }

    #[test]
    fn every_extension_and_name_finds_its_family() {
        for (path, family) in [
            ("a/b.py", crate::modules::ModuleFamily::Python),
            ("a/b.pyi", crate::modules::ModuleFamily::Python),
            ("src/lib.rs", crate::modules::ModuleFamily::Rust),
            ("x.go", crate::modules::ModuleFamily::Go),
            ("a.mjs", crate::modules::ModuleFamily::Js),
            ("a.tsx", crate::modules::ModuleFamily::Js),
            ("A.java", crate::modules::ModuleFamily::Java),
            ("a.hpp", crate::modules::ModuleFamily::C),
            ("A.cs", crate::modules::ModuleFamily::CSharp),
            ("Rakefile.rake", crate::modules::ModuleFamily::Ruby),
            ("a.php", crate::modules::ModuleFamily::Php),
            ("index.html", crate::modules::ModuleFamily::Other),
            ("Makefile", crate::modules::ModuleFamily::Other),
        ] {
            assert_eq!(super::module_rules_of_path(path).family, family, "{path}");
        }
        for language in super::described() {
            let d = language.description();
            assert_eq!(super::module_rules(d.name).family, d.modules.family);
        }
    }
}
