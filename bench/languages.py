#!/usr/bin/env python3
"""Compare `cast symbols` with universal-ctags on Rust, Go, JavaScript, TypeScript and Java, time
both, and check skeletons.

    python3 bench/languages.py [--cast target/release/cast] [--runs 3] LANG=TREE ...
    e.g. python3 bench/languages.py rust=/work/corpora/ripgrep go=/work/corpora/fzf

LANG is one of rust, go, javascript, typescript, java. For each tree, in one run:

1. Definitions. `ctags -R --languages=L --output-format=json --fields=+nKzZe -f - .` (run in
   TREE) lists tags; the kinds in COUNTED below are the definitions a reader names (fields,
   enum variants, properties, locals and packages are left out on both sides, and so are the
   names ctags invents for anonymous functions, `AnonymousFunction<hex>`; ctags tags JavaScript
   object literals (`x = {`) as classes, so a JavaScript class counts only where its line
   says `class`). A ctags tag is
   found when `cast symbols --json --no-ignore .` reports a symbol of the same path, name and
   start line (any kind). Recall = found / ctags tags of counted kinds; the misses are listed
   by kind, with a sample. Then the symbols of the same kinds (CAST's names, OURS below) that
   ctags does not list at that path, name and line: counted by kind, with a fixed-seed sample
   of 12 to check by hand.
2. Wall time and CPU time (user + system; ctags is single-threaded, cast parses on all cores),
   medians of --runs after one warm-up, so both read from the page cache:
   `cast symbols --json --no-ignore TREE > /dev/null` against
   `ctags -R --languages=<every language cast parses> -f /dev/null TREE`, so both parse the
   same files. `uptime`'s load is printed with it.
3. Skeletons. `cast skeleton --json` on every file of the language: skeleton bytes (the
   rendered `(Line N) text` lines) over source bytes, and on every file whether each symbol
   has a skeleton line at its start line holding its name. On three files (the ones at the 50th,
   75th and 95th percentile of size): every symbol `cast symbols` reports has a skeleton line at
   its start line holding its name, and the source line there holds the name too.

Needs Python 3 and universal-ctags. Prints everything; exits 0.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

EXTENSIONS = {
    "rust": (".rs",),
    "go": (".go",),
    "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".mts", ".cts", ".tsx"),
    "java": (".java",),
}
CTAGS_LANGUAGE = {"rust": "Rust", "go": "Go", "javascript": "JavaScript",
                  "typescript": "TypeScript", "java": "Java"}
# ctags kinds that are definitions a reader names (see each language's --list-kinds-full).
COUNTED = {
    "rust": {"function", "method", "struct", "enum", "interface", "implementation", "module",
             "typedef", "macro", "variable"},
    "go": {"func", "struct", "interface", "type", "talias", "const", "var", "methodSpec"},
    "javascript": {"function", "class", "method", "generator", "getter", "setter"},
    "typescript": {"function", "class", "method", "interface", "enum", "alias", "namespace",
                   "generator"},
    "java": {"class", "interface", "enum", "method", "annotation"},
}
# CAST's kinds on the same footing, for the "CAST has, ctags lacks" count.
OURS = {"function", "method", "class", "struct", "enum", "trait", "interface", "impl", "type",
        "module", "constant", "variable", "macro"}
# Local definitions (inside a function) ctags reports for some kinds; both sides count them
# the same way: a tag whose scope is a function is compared like any other.
ALL_CAST_LANGUAGES = "Python,HTML,Rust,Go,JavaScript,TypeScript,Java"


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False, cwd=cwd)


def timed(cmd: list[str], runs: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of `runs` runs after a warm-up."""
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def language_files(tree: Path, lang: str) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(EXTENSIONS[lang]):
                out.append(Path(dirpath) / name)
    return sorted(out)


def ctags_tags(tree: Path, lang: str) -> list[dict]:
    proc = run(["ctags", "-R", f"--languages={CTAGS_LANGUAGE[lang]}", "--output-format=json",
                "--fields=+nKzZe", "-f", "-", "."], cwd=tree)
    tags = []
    for line in proc.stdout.decode(errors="replace").splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        if tag.get("_type") == "tag":
            tags.append(tag)
    return tags


