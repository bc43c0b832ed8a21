//! The searcher's behaviour on small real trees: ripgrep's walking rules, the cap's
//! determinism, read's guard, the tree drawing, and errors instead of panics.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use cast_searcher::{
    EntryKind, FindFilesOptions, GlobOptions, GrepOptions, ListOptions, ReadOptions, SearchError,
    WalkOptions, find_files, glob, grep, list_dir, read,
};

fn write(root: &Path, rel: &str, contents: impl AsRef<[u8]>) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, contents).unwrap();
}

fn uncapped() -> GrepOptions {
    GrepOptions {
        max_results: 0,
        ..GrepOptions::default()
    }
}

fn hits(root: &Path, query: &str, options: &GrepOptions) -> Vec<(String, u64)> {
    grep(root, query, options)
        .unwrap()
        .matches()
        .map(|m| (m.path.to_owned(), m.line))
        .collect()
}

/// A git repository with ignored, hidden and binary files.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join(".git")).unwrap();
    write(root, ".gitignore", "build/\n*.log\n");
    write(root, ".ignore", "vendor.py\n");
    write(
        root,
        "app.py",
        "import os\n\ndef main():\n    return os.getcwd()\n",
    );
    write(root, "lib/util.py", "def helper():\n    return 'os'\n");
    write(root, "build/out.py", "os = 1\n");
    write(root, "run.log", "os crashed\n");
    write(root, "vendor.py", "import os\n");
    write(root, ".hidden/secret.py", "import os\n");
    write(root, "data.bin", b"os\x00os\n");
    dir
}

#[test]
fn grep_walks_like_ripgrep_by_default() {
    let dir = project();
    assert_eq!(
        hits(dir.path(), "os", &uncapped()),
        [
            ("app.py".to_owned(), 1),
            ("app.py".to_owned(), 4),
            ("lib/util.py".to_owned(), 2),
        ]
    );
    let found = grep(dir.path(), "os", &uncapped()).unwrap();
    assert_eq!(found.files_searched, 3, "app.py, lib/util.py and data.bin");
    assert_eq!(found.binary_files, 1);
}

#[test]
fn grep_options_include_hidden_and_ignored_files() {
    let dir = project();
    let everything = GrepOptions {
        walk: WalkOptions {
            hidden: true,
            no_ignore: true,
            ..WalkOptions::default()
        },
        ..uncapped()
    };
    let paths: Vec<String> = hits(dir.path(), "os", &everything)
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    // Sorted folder by folder: `.hidden/…` sorts before `app.py`; `build/out.py` before `lib/…`.
    // data.bin has a NUL in its first block, so ripgrep (and grep) show nothing of it.
    assert_eq!(
        paths,
        [
            ".hidden/secret.py",
            "app.py",
            "app.py",
            "build/out.py",
            "lib/util.py",
            "run.log",
            "vendor.py",
        ]
    );
}

#[test]
fn binary_files_keep_the_matches_before_the_nul_as_ripgrep_does() {
    let dir = tempfile::tempdir().unwrap();
    // A NUL in the first block read hides the whole file; a later one ends the search there.
    write(
        dir.path(),
        "early.dat",
        b"needle one\nneedle two\n\x00needle three\n",
    );
    let mut late = b"needle early\n".to_vec();
    late.extend(vec![b'x'; 200_000]);
    late.extend(b"\n\x00needle late\n");
    write(dir.path(), "late.dat", late);
    let found = grep(dir.path(), "needle", &uncapped()).unwrap();
    let got: Vec<_> = found.matches().map(|m| (m.path, m.line)).collect();
    assert_eq!(got, [("late.dat", 1)]);
    assert_eq!(found.binary_files, 2);
    assert!(
        found
            .summary()
            .contains("2 binary files skipped from the first NUL byte")
    );
}

