//! The index on real fixtures: resolved edges and PageRank order checked by hand, refresh after
//! edits, and the L1/L2/L3 and search entry points.

// Tests may unwrap: a panic is the failure report.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use cast_analyzer::trace::parse_trace;
use cast_analyzer::{AnalyzerError, FindMode, Index, IndexOptions, MapOptions, Queries, Refresh};
use cast_test_support::age_tree;
use cast_workspace::WalkOptions;

mod history;
mod languages;

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

/// Writes `text` to `rel` under `root`, making its folders.
fn write_file(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Moves a file's mtime 5 s on without changing its content.
fn touch(path: &Path) {
    let t =
        std::fs::metadata(path).unwrap().modified().unwrap() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn edges(index: &Index) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = index
        .edges()
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.src.unwrap_or_else(|| format!("<{}>", e.src_path)),
                e.dst,
                format!("{:?}/{}", e.kind, e.how.as_str()).to_lowercase(),
            )
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn triples(list: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = list
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    v.sort();
    v
}

/// The call graph of tests/fixtures/inventory, written down by reading the code.
const INVENTORY_EDGES: &[(&str, &str, &str)] = &[
    // models.py
    ("Perishable", "Item", "inherit/local"),
    ("Item.total", "round_money", "call/local"),
    ("Perishable.total", "Item.total", "call/super"),
    ("Perishable.total", "discount", "call/local"),
    ("discount", "round_money", "call/local"),
    // report.py
    ("render", "line", "call/local"),
    ("render", "round_money", "call/import"),
    ("render", "Store.value", "call/name"), // store.value(): the only method named `value`
    // store.py
    ("Store.add", "Store.count", "call/self"),
    ("Store.value", "round_money", "call/import"),
    ("Store.value", "Item.total", "call/name"), // item.total(): two candidates, 1/2 each
    ("Store.value", "Perishable.total", "call/name"),
    ("Store.summary", "render", "call/attribute"), // report.render via `from . import report`
    ("demo", "Store", "call/local"),
    ("demo", "Item", "call/import"),
    ("demo", "Perishable", "call/import"),
    ("demo", "Store.add", "call/typed"), // store = Store(): the class's method
    ("demo", "Store.summary", "call/typed"),
    // main.py, module level
    ("<main.py>", "demo", "call/import"),
];

#[test]
fn call_graph_of_a_small_fixture_matches_the_one_checked_by_hand() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(edges(&index), triples(INVENTORY_EDGES));
    let weights: Vec<f64> = index
        .edges()
        .unwrap()
        .into_iter()
        .filter(|e| e.src.as_deref() == Some("Store.value") && e.dst.ends_with(".total"))
        .map(|e| e.weight)
        .collect();
    assert_eq!(weights, vec![0.5, 0.5]);

    // PageRank: round_money is called from four places (Item.total, discount, Store.value,
    // render) and ranks first; Item.total (called through super(), by Store.value and lent
    // rank by its class) comes next; nothing calls demo but main.py.
    let top: Vec<String> = index
        .top_symbols(4)
        .unwrap()
        .into_iter()
        .map(|s| s.qualname)
        .collect();
    assert_eq!(
        top,
        vec!["round_money", "Item.total", "Store.count", "render"]
    );
    let files: Vec<String> = index
        .top_files(2)
        .unwrap()
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(files, vec!["inventory/models.py", "inventory/store.py"]);
    let store = index
        .top_files(10)
        .unwrap()
        .into_iter()
        .find(|f| f.path == "inventory/store.py")
        .unwrap();
    assert_eq!(
        store.imports,
        vec!["inventory/report.py", "inventory/models.py"]
    );
    let stats = index.stats().unwrap();
    assert_eq!((stats.files, stats.symbols), (5, 16));
    assert_eq!(stats.edges, 20); // demo calls store.add twice
}

#[test]
fn edited_added_and_deleted_files_are_reflected_after_reindex() {
    let dir = copy_fixture("inventory");
    let root = dir.path();
    let first = Index::open(root).unwrap();
    assert!(first.report().unwrap().cold);
    drop(first);

    // Nothing changed: nothing is read.
    let again = Index::open(root).unwrap();
    let r = again.report().unwrap();
    assert!(!r.cold);
    assert_eq!((r.unchanged, r.changed, r.resolved_files), (5, 0, 0));
    drop(again);

    // Edit: report.line is renamed format_line; add audit.py; delete main.py.
    let report_py = root.join("inventory/report.py");
    let text = std::fs::read_to_string(&report_py).unwrap();
    std::fs::write(&report_py, text.replace("line(", "format_line(")).unwrap();
    std::fs::write(
        root.join("inventory/audit.py"),
        "from .models import round_money\n\n\ndef audit(store):\n    return round_money(store.value())\n",
    )
    .unwrap();
    std::fs::remove_file(root.join("main.py")).unwrap();
    let index = Index::open(root).unwrap();
    let r = index.report().unwrap();
    assert_eq!((r.changed, r.added, r.deleted, r.unchanged), (1, 1, 1, 3));
    let e = edges(&index);
    assert!(e.contains(&("render".into(), "format_line".into(), "call/local".into())));
    assert!(e.contains(&("audit".into(), "round_money".into(), "call/import".into())));
    assert!(e.contains(&("audit".into(), "Store.value".into(), "call/name".into())));
    assert!(!e.iter().any(|(s, d, _)| s == "<main.py>" || d == "line"));
    assert!(index.show("line").is_err());
    let shown = index.show("round_money").unwrap();
    assert!(
        shown
            .referenced_by
            .iter()
            .any(|r| r.path == "inventory/audit.py")
    );
    assert_eq!(index.stats().unwrap().files, 5);
    drop(index);

    // A body-only edit keeps every definition: only that file is resolved again, and the
    // edges other files hold into it stay valid.
    let models = root.join("inventory/models.py");
    let text = std::fs::read_to_string(&models).unwrap();
    let ranks_before: Vec<(String, f64)> = Index::open(root)
        .unwrap()
        .top_symbols(100)
        .unwrap()
        .into_iter()
        .map(|s| (s.qualname, s.rank))
        .collect();
    std::fs::write(&models, text.replace("round(value, 2)", "round(value, 3)")).unwrap();
    let index = Index::open(root).unwrap();
    let r = index.report().unwrap();
    assert_eq!((r.changed, r.resolved_files), (1, 1));
    // Its references resolve to the same edges, so PageRank is not run again and ranks stand.
    assert_eq!(r.rank_iterations, 0);
    let ranks_after: Vec<(String, f64)> = index
        .top_symbols(100)
        .unwrap()
        .into_iter()
        .map(|s| (s.qualname, s.rank))
        .collect();
    assert_eq!(ranks_after, ranks_before);
    let e = edges(&index);
    assert!(e.contains(&(
        "Store.value".into(),
        "round_money".into(),
        "call/import".into()
    )));
    assert!(e.contains(&("audit".into(), "round_money".into(), "call/import".into())));
    drop(index);

    // Touching a file (same content) re-reads it but parses nothing.
    let f = std::fs::File::options().append(true).open(&models).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5))
        .unwrap();
    drop(f);
    let index = Index::open(root).unwrap();
    let r = index.report().unwrap();
    assert_eq!((r.touched, r.changed, r.resolved_files), (1, 0, 0));
}

