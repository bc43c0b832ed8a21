//! Builds or refreshes the index of a tree and prints what the build did, with the system
//! allocator: what a heap profiler (heaptrack, valgrind's massif) reads, where the `cast`
//! binary's mimalloc would hide the allocations from it.
//!
//! ```sh
//! cargo build --profile profiling -p cast-index --example build_index
//! heaptrack target/profiling/examples/build_index PATH [--db FILE]
//! ```

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let root = PathBuf::from(args.next().ok_or("usage: build_index PATH [--db FILE]")?);
    let mut options = cast_index::IndexOptions::default();
    if args.next().is_some_and(|a| a == "--db") {
        options.db_path = Some(PathBuf::from(args.next().ok_or("--db needs a FILE")?));
    }
    let index = cast_index::Index::open_with(&root, &options, &mut |_| {})?;
    let report = index
        .report()
        .ok_or("the index was current: nothing was built")?;
    println!("{}", serde_json::to_string_pretty(report)?);
    Ok(())
}
