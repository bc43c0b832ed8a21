//! Latency of search-replace matching on a 20,000-line file.
//!
//! Method: the file is the first 20,000 lines of the Python standard library's `.py` files
//! concatenated in sorted path order (real code; found with `python3`), or, without Python, a
//! deterministic synthetic Python-like file of the same size. A block of 8 consecutive lines
//! near line 12,000 is taken as SEARCH with one word of one line changed, so only the
//! similarity tier can place it; REPLACE changes a line. `cast_coder::plan` (pure: no I/O) runs
//! 30 times after 3 warm-up runs; the median, min and max wall times are printed. The same is
//! done for the exact block (the first tier hits) and for a block found nowhere (every tier
//! runs, then the closest candidate is computed for the refusal message).
//!
//! Run: `cargo bench -p cast-coder --bench fuzzy` (release profile).

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use cast_coder::{Block, Edit, Tier, plan};

const LINES: usize = 20_000;

fn stdlib_text() -> Option<(String, String)> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .ok()?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    let mut lines: Vec<String> = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        lines.extend(text.lines().map(str::to_owned));
        if lines.len() >= LINES {
            break;
        }
    }
    lines.truncate(LINES);
    (lines.len() == LINES).then(|| {
        (
            lines.join("\n") + "\n",
            format!("Python stdlib under {}", root.display()),
        )
    })
}

fn synthetic_text() -> (String, String) {
    let mut state: u64 = 0x9e3779b97f4a7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let words = [
        "value", "result", "items", "count", "total", "name", "index", "config", "handler",
        "buffer",
    ];
    let mut lines = Vec::with_capacity(LINES);
    while lines.len() < LINES {
        let f = next() % 100_000;
        lines.push(format!("def function_{f}(arg, other=None):"));
        for _ in 0..(3 + next() % 8) {
            let a = words[(next() % 10) as usize];
            let b = words[(next() % 10) as usize];
            lines.push(format!(
                "    {a}_{} = {b}.compute(arg, {})",
                next() % 1000,
                next() % 100
            ));
        }
        lines.push("    return None".to_owned());
        lines.push(String::new());
    }
    lines.truncate(LINES);
    (
        lines.join("\n") + "\n",
        "synthetic Python-like code".to_owned(),
    )
}

fn time(edit: &Edit, text: &str) -> (Duration, Duration, Duration) {
    for _ in 0..3 {
        let _ = plan(edit, text);
    }
    let mut times: Vec<Duration> = (0..30)
        .map(|_| {
            let t = Instant::now();
            let _ = std::hint::black_box(plan(edit, text));
            t.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0], times[times.len() - 1])
}

fn main() {
    let (text, source) = stdlib_text().unwrap_or_else(synthetic_text);
    let lines: Vec<&str> = text.lines().collect();
    // A distinctive 8-line block near line 12,000 whose one-word change the fuzzy tier places.
    let mut chosen = None;
    for start in 12_000..13_000 {
        let block: Vec<String> = lines[start..start + 8]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if block.iter().any(|l| l.trim().is_empty()) {
            continue;
        }
        let Some((i, word)) = block.iter().enumerate().find_map(|(i, l)| {
            l.split(|c: char| !c.is_alphanumeric() && c != '_')
                .find(|w| w.len() >= 6)
                .map(|w| (i, w.to_owned()))
        }) else {
            continue;
        };
        let mut search = block.clone();
        search[i] = search[i].replacen(&word, &format!("{word}x"), 1);
        let mut replace = block.clone();
        replace[7] = format!("{}  # changed", replace[7]);
        let edit = Edit::SearchReplace {
            blocks: vec![Block {
                search,
                replace: replace.clone(),
                edit_line: 0,
                exact_only: false,
            }],
        };
        if let Ok(p) = plan(&edit, &text)
            && p.blocks[0].tier == Tier::Fuzzy
        {
            let exact = Edit::SearchReplace {
                blocks: vec![Block {
                    search: block.clone(),
                    replace,
                    edit_line: 0,
                    exact_only: false,
                }],
            };
            chosen = Some((start, edit, exact, p.blocks[0].similarity));
            break;
        }
    }
    let Some((start, fuzzy, exact, similarity)) = chosen else {
        eprintln!("no block near line 12,000 is placed by the similarity tier; nothing measured");
        return;
    };
    let missing = Edit::SearchReplace {
        blocks: vec![Block::new(
            "def nowhere_in_this_file(alpha, beta):\n    gamma = alpha.combine(beta)\n    return gamma.finish()\n",
            "pass\n",
        )],
    };
    println!("file: {LINES} lines, {} bytes, {source}", text.len());
    println!(
        "block: 8 lines at line {}, similarity {:.3}",
        start + 1,
        similarity.unwrap_or(0.0)
    );
    for (name, edit) in [
        ("fuzzy tier (applied)", &fuzzy),
        ("exact tier (applied)", &exact),
        ("not found (refused)", &missing),
    ] {
        let (median, min, max) = time(edit, &text);
        println!(
            "{name:<22} median {:>8.2} ms   min {:>8.2} ms   max {:>8.2} ms",
            ms(median),
            ms(min),
            ms(max)
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