#[test]
fn map_fits_the_budget_with_the_top_ranked_symbols() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let full = index.map(&MapOptions::default()).unwrap();
    let text = full.render();
    assert!(
        text.contains("models.py — Items and their prices."),
        "{text}"
    );
    assert!(text.contains("store.py — The store: stock levels and their value. → inventory/report.py, inventory/models.py"), "{text}");
    assert!(text.contains("      24 def round_money(value)"), "{text}");
    assert_eq!((full.omitted_files, full.omitted_symbols), (0, 0));

    let small = index
        .map(&MapOptions {
            budget: 110,
            trace: None,
            focus: None,
            root_name: None,
            ..MapOptions::default()
        })
        .unwrap();
    assert!(small.tokens <= 110, "{} tokens", small.tokens);
    let text = small.render();
    assert!(text.contains("def round_money(value)"), "{text}");
    assert!(small.omitted_symbols > 0, "{text}");
}

/// The symbols a map shows, as `path qualname`.
fn shown(map: &cast_analyzer::LogicMap) -> Vec<String> {
    map.files
        .iter()
        .flat_map(|f| {
            f.symbols
                .iter()
                .map(move |s| format!("{} {}", f.path, s.qualname))
        })
        .collect()
}

#[test]
fn a_map_shows_test_code_after_the_code_unless_the_task_is_about_tests() {
    const SMALL: usize = 80;
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "app/core.py",
        "def run(job):\n    return job\n\n\ndef unused():\n    return 0\n",
    );
    write(
        "tests/helpers.py",
        "from app.core import run\n\n\ndef make_job():\n    return run({})\n",
    );
    // Every test calls the helper: by PageRank alone it outranks the code.
    let mut tests = String::from("from tests.helpers import make_job\n");
    for i in 0..12 {
        tests.push_str(&format!(
            "\n\ndef test_{i}():\n    assert make_job() == {{}}\n"
        ));
    }
    write("tests/test_jobs.py", &tests);
    let index = Index::open(dir.path()).unwrap();
    let map_of = |budget: usize, focus: Option<&str>| {
        index
            .map(&MapOptions {
                budget,
                trace: None,
                focus: focus.map(str::to_owned),
                root_name: None,
                ..MapOptions::default()
            })
            .unwrap()
    };
    // With room for all, tests are shown too.
    let full = shown(&map_of(4000, None));
    assert!(
        full.contains(&"tests/helpers.py make_job".to_owned()),
        "{full:?}"
    );
    // With room for two symbols, both are the code's, the unused one included.
    let small = shown(&map_of(SMALL, None));
    assert_eq!(small, ["app/core.py run", "app/core.py unused"]);
    // A task about tests keeps the ranking as it is.
    let about_tests = shown(&map_of(SMALL, Some("the test helpers")));
    assert!(
        about_tests.contains(&"tests/helpers.py make_job".to_owned()),
        "{about_tests:?}"
    );
}

#[test]
fn a_traceback_marks_what_ran_annotates_the_error_and_prunes_the_rest() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let root = dir.path().display();
    let tb = format!(
        "Traceback (most recent call last):\n  File \"{root}/main.py\", line 4, in <module>\n    print(demo())\n  File \"{root}/inventory/store.py\", line 32, in demo\n    return store.summary()\n  File \"{root}/inventory/store.py\", line 25, in summary\n    return report.render(self)\n  File \"{root}/inventory/report.py\", line 8, in render\n    lines.append(\"total: %s\" % round_money(store.value()))\n  File \"/usr/lib/python3.11/decimal.py\", line 10, in x\n    pass\nTypeError: unsupported operand\n"
    );
    let trace = parse_trace(&tb).unwrap();
    let map = index
        .map(&MapOptions {
            budget: 2000,
            trace: Some(trace),
            focus: None,
            root_name: None,
            ..MapOptions::default()
        })
        .unwrap();
    let text = map.render();
    let files: Vec<&str> = map.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        files,
        vec!["inventory/report.py", "inventory/store.py", "main.py"],
        "{text}"
    );
    assert!(line_with(&text, "def demo()", "[ran 1×]"), "{text}");
    assert!(line_with(&text, "def summary(self)", "[ran 1×]"), "{text}");
    assert!(!text.contains("models.py"), "{text}");
    assert_eq!(map.trace_unmatched, vec!["/usr/lib/python3.11/decimal.py"]);

    // The error is at the last frame inside the index? No: the last frame is outside it, so
    // the error annotates decimal.py, which is not shown. A pytest log with the error inside:
    let log = "inventory/report.py:8: in render\n    lines.append(x)\nE   TypeError: bad total\n\ninventory/models.py:26: TypeError\n";
    let map = index
        .map(&MapOptions {
            budget: 2000,
            trace: Some(parse_trace(log).unwrap()),
            focus: None,
            root_name: None,
            ..MapOptions::default()
        })
        .unwrap();
    let text = map.render();
    assert!(
        text.contains("26 │ return round(value, 2)  [ERROR: TypeError: bad total]"),
        "{text}"
    );
    assert!(
        line_with(&text, "def round_money(value)", "[ran 1×]"),
        "{text}"
    );
    assert!(!text.contains("store.py"), "{text}");
}

#[test]
fn show_gives_exact_source_by_name_or_line_with_references() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let shown = index.show("Store.count").unwrap();
    assert_eq!((shown.start_line, shown.end_line), (16, 18));
    assert_eq!(
        shown.source,
        "    def count(self, sku):\n        \"\"\"Units of a SKU in stock.\"\"\"\n        return self.stock.get(sku, (None, 0))[1]\n"
    );
    assert_eq!(shown.referenced_by[0].symbol.as_deref(), Some("Store.add"));
    let by_module = index.show("inventory.models.Perishable.total").unwrap();
    assert_eq!(by_module.start_line, 19);
    assert_eq!(by_module.references.len(), 2);
    let by_line = index.show("inventory/models.py:26").unwrap();
    assert_eq!(by_line.qualname, "round_money");
    assert!(by_line.render().contains("26 |     return round(value, 2)"));
    assert!(index.show("no_such_thing").is_err());
    assert!(index.show("inventory/models.py:999").is_err());
}

#[test]
fn skeleton_of_a_file_under_the_root_and_refused_outside_it() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let sk = index.skeleton("inventory/models.py").unwrap();
    let abs = index
        .skeleton(&dir.path().join("inventory/models.py").to_string_lossy())
        .unwrap();
    assert_eq!(sk.render(), abs.render());
    assert!(sk.render().contains("def round_money(value)"));
    for outside in ["../etc/passwd", "/etc/passwd", "inventory/missing.py"] {
        let err = index.skeleton(outside).unwrap_err();
        assert!(
            matches!(err, AnalyzerError::FileNotIndexed { .. }),
            "{outside}: {err}"
        );
    }
}

#[test]
fn find_ranks_by_name_docstring_and_rank() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let top = |q: &str| {
        index.find(q, 3).unwrap().symbols[0]
            .qualname
            .clone()
            .unwrap()
    };
    assert_eq!(top("round an amount to cents"), "round_money");
    assert_eq!(top("count the units in stock"), "Store.count");
    assert_eq!(top("roundmoney"), "round_money");
    assert_eq!(top("expires"), "Perishable");
    let found = index.find("text report", 3).unwrap();
    assert_eq!(found.files[0].path, "inventory/report.py");
    assert!(index.find("   ", 3).is_err());
}

/// Whether one line of `text` holds both pieces (a map line may show calls between them).
fn line_with(text: &str, a: &str, b: &str) -> bool {
    text.lines().any(|l| l.contains(a) && l.contains(b))
}

fn file_paths(index: &Index, query: &str) -> Vec<String> {
    index
        .find_with(query, 10, FindMode::Files)
        .unwrap()
        .files
        .into_iter()
        .map(|h| h.path)
        .collect()
}

