//! `cast-sandbox`: the command sandbox's helper, installed beside `cast`. `cast` starts it for
//! every confined command; being small, it starts in about 1 ms where `cast` itself takes about
//! 8 (bench/command_sandbox.py). It confines itself, then becomes the command.

fn main() -> std::process::ExitCode {
    let err = cast_tools::cast_sandbox::confine_and_exec(std::env::args_os().skip(1));
    eprintln!("cast-sandbox: {err}");
    std::process::ExitCode::from(126)
}
