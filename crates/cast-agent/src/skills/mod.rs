//! Skills: presets of the agent loop that write and improve agents.
//!
//! A [`Skill`] is a role, extra rules and an allowed tool list; its validation is the agent
//! package's own check (Python compiles, `python -m PKG.selfcheck` passes), run by the agent's
//! test-fix loop whenever the model calls `finish` after changing files, with at most three
//! repair rounds. [`text2agent`] builds a new agent from a template; [`optimize`] improves one
//! from an execution trace. A third skill is one more small file like those two.

pub mod optimize;
pub mod templates;
pub mod text2agent;

use std::path::Path;
use std::time::Duration;

use cast_tools::cast_sandbox::Sandbox;

/// A preset of the agent loop.
#[derive(Debug, Clone, Copy)]
pub struct Skill {
    pub name: &'static str,
    /// Replaces the agent's role in the system prompt.
    pub role: &'static str,
    /// Added to the agent's rules.
    pub rules: &'static str,
    /// The tools the skill may use (the rest of the registry is removed).
    pub tools: &'static [&'static str],
}

/// The tools both skills use: understand (L1, L2, L3), read, and edit; no shell.
pub const AGENT_EDITING_TOOLS: &[&str] = &[
    "analyze_repository",
    "get_skeleton",
    "show_symbol",
    "find_symbol",
    "read_file",
    "list_dir",
    "grep_search",
    "glob_search",
    "search_replace",
    "edit_file",
    "apply_ops",
    "delete_file",
    "undo_edit",
    "finish",
];

/// The command that validates an agent package folder: every Python file compiles and, when
/// the package has a `selfcheck.py`, `python3 -m PKG.selfcheck` passes (run from the parent
/// folder so the package imports by its name).
pub fn validation_command(package_dir: &Path) -> String {
    let compile = "python3 -m compileall -q .";
    match package_dir.file_name().and_then(|n| n.to_str()) {
        Some(pkg) if package_dir.join("selfcheck.py").is_file() && is_identifier(pkg) => {
            format!("{compile} && cd .. && python3 -m {pkg}.selfcheck")
        }
        _ => compile.to_owned(),
    }
}

/// Runs the validation in the package folder, confined by `sandbox`; `(passed, output)`.
pub fn validate(sandbox: &Sandbox, package_dir: &Path) -> (bool, String) {
    let command = validation_command(package_dir);
    match cast_tools::tools::run_shell(sandbox, package_dir, &command, Duration::from_secs(120)) {
        Ok(r) => {
            let mut output = format!("$ {command}\n{}{}", r.stdout, r.stderr);
            if let Some(note) = &r.sandbox_note {
                output.push_str(note);
                output.push('\n');
            }
            (r.exit_code == Some(0), output)
        }
        Err(e) => (false, format!("$ {command}\nnot run: {e}")),
    }
}

/// A Python identifier (a package name that `python -m` can import).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_identifier("travel_agent"));
        assert!(!is_identifier("travel-agent"));
        assert!(!is_identifier("1agent"));
        assert!(!is_identifier(""));
    }

    #[test]
    fn validation_uses_the_selfcheck_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = dir.path().join("demo_agent");
        std::fs::create_dir(&pkg).unwrap();
        assert_eq!(validation_command(&pkg), "python3 -m compileall -q .");
        std::fs::write(pkg.join("selfcheck.py"), "").unwrap();
        assert!(validation_command(&pkg).ends_with("cd .. && python3 -m demo_agent.selfcheck"));
    }
}