#[test]
fn a_symbol_is_found_by_the_words_of_its_own_body() {
    // Bodies are not stored; the second stage reads the candidate files and scores their
    // symbols with their own lines (nested definitions' lines count for the nested one).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("shop.py"),
        "def settle(order):\n    total = tally_basket(order)\n    return charge_card(total)\n\n\
         class Till:\n    def open(self):\n        return unlock_drawer()\n\n\
         def unrelated():\n    return 1\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("other.py"), "def noise():\n    return 2\n").unwrap();
    let index = Index::open(dir.path()).unwrap();
    let found = index.find("charge the card", 5).unwrap();
    assert_eq!(found.symbols[0].qualname.as_deref(), Some("settle"));
    // `unlock_drawer` is in Till.open's own lines, not in the class's.
    let found = index.find("unlock drawer", 5).unwrap();
    assert_eq!(found.symbols[0].qualname.as_deref(), Some("Till.open"));
    assert!(
        !found
            .symbols
            .iter()
            .any(|h| h.qualname.as_deref() == Some("Till")),
        "{found:?}"
    );
    // A file deleted after the refresh loses its bodies, not the query.
    std::fs::remove_file(dir.path().join("shop.py")).unwrap();
    let found = index.find("settle the order", 5).unwrap();
    assert_eq!(found.symbols[0].qualname.as_deref(), Some("settle"));
}

#[test]
fn a_name_that_runs_words_together_is_found_by_the_words() {
    // `getusername` is one word to the cutting; its file writes `user` and `name` apart, so the
    // name also counts as those words, and outweighs a docstring that merely mentions them.
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "account.py",
        "def getusername(env):\n    return env.get('USER') or env.get('name')\n",
    );
    write_file(
        dir.path(),
        "notes.py",
        "def describe():\n    \"\"\"Says the user name and more.\"\"\"\n    return 1\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let found = index.find("user name", 5).unwrap();
    assert_eq!(found.symbols[0].qualname.as_deref(), Some("getusername"));
    assert_eq!(found.symbols[1].qualname.as_deref(), Some("describe"));
}

#[test]
fn an_error_type_ranks_below_the_code_it_fails_in_unless_errors_are_asked_about() {
    // The error's docstring says more of the query's words than the parser's does; it is what
    // the parser raises, not what parses.
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "opts.py",
        "class BadOptionError(Exception):\n    \"\"\"Raised if an invalid option is seen on the \
         command line.\"\"\"\n\n\ndef parse_args(argv):\n    \"\"\"Parse the command line.\"\"\"\n    \
         return [a for a in argv if a.startswith('-')]\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let first = |q: &str| {
        index.find(q, 5).unwrap().symbols[0]
            .qualname
            .clone()
            .unwrap()
    };
    assert_eq!(first("command line option"), "parse_args");
    assert_eq!(
        first("error for an invalid command line option"),
        "BadOptionError"
    );
}

#[test]
fn a_refresh_without_changes_reports_the_same_counts() {
    let dir = copy_fixture("inventory");
    let cold = Index::open(dir.path()).unwrap().report().unwrap().clone();
    let again = Index::open(dir.path()).unwrap().report().unwrap().clone();
    assert_eq!(again.unchanged, cold.files);
    assert_eq!(
        (again.files, again.symbols, again.skipped),
        (cold.files, cold.symbols, cold.skipped)
    );
    assert!(cold.symbols > 0);
}

/// Files and symbols are numbered in path order whichever parse finishes first (search breaks
/// ties by these numbers, so two builds of one tree must rank alike).
#[test]
fn a_new_index_numbers_files_and_symbols_by_path() {
    let dir = tempfile::tempdir().unwrap();
    // Big files first in path order, so on several threads the later, small ones finish first.
    for n in 0..240 {
        let folder = dir.path().join(format!("pkg{}", n % 7));
        std::fs::create_dir_all(&folder).unwrap();
        let defs = if n < 20 { 400 } else { 2 };
        let mut text = String::new();
        for d in 0..defs {
            text.push_str(&format!("def f{d}(x):\n    return x + {d}\n\n"));
        }
        text.push_str("class C:\n    def m(self):\n        pass\n");
        std::fs::write(folder.join(format!("m{n:03}.py")), text).unwrap();
    }
    let index = Index::open(dir.path()).unwrap();
    let conn = rusqlite::Connection::open(index.db_path()).unwrap();
    let paths: Vec<String> = conn
        .prepare("SELECT path FROM files ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(paths.len(), 240);
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    let symbols: Vec<(String, i64)> = conn
        .prepare(
            "SELECT f.path, s.ord FROM symbols s JOIN files f ON f.id = s.file_id ORDER BY s.id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut by_path = symbols.clone();
    by_path.sort();
    assert_eq!(symbols.len(), 20 * 402 + 220 * 4);
    assert!(symbols == by_path, "symbol ids out of path order");
}

#[test]
fn the_full_text_index_follows_edits_touches_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.py");
    std::fs::write(
        &a,
        "def feed():\n    '''Feed the zebra.'''\n    return 'zebra'\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b.py"), "def other():\n    return 1\n").unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(file_paths(&index, "zebra"), vec!["a.py"]);
    let found = index.find("zebra", 5).unwrap();
    assert_eq!(found.symbols[0].qualname.as_deref(), Some("feed"));
    drop(index);

    // Touched (same content, new mtime): still found, not re-read.
    touch(&a);
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.report().unwrap().touched, 1);
    assert_eq!(file_paths(&index, "zebra"), vec!["a.py"]);
    drop(index);

    // Edited: the old words leave the index, the new ones are found.
    std::fs::write(
        &a,
        "def feed():\n    '''Feed the giraffe.'''\n    return 'giraffe'\n",
    )
    .unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert!(file_paths(&index, "zebra").is_empty());
    assert!(index.find("zebra", 5).unwrap().symbols.is_empty());
    assert_eq!(file_paths(&index, "giraffe"), vec!["a.py"]);
    drop(index);

    // Deleted: no postings left.
    std::fs::remove_file(&a).unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert!(file_paths(&index, "giraffe").is_empty());
    assert!(index.find("giraffe", 5).unwrap().symbols.is_empty());
}

/// A search in a scope takes every evidence from the scope's files only: its own best text
/// hits (not what is left of the whole tree's), exact names defined there, and no file outside
/// it, even one the graph reaches from a hit.
#[test]
fn a_search_in_a_scope_stays_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    w(
        "core/ledger.py",
        "def close_ledger(book):\n    \"\"\"Close the ledger: balance every account of the book.\"\"\"\n    return book\n",
    );
    w(
        "web/views.py",
        "from core.ledger import close_ledger\n\n\ndef ledger_page(book):\n    \"\"\"Show the ledger.\"\"\"\n    return close_ledger(book)\n",
    );
    w("web/style.py", "def colours():\n    return 1\n");
    let index = Index::open(dir.path()).unwrap();
    let web = cast_analyzer::Scope::new(["web"]).unwrap();
    let whole = index
        .find_with("close the ledger", 5, FindMode::Files)
        .unwrap();
    assert_eq!(whole.files[0].path, "core/ledger.py");
    assert!(whole.scope.is_empty());
    let found = index
        .find_in("close the ledger", 5, FindMode::Symbols, &web)
        .unwrap();
    assert_eq!(found.symbols[0].qualname.as_deref(), Some("ledger_page"));
    assert!(
        found
            .symbols
            .iter()
            .chain(&found.files)
            .all(|h| h.path.starts_with("web/"))
    );
    assert_eq!((found.searched.files, found.searched.symbols), (2, 2));
    assert_eq!(found.scope, ["web"]);
    // An exact name defined outside the scope credits nothing (the whole tree credits its
    // definition); one inside it is found.
    let whole = index.find_with("close_ledger", 5, FindMode::Files).unwrap();
    assert!(
        whole
            .files
            .iter()
            .any(|h| h.path == "core/ledger.py" && h.scores.ident > 0.0)
    );
    let named = index
        .find_in("close_ledger", 5, FindMode::Files, &web)
        .unwrap();
    assert!(!named.files.is_empty(), "views.py uses the name");
    assert!(
        named
            .files
            .iter()
            .all(|h| h.path.starts_with("web/") && h.scores.ident == 0.0),
        "{named:?}"
    );
    let named = index
        .find_in(
            "close_ledger",
            5,
            FindMode::Files,
            &cast_analyzer::Scope::new(["core"]).unwrap(),
        )
        .unwrap();
    assert_eq!(named.files[0].path, "core/ledger.py");
    // A scope with no indexed file: nothing, and the reason names the scope.
    let none = cast_analyzer::Scope::new(["docs"]).unwrap();
    let found = index.find_in("ledger", 5, FindMode::Files, &none).unwrap();
    assert!(found.is_empty());
    let why = found.nothing_found("ledger").unwrap();
    assert!(
        why.contains("no indexed source file is in the scope (docs)"),
        "{why}"
    );
}

