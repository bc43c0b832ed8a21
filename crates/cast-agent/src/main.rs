//! `cast`: the command line of CAST. See `cast --help`; the commands live in `cast_agent::cli`.

fn main() -> std::process::ExitCode {
    cast_agent::cli::main()
}