#[test]
fn include_and_exclude_globs_are_ripgreps() {
    let dir = tempfile::tempdir().unwrap();
    for rel in ["a.py", "a.txt", "src/b.py", "src/deep/c.py", "tests/t.py"] {
        write(dir.path(), rel, "x\n");
    }
    let paths = |include: &[&str], exclude: &[&str]| -> Vec<String> {
        let options = GrepOptions {
            include: include.iter().map(|s| s.to_string()).collect(),
            exclude: exclude.iter().map(|s| s.to_string()).collect(),
            ..uncapped()
        };
        hits(dir.path(), "x", &options)
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    };
    assert_eq!(
        paths(&["*.py"], &[]),
        ["a.py", "src/b.py", "src/deep/c.py", "tests/t.py"]
    );
    assert_eq!(paths(&["src/**/*.py"], &[]), ["src/b.py", "src/deep/c.py"]);
    assert_eq!(
        paths(&[], &["tests"]),
        ["a.py", "a.txt", "src/b.py", "src/deep/c.py"]
    );
    assert_eq!(paths(&["*.py"], &["deep", "t*.py"]), ["a.py", "src/b.py"]);
    assert_eq!(paths(&["*.{txt,md}"], &[]), ["a.txt"]);
}

/// Many files with matches, so several threads race for them.
fn many_matches() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in 0..6 {
        for f in 0..25 {
            let body: String = (0..(f % 7))
                .map(|i| format!("line {i} hit\nfiller\n"))
                .collect();
            write(dir.path(), &format!("d{d}/f{f:02}.txt"), body);
        }
        write(dir.path(), &format!("d{d}.txt"), "hit\n");
    }
    dir
}

#[test]
fn a_cap_returns_exactly_the_first_matches_of_the_uncapped_order() {
    let dir = many_matches();
    let all = hits(dir.path(), "hit", &uncapped());
    assert!(all.len() > 400, "{}", all.len());
    for threads in [1, 2, 4] {
        for cap in [
            1,
            2,
            3,
            7,
            50,
            51,
            200,
            all.len() - 1,
            all.len(),
            all.len() + 5,
        ] {
            let options = GrepOptions {
                max_results: cap,
                walk: WalkOptions {
                    threads,
                    ..WalkOptions::default()
                },
                ..GrepOptions::default()
            };
            let found = grep(dir.path(), "hit", &options).unwrap();
            let got: Vec<_> = found
                .matches()
                .map(|m| (m.path.to_owned(), m.line))
                .collect();
            let want = &all[..cap.min(all.len())];
            assert_eq!(got, want, "cap {cap}, {threads} threads");
            assert_eq!(found.capped, cap < all.len(), "cap {cap}");
        }
    }
}

#[test]
fn a_capped_search_says_how_far_it_got() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..100 {
        write(dir.path(), &format!("f{i:03}.txt"), "hit\nhit\n");
    }
    let options = GrepOptions {
        max_results: 5,
        ..GrepOptions::default()
    };
    let found = grep(dir.path(), "hit", &options).unwrap();
    assert!(found.capped);
    assert_eq!(found.match_count(), 5);
    assert_eq!(found.files_searched, 3, "5 matches need three files of two");
    let text = found.to_string();
    assert!(
        text.starts_with("f000.txt\n1:hit\n2:hit\n\nf001.txt\n"),
        "{text}"
    );
    assert!(text.ends_with(
        "5 matching lines in 3 files; capped at 5 (the first in path order, after searching 3 \
         files): more may exist, so narrow the query or the include pattern, or raise the cap."
    ));
}