/// Files with a word of the query (or another evidence of their own) come before the files
/// reached only through the graph: what the one hit imports once came first, the hit being a
/// demoted test.
#[test]
fn files_reached_only_through_the_graph_come_after_the_hits() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    w("hub.py", "def helper():\n    return 1\n");
    w(
        "app.py",
        "from hub import helper\n\n\ndef run():\n    return helper()\n",
    );
    w(
        "tests/test_zebra.py",
        "from hub import helper\nfrom app import run\n\n\ndef test_quokka():\n    \"\"\"The quokka meets the zebra.\"\"\"\n    assert run() == helper()\n",
    );
    let paths = |index: &Index| -> Vec<(String, bool)> {
        let found = index.find_with("quokka zebra", 5, FindMode::Files).unwrap();
        found
            .files
            .iter()
            .map(|f| (f.path.clone(), f.scores.is_direct()))
            .collect()
    };
    let index = Index::open(dir.path()).unwrap();
    let found = paths(&index);
    assert_eq!(
        found[0],
        ("tests/test_zebra.py".to_owned(), true),
        "{found:?}"
    );
    assert!(found[1..].iter().all(|(_, direct)| !direct), "{found:?}");
    // With a word of the query in it, an imported file joins the hits, before the other one.
    w(
        "hub.py",
        "def helper():\n    \"\"\"Feeds the zebra.\"\"\"\n    return 1\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let found: Vec<String> = paths(&index).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        found.last().map(String::as_str),
        Some("app.py"),
        "{found:?}"
    );
}

/// `cover` counts each query word a file holds once, whatever the file's length or how often
/// it repeats one word: the file holding every word has 1, one repeating a single word less.
#[test]
fn a_files_cover_is_the_share_of_the_query_words_it_holds() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    w(
        "pkg/paths.py",
        "def tidy(path):\n    path = path.strip()\n    return path or path\n",
    );
    w(
        "pkg/checks.py",
        "def check(value):\n    '''Raise a validation error for a bad path.'''\n    return value\n",
    );
    w("pkg/other.py", "def unrelated():\n    return 1\n");
    let index = Index::open(dir.path()).unwrap();
    let found = index
        .find_with("path validation error", 5, FindMode::Files)
        .unwrap();
    let cover = |path: &str| {
        found
            .files
            .iter()
            .find(|h| h.path == path)
            .map(|h| h.scores.cover)
    };
    assert_eq!(cover("pkg/checks.py"), Some(1.0), "{found:?}");
    let repeated = cover("pkg/paths.py").unwrap_or(f64::NAN);
    assert!(repeated > 0.0 && repeated < 1.0, "{found:?}");
    assert_eq!(cover("pkg/other.py"), None, "{found:?}");
}

#[test]
fn files_rank_by_identifiers_and_demote_tests_unless_asked() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    w(
        "pkg/session.py",
        "class Session:\n    def send(self, request):\n        '''Send a prepared request.'''\n        return request\n",
    );
    w(
        "pkg/adapters.py",
        "def send_all(requests):\n    '''Send every request, one by one, and send again.'''\n    return [r for r in requests]\n",
    );
    w(
        "tests/test_session.py",
        "from pkg.session import Session\n\ndef test_send():\n    Session().send('send request')\n    Session().send('send request again')\n",
    );
    let index = Index::open(dir.path()).unwrap();
    // The file defining the identifier written in the query comes first.
    let found = index
        .find_with("Session.send drops the request", 5, FindMode::Files)
        .unwrap();
    assert_eq!(found.files[0].path, "pkg/session.py");
    assert!(
        found.files[0].scores.ident > 0.0,
        "{:?}",
        found.files[0].scores
    );
    // The test mentions the words most but is demoted …
    let found = index.find_with("send request", 5, FindMode::Files).unwrap();
    let test = found
        .files
        .iter()
        .find(|h| h.path == "tests/test_session.py");
    assert!(test.is_some_and(|h| h.scores.factor < 1.0), "{found:?}");
    // … much less when the query is about tests (the code under test keeps a little
    // precedence).
    let asked = index
        .find_with("test send request", 5, FindMode::Files)
        .unwrap();
    let asked_test = asked
        .files
        .iter()
        .find(|h| h.path == "tests/test_session.py");
    assert!(
        asked_test
            .is_some_and(|a| a.scores.factor < 1.0
                && test.is_some_and(|t| a.scores.factor > t.scores.factor)),
        "{asked:?}"
    );
}

#[test]
fn a_name_defined_in_several_files_credits_each_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
    // The stub declares `field` three times (overloads); the module defines it once. Both
    // files define the name the query writes, so both get the same share of it.
    w(
        "api.pyi",
        "from typing import overload\n@overload\ndef field(a: int) -> int: ...\n@overload\ndef field(a: str) -> str: ...\n@overload\ndef field() -> None: ...\n",
    );
    w("api.py", "def field(a=None):\n    return a\n");
    let index = Index::open(dir.path()).unwrap();
    let found = index
        .find_with("Add a parameter to `api.field`", 5, FindMode::Files)
        .unwrap();
    let ident = |path: &str| {
        found
            .files
            .iter()
            .find(|h| h.path == path)
            .map(|h| h.scores.ident)
    };
    assert_eq!(ident("api.py"), Some(0.5), "{found:?}");
    assert_eq!(ident("api.pyi"), Some(0.5), "{found:?}");
}

#[test]
fn a_focused_map_shows_the_task_first() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let map = index
        .map(&MapOptions {
            budget: 120,
            trace: None,
            focus: Some("one line of text per item in a report".into()),
            root_name: None,
            ..MapOptions::default()
        })
        .unwrap();
    let text = map.render();
    assert!(text.contains("def line(item, qty)"), "{text}");
    assert!(text.contains("for the task first"), "{text}");
    // With room for every file, the task's file is still shown first, its folder before the
    // root's (which comes first in path order, as in the map without a focus).
    let map = |focus: Option<&str>| {
        index
            .map(&MapOptions {
                budget: 2000,
                trace: None,
                focus: focus.map(str::to_owned),
                root_name: None,
                ..MapOptions::default()
            })
            .unwrap()
    };
    let (focused, plain) = (
        map(Some("one line of text per item in a report")),
        map(None),
    );
    assert_eq!(focused.files.len(), plain.files.len());
    assert_eq!(focused.files[0].path, "inventory/report.py");
    assert_eq!(plain.files[0].path, "inventory/__init__.py");
    let folders = |m: &cast_analyzer::LogicMap| -> Vec<String> {
        m.render()
            .lines()
            .filter(|l| l.ends_with('/'))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(folders(&focused), ["inventory/", "./"]);
    assert_eq!(folders(&plain), ["./", "inventory/"]);
}