def cast_symbols(cast: str, tree: Path, lang: str) -> list[dict]:
    proc = run([cast, "symbols", "--json", "--no-ignore", "."], cwd=tree)
    rows = [json.loads(l) for l in proc.stdout.decode().splitlines() if l.strip()]
    return [r for r in rows if r["path"].endswith(EXTENSIONS[lang])]


def recall(lang: str, tags: list[dict], rows: list[dict]) -> None:
    # ctags names anonymous functions `AnonymousFunction<hex>`: no name a reader uses. Its
    # JavaScript parser also tags object literals (`x = {`, `key: {`) as classes; a class
    # counts only where its line declares one.
    counted = [t for t in tags if t["kind"] in COUNTED[lang]
               and not t["name"].startswith("AnonymousFunction")
               and not (lang == "javascript" and t["kind"] == "class"
                        and not re.search(r"\bclass\b", t.get("pattern", "")))]
    print(f"    (ctags tags of these kinds: {sum(t['kind'] in COUNTED[lang] for t in tags)};"
          f" {sum(t['kind'] in COUNTED[lang] for t in tags) - len(counted)} set aside:"
          " anonymous functions, and for JavaScript object literals tagged as classes)")
    ours = {(r["path"], r["name"], r["start_line"]) for r in rows}
    theirs = {(t["path"].removeprefix("./"), t["name"], t["line"]) for t in tags}
    by_kind = collections.Counter(t["kind"] for t in counted)
    missed = [t for t in counted if (t["path"].removeprefix("./"), t["name"], t["line"]) not in ours]
    missed_kind = collections.Counter(t["kind"] for t in missed)
    found = len(counted) - len(missed)
    print(f"  recall against ctags: {found}/{len(counted)} = {100 * found / max(1, len(counted)):.2f}%")
    print("    by kind: " + ", ".join(
        f"{k} {n - missed_kind[k]}/{n}" for k, n in by_kind.most_common()))
    # A miss where CAST has another name at that very line is usually ctags misreading the
    # line (`const X: &'static str` tagged as `str`); said apart, and still counted as missed.
    by_file_name = collections.defaultdict(list)
    by_line = collections.defaultdict(list)
    for r in rows:
        by_file_name[(r["path"], r["name"])].append(r["start_line"])
        by_line[(r["path"], r["start_line"])].append(r["name"])
    same_line = [t for t in missed if by_line.get((t["path"].removeprefix("./"), t["line"]))]
    print(f"    of the misses, {len(same_line)} are at a line where cast has another name"
          f" ({', '.join(sorted({t['name'] + '→' + by_line[(t['path'].removeprefix('./'), t['line'])][0] for t in same_line})[:8])})")
    shown = [t for t in missed if t not in same_line] + same_line
    for t in shown[:25]:
        path = t["path"].removeprefix("./")
        near = by_file_name.get((path, t["name"]), [])
        where = f" (cast has it at line {', '.join(map(str, near[:3]))})" if near else ""
        print(f"    missed {t['kind']:<10} {path}:{t['line']} {t['name']}{where}"
              f"  {t.get('pattern', '')[2:80]}")
    extra = [r for r in rows if r["kind"] in OURS and (r["path"], r["name"], r["start_line"]) not in theirs]
    extra_kind = collections.Counter(r["kind"] for r in extra)
    print(f"  CAST has, ctags lacks: {len(extra)} — " + ", ".join(f"{k} {n}" for k, n in extra_kind.most_common()))
    for kind, _ in extra_kind.most_common():
        print(f"    {kind}: " + ", ".join(f"{r['path']}:{r['start_line']} {r['name']}"
                                           for r in [r for r in extra if r['kind'] == kind][:6]))
    rng = random.Random(15)
    for r in sorted(rng.sample(extra, min(12, len(extra))), key=lambda r: (r["path"], r["start_line"])):
        print(f"    extra {r['kind']:<9} {r['path']}:{r['start_line']} {r['qualname']}  {r['signature'][:70]}")