#[test]
fn context_lines_come_with_matches_and_the_cap_keeps_the_last_ones_context() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "1\n2\nhit\n4\n5\n6\n7\nhit\n9\n");
    let options = GrepOptions {
        context: 1,
        ..uncapped()
    };
    let found = grep(dir.path(), "hit", &options).unwrap();
    let lines: Vec<(u64, bool)> = found.lines().map(|l| (l.line, l.context)).collect();
    assert_eq!(
        lines,
        [
            (2, true),
            (3, false),
            (4, true),
            (7, true),
            (8, false),
            (9, true)
        ]
    );
    assert_eq!(found.to_string().lines().nth(4), Some("--"));
    let capped = grep(
        dir.path(),
        "hit",
        &GrepOptions {
            max_results: 1,
            ..options
        },
    )
    .unwrap();
    let lines: Vec<u64> = capped.lines().map(|l| l.line).collect();
    assert_eq!(lines, [2, 3, 4]);
}

#[test]
fn queries_are_regexes_or_exact_text_and_case_can_be_ignored() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.py",
        "x = f(a.b)\nX = fxa_b\nclass Foo:\n  class Bar:\n",
    );
    let lines = |q: &str, options: GrepOptions| -> Vec<u64> {
        hits(dir.path(), q, &options)
            .into_iter()
            .map(|(_, l)| l)
            .collect()
    };
    assert_eq!(lines("f(a.b)", uncapped()), Vec::<u64>::new());
    assert_eq!(lines("f.a.b", uncapped()), [1, 2]);
    let fixed = GrepOptions {
        fixed_strings: true,
        ..uncapped()
    };
    assert_eq!(lines("f(a.b)", fixed), [1]);
    assert_eq!(
        lines("^x", uncapped()),
        [1],
        "^ anchors at each line's start"
    );
    let nocase = GrepOptions {
        case_sensitive: false,
        ..uncapped()
    };
    assert_eq!(lines("^x", nocase), [1, 2]);
    assert_eq!(lines(r"^\s+class", uncapped()), [4]);
}

#[test]
fn long_lines_are_cut_with_a_marker_and_invalid_utf8_is_shown_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("hit {}\n", "x".repeat(5000));
    write(dir.path(), "a.txt", long);
    write(dir.path(), "b.txt", b"hit \xff\xfe here\n");
    let found = grep(dir.path(), "hit", &uncapped()).unwrap();
    let lines: Vec<_> = found.lines().collect();
    assert!(lines[0].cut);
    assert_eq!(
        lines[0].text.len(),
        500 + " …[line cut: 4504 more bytes]".len()
    );
    assert!(lines[0].text.ends_with("x …[line cut: 4504 more bytes]"));
    assert_eq!(lines[1].text, "hit \u{fffd}\u{fffd} here");
    let json = serde_json::to_value(&found).unwrap();
    assert_eq!(json["lines"][0]["cut"], true);
    assert_eq!(json["lines"][1].get("cut"), None);
}

#[test]
fn grep_errors_are_clear_and_never_panics() {
    let dir = project();
    let err = grep(dir.path(), "foo(", &uncapped()).unwrap_err();
    assert!(matches!(err, SearchError::InvalidRegex { .. }));
    assert!(err.to_string().contains("fixed-string"), "{err}");
    let err = grep(&dir.path().join("nope"), "x", &uncapped()).unwrap_err();
    assert!(matches!(err, SearchError::NotFound { .. }), "{err}");
    assert!(
        err.to_string().contains("nope: no such file or folder"),
        "{err}"
    );
    let bad_glob = GrepOptions {
        include: vec!["{a".into()],
        ..uncapped()
    };
    let err = grep(dir.path(), "x", &bad_glob).unwrap_err();
    assert!(matches!(err, SearchError::InvalidGlob { .. }), "{err}");
    // Odd but harmless inputs work.
    for query in ["", "\\", "(?i)", "[[:alpha:]]"] {
        let _ = grep(dir.path(), query, &uncapped());
    }
    let _ = grep(&dir.path().join("lib/../app.py"), "os", &uncapped()).unwrap();
}

#[test]
fn a_file_root_is_searched_and_named() {
    let dir = project();
    let found = grep(&dir.path().join("app.py"), "os", &uncapped()).unwrap();
    let got: Vec<_> = found.matches().map(|m| (m.path, m.line)).collect();
    assert_eq!(got, [("app.py", 1), ("app.py", 4)]);
}