#[test]
fn a_map_of_part_of_the_tree_shows_only_that_part() {
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();
    let map = |patterns: &[&str], focus: Option<&str>| {
        index
            .map(&MapOptions {
                budget: 2000,
                focus: focus.map(str::to_owned),
                scope: cast_analyzer::Scope::new(patterns.iter().copied()).unwrap(),
                ..MapOptions::default()
            })
            .unwrap()
    };
    let whole = map(&[], None);
    let part = map(&["inventory", "!inventory/report.py"], None);
    let paths: Vec<&str> = part.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "inventory/__init__.py",
            "inventory/models.py",
            "inventory/store.py"
        ]
    );
    // The header counts the part, and says which it is.
    assert_eq!(part.files_total, 3);
    assert!(part.symbols_total < whole.symbols_total);
    let text = part.render();
    assert!(
        text.starts_with("Logic map of ")
            && text
                .lines()
                .next()
                .unwrap()
                .contains(" (in inventory, !inventory/report.py): 3 files"),
        "{text}"
    );
    // No import is shown to a file outside it (store.py imports report.py).
    assert!(
        text.lines().skip(1).all(|l| !l.contains("report.py")),
        "{text}"
    );
    // Focused within it: the task's best file there (as `find_in` ranks) comes first, though
    // report.py fits better.
    let task = "one line of text per item in a report";
    let no_report = cast_analyzer::Scope::new(["!inventory/report.py"]).unwrap();
    let best = index.find_in(task, 1, FindMode::Files, &no_report).unwrap();
    let focused = map(&["!inventory/report.py"], Some(task));
    assert_eq!(focused.files[0].path, best.files[0].path);
    assert!(
        focused
            .files
            .iter()
            .all(|f| f.path != "inventory/report.py")
    );
    assert_eq!(whole.scope, Vec::<String>::new());
    // A part with no indexed file: an empty map that says it has none.
    let none = map(&["docs"], None);
    assert!(none.files.is_empty() && none.files_total == 0 && none.symbols_total == 0);
}

/// A call found by name alone (`x.m()`, the receiver's type unknown) is a guess, and the map
/// states none as a fact, not even one into a file the caller imports: `doc.words()` may well
/// be `list.words` of something else. Resolved calls are shown; the guesses stay edges of the
/// index, which `cast show` lists apart.
#[test]
fn the_map_shows_resolved_calls_and_no_guess() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    w(
        "texts.py",
        "class Text:\n    def rstrip(self):\n        return self\n\n    def words(self):\n        return []\n\n\ndef split(text):\n    return text.words()\n",
    );
    w(
        "reader.py",
        "def read_lines(lines):\n    return [line.rstrip() for line in lines]\n",
    );
    w(
        "counter.py",
        "import texts\n\n\ndef count(doc):\n    return len(doc.words())\n\n\ndef count_split(doc):\n    return len(texts.split(doc))\n",
    );
    w("pkg/__init__.py", "from pkg.shapes import Square\n");
    w(
        "pkg/shapes.py",
        "class Square:\n    def area(self):\n        return 1\n",
    );
    w(
        "user.py",
        "from pkg import Square\n\n\ndef total(shape):\n    return shape.area()\n\n\ndef unit():\n    return Square.area(Square())\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let text = index.map(&MapOptions::default()).unwrap().render();
    let line_of = |def: &str| {
        text.lines()
            .find(|l| l.contains(def))
            .unwrap_or_else(|| panic!("{def} not shown:\n{text}"))
            .to_owned()
    };
    // Guesses, in a file not imported and in files imported alike: none shown.
    assert!(!line_of("def read_lines").contains('→'), "{text}");
    assert!(!line_of("def count(").contains('→'), "{text}");
    assert!(!line_of("def total").contains('→'), "{text}");
    // Resolved through an import: shown.
    assert!(line_of("def count_split").contains("→ split()"), "{text}");
    assert!(line_of("def unit").contains("→ Square.area()"), "{text}");
    // The guesses are still edges of the index: `cast show` lists them, marked as guesses.
    let shown = index.show("Text.rstrip").unwrap();
    assert!(
        shown
            .referenced_by_name
            .iter()
            .any(|r| r.symbol.as_deref() == Some("read_lines")),
        "{shown:?}"
    );
    let shown = index.show("Text.words").unwrap();
    assert!(
        shown
            .referenced_by_name
            .iter()
            .any(|r| r.symbol.as_deref() == Some("count")),
        "{shown:?}"
    );
}

/// A function that calls itself has that call as an edge (`cast show` lists it among its
/// callers and callees), but the rank leaves the loop out: recursion is no evidence that the
/// rest of the code needs the function.
#[test]
fn a_recursive_call_is_an_edge_that_does_not_rank() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    let body = |name: &str, recursive: bool| {
        let call = if recursive {
            format!("{name}(n - 1)")
        } else {
            "1".to_owned()
        };
        format!("def {name}(n):\n    if n <= 1:\n        return 1\n    return n * {call}\n")
    };
    w("rec.py", &body("fact", true));
    w("flat.py", &body("fact_flat", false));
    let index = Index::open(dir.path()).unwrap();
    let shown = index.show("fact").unwrap();
    let own = |refs: &[cast_analyzer::ShownReference]| {
        refs.iter()
            .any(|r| r.symbol.as_deref() == Some("fact") && r.line == 4)
    };
    assert!(own(&shown.referenced_by), "{shown:?}");
    assert!(own(&shown.references), "{shown:?}");
    assert_eq!(index.report().unwrap().edges, 1);
    // Two functions alike but for the loop: the same rank.
    let ranks = index.top_symbols(10).unwrap();
    let rank_of = |q: &str| {
        ranks
            .iter()
            .find(|r| r.qualname == q)
            .map(|r| r.rank)
            .unwrap_or_else(|| panic!("{q}: {ranks:?}"))
    };
    assert_eq!(rank_of("fact"), rank_of("fact_flat"));
}

#[test]
fn a_corrupt_or_foreign_index_is_rebuilt_never_trusted() {
    let dir = copy_fixture("inventory");
    let db = dir.path().join(".cast/index.sqlite");
    drop(Index::open(dir.path()).unwrap());
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".cast/.gitignore")).unwrap(),
        "*\n"
    );
    // Garbage over the file: rebuilt.
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    std::fs::write(&db, vec![0x5a; 8192]).unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert!(index.report().unwrap().cold);
    assert_eq!(index.stats().unwrap().symbols, 16);
    drop(index);
    // Another schema version: rebuilt.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch("PRAGMA user_version = 999").unwrap();
    drop(conn);
    let index = Index::open(dir.path()).unwrap();
    assert!(index.report().unwrap().cold);
    assert_eq!(index.stats().unwrap().symbols, 16);
}

#[test]
fn readers_keep_reading_while_a_writer_refreshes() {
    let dir = copy_fixture("inventory");
    let root = dir.path().to_path_buf();
    drop(Index::open(&root).unwrap());
    let never = IndexOptions {
        refresh: Refresh::Never,
        ..IndexOptions::default()
    };
    let reader = Index::open_with(&root, &never, &mut |_| {}).unwrap();
    let writer_root = root.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..5 {
            std::fs::write(
                writer_root.join(format!("inventory/extra{i}.py")),
                format!("def extra{i}():\n    return {i}\n"),
            )
            .unwrap();
            let index = Index::open(&writer_root).unwrap();
            assert_eq!(index.report().unwrap().added, 1);
        }
    });
    for _ in 0..20 {
        assert!(!reader.find("round money", 3).unwrap().symbols.is_empty());
        assert!(reader.show("Store.add").is_ok());
    }
    writer.join().unwrap();
    assert_eq!(Index::open(&root).unwrap().stats().unwrap().files, 10);
}