def skeletons(cast: str, tree: Path, lang: str, rows: list[dict], files: list[Path]) -> None:
    proc = run([cast, "skeleton", "--json", *map(str, files)])
    sks = [json.loads(l) for l in proc.stdout.decode().splitlines() if l.strip()]
    src = sum(s["source_bytes"] for s in sks)
    sk = sum(len(f"(Line {l['line']}) {l['text']}\n".encode()) for s in sks for l in s["lines"])
    print(f"  skeletons: {len(sks)} files, {sk:,} / {src:,} bytes = {100 * sk / max(1, src):.1f}% of the source")
    # Every symbol of every file: a skeleton line at its start line that holds its name.
    at_lines: dict[str, dict[int, list[str]]] = {}
    for s in sks:
        rel = str(Path(s["path"]).resolve().relative_to(tree))
        d = at_lines.setdefault(rel, collections.defaultdict(list))
        for l in s["lines"]:
            d[l["line"]].append(l["text"])
    unplaced = [r for r in rows if not any(r["name"] in t for t in at_lines.get(r["path"], {}).get(r["start_line"], []))]
    print(f"  every file: {len(rows) - len(unplaced):,} of {len(rows):,} symbols have a skeleton line at their start line"
          f" holding their name")
    for r in unplaced[:5]:
        print(f"    not placed: {r['path']}:{r['start_line']} {r['qualname']}")
    by_size = sorted(files, key=lambda p: p.stat().st_size)
    picks = [by_size[min(len(by_size) - 1, int(len(by_size) * q))] for q in (0.5, 0.75, 0.95)]
    for path in picks:
        rel = str(path.relative_to(tree))
        sk = json.loads(run([cast, "skeleton", "--json", str(path)]).stdout.decode().splitlines()[0])
        lines = collections.defaultdict(list)
        for l in sk["lines"]:
            lines[l["line"]].append(l["text"])
        source = path.read_text(errors="replace").splitlines()
        symbols = [r for r in rows if r["path"] == rel]
        bad = []
        for s in symbols:
            n = s["start_line"]
            at_line = any(s["name"] in text for text in lines.get(n, []))
            in_source = 0 < n <= len(source) and s["name"] in source[n - 1]
            if not (at_line and in_source):
                bad.append(f"{s['qualname']}@{n} skeleton={at_line} source={in_source}")
        print(f"    {rel}: {len(symbols)} definitions, {len(symbols) - len(bad)} at their true line"
              f" in the skeleton ({len(sk['lines'])} skeleton lines, {sk['line_count']} source lines)")
        for b in bad[:5]:
            print(f"      not at its line: {b}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="+", help="LANG=TREE")
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-timing", action="store_true")
    args = ap.parse_args()
    args.cast = str(Path(args.cast).resolve())
    for spec in args.trees:
        lang, _, tree = spec.partition("=")
        if lang not in EXTENSIONS:
            sys.exit(f"unknown language {lang!r}; expected one of {', '.join(EXTENSIONS)}")
        tree = Path(tree).resolve()
        files = language_files(tree, lang)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        size = sum(p.stat().st_size for p in files)
        print(f"\n{lang}: {tree} ({len(files)} files, {lines:,} lines, {size / 1e6:.1f} MB)")
        tags = ctags_tags(tree, lang)
        rows = cast_symbols(args.cast, tree, lang)
        recall(lang, tags, rows)
        if not args.no_timing:
            load = os.getloadavg()[0]
            cast_t, cast_cpu = timed([args.cast, "symbols", "--json", "--no-ignore", str(tree)], args.runs)
            ctags_t, ctags_cpu = timed(["ctags", "-R", f"--languages={ALL_CAST_LANGUAGES}", "-f", os.devnull, str(tree)], args.runs)
            print(f"  wall time, median of {args.runs} warm runs, {os.cpu_count()} cores, load {load:.2f}:"
                  f" cast symbols {cast_t:.3f} s, ctags -R {ctags_t:.3f} s, ratio x{cast_t / ctags_t:.2f}")
            print(f"  CPU time (user + system), same runs: cast symbols {cast_cpu:.3f} s, ctags -R {ctags_cpu:.3f} s,"
                  f" ratio x{cast_cpu / ctags_cpu:.2f}")
        skeletons(args.cast, tree, lang, rows, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
