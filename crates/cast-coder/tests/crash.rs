//! A writer killed at random points (SIGKILL) never leaves the target truncated or missing:
//! it holds the old bytes or the new, whole.
//!
//! The test re-runs this test binary as a child that applies edits through [`Coder`] in a loop
//! (flipping a large file between two versions, journal on), kills it with SIGKILL after a
//! random delay (20-720 ms: the child's start, its reads, journal writes and target writes
//! all get hit), and checks the target. Repeated 30 times.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cast_coder::{Coder, Edit, FileEdit, Format};

const CHILD_ENV: &str = "CAST_CODER_CRASH_CHILD";

fn version(tag: &str) -> String {
    // ~0.8 MB, so one write takes long enough to be interrupted.
    let mut s = format!("STATE = {tag:?}\n");
    for i in 0..15_000 {
        s.push_str(&format!(
            "line_{i} = compute({i}, {tag:?})  # padding padding\n"
        ));
    }
    s
}

fn flip(coder: &Coder, from: &str, to: &str) {
    let edit = Edit::parse(
        Format::SearchReplace,
        &format!("------- SEARCH\nSTATE = {from:?}\n=======\nSTATE = {to:?}\n+++++++ REPLACE\n"),
    )
    .unwrap();
    coder.apply(&[FileEdit::new("big.py", edit)]).unwrap();
}

/// The child: flips the file between its two versions until it is killed.
#[test]
#[ignore = "run by crash::sigkill_never_truncates as a child process"]
fn crash_child_writer() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let coder = Coder::new(Path::new(&dir));
    loop {
        flip(&coder, "a", "b");
        flip(&coder, "b", "a");
    }
}

#[cfg(unix)]
#[test]
fn sigkill_never_truncates() {
    let old = version("a");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("big.py");
    let a = old.clone().into_bytes();
    let b = old
        .replacen("STATE = \"a\"", "STATE = \"b\"", 1)
        .into_bytes();
    std::fs::write(&target, &a).unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("crash test seed {seed}");
    let mut seen_b = false;
    for round in 0..30 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_millis(20 + seed % 700);
        let mut child = Command::new(&exe)
            .args([
                "crash::crash_child_writer",
                "--exact",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        std::thread::sleep(delay);
        child.kill().unwrap(); // SIGKILL on Unix
        child.wait().unwrap();
        let bytes = std::fs::read(&target).unwrap_or_else(|e| {
            panic!(
                "round {round}: target missing after SIGKILL at {:?}: {e}",
                start.elapsed()
            )
        });
        assert!(
            bytes == a || bytes == b,
            "round {round}: target holds {} bytes, neither version (killed after {delay:?})",
            bytes.len()
        );
        seen_b |= bytes == b;
    }
    // The child did get to write (otherwise the test proved nothing).
    assert!(
        seen_b || std::fs::read_dir(dir.path().join(".cast/undo")).is_ok_and(|d| d.count() > 0)
    );
}
