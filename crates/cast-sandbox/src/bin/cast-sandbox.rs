//! `cast-sandbox --scope S --root DIR --temp DIR -- PROGRAM [ARGS…]`: the sandbox helper on its
//! own, for programs that embed cast-tools without the `cast` binary (which is its own helper).

fn main() -> std::process::ExitCode {
    let err = cast_sandbox::confine_and_exec(std::env::args_os().skip(1));
    eprintln!("cast-sandbox: {err}");
    std::process::ExitCode::from(126)
}
