//! The `cast` command of the Python wheel: `cast_cli::main` with the allocator the `cast` binary
//! of cast-cli installs — the same program, built from this package so that it shares one
//! build of every dependency with the `cast._native` module (see the crate documentation).
//! The wheel ships it as `cast`.

// As crates/cast-cli/src/main.rs: parsing allocates millions of small nodes on every core.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cast_cli::main()
}
