//! Times cutting files into their full-text terms ([`cast_index::text::search_terms`]) alone,
//! on one thread, with the `cast` binary's allocator: what a change to the cutting gains, apart
//! from the noise of a whole build.
//!
//! ```sh
//! cargo build --release -p cast-index --example terms_micro
//! target/release/examples/terms_micro ROOT [EVERY [ROUNDS]]
//! ```
//!
//! It parses every `EVERY`th file under `ROOT` (default 4) first, then cuts them all `ROUNDS`
//! times (default 3), printing each round's seconds and a hash of every field cut: two builds
//! of the cutting that print the same hash cut the same terms.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::Instant;

use cast_index::cast_parser::{Registry, SourceText};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(
        args.next()
            .ok_or("usage: terms_micro ROOT [EVERY [ROUNDS]]")?,
    );
    let every: usize = args.next().map_or(Ok(4), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let registry = Registry::default();
    let mut files = Vec::new();
    for path in files_under(&root).into_iter().step_by(every.max(1)) {
        let Some(language) = registry.for_path(&path) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(source) = SourceText::from_bytes(&path, bytes) else {
            continue;
        };
        let Ok(parsed) = language.parse(&source.text) else {
            continue;
        };
        let rel = path.strip_prefix(&root)?.to_string_lossy().into_owned();
        files.push((rel, source.text, parsed));
    }
    let bytes: usize = files.iter().map(|(_, text, _)| text.len()).sum();
    eprintln!("{} files, {bytes} bytes", files.len());
    for _ in 0..rounds {
        let started = Instant::now();
        let mut hash = std::collections::hash_map::DefaultHasher::new();
        for (rel, text, parsed) in &files {
            let (file, symbols) = cast_index::text::search_terms(rel, text, parsed);
            (&file.path, &file.doc, &file.body).hash(&mut hash);
            for s in &symbols {
                (&s.name, &s.name_split, &s.context, &s.signature, &s.doc).hash(&mut hash);
            }
        }
        println!(
            "{:.3}s hash {:016x}",
            started.elapsed().as_secs_f64(),
            hash.finish()
        );
    }
    Ok(())
}

/// Every file under `root`, sorted.
fn files_under(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for path in entries.flatten().map(|e| e.path()) {
            if path.is_dir() {
                folders.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
