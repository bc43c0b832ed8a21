//! What resolution needs to know of a language: which module system it follows (its
//! [`ModuleFamily`]) and which standard-library names it must not resolve by name alone
//! ([`CommonNames`]). Each language states its [`ModuleRules`] in its own folder (a described
//! language in its [`crate::LanguageDescription`], Python in `python.rs`). Each family's rules
//! for naming modules — which module a file is, which module an import names — are implemented
//! once, in [`paths`]; the index's resolver looks names up by them. So a new language that
//! imports as an existing one does (Kotlin as Java, say) needs nothing outside its folder.
//!
//! The rules of a language are looked up by its name or a path's extension in
//! [`crate::languages::module_rules`] and [`crate::languages::module_rules_of_path`]:
//!
//! ```
//! use cast_parser::languages::{module_rules as rules_of_language, module_rules_of_path as rules_of_path};
//! use cast_parser::modules::ModuleFamily;
//!
//! assert_eq!(rules_of_language("tsx").family, ModuleFamily::Js);
//! assert_eq!(rules_of_path("src/jv.h").family, ModuleFamily::C);
//! assert!(rules_of_language("rust").common.is_common_method("unwrap"));
//! assert_eq!(rules_of_path("README.md").family, ModuleFamily::Other);
//! ```

pub mod manifests;
pub mod paths;

/// The module systems the resolver knows. Languages that import each other share one
/// (JavaScript and TypeScript; C and C++).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ModuleFamily {
    Python,
    Rust,
    Go,
    Js,
    Java,
    /// C and C++ (they include each other's headers).
    C,
    CSharp,
    Ruby,
    Php,
    /// HTML and anything without modules.
    #[default]
    Other,
}

impl ModuleFamily {
    /// Whether a package is a folder of files that see each other's names without imports.
    pub fn has_packages(self) -> bool {
        matches!(
            self,
            ModuleFamily::Go | ModuleFamily::Java | ModuleFamily::CSharp | ModuleFamily::Php
        )
    }

    /// Whether functions and types are named program-wide (C's linker, Ruby's constants, PHP's
    /// functions and classes): one definition of a name in the tree is what the name means
    /// where nothing else binds it.
    pub fn has_global_names(self) -> bool {
        matches!(
            self,
            ModuleFamily::C | ModuleFamily::Ruby | ModuleFamily::Php
        )
    }

    /// Whether a method names its instance's fields without `this.` (Java, C#, C++).
    pub fn implicit_this(self) -> bool {
        matches!(
            self,
            ModuleFamily::Java | ModuleFamily::CSharp | ModuleFamily::C
        )
    }

    /// Whether a namespace block (C++, C#) or a module (Ruby) leaves the names inside it
    /// reachable as the file's own from other files, once the file is imported or by name.
    pub fn opens_namespaces(self) -> bool {
        matches!(
            self,
            ModuleFamily::C | ModuleFamily::CSharp | ModuleFamily::Ruby
        )
    }

    /// Whether module names are resolved by their tails (`b.c` finds `a.b.c`).
    pub fn matches_suffixes(self) -> bool {
        !matches!(
            self,
            ModuleFamily::Rust | ModuleFamily::Go | ModuleFamily::Other
        )
    }

    /// Whether a method sees its class's members by their bare names (Java), rather than
    /// through `self`/`this` only.
    pub fn class_scope_is_visible(self) -> bool {
        matches!(
            self,
            ModuleFamily::Java | ModuleFamily::CSharp | ModuleFamily::C | ModuleFamily::Ruby
        )
    }
}

/// Methods and types of a language's standard library (iterators, options, strings,
/// collections, I/O; `Result`, `HashMap`) that trees often define too: a call `x.map(…)` on
/// a receiver of a type resolution cannot see, or a type named without an import that binds
/// it, is far more often the standard one, so it gets no edge by name alone. Both lists are
/// sorted. Python's stay empty (its by-name rules are checked against `ast`), and so do the
/// languages no list was measured for.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommonNames {
    pub methods: &'static [&'static str],
    pub types: &'static [&'static str],
}

impl CommonNames {
    pub const NONE: CommonNames = CommonNames {
        methods: &[],
        types: &[],
    };

    pub fn is_common_method(&self, name: &str) -> bool {
        self.methods.binary_search(&name).is_ok()
    }

    pub fn is_common_type(&self, name: &str) -> bool {
        self.types.binary_search(&name).is_ok()
    }
}

/// How resolution reads one language. See the module documentation.
#[derive(Debug, Clone, Copy, Default)]
pub struct ModuleRules {
    pub family: ModuleFamily,
    pub common: CommonNames,
}

impl ModuleRules {
    /// A family's rules with no common names.
    pub const fn of(family: ModuleFamily) -> ModuleRules {
        ModuleRules {
            family,
            common: CommonNames::NONE,
        }
    }
}
