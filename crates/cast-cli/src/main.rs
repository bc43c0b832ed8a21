//! `cast`: the command line of CAST. See `cast --help`; the commands live in the `cast_cli` library.

// Parsing a tree allocates millions of small syntax nodes on every core; mimalloc does that
// markedly faster than glibc's malloc (see bench/README.md, `symbols.py`).
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