#[test]
fn no_index_and_refresh_never_is_a_clear_error() {
    let dir = copy_fixture("inventory");
    let never = IndexOptions {
        refresh: Refresh::Never,
        ..IndexOptions::default()
    };
    let err = Index::open_with(dir.path(), &never, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("cast index"), "{err}");
    let missing = Index::open(&dir.path().join("nope")).unwrap_err();
    assert!(missing.to_string().contains("no such folder"), "{missing}");
}

/// Runs `find --files QUERY` through [`Index::query_current`], counting the queries run.
fn current_files(root: &Path, query: &str, runs: &mut usize) -> Vec<String> {
    Index::query_current(root, &IndexOptions::default(), &mut |_| {}, |index| {
        *runs += 1;
        let found = index.find_with(query, 5, FindMode::Files)?;
        Ok::<_, AnalyzerError>(found.files.into_iter().map(|f| f.path).collect())
    })
    .unwrap()
}

/// How a watched-tree test asks: `Settle` makes the tree old and asks twice (nothing changed
/// since); `After` asks once after a change, which must be seen.
#[derive(Clone, Copy)]
enum Ask {
    Settle,
    After,
}

/// A tree with a package two folders deep and an ignore file, for the watched-tree tests.
fn changing_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg/sub")).unwrap();
    std::fs::write(root.join("pkg/a.py"), "def feed():\n    return 'zebra'\n").unwrap();
    std::fs::write(root.join("pkg/sub/b.py"), "def other():\n    return 1\n").unwrap();
    std::fs::write(root.join("pkg/.ignore"), "nothing.py\n").unwrap();
    dir
}

/// Changes `root` (a [`changing_tree`]) in each way a watch must see, asking `ask` for the
/// best files of a query before and after each change.
fn every_change_is_seen(root: &Path, ask: &mut dyn FnMut(&str, Ask) -> Vec<String>) {
    assert_eq!(ask("zebra", Ask::Settle), ["pkg/a.py"]);
    // A file edited in place (its folder keeps its mtime).
    std::fs::write(root.join("pkg/a.py"), "def feed():\n    return 'giraffe'\n").unwrap();
    assert!(ask("zebra", Ask::After).is_empty());
    // A file added two folders down.
    assert!(ask("okapi", Ask::Settle).is_empty());
    std::fs::write(root.join("pkg/sub/c.py"), "OKAPI = 1\n").unwrap();
    assert_eq!(ask("okapi", Ask::After), ["pkg/sub/c.py"]);
    // An ignore file edited in place: the folder it rules is dropped, then brought back.
    assert_eq!(ask("okapi", Ask::Settle), ["pkg/sub/c.py"]);
    std::fs::write(root.join("pkg/.ignore"), "sub/\n").unwrap();
    assert!(ask("okapi", Ask::After).is_empty());
    assert!(ask("okapi", Ask::Settle).is_empty());
    std::fs::write(root.join("pkg/.ignore"), "\n").unwrap();
    assert_eq!(ask("okapi", Ask::After), ["pkg/sub/c.py"]);
    // A file deleted.
    assert_eq!(ask("okapi", Ask::Settle), ["pkg/sub/c.py"]);
    std::fs::remove_file(root.join("pkg/sub/c.py")).unwrap();
    assert!(ask("okapi", Ask::After).is_empty());
}

#[test]
fn a_watched_tree_sees_edits_new_files_in_subfolders_and_ignore_files_changing() {
    // Before each change the tree is made old and queried once, so a watch of it is stored
    // and the query after the change checks folders and files instead of walking: each change
    // must still be seen.
    let dir = changing_tree();
    let root = dir.path();
    every_change_is_seen(root, &mut |query, how| {
        let mut runs = 0;
        match how {
            Ask::Settle => {
                age_tree(root);
                let before = current_files(root, query, &mut runs);
                let mut runs = 0;
                assert_eq!(current_files(root, query, &mut runs), before);
                assert_eq!(runs, 1, "nothing changed");
                before
            }
            Ask::After => {
                let found = current_files(root, query, &mut runs);
                assert_eq!(runs, 2, "a change is seen: {query}");
                found
            }
        }
    });
}

#[test]
fn a_query_on_the_current_index_runs_again_only_after_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.py");
    std::fs::write(&a, "def feed():\n    return 'zebra'\n").unwrap();
    std::fs::write(dir.path().join("b.py"), "def other():\n    return 1\n").unwrap();

    // No index yet: built, then asked once.
    let mut runs = 0;
    assert_eq!(current_files(dir.path(), "zebra", &mut runs), vec!["a.py"]);
    assert_eq!(runs, 1);

    // Nothing changed: the answer from the index as it is stands.
    let mut runs = 0;
    assert_eq!(current_files(dir.path(), "zebra", &mut runs), vec!["a.py"]);
    assert_eq!(runs, 1);

    // An edit, an added and a deleted file: each is seen, by a second run after the refresh.
    std::fs::write(&a, "def feed():\n    return 'giraffe'\n").unwrap();
    let mut runs = 0;
    assert!(current_files(dir.path(), "zebra", &mut runs).is_empty());
    assert_eq!(runs, 2);
    std::fs::write(dir.path().join("c.py"), "OKAPI = 1\n").unwrap();
    let mut runs = 0;
    assert_eq!(current_files(dir.path(), "okapi", &mut runs), vec!["c.py"]);
    assert_eq!(runs, 2);
    std::fs::remove_file(dir.path().join("c.py")).unwrap();
    let mut runs = 0;
    assert!(current_files(dir.path(), "okapi", &mut runs).is_empty());
    assert_eq!(runs, 2);
    let mut runs = 0;
    assert_eq!(
        current_files(dir.path(), "giraffe", &mut runs),
        vec!["a.py"]
    );
    assert_eq!(runs, 1);

    // Touched (a new mtime, the same content): refreshed once, then current again.
    touch(&a);
    for expected_runs in [2, 1] {
        let mut runs = 0;
        assert_eq!(
            current_files(dir.path(), "giraffe", &mut runs),
            vec!["a.py"]
        );
        assert_eq!(runs, expected_runs);
    }

    // Without refreshing, the index is used as it is, even when the files changed.
    std::fs::write(&a, "def feed():\n    return 'zebra'\n").unwrap();
    let as_is = IndexOptions {
        refresh: Refresh::IfMissing,
        ..IndexOptions::default()
    };
    let mut runs = 0;
    let stale = Index::query_current(dir.path(), &as_is, &mut |_| {}, |index| {
        runs += 1;
        Ok::<_, AnalyzerError>(index.find_with("giraffe", 5, FindMode::Files)?.files.len())
    })
    .unwrap();
    assert_eq!((stale, runs), (1, 1));
}

