//! The agent templates shipped with CAST (`templates/` in the repository), built into the binary
//! so `cast text2agent --template NAME` works from anywhere.

/// A template: its name and its files (path relative to the package folder, text).
#[derive(Debug, Clone, Copy)]
pub struct Template {
    pub name: &'static str,
    pub files: &'static [(&'static str, &'static str)],
}

macro_rules! template {
    ($name:literal: $($file:literal),+) => {
        Template {
            name: $name,
            files: &[$(($file, include_str!(concat!("../../../../templates/", $name, "/", $file)))),+],
        }
    };
}

/// The built-in templates.
pub const TEMPLATES: &[Template] = &[
    template!("gaia_agent": "README.md", "__init__.py", "gaia_agent.py", "mcp_config.py", "selfcheck.py"),
    template!("ppt_agent": "README.md", "__init__.py", "ppt_agent.py", "mcp_config.py", "selfcheck.py"),
];

/// A built-in template by name.
pub fn builtin(name: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|t| t.name == name)
}
