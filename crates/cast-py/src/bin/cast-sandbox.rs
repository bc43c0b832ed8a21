//! The command sandbox's helper of the Python wheel, as crates/cast-cli/src/bin/cast-sandbox.rs:
//! it confines itself, then becomes the command. The wheel ships it as `cast-sandbox`, beside
//! `cast`, where `cast` looks for it.

fn main() -> std::process::ExitCode {
    let err = cast_tools::cast_sandbox::confine_and_exec(std::env::args_os().skip(1));
    eprintln!("cast-sandbox: {err}");
    std::process::ExitCode::from(126)
}