#[test]
fn the_map_names_files_that_do_not_parse_from_the_index_without_parsing_them_again() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.py");
    std::fs::write(&bad, "def f():\n    return 1\n\ndef g(:\n    pass\n").unwrap();
    std::fs::write(dir.path().join("good.py"), "def h():\n    return 2\n").unwrap();
    let map = Index::open(dir.path())
        .unwrap()
        .map(&MapOptions::default())
        .unwrap();
    assert_eq!(map.unparsed_total, 1);
    assert_eq!(map.unparsed[0].path, "bad.py");
    assert_eq!(map.unparsed[0].error.line, 4);
    assert!(!map.unparsed[0].error.message.is_empty());

    // The file is fixed on disk but the index is used as it is: the map reports what the
    // index holds (the error stored when the file was parsed), not a parse of today's file.
    std::fs::write(&bad, "def f():\n    return 1\n").unwrap();
    let as_is = IndexOptions {
        refresh: Refresh::IfMissing,
        ..IndexOptions::default()
    };
    let map = Index::open_with(dir.path(), &as_is, &mut |_| {})
        .unwrap()
        .map(&MapOptions::default())
        .unwrap();
    assert_eq!(map.unparsed.len(), 1);
    assert_eq!(map.unparsed[0].error.line, 4);
    // Refreshed: nothing left to report.
    let map = Index::open(dir.path())
        .unwrap()
        .map(&MapOptions::default())
        .unwrap();
    assert_eq!((map.unparsed.len(), map.unparsed_total), (0, 0));
}

#[test]
fn installed_third_party_code_ranks_below_the_projects_own_unless_named() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        "def hash_password(secret):\n    '''Hash a password with a salt.'''\n    return secret\n";
    // The installed copy sorts first by path: only the demotion puts the project's own first.
    let mine = dir.path().join("src/security.py");
    let theirs = dir
        .path()
        .join("env/lib/site-packages/vaultlib/security.py");
    for p in [&mine, &theirs] {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    let index = Index::open(dir.path()).unwrap();
    let found = index.find("hash a password", 2).unwrap();
    assert_eq!(found.symbols[0].path, "src/security.py");
    assert_eq!(found.symbols[1].scores.factor, 0.6);
    let found = index
        .find_with("hash a password", 2, FindMode::Files)
        .unwrap();
    assert_eq!(found.files[0].path, "src/security.py");
    // Named by its package, the installed copy is not demoted.
    let found = index.find("hash a password with vaultlib", 2).unwrap();
    assert!(
        found.symbols.iter().all(|h| h.scores.factor == 1.0),
        "{}",
        found.render()
    );
}

#[test]
fn symbols_that_tie_are_listed_by_path_whatever_order_they_were_indexed_in() {
    let dir = tempfile::tempdir().unwrap();
    let body =
        "def parse_wheel_filename(name):\n    '''Parse a wheel filename.'''\n    return name\n";
    std::fs::create_dir_all(dir.path().join("zeta")).unwrap();
    std::fs::write(dir.path().join("zeta/utils.py"), body).unwrap();
    drop(Index::open(dir.path()).unwrap());
    // Indexed later, so its symbol has the larger id; it still comes first by path.
    std::fs::create_dir_all(dir.path().join("alpha")).unwrap();
    std::fs::write(dir.path().join("alpha/utils.py"), body).unwrap();
    let found = Index::open(dir.path())
        .unwrap()
        .find("parse a wheel filename", 2)
        .unwrap();
    let paths: Vec<&str> = found.symbols.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(paths, ["alpha/utils.py", "zeta/utils.py"]);
    assert_eq!(found.symbols[0].scores.total, found.symbols[1].scores.total);
}

/// The best files for `query` from an open index through [`Index::query_fresh`], and how many
/// times the query ran.
fn fresh_files(index: &mut Index, query: &str) -> (Vec<String>, usize) {
    let mut runs = 0;
    let files = index
        .query_fresh(None, &mut |_| {}, |index| {
            runs += 1;
            let found = index.find_with(query, 5, FindMode::Files)?;
            Ok::<_, AnalyzerError>(found.files.into_iter().map(|f| f.path).collect())
        })
        .unwrap();
    (files, runs)
}

#[cfg(target_os = "linux")]
#[test]
fn a_tree_the_kernel_watches_skips_the_check_yet_sees_every_change() {
    let dir = changing_tree();
    let root = dir.path();
    std::fs::write(root.join("pkg/notes.txt"), "zebra\n").unwrap();
    let mut index = Index::open(root).unwrap();
    index.answer_many();
    // A file of a language not indexed: no change to the index, the watch stays quiet.
    age_tree(root);
    index.refresh(&WalkOptions::default(), &mut |_| {}).unwrap();
    fresh_files(&mut index, "zebra");
    assert!(index.is_tree_watched());
    std::fs::write(root.join("pkg/notes.txt"), "okapi\n").unwrap();
    assert_eq!(
        fresh_files(&mut index, "zebra"),
        (vec!["pkg/a.py".to_string()], 1)
    );
    assert!(index.is_tree_watched());
    every_change_is_seen(root, &mut |query, how| match how {
        // Made old and refreshed, so a watch of the walk is stored; the next query checks
        // the tree from it and arms the kernel's watch; the one after finds it quiet.
        Ask::Settle => {
            age_tree(root);
            index.refresh(&WalkOptions::default(), &mut |_| {}).unwrap();
            let (before, runs) = fresh_files(&mut index, query);
            assert_eq!(runs, 1, "nothing changed: {query}");
            assert!(index.is_tree_watched(), "armed: {query}");
            assert_eq!(fresh_files(&mut index, query), (before.clone(), 1));
            assert!(index.is_tree_watched(), "still quiet: {query}");
            before
        }
        Ask::After => {
            let (found, runs) = fresh_files(&mut index, query);
            assert_eq!(runs, 2, "a change is seen: {query}");
            found
        }
    });
    // A file with a second name elsewhere may change unseen: such a tree is checked each time.
    std::fs::hard_link(root.join("pkg/a.py"), root.join("pkg/sub/twin.py")).unwrap();
    age_tree(root);
    index.refresh(&WalkOptions::default(), &mut |_| {}).unwrap();
    fresh_files(&mut index, "giraffe");
    assert!(!index.is_tree_watched());
}

/// An absolute `import json` is the standard library's `json` wherever it is written, never a
/// module of the tree whose name only ends in `json` inside a package (`pkg.json`): a wrapper
/// around `json.dumps` does not call itself. A module found under a folder that is no package
/// (`src/`) still answers to its name from there.
#[test]
fn an_absolute_import_is_not_a_namesake_inside_a_package() {
    let dir = tempfile::tempdir().unwrap();
    let w = |p: &str, t: &str| write_file(dir.path(), p, t);
    w("src/pkg/__init__.py", "");
    w(
        "src/pkg/json.py",
        "import json\n\n\ndef dumps(obj):\n    return json.dumps(obj)\n",
    );
    w("src/pkg/shapes.py", "def area():\n    return 1\n");
    w(
        "tools/report.py",
        "import pkg.shapes\n\n\ndef total():\n    return pkg.shapes.area()\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let shown = index.show("dumps").unwrap();
    assert!(shown.references.is_empty(), "{shown:?}");
    assert!(shown.referenced_by.is_empty(), "{shown:?}");
    let shown = index.show("area").unwrap();
    assert!(
        shown
            .referenced_by
            .iter()
            .any(|r| r.symbol.as_deref() == Some("total")),
        "{shown:?}"
    );
}

/// A call of a function declared with `@overload` stubs reaches the definition that runs (the
/// one after the stubs), not the first stub; a method's the same.
#[test]
fn an_overloaded_call_reaches_the_implementation() {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "conv.py",
        "import typing\nfrom typing import overload\n\n\n@overload\ndef parse(x: int) -> int: ...\n@typing.overload\ndef parse(x: str) -> str: ...\ndef parse(x):\n    return x\n\n\nclass Box:\n    @overload\n    def get(self, k: int) -> int: ...\n    @overload\n    def get(self, k: str) -> str: ...\n    def get(self, k):\n        return k\n\n    def first(self):\n        return self.get(0)\n\n\ndef use():\n    return parse(1)\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let target_line = |sym: &str, callee: &str| {
        let shown = index.show(sym).unwrap();
        shown
            .references
            .iter()
            .find(|r| r.symbol.as_deref() == Some(callee))
            .map(|r| r.symbol_line)
            .unwrap_or_else(|| panic!("{sym} → {callee}: {shown:?}"))
    };
    assert_eq!(target_line("use", "parse"), 9);
    assert_eq!(target_line("Box.first", "Box.get"), 18);
}

