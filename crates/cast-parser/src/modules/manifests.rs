//! The manifests that name a module otherwise than its path says: a Rust crate's `Cargo.toml`
//! and a Go module's `go.mod`. The index finds and reads the files; this says what a file's text
//! declares.
//!
//! ```
//! use cast_parser::modules::manifests::{go_module_path, rust_crate_name};
//!
//! assert_eq!(rust_crate_name("[package]\nname = \"serde-json\"\n").as_deref(), Some("serde_json"));
//! assert_eq!(go_module_path("module github.com/spf13/cobra\n\ngo 1.15\n").as_deref(), Some("github.com/spf13/cobra"));
//! ```

/// The manifest beside a Rust crate's `src/`.
pub const CARGO_MANIFEST: &str = "Cargo.toml";

/// The manifest at the root of a Go module.
pub const GO_MANIFEST: &str = "go.mod";

/// The crate name a `Cargo.toml` declares (`[lib] name`, else `[package] name`), spelled as
/// Rust code names it (`-` as `_`); `None` for a manifest that does not parse or names none.
pub fn rust_crate_name(manifest: &str) -> Option<String> {
    let manifest = manifest.parse::<toml::Table>().ok()?;
    ["lib", "package"]
        .iter()
        .find_map(|section| {
            manifest
                .get(*section)
                .and_then(|s| s.get("name"))
                .and_then(toml::Value::as_str)
        })
        .map(|name| name.replace('-', "_"))
}

/// The module path a `go.mod` declares in its `module` line (quotes taken off); `None` when it
/// declares none.
pub fn go_module_path(go_mod: &str) -> Option<String> {
    go_mod
        .lines()
        .find_map(|l| {
            let rest = l.trim().strip_prefix("module")?;
            rest.starts_with(char::is_whitespace)
                .then(|| rest.trim().trim_matches('"').to_owned())
        })
        .filter(|m| !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cargo_manifest_names_its_library_before_its_package() {
        let both = "[package]\nname = \"cast-cli\"\n\n[lib]\nname = \"cast\"\n";
        assert_eq!(rust_crate_name(both).as_deref(), Some("cast"));
        assert_eq!(
            rust_crate_name("[package]\nname = \"cast-cli\"\n").as_deref(),
            Some("cast_cli")
        );
        assert_eq!(rust_crate_name("[workspace]\nmembers = []\n"), None);
        assert_eq!(rust_crate_name("[package\nname ="), None);
    }

    #[test]
    fn a_go_mod_names_its_module_on_its_module_line() {
        let text = "// comment\nmodule \"example.com/m\"\n\nrequire x v1\n";
        assert_eq!(go_module_path(text).as_deref(), Some("example.com/m"));
        assert_eq!(go_module_path("modules x\n"), None);
        assert_eq!(go_module_path("module\n"), None);
        assert_eq!(go_module_path("go 1.21\n"), None);
    }
}