#[test]
fn unreadable_files_are_reported_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ok.txt", "hit\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("missing"), dir.path().join("dangling")).unwrap();
    let options = GrepOptions {
        walk: WalkOptions {
            follow_links: true,
            ..WalkOptions::default()
        },
        ..uncapped()
    };
    let found = grep(dir.path(), "hit", &options).unwrap();
    assert_eq!(found.match_count(), 1);
    #[cfg(unix)]
    assert_eq!(found.errors.len(), 1, "{:?}", found.errors);
}

#[test]
fn options_deserialize_with_defaults_and_results_serialize() {
    let options: GrepOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(options, GrepOptions::default());
    assert!(options.case_sensitive);
    assert_eq!(options.max_results, 50);
    let options: GrepOptions =
        serde_json::from_str(r#"{"case_sensitive": false, "include": ["*.py"], "hidden": true}"#)
            .unwrap();
    assert!(!options.case_sensitive && options.walk.hidden);
    assert_eq!(options.include, ["*.py"]);
    let read: ReadOptions = serde_json::from_str(r#"{"start_line": 3}"#).unwrap();
    assert_eq!(read.start_line, Some(3));
    assert_eq!(read.max_lines, 2000);
    let _: ListOptions = serde_json::from_str("{}").unwrap();
    let _: GlobOptions = serde_json::from_str("{}").unwrap();
    let _: FindFilesOptions = serde_json::from_str("{}").unwrap();

    let dir = project();
    let found = grep(dir.path(), "os", &GrepOptions::default()).unwrap();
    let json = serde_json::to_value(&found).unwrap();
    assert_eq!(json["lines"][0]["path"], "app.py");
    assert_eq!(json["lines"][0]["line"], 1);
    assert_eq!(json["lines"][0]["text"], "import os");
    assert_eq!(json["match_count"], 3);
    assert_eq!(json["capped"], false);
    assert_eq!(json["files_searched"], 3);
}

// ---------------------------------------------------------------------------------------------
// read

#[test]
fn read_numbers_lines_whole_or_a_range() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=12).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "a.txt", body);
    let path = dir.path().join("a.txt");
    let whole = read(&path, &ReadOptions::default()).unwrap();
    assert_eq!(whole.total_lines, 12);
    assert!(whole.is_whole_file());
    let text = whole.to_string();
    assert!(text.starts_with(" 1 | line 1\n 2 | line 2\n"), "{text}");
    assert!(text.ends_with("12 | line 12\n"), "{text}");

    let range = ReadOptions {
        start_line: Some(3),
        end_line: Some(4),
        ..ReadOptions::default()
    };
    let part = read(&path, &range).unwrap();
    assert_eq!(
        part.to_string(),
        "3 | line 3\n4 | line 4\n(lines 3-4 of 12 shown)\n"
    );
    let past = ReadOptions {
        start_line: Some(10),
        end_line: Some(99),
        ..ReadOptions::default()
    };
    assert_eq!(read(&path, &past).unwrap().shown(), Some((10, 12)));
}

#[test]
fn the_size_guard_says_where_to_read_on() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    write(dir.path(), "big.txt", body);
    let path = dir.path().join("big.txt");
    let first = read(&path, &ReadOptions::default()).unwrap();
    assert_eq!(first.shown(), Some((1, 2000)));
    assert_eq!(first.next_start, Some(2001));
    assert_eq!(first.total_lines, 5000);
    assert!(first.to_string().ends_with(
        "(lines 1-2000 of 5000 shown; the rest was held back by the size guard: read on from \
         line 2001)\n"
    ));
    let bytes = ReadOptions {
        max_bytes: 100,
        ..ReadOptions::default()
    };
    let small = read(&path, &bytes).unwrap();
    // "line 1" .. "line 13" with their newlines are 95 bytes; line 14 would pass 100.
    assert_eq!(small.shown(), Some((1, 13)));
    assert_eq!(small.next_start, Some(14));
}

