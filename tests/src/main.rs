//! The `cast` command, built inside the end-to-end test package (see Cargo.toml).

fn main() -> std::process::ExitCode {
    cast_cli::main()
}
