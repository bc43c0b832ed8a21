//! The index on real fixtures: resolved edges and PageRank order checked by hand, refresh after
//! edits, and the L1/L2/L3 and search entry points.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use cast_analyzer::{Index, MapOptions};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A copy of a fixture in a temporary folder (the index writes `.cast/` into its root).
fn copy_fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(name), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn debug_dump() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    for e in index.edges().unwrap() {
        println!("{:?} {}:{:?} -> {}:{} {:?} {}", e.kind, e.src_path, e.src, e.dst_path, e.dst, e.how, e.weight);
    }
    for s in index.top_symbols(20).unwrap() {
        println!("{:.4} {} {}", s.rank, s.path, s.qualname);
    }
    for f in index.top_files(20).unwrap() {
        println!("{:.4} {} {:?}", f.rank, f.path, f.imports);
    }
    println!("{}", index.map(&MapOptions::default()).unwrap().render());
    println!("{}", index.show("Store.value").unwrap().render());
    println!("{}", index.find("round money to cents", 5).unwrap().render());
    println!("{:?}", index.report());
}