#[test]
fn read_refuses_what_it_cannot_show() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.bin", b"abc\x00def");
    write(dir.path(), "a.txt", "one\ntwo\n");
    write(dir.path(), "empty.txt", "");
    let err = read(&dir.path().join("a.bin"), &ReadOptions::default()).unwrap_err();
    assert!(
        matches!(err, SearchError::Binary { offset: 3, .. }),
        "{err}"
    );
    let err = read(dir.path(), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, SearchError::IsAFolder { .. }), "{err}");
    let err = read(&dir.path().join("nope.txt"), &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, SearchError::NotFound { .. }), "{err}");
    let past = ReadOptions {
        start_line: Some(3),
        ..ReadOptions::default()
    };
    let err = read(&dir.path().join("a.txt"), &past).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: start_line 3 is past the end: the file has 2 lines",
            dir.path().join("a.txt").display()
        )
    );
    let backwards = ReadOptions {
        start_line: Some(2),
        end_line: Some(1),
        ..ReadOptions::default()
    };
    assert!(matches!(
        read(&dir.path().join("a.txt"), &backwards),
        Err(SearchError::BadRange { .. })
    ));
    let empty = read(&dir.path().join("empty.txt"), &ReadOptions::default()).unwrap();
    assert_eq!(empty.to_string(), "(empty file)\n");
}

#[test]
fn read_keeps_odd_text_readable() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "crlf.txt", "a\r\nb\r\nno newline at end");
    let r = read(&dir.path().join("crlf.txt"), &ReadOptions::default()).unwrap();
    let texts: Vec<&str> = r.lines.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts, ["a", "b", "no newline at end"]);
    assert_eq!(r.total_lines, 3);

    write(dir.path(), "bad.txt", b"caf\xe9\nok\n");
    let r = read(&dir.path().join("bad.txt"), &ReadOptions::default()).unwrap();
    assert!(r.lossy_utf8);
    assert_eq!(r.lines[0].text, "caf\u{fffd}");

    let long = format!("{}\nshort\n", "é".repeat(3000));
    write(dir.path(), "long.txt", long);
    let r = read(&dir.path().join("long.txt"), &ReadOptions::default()).unwrap();
    assert!(r.lines[0].cut && !r.lossy_utf8);
    assert!(
        r.lines[0].text.ends_with("é …[line cut: 4000 more bytes]"),
        "{}",
        &r.lines[0].text[1900..]
    );
    assert_eq!(r.lines[1].text, "short");
}

// ---------------------------------------------------------------------------------------------
// list_dir

#[test]
fn list_dir_draws_a_tree_with_sizes_and_line_counts() {
    let dir = project();
    write(dir.path(), "lib/deep/er/x.py", "x = 1\n");
    let listing = list_dir(dir.path(), &ListOptions::default()).unwrap();
    let text = listing.to_string();
    let name = dir.path().file_name().unwrap().to_string_lossy();
    assert_eq!(
        text,
        format!(
            "{name}/\n\
             ├── app.py  (46 B, 4 lines)\n\
             ├── data.bin  (6 B, binary)\n\
             └── lib/\n    \
             ├── deep/  (1 entry)\n    \
             └── util.py  (30 B, 2 lines)\n"
        )
    );
    let util = listing
        .entries
        .iter()
        .find(|e| e.path == "lib/util.py")
        .unwrap();
    assert_eq!(
        (util.kind, util.size, util.lines),
        (EntryKind::File, Some(30), Some(2))
    );
}

