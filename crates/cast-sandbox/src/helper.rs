//! The helper's side: parse what the spawning side said, confine this process, exec the command.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::{ConfinementError, WriteScope, platform};

/// What the helper is asked to do: `--scope S --root DIR --temp DIR -- PROGRAM [ARGS…]`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct HelperArgs {
    pub scope: WriteScope,
    pub root: PathBuf,
    pub temp: PathBuf,
    pub program: OsString,
    pub args: Vec<OsString>,
}

impl HelperArgs {
    pub(crate) fn parse(
        args: impl IntoIterator<Item = OsString>,
    ) -> Result<Self, ConfinementError> {
        let bad = |what: &str| ConfinementError::HelperArgs(what.to_owned());
        let mut args = args.into_iter();
        let (mut scope, mut root, mut temp) = (None, None, None);
        loop {
            let flag = args
                .next()
                .ok_or_else(|| bad("no `--` before the command"))?;
            if flag == "--" {
                break;
            }
            let value = args
                .next()
                .ok_or_else(|| bad(&format!("{} needs a value", flag.to_string_lossy())))?;
            match flag.to_str() {
                Some("--scope") => scope = Some(value.to_string_lossy().parse::<WriteScope>()?),
                Some("--root") => root = Some(PathBuf::from(value)),
                Some("--temp") => temp = Some(PathBuf::from(value)),
                _ => return Err(bad(&format!("unknown flag {}", flag.to_string_lossy()))),
            }
        }
        let program = args.next().ok_or_else(|| bad("no command after `--`"))?;
        Ok(HelperArgs {
            scope: scope.ok_or_else(|| bad("--scope is missing"))?,
            root: root.ok_or_else(|| bad("--root is missing"))?,
            temp: temp.ok_or_else(|| bad("--temp is missing"))?,
            program,
            args: args.collect(),
        })
    }
}

/// The helper's whole job, for the `main` of a helper binary: confines the calling process
/// (which must be single-threaded: call this first thing in `main`) as the arguments say, then
/// replaces it with the command. It returns only when something failed, and then nothing was
/// run; print the error and exit with status 126 ("cannot execute"), as shells do.
///
/// `args` are the helper protocol's arguments, after the program name and any subcommand.
pub fn confine_and_exec(args: impl IntoIterator<Item = OsString>) -> ConfinementError {
    let args = match HelperArgs::parse(args) {
        Ok(args) => args,
        Err(err) => return err,
    };
    if let Err(err) = platform::confine(args.scope, &args.root, &args.temp) {
        return err;
    }
    exec(&args.program, &args.args)
}

#[cfg(unix)]
fn exec(program: &OsString, args: &[OsString]) -> ConfinementError {
    use std::os::unix::process::CommandExt;
    let source = std::process::Command::new(program).args(args).exec();
    ConfinementError::Exec {
        program: program.to_string_lossy().into_owned(),
        source,
    }
}

#[cfg(not(unix))]
fn exec(program: &OsString, _args: &[OsString]) -> ConfinementError {
    ConfinementError::Exec {
        program: program.to_string_lossy().into_owned(),
        source: std::io::Error::from(std::io::ErrorKind::Unsupported),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn parses_the_protocol() {
        let parsed = HelperArgs::parse(os(&[
            "--scope",
            "workspace",
            "--root",
            "/w",
            "--temp",
            "/t",
            "--",
            "sh",
            "-c",
            "true",
        ]))
        .unwrap();
        assert_eq!(parsed.scope, WriteScope::Workspace);
        assert_eq!(
            (parsed.program.as_os_str(), parsed.args.len()),
            ("sh".as_ref(), 2)
        );
    }

    #[test]
    fn refuses_incomplete_arguments() {
        for args in [
            &["--scope", "workspace", "--root", "/w", "--", "sh"][..],
            &[
                "--scope",
                "everything",
                "--root",
                "/w",
                "--temp",
                "/t",
                "--",
                "sh",
            ],
            &["--scope", "workspace", "--root", "/w", "--temp", "/t", "--"],
            &["--scope", "workspace", "--root", "/w", "--temp", "/t", "sh"],
        ] {
            assert!(
                matches!(
                    HelperArgs::parse(os(args)),
                    Err(ConfinementError::HelperArgs(_))
                ),
                "{args:?}"
            );
        }
    }
}