/// A generic base (`class Child(Base[int])`) is a base class like any other: `super()` and
/// `self.m()` look into it.
#[test]
fn super_reaches_a_generic_base() {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "opts.py",
        "from typing import Generic, TypeVar\n\nT = TypeVar('T')\n\n\nclass Base(Generic[T]):\n    def run(self, v):\n        return v\n\n    def check(self, v):\n        return v\n\n\nclass Child(Base[int]):\n    def run(self, v):\n        return super().run(self.check(v))\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let shown = index.show("Child.run").unwrap();
    let reaches = |q: &str| {
        shown
            .references
            .iter()
            .any(|r| r.symbol.as_deref() == Some(q))
    };
    assert!(reaches("Base.run"), "{shown:?}");
    assert!(reaches("Base.check"), "{shown:?}");
}

/// A call on a variable or an attribute of `self` resolves through the class the file says it
/// holds: a constructor assigned to it, an annotation of it or of the parameter it was given.
/// Where the facts disagree, or name no class of the tree, it stays a guess by name.
#[test]
fn calls_on_typed_variables_and_attributes_resolve_to_the_class_methods() {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "shop/models.py",
        "class Cache:\n    def get(self, key):\n        return key\n\n\
         class Client:\n    def send(self):\n        pass\n\n    def close(self):\n        pass\n\n\
         class Event:\n    def wait(self):\n        pass\n\n\
         class Holder:\n    def wait(self):\n        pass\n\n\n\
         def make_client() -> Optional['Client']:\n    return Client()\n",
    );
    write_file(dir.path(), "shop/__init__.py", "");
    write_file(
        dir.path(),
        "shop/service.py",
        "from typing import Optional\n\n\
         from shop import models\n\
         from shop.models import Cache, Client, make_client\n\n\
         registry = Cache()\n\n\n\
         def fetch(client: Client, other: 'models.Event', maybe: Optional[Client] = None):\n\
         \x20   client.send()\n    other.wait()\n    maybe.close()\n\
         \x20   local = Cache()\n    local.get('k')\n    registry.get('x')\n\n\n\
         class Service:\n    ready: models.Event\n    cache_class = Cache\n\n\
         \x20   def __init__(self, client: Client):\n        self.client = client\n        self.cache = Cache()\n\n\
         \x20   def run(self):\n        self.client.send()\n        self.cache.get('a')\n        self.ready.wait()\n\
         \x20       with Client() as c:\n            c.close()\n\n\
         \x20   def fresh(self):\n        made = self.cache_class()\n        made.get('b')\n        return self.__class__()\n\n\
         \x20   @classmethod\n    def create(cls):\n        return cls()\n\n\n\
         def ambiguous(flag):\n    x = Cache()\n    if flag:\n        x = Client()\n    x.get()\n\n\n\
         def rebound(page: Client, option: models.Holder[Event]):\n    page.send()\n    page = page.unknown()\n    page.close()\n    option.wait()\n\n\n\
         class BaseView:\n    def __init__(self, client: Client):\n        self.client = client\n\n\n\
         class View(BaseView):\n    def go(self):\n        self.client.close()\n\n\n\
         def built():\n    c = make_client()\n    c.close()\n    make_client().send()\n    Cache(size=1).get('z')\n",
    );
    let index = Index::open(dir.path()).unwrap();
    let calls: Vec<(String, String, String)> = edges(&index)
        .into_iter()
        .filter(|(_, _, how)| how.starts_with("call/") && !how.ends_with("/import"))
        .filter(|(src, dst, _)| dst.contains('.') || src.starts_with("Service."))
        .collect();
    assert_eq!(
        calls,
        triples(&[
            ("Service.create", "Service", "call/self"), // cls()
            ("Service.fresh", "Cache", "call/typed"),   // self.cache_class(), cache_class = Cache
            ("Service.fresh", "Cache.get", "call/typed"),
            ("Service.fresh", "Service", "call/self"), // self.__class__()
            ("Service.run", "Cache.get", "call/typed"),
            // What the base class of the same file puts in `self.client`.
            ("View.go", "Client.close", "call/typed"),
            ("Service.run", "Client.close", "call/typed"),
            ("Service.run", "Client.send", "call/typed"),
            ("Service.run", "Event.wait", "call/typed"),
            ("ambiguous", "Cache.get", "call/name"),
            // What a function's return annotation names.
            ("built", "Cache.get", "call/typed"), // Cache(size=1).get()
            ("built", "Client.close", "call/typed"),
            ("built", "Client.send", "call/typed"), // make_client().send()
            ("fetch", "Cache.get", "call/typed"),
            ("fetch", "Client.close", "call/typed"),
            ("fetch", "Client.send", "call/typed"),
            ("fetch", "Event.wait", "call/typed"),
            // Before `page` is rebound, the parameter's class; after, unknown: by name.
            ("rebound", "Client.close", "call/name"),
            ("rebound", "Client.send", "call/typed"),
            // A generic class's own methods.
            ("rebound", "Holder.wait", "call/typed"),
        ])
    );
}

/// What a `cast serve` sends back is the library's own answer as JSON: read back, it renders
/// exactly as the answer it came from (scores included), and the question arrives as asked.
#[test]
fn answers_and_questions_come_back_the_same_from_json() {
    use cast_analyzer::{FindOptions, Found, LogicMap, Scope};
    let dir = copy_fixture("inventory");
    let index = Index::open(dir.path()).unwrap();

    let options = FindOptions {
        top: 5,
        scope: Scope::new(["inventory", "!inventory/report.py"]).unwrap(),
        ..FindOptions::new("value of the stock")
    };
    let sent: FindOptions =
        serde_json::from_str(&serde_json::to_string(&options).unwrap()).unwrap();
    assert_eq!(sent.scope.patterns(), options.scope.patterns());
    assert!(!sent.scope.contains("inventory/report.py"));
    let found = index.search(&sent).unwrap();
    assert!(!found.is_empty());
    assert_eq!(found.render(), index.search(&options).unwrap().render());
    let back: Found = serde_json::from_str(&serde_json::to_string(&found).unwrap()).unwrap();
    assert_eq!(back.render(), found.render());
    assert_eq!(back.scope, found.scope);
    assert_eq!(back.searched, found.searched);

    let trace = parse_trace(
        "Traceback (most recent call last):\n  File \"inventory/store.py\", line 20, in total_value\n    return round_money(x)\nValueError: bad\n",
    )
    .unwrap();
    let options = MapOptions {
        budget: 400,
        trace: Some(trace),
        focus: Some("stock value".to_owned()),
        root_name: Some("shop".to_owned()),
        scope: Scope::new(["inventory"]).unwrap(),
    };
    let sent: MapOptions = serde_json::from_str(&serde_json::to_string(&options).unwrap()).unwrap();
    assert_eq!(sent.trace, options.trace);
    let map = index.map(&sent).unwrap();
    assert_eq!(map.render(), index.map(&options).unwrap().render());
    let back: LogicMap = serde_json::from_str(&serde_json::to_string(&map).unwrap()).unwrap();
    assert_eq!(back.render(), map.render());
    assert!(
        back.render().starts_with("Execution map of shop"),
        "{}",
        back.render()
    );

    // A scope that does not compile is refused on arrival, not taken for the whole tree.
    assert!(serde_json::from_str::<Scope>(r#"["src", ""]"#).is_err());
}
