//! A writer killed at random points (SIGKILL) never leaves the target truncated or missing:
//! it holds the old bytes or the new, whole.
//!
//! The test re-runs this test binary as a child that applies edits through [`Coder`] in a loop
//! (flipping a large file between two versions, journal on), kills it with SIGKILL after a
//! random delay, and checks the target. Repeated 30 times. The delay range is calibrated first:
//! a child runs until its first write lands (time T, which depends on the build profile and the
//! machine's load), and kill delays are then drawn from 0..3T, so the child's start, its reads,
//! journal writes and target writes all get hit.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cast_coder::{Coder, Edit, FileEdit, Format};

const CHILD_ENV: &str = "CAST_CODER_CRASH_CHILD";

fn version(tag: &str) -> String {
    // ~0.4 MB, so one write takes long enough to be interrupted.
    let mut s = format!("STATE = {tag:?}\n");
    for i in 0..8_000 {
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
    // Start from whichever version the last (killed) child left.
    let target = Path::new(&dir).join("big.py");
    let starts_a = std::fs::read_to_string(&target)
        .unwrap()
        .starts_with("STATE = \"a\"");
    let (first, second) = if starts_a { ("a", "b") } else { ("b", "a") };
    loop {
        flip(&coder, first, second);
        flip(&coder, second, first);
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
    let spawn = || {
        Command::new(&exe)
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
            .unwrap()
    };
    // Calibrate: how long until the child's first write lands.
    let start = Instant::now();
    let mut child = spawn();
    while std::fs::read(&target).is_ok_and(|bytes| bytes == a) {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the child never wrote"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let first_write = start.elapsed();
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::write(&target, &a).unwrap();
    let range_ms = (first_write.as_millis() as u64 * 3).max(50);
    let mut seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("crash test seed {seed}, first write after {first_write:?}");
    let mut writes_seen = 0;
    for round in 0..30 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_millis(seed % range_ms);
        let before = std::fs::read(&target).unwrap();
        let mut child = spawn();
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
        writes_seen += usize::from(bytes != before);
    }
    // Some kills landed after a write (otherwise the test proved little).
    eprintln!("crash test: {writes_seen} of 30 rounds changed the file");
    assert!(writes_seen > 0, "no round changed the file (seed {seed})");
}
