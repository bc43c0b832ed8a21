//! `cast-sandbox-helper --scope S --root DIR --temp DIR -- PROGRAM [ARGS…]`: the sandbox helper
//! on its own, for programs that embed cast-tools without the `cast` binary (which installs its
//! own `cast-sandbox` beside it), and for this crate's tests.

fn main() -> std::process::ExitCode {
    let err = cast_sandbox::confine_and_exec(std::env::args_os().skip(1));
    eprintln!("cast-sandbox-helper: {err}");
    std::process::ExitCode::from(126)
}