#[test]
fn a_capped_listing_keeps_the_top_levels_and_says_what_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        write(dir.path(), &format!("a/f{i}.txt"), "x\n");
    }
    write(dir.path(), "b.txt", "x\n");
    write(dir.path(), "c/d.txt", "x\n");
    let options = ListOptions {
        max_entries: 5,
        ..ListOptions::default()
    };
    let listing = list_dir(dir.path(), &options).unwrap();
    assert!(listing.capped);
    assert_eq!(listing.total_entries, 9);
    let text = listing.to_string();
    let body: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        body,
        [
            "├── a/",
            "│   ├── f0.txt  (2 B, 1 line)",
            "│   ├── f1.txt  (2 B, 1 line)",
            "│   └── … 3 more",
            "├── b.txt  (2 B, 1 line)",
            "└── c/  (1 entry)",
            "(5 of 9 entries listed; list a subfolder or lower the depth to see the rest)",
        ]
    );
    let depth1 = ListOptions {
        depth: 1,
        ..ListOptions::default()
    };
    let text = list_dir(dir.path(), &depth1).unwrap().to_string();
    assert!(text.contains("├── a/  (5 entries)\n"), "{text}");
}

#[test]
fn list_dir_refuses_a_file_and_a_missing_folder() {
    let dir = project();
    let err = list_dir(&dir.path().join("app.py"), &ListOptions::default()).unwrap_err();
    assert!(matches!(err, SearchError::NotAFolder { .. }), "{err}");
    let err = list_dir(&dir.path().join("nope"), &ListOptions::default()).unwrap_err();
    assert!(matches!(err, SearchError::NotFound { .. }), "{err}");
}

// ---------------------------------------------------------------------------------------------
// glob and fuzzy file names

#[test]
fn glob_finds_files_in_path_order_and_stops_at_the_cap() {
    let dir = many_matches();
    let all = glob(
        dir.path(),
        "*.txt",
        &GlobOptions {
            max_results: 0,
            ..GlobOptions::default()
        },
    )
    .unwrap();
    assert_eq!(all.paths.len(), 156);
    assert_eq!(all.paths[..3], ["d0/f00.txt", "d0/f01.txt", "d0/f02.txt"]);
    let first = glob(dir.path(), "*.txt", &GlobOptions::default()).unwrap();
    assert_eq!(first.paths, all.paths[..10]);
    assert!(first.capped);
    assert_eq!(first.files_walked, 10);
    let anchored = glob(dir.path(), "/d1.txt", &GlobOptions::default()).unwrap();
    assert_eq!(anchored.paths, ["d1.txt"]);
    assert!(!anchored.capped);
    let deep = glob(dir.path(), "d2/*1.txt", &GlobOptions::default()).unwrap();
    assert_eq!(deep.paths, ["d2/f01.txt", "d2/f11.txt", "d2/f21.txt"]);
    assert!(matches!(
        glob(dir.path(), "[", &GlobOptions::default()),
        Err(SearchError::InvalidGlob { .. })
    ));
}

#[test]
fn fuzzy_file_search_ranks_like_quick_open() {
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "shop/cart.py",
        "shop/cartography.py",
        "templates/cart.html",
        "cart/views.py",
        "docs/changelog_art.md",
        "shop/pricing.py",
    ] {
        write(dir.path(), rel, "");
    }
    let found = find_files(dir.path(), "cart", &FindFilesOptions::default()).unwrap();
    let paths: Vec<&str> = found.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(&paths[..2], ["shop/cart.py", "templates/cart.html"]);
    assert_eq!(paths[2], "shop/cartography.py");
    assert!(!paths.contains(&"shop/pricing.py"));
    let found = find_files(dir.path(), "shop crt", &FindFilesOptions::default()).unwrap();
    assert_eq!(found.files[0].path, "shop/cart.py");
    let one = FindFilesOptions {
        max_results: 1,
        ..FindFilesOptions::default()
    };
    let found = find_files(dir.path(), "py", &one).unwrap();
    assert!(found.capped && found.matched == 4, "{found:?}");
}
