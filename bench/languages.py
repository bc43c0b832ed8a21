#!/usr/bin/env python3
"""Compare `cast symbols` with universal-ctags on Rust, Go, JavaScript, TypeScript, Java, C, C++,
C#, Ruby and PHP, time both beside tree-sitter alone (the floor), and check skeletons.

    python3 bench/languages.py [--cast target/release/cast] [--floor PATH] [--runs 3] LANG=TREE ...
    e.g. python3 bench/languages.py rust=/work/corpora/ripgrep go=/work/corpora/fzf

LANG is one of rust, go, javascript, typescript, java, c, cpp, csharp, ruby, php. A language's
files are those with CAST's extensions for it (EXTENSIONS below: C takes .h, C++ does not, but for timing),
hidden files and folders left out as cast leaves them (ctags -R reads hidden ones). ctags is told
the same (a `--langmap` for every language CAST parses, CTAGS_LANGMAPS below): by default it
reads .h as C++, and lacks .cjs, .mts, .cts, .tsx, .ipp, .rake, .gemspec, .pyi. For each tree,
in one run:

1. Definitions. `ctags -R --languages=L <langmaps> --output-format=json --fields=+nKzZe -f - .`
   (run in TREE) lists tags; the kinds in COUNTED below are the definitions a reader names.
   Left out on both sides: members (fields, properties, events, C's struct members, PHP's
   properties, Ruby's accessors), enum variants and enumerators, locals, parameters, labels,
   prototypes and extern declarations (declarations without a body), packages and PHP's
   namespaces (a file's package statement), imports and their aliases (C#'s `using X = Y`,
   PHP's `use`, Ruby's `alias`). Counted for C and C++: every `#define`, file-level variables,
   typedefs (C++'s `using X = Y` too) and C++ namespaces; C# namespaces; Ruby constants; PHP
   `const` and `define()`. Also left out: the names ctags invents for anonymous functions,
   `AnonymousFunction<hex>`, for anonymous structs, unions, enums and namespaces,
   `__anon<hex>`, for PHP's anonymous classes, `AnonymousClass<hex>`, and JavaScript object literals (`x = {`), which ctags tags as
   classes: a JavaScript class counts only where its line says `class`. A ctags tag is found
   when `cast symbols --json --no-ignore .` reports a symbol of the same path, name and start
   line (any kind); names compare without spaces (ctags writes `operator !=`) and by their last
   dotted part (ctags names a C# explicit interface implementation `IList.Add`). Recall = found / ctags tags of counted kinds; the misses are listed by
   kind, with a sample. Then the symbols of the same kinds (CAST's names, OURS below) that
   ctags does not list at that path, name and line: counted by kind, with a fixed-seed sample
   of 12 to check by hand.
2. Wall time and CPU time (user + system; ctags is single-threaded, cast and the floor use all
   cores), medians of --runs after one warm-up of each, so all read from the page cache. The
   four commands read the same files, LANG's (TIMED_EXTENSIONS below: C++ takes .h here, as
   cast reads a C++ project's headers as C++ and the floor is given .h for whichever of C
   and C++ it is asked), and alternate, one of each per run, their order rotating by one each
   run: `cast symbols --json --no-ignore FILE... > /dev/null` (run in TREE, paths relative);
   `ctags --languages=<every language cast parses> <langmaps> -f TMP/tags -L LIST` (a file:
   ctags's C++ parser fails on /dev/null when it truncates its output to reparse a file;
   it reads a .h as C); and the floor (bench/floor, built with
   `CARGO_TARGET_DIR=target/floor cargo build --release --manifest-path
   bench/floor/Cargo.toml`; --floor names another binary; skipped with a message when
   absent), which walks TREE for the same files: `floor parse LANG TREE`, tree-sitter parsing
   each file and nothing else, and `floor tags LANG TREE`, the tree-sitter tagger
   (tree-sitter-tags with the grammar's own tags and locals queries, compiled before its
   clock starts), every tag consumed. cast compiles its queries inside its time. Ratios:
   cast/ctags, cast/parse, cast/tags. The files of other languages in the tree are counted
   in the report and left out of every timed command. `uptime`'s load is printed with it,
   and a command that exits non-zero in its warm-up is named with its first line of error.
   Where cast reports no symbol of LANG (a cast that does not parse it), its columns are
   left out.
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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

EXTENSIONS = {
    "rust": (".rs",),
    "go": (".go",),
    "javascript": (".js", ".mjs", ".cjs", ".jsx"),
    "typescript": (".ts", ".mts", ".cts", ".tsx"),
    "java": (".java",),
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h++", ".c++", ".ipp"),
    "csharp": (".cs",),
    "ruby": (".rb", ".rake", ".gemspec"),
    "php": (".php",),
}
# The files timed per language: C++ takes .h too (see the docstring).
TIMED_EXTENSIONS = {**EXTENSIONS, "cpp": EXTENSIONS["cpp"] + (".h",)}
# The other languages `cast symbols` parses: counted in the trees, not timed.
OTHER_CAST_EXTENSIONS = {"python": (".py", ".pyi", ".pyx"), "html": (".html", ".htm")}
CTAGS_LANGUAGE = {"rust": "Rust", "go": "Go", "javascript": "JavaScript",
                  "typescript": "TypeScript", "java": "Java", "c": "C", "cpp": "C++",
                  "csharp": "C#", "ruby": "Ruby", "php": "PHP", "python": "Python",
                  "html": "HTML"}
# ctags's file name maps set to CAST's extensions. `--langmap=C:.c.h` also takes .h from C++
# (and Objective-C), ctags's default owner.
CTAGS_LANGMAPS = [f"--langmap={CTAGS_LANGUAGE[lang]}:{''.join(exts)}"
                  for lang, exts in {**EXTENSIONS, **OTHER_CAST_EXTENSIONS}.items()]
ALL_CAST_LANGUAGES = ",".join(CTAGS_LANGUAGE.values())
ALL_CAST_EXTENSIONS = tuple(e for exts in {**EXTENSIONS, **OTHER_CAST_EXTENSIONS}.values() for e in exts)
# ctags kinds that are definitions a reader names (see each language's --list-kinds-full).
COUNTED = {
    "rust": {"function", "method", "struct", "enum", "interface", "implementation", "module",
             "typedef", "macro", "variable"},
    "go": {"func", "struct", "interface", "type", "talias", "const", "var", "methodSpec"},
    "javascript": {"function", "class", "method", "generator", "getter", "setter"},
    "typescript": {"function", "class", "method", "interface", "enum", "alias", "namespace",
                   "generator"},
    "java": {"class", "interface", "enum", "method", "annotation"},
    # Not member, enumerator, prototype, externvar, local, parameter, label, header, macroparam.
    "c": {"function", "struct", "union", "enum", "typedef", "macro", "variable"},
    # C's, and class, namespace. Not alias (namespace aliases), using, name, tparam.
    "cpp": {"function", "class", "struct", "union", "enum", "typedef", "namespace", "macro",
            "variable"},
    # ctags's C# `method` takes delegates too. Not field, property, event, enumerator, local,
    # typedef (`using X = Y;` aliases), macro (`#define SYMBOL`, a preprocessor flag).
    "csharp": {"class", "struct", "interface", "enum", "method", "namespace"},
    # Not accessor (attr_reader and kin), alias, library (require).
    "ruby": {"class", "module", "method", "singletonMethod", "constant"},
    # ctags's PHP `function` is functions and methods; `define` is `const` and define().
    # Not variable (properties), namespace, alias (`use`), local.
    "php": {"class", "interface", "trait", "function", "define"},
}
# CAST's kinds on the same footing, for the "CAST has, ctags lacks" count.
OURS = {"function", "method", "class", "struct", "enum", "trait", "interface", "impl", "type",
        "module", "constant", "variable", "macro"}
# Local definitions (inside a function) ctags reports for some kinds; both sides count them
# the same way: a tag whose scope is a function is compared like any other.

# How to build the floor (bench/floor), said when its binary is missing.
FLOOR_BUILD = "CARGO_TARGET_DIR=target/floor cargo build --release --manifest-path bench/floor/Cargo.toml"


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False, cwd=cwd)


def timed(cmds: dict[str, tuple[list[str], Path | None]], runs: int) -> tuple[dict[str, float], dict[str, float], dict[str, str]]:
    """Median wall time and median CPU time (user + system) of each command over `runs` runs,
    after one warm-up of each, and each warm-up's standard output. The commands alternate:
    each run runs every command once, the order rotated by one from the run before. A command
    comes with the folder it runs in (None: this one)."""
    out = {}
    for name, (cmd, cwd) in cmds.items():
        proc = run(cmd, cwd=cwd)
        out[name] = proc.stdout.decode(errors="replace")
        if proc.returncode != 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            print(f"    warning: {name} exits {proc.returncode}: {err[0] if err else ''}")
    walls: dict[str, list[float]] = collections.defaultdict(list)
    cpus: dict[str, list[float]] = collections.defaultdict(list)
    names = list(cmds)
    for i in range(runs):
        for name in names[i % len(names):] + names[:i % len(names)]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            cmd, cwd = cmds[name]
            subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            walls[name].append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return ({n: statistics.median(v) for n, v in walls.items()},
            {n: statistics.median(v) for n, v in cpus.items()}, out)


def timing(args: argparse.Namespace, tree: Path, lang: str, cast_parses_lang: bool) -> None:
    others = collections.Counter()
    for path in language_files(tree, lang, ALL_CAST_EXTENSIONS):
        other = next(o for o, exts in {**EXTENSIONS, **OTHER_CAST_EXTENSIONS}.items() if path.name.endswith(exts))
        if other != lang and not path.name.endswith(TIMED_EXTENSIONS[lang]):
            others[other] += 1
    timed_files = [str(p.relative_to(tree)) for p in language_files(tree, lang, TIMED_EXTENSIONS[lang])]
    scratch = Path(tempfile.mkdtemp())
    file_list = scratch / "files"
    file_list.write_text("".join(f"{f}\n" for f in timed_files))
    cmds: dict[str, tuple[list[str], Path | None]] = {}
    if cast_parses_lang:
        cmds["cast symbols"] = ([args.cast, "symbols", "--json", "--no-ignore", *timed_files], tree)
    else:
        print(f"  timing: cast reports no {lang} symbol here (does this cast parse {lang}?);"
              " its columns are left out")
    # A real file, not /dev/null: ctags's C++ parser truncates its output when it parses a
    # file again (another #if branch), and fails on /dev/null.
    tags_file = scratch / "tags"
    cmds["ctags"] = (["ctags", f"--languages={ALL_CAST_LANGUAGES}", *CTAGS_LANGMAPS,
                      "-f", str(tags_file), "-L", str(file_list)], tree)
    if Path(args.floor).is_file():
        cmds["floor parse"] = ([args.floor, "parse", lang, str(tree)], None)
        cmds["floor tags"] = ([args.floor, "tags", lang, str(tree)], None)
    else:
        print(f"  timing: no floor binary at {args.floor} (build it: {FLOOR_BUILD});"
              " its columns are left out")
    load = os.getloadavg()[0]
    wall, cpu, out = timed(cmds, args.runs)
    shutil.rmtree(scratch)
    print(f"  timing, medians of {args.runs} warm runs (the {len(cmds)} commands alternate, order rotating),"
          f" {os.cpu_count()} cores, load {load:.2f}")
    if others:
        print(f"    timed: {len(timed_files)} files of {lang}; the tree's other files left out: "
              + ", ".join(f"{lang_} {n}" for lang_, n in others.most_common()))
    for line in (out.get("floor parse", ""), out.get("floor tags", "")):
        if line.strip():
            print(f"    {line.strip()}")
    ratios = [("cast symbols", other, short) for other, short in
              (("ctags", "ctags"), ("floor parse", "parse"), ("floor tags", "tags"))
              if "cast symbols" in cmds and other in cmds]
    for title, times in (("wall time", wall), ("CPU time (user + system)", cpu)):
        print(f"  {title}: " + ", ".join(f"{name} {t:.3f} s" for name, t in times.items())
              + ("; ratio " if ratios else "")
              + ", ".join(f"cast/{short} x{times[a] / max(times[b], 1e-9):.2f}" for a, b, short in ratios))


def language_files(tree: Path, lang: str, extensions: tuple[str, ...] | None = None) -> list[Path]:
    extensions = extensions or EXTENSIONS[lang]
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith(extensions) and not name.startswith("."):
                out.append(Path(dirpath) / name)
    return sorted(out)


def ctags_tags(tree: Path, lang: str) -> list[dict]:
    proc = run(["ctags", "-R", f"--languages={CTAGS_LANGUAGE[lang]}", *CTAGS_LANGMAPS,
                "--output-format=json", "--fields=+nKzZe", "-f", "-", "."], cwd=tree)
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
    rows = [json.loads(l) for l in proc.stdout.decode(errors="replace").splitlines() if l.strip()]
    return [r for r in rows if r["path"].endswith(EXTENSIONS[lang])]


def same_name(name: str) -> str:
    """A name as both sides spell it: without spaces (ctags writes `operator !=`, CAST
    `operator!=`) and, for a C# explicit interface implementation (ctags's `IList.Add`), its
    last part."""
    return "".join(name.split()).rsplit(".", 1)[-1]


def recall(lang: str, tags: list[dict], rows: list[dict]) -> None:
    # ctags names anonymous functions `AnonymousFunction<hex>`: no name a reader uses. Its
    # JavaScript parser also tags object literals (`x = {`, `key: {`) as classes; a class
    # counts only where its line declares one.
    counted = [t for t in tags if t["kind"] in COUNTED[lang]
               and not t["name"].startswith(("AnonymousFunction", "AnonymousClass", "__anon"))
               and not (lang == "javascript" and t["kind"] == "class"
                        and not re.search(r"\bclass\b", t.get("pattern", "")))]
    print(f"    (ctags tags of these kinds: {sum(t['kind'] in COUNTED[lang] for t in tags)};"
          f" {sum(t['kind'] in COUNTED[lang] for t in tags) - len(counted)} set aside:"
          " anonymous definitions, and for JavaScript object literals tagged as classes)")
    ours = {(r["path"], same_name(r["name"]), r["start_line"]) for r in rows}
    theirs = {(t["path"].removeprefix("./"), same_name(t["name"]), t["line"]) for t in tags}
    by_kind = collections.Counter(t["kind"] for t in counted)
    missed = [t for t in counted
              if (t["path"].removeprefix("./"), same_name(t["name"]), t["line"]) not in ours]
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
    extra = [r for r in rows if r["kind"] in OURS
             and (r["path"], same_name(r["name"]), r["start_line"]) not in theirs]
    extra_kind = collections.Counter(r["kind"] for r in extra)
    print(f"  CAST has, ctags lacks: {len(extra)} — " + ", ".join(f"{k} {n}" for k, n in extra_kind.most_common()))
    for kind, _ in extra_kind.most_common():
        print(f"    {kind}: " + ", ".join(f"{r['path']}:{r['start_line']} {r['name']}"
                                           for r in [r for r in extra if r['kind'] == kind][:6]))
    rng = random.Random(15)
    for r in sorted(rng.sample(extra, min(12, len(extra))), key=lambda r: (r["path"], r["start_line"])):
        print(f"    extra {r['kind']:<9} {r['path']}:{r['start_line']} {r['qualname']}  {r['signature'][:70]}")


def skeletons(cast: str, tree: Path, lang: str, rows: list[dict], files: list[Path]) -> None:
    if not files or not rows:
        print(f"  skeletons: left out ({len(files)} files, {len(rows)} cast symbols)")
        return
    proc = run([cast, "skeleton", "--json", *map(str, files)])
    sks = [json.loads(l) for l in proc.stdout.decode(errors="replace").splitlines() if l.strip()]
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
        sk_lines = run([cast, "skeleton", "--json", str(path)]).stdout.decode(errors="replace").splitlines()
        if not sk_lines:
            print(f"    {rel}: no skeleton")
            continue
        sk = json.loads(sk_lines[0])
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
    ap.add_argument("--floor", default=str(HERE.parent / "target" / "floor" / "release" / "cast-bench-floor"),
                    help="the bench/floor binary")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-timing", action="store_true")
    args = ap.parse_args()
    args.cast = str(Path(args.cast).resolve())
    args.floor = str(Path(args.floor).resolve())
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
            timing(args, tree, lang, bool(rows))
        skeletons(args.cast, tree, lang, rows, files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
