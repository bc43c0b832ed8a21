//! The command sandbox's settings for `run`, `chat`, `tool`, `mcp` and the skills: the mode
//! from `--sandbox` > `CAST_SANDBOX` > `ROOT/.cast/config.toml` > `~/.config/cast/config.toml`
//! (`[sandbox] mode = "…"`) > `workspace-write`; the helper is the `cast-sandbox` binary beside
//! `cast` (this package's second binary), or `cast` itself.

use std::ffi::OsString;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use cast_agent::config;
use cast_tools::cast_sandbox::{self, Helper, Sandbox, SandboxMode, Simulate};

/// The hidden first argument that makes `cast` the sandbox helper: `cast __sandbox-exec
/// --scope S --root DIR --temp DIR -- PROGRAM [ARGS…]`.
pub const SANDBOX_EXEC: &str = "__sandbox-exec";

/// The `--sandbox` flag, shared by every command that can run commands for a model.
#[derive(Debug, Clone, clap::Args)]
pub struct SandboxArgs {
    /// How commands run for the model (run_command, --test-cmd, the skills' validation) are
    /// confined: `workspace-write` (default: write only inside the workspace, never its .git/
    /// or .cast/, and in a private $TMPDIR; no network), `read-only` (write only in $TMPDIR; no
    /// network) or `danger-full-access` (no confinement). Also CAST_SANDBOX or `[sandbox] mode`
    /// in a config file.
    #[arg(long, value_name = "MODE")]
    pub sandbox: Option<SandboxMode>,
}

/// What the tools refuse and how the commands they run are confined: the flags of every
/// command that lets a model act (`run`, `chat`, `tool`, `mcp`), declared once here.
#[derive(Debug, Clone, clap::Args)]
pub struct GuardArgs {
    /// Refuse an edit that leaves a file which parses unparseable (by default the edit is
    /// applied and its result names the line and the parser's message).
    #[arg(long)]
    pub refuse_syntax_errors: bool,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
}

impl GuardArgs {
    /// Sets the tools of `ctx` to refuse and confine as the flags say.
    pub fn apply_to(&self, ctx: &mut cast_tools::ToolContext) -> anyhow::Result<()> {
        ctx.refuse_syntax_errors = self.refuse_syntax_errors;
        ctx.sandbox = resolve(&self.sandbox, ctx.workspace.root())?;
        Ok(())
    }
}

/// The sandbox for `root` from the flag, the environment and the config files.
pub fn resolve(args: &SandboxArgs, root: &Path) -> anyhow::Result<Sandbox> {
    resolve_with(args, root, &|k| std::env::var(k).ok())
}

fn resolve_with(
    args: &SandboxArgs,
    root: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Sandbox> {
    let env = |k: &str| env(k).filter(|v| !v.trim().is_empty());
    let from_file = |path: Option<std::path::PathBuf>| -> anyhow::Result<Option<SandboxMode>> {
        let Some(path) = path else { return Ok(None) };
        let Some(file) = config::read_file(&path)? else {
            return Ok(None);
        };
        file.sandbox
            .mode
            .map(|m| m.parse::<SandboxMode>())
            .transpose()
            .with_context(|| format!("in {}", path.display()))
    };
    let mode = match (args.sandbox, env("CAST_SANDBOX")) {
        (Some(mode), _) => mode,
        (None, Some(value)) => value.parse().context("in CAST_SANDBOX")?,
        (None, None) => {
            let project_path = config::project_config_path(root);
            match from_file(Some(project_path.clone()))? {
                // A repository could ship this file: it may tighten the sandbox, not drop it.
                Some(SandboxMode::DangerFullAccess) => anyhow::bail!(
                    "{} asks for sandbox mode danger-full-access; a workspace's own config may not turn the command sandbox off (a repository could ship it). Choose it yourself with --sandbox danger-full-access, CAST_SANDBOX or ~/.config/cast/config.toml",
                    project_path.display()
                ),
                Some(mode) => mode,
                None => from_file(config::user_config_path())?.unwrap_or_default(),
            }
        }
    };
    let simulate = env("CAST_SANDBOX_SIMULATE")
        .map(|v| v.parse::<Simulate>())
        .transpose()
        .context("in CAST_SANDBOX_SIMULATE")?;
    let helper = std::env::current_exe().ok().map(|exe| helper_for(&exe));
    Ok(Sandbox {
        mode,
        helper,
        simulate,
    })
}

/// The helper for the `cast` binary at `exe`: the `cast-sandbox` binary installed beside it by
/// the same package (it starts in about 1 ms, `cast` in about 8), else `cast __sandbox-exec`
/// itself. Never a binary found elsewhere: a stale or foreign helper must not be picked up.
fn helper_for(exe: &Path) -> Helper {
    let sibling = exe.with_file_name(format!("cast-sandbox{}", std::env::consts::EXE_SUFFIX));
    if sibling.is_file() && exe.file_name() != sibling.file_name() {
        Helper::new(sibling)
    } else {
        Helper::new(exe).arg(SANDBOX_EXEC)
    }
}

/// `cast __sandbox-exec …`: confine this process and become the command, before anything else
/// runs (the process must still be single-threaded). `None` when `cast` was not called so.
pub fn dispatch_helper() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(SANDBOX_EXEC.as_ref()) {
        return None;
    }
    let args: Vec<OsString> = args.collect();
    let err = cast_sandbox::confine_and_exec(args);
    eprintln!("cast: {err}");
    Some(ExitCode::from(126))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn flag_beats_environment_beats_the_workspace_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".cast")).unwrap();
        std::fs::write(
            dir.path().join(".cast/config.toml"),
            "[sandbox]\nmode = \"read-only\"\n",
        )
        .unwrap();
        let none = SandboxArgs { sandbox: None };
        let flag = SandboxArgs {
            sandbox: Some(SandboxMode::DangerFullAccess),
        };
        let env = env_of(&[("CAST_SANDBOX", "workspace-write")]);
        assert_eq!(
            resolve_with(&flag, dir.path(), &env).unwrap().mode,
            SandboxMode::DangerFullAccess
        );
        assert_eq!(
            resolve_with(&none, dir.path(), &env).unwrap().mode,
            SandboxMode::WorkspaceWrite
        );
        assert_eq!(
            resolve_with(&none, dir.path(), &env_of(&[])).unwrap().mode,
            SandboxMode::ReadOnly
        );
    }

    #[test]
    fn the_workspace_file_cannot_turn_the_sandbox_off() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".cast")).unwrap();
        std::fs::write(
            dir.path().join(".cast/config.toml"),
            "[sandbox]\nmode = \"danger-full-access\"\n",
        )
        .unwrap();
        let err =
            resolve_with(&SandboxArgs { sandbox: None }, dir.path(), &env_of(&[])).unwrap_err();
        assert!(
            err.to_string()
                .contains("may not turn the command sandbox off"),
            "{err}"
        );
    }

    #[test]
    fn unknown_modes_and_simulations_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let none = SandboxArgs { sandbox: None };
        let err = resolve_with(&none, dir.path(), &env_of(&[("CAST_SANDBOX", "off")])).unwrap_err();
        assert!(format!("{err:#}").contains("danger-full-access"), "{err:#}");
        let err = resolve_with(
            &none,
            dir.path(),
            &env_of(&[("CAST_SANDBOX_SIMULATE", "x")]),
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("no-landlock"), "{err:#}");
    }
}
