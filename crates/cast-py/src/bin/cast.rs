//! The `cast` command of the Python wheel: `cast_cli::main` with the allocator the `cast` binary
//! of cast-cli installs — the same program, built from this package so that it shares one
//! build of every dependency with the `cast._native` module (see the crate documentation).
//! The wheel ships it as `cast`.

// As crates/cast-cli/src/main.rs: parsing allocates millions of small nodes on every core.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // SAFETY: the first thing the program does: no tree-sitter object exists yet, and no
    // other thread.
    #[allow(unsafe_code)]
    unsafe {
        cast_cli::set_up_allocation()
    };
    cast_cli::main()
}
