#!/usr/bin/env python3
"""Typed receivers in Go, Java, TypeScript and Rust, against call sites labelled by hand.

Issue 40 asks resolution to take the same care in the tree-sitter languages as in Python
(`self.field` with a typed field, Go methods on typed receivers, declared types) "measured on a
sample you label by hand". No type-aware analyser runs here for four languages, so the
reference is a label per call site, written by reading the code (blind to CAST's answer).

Method:
- `--sample`: every method call `recv.name(` in a repository's library code (tests, examples
  and vendored code left out; comment lines skipped) is a candidate; a seeded random sample of
  N is written as a TSV (`path  line  receiver  name  text`) with an empty `label` column.
- Labelling: for each site, the definition the call runs, as `path:line` of its `name` (the
  line of the method's name in the tree), `OUT` when it is outside the repository (standard
  library, a dependency, a builtin), or `?` when reading the code does not decide it (an
  interface with several implementations, a closure field). Only sites labelled `path:line`
  or `OUT` are judged.
- Scoring: the tree is indexed by each CAST build given (a fresh database each), and CAST's
  call edges at the site's file and line whose target is named `name` are read from the
  index. A *resolved* edge is any edge that is not a guess by name (`how` other than `name`).
  - precision of resolved edges: resolved edges at judged sites whose target is the label /
    resolved edges at judged sites (an edge at an `OUT` site is wrong);
  - recall: sites labelled in the repository where a resolved edge reaches the label / sites
    labelled in the repository;
  - guesses: sites where CAST has only guesses by name, and how many of those include the
    label.

Fetch the repositories with the search tool's `fetch` (or `git clone`) and extract their
commits as written in the label files' first line, e.g.:

    git --git-dir=/work/.mirror/spf13+cobra/repo archive adbc881 | tar -x -C /tmp/lab/cobra

Run:

    python3 bench/receivers.py --sample 40 --seed 40 --tree /tmp/lab/cobra --language go \\
        --out bench/receivers/go-cobra.tsv            # once, then label the file by hand
    python3 bench/receivers.py --labels bench/receivers/go-cobra.tsv --tree /tmp/lab/cobra \\
        --cast target/release/cast --cast OLD_BUILD
"""
from __future__ import annotations

import argparse
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

# The index's edge blobs, read as the Jedi benchmark reads them (this folder is on the path).
from resolution import decode_edges

EXTS = {"go": (".go",), "java": (".java",), "typescript": (".ts", ".tsx"), "rust": (".rs",)}
LEFT_OUT = re.compile(r"(^|/)(tests?|testdata|examples?|benches|vendor|node_modules|third_party|fixtures?)(/|$)|_test\.go$|\.test\.tsx?$|\.spec\.tsx?$|\.d\.ts$|Test\w*\.java$")
CALL = re.compile(r"([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*(?:\(\))?)\.([A-Za-z_$][\w$]*)\s*(?:::<[^>]*>)?\(")


def library_files(tree: Path, language: str) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for f in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, f), tree)
            if f.endswith(EXTS[language]) and not LEFT_OUT.search(rel):
                out.append(rel)
    return out


def code_lines(text: str) -> list[str]:
    """The file's lines with comments blanked (`/* … */` blocks, doc blocks, `//` to the end
    of a line, roughly: a `//` or `/*` inside a string literal is taken for a comment too):
    an example in a doc comment is no call site."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return [re.sub(r"(^|[^:])//.*", r"\1", line) for line in text.splitlines()]


def sample(args) -> None:
    tree = Path(args.tree)
    sites = []
    for rel in library_files(tree, args.language):
        text = (tree / rel).read_text(errors="replace")
        for n, (line, code) in enumerate(zip(text.splitlines(), code_lines(text)), 1):
            s = line.strip()
            for m in CALL.finditer(code):
                sites.append((rel, n, m.group(1), m.group(2), s[:160]))
    random.Random(args.seed).shuffle(sites)
    chosen = sorted(sites[: args.sample])
    commit = args.commit or "?"
    with open(args.out, "w") as out:
        out.write(f"# {args.language} {tree.name} {commit}: {len(chosen)} of {len(sites)} method-call sites, seed {args.seed}\n")
        out.write("path\tline\treceiver\tname\tlabel\ttext\n")
        for rel, n, recv, name, text in chosen:
            out.write(f"{rel}\t{n}\t{recv}\t{name}\t\t{text}\n")
    print(f"{len(chosen)} of {len(sites)} sites -> {args.out}")


def call_edges(cast: str, tree: Path) -> dict:
    """(path, line, callee name) → [(target 'path:line', how)] for every call edge."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "index.db"
        subprocess.run([cast, "index", str(tree), "--db", str(db)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        syms = {sid: (path, name, line) for sid, path, name, line in con.execute(
            "SELECT s.id, f.path, s.name, s.start_line FROM symbols s JOIN files f ON f.id = s.file_id")}
        out: dict = {}
        for path, blob in con.execute(
                "SELECT path, edges FROM files JOIN file_data USING (id) WHERE edges IS NOT NULL"):
            for _src, dst, how, kind, _k, line in decode_edges(blob):
                if kind != "call" or dst not in syms:
                    continue
                tp, tname, tl = syms[dst]
                out.setdefault((path, line, tname), []).append((f"{tp}:{tl}", how))
        con.close()
    return out


def score(args) -> None:
    rows = []
    lines = Path(args.labels).read_text().splitlines()
    head = lines[0]
    for line in lines[2:]:
        path, n, recv, name, label, _text = line.split("\t", 5)
        rows.append((path, int(n), recv, name, label.strip()))
    # Sites the sampler took from comments before it blanked them are no call sites.
    code = {}
    for path in {r[0] for r in rows}:
        text = (Path(args.tree) / path).read_text(errors="replace")
        code[path] = code_lines(text)
    in_comments = [r for r in rows if not CALL.search(code[r[0]][r[1] - 1])]
    rows = [r for r in rows if r not in in_comments]
    judged = [r for r in rows if r[4] and r[4] != "?"]
    inrepo = [r for r in judged if r[4] != "OUT"]
    print(head)
    print(f"sites in comments, left out: {len(in_comments)}")
    print(f"sites {len(rows)}, judged {len(judged)} (in the repository {len(inrepo)}, outside {len(judged) - len(inrepo)}), undecided {len(rows) - len(judged)}")
    for cast in args.cast:
        edges = call_edges(cast, Path(args.tree))
        res_all = res_ok = hit = guess_sites = guess_right = 0
        wrong, missed = [], []
        for path, n, recv, name, label in judged:
            found = edges.get((path, n, name), [])
            resolved = [t for t, how in found if how != "name"]
            guesses = [t for t, how in found if how == "name"]
            res_all += len(resolved)
            res_ok += sum(t == label for t in resolved)
            wrong += [(path, n, recv, name, label, t) for t in resolved if t != label]
            if label != "OUT" and label in resolved:
                hit += 1
            elif label != "OUT":
                missed.append((path, n, recv, name, label, found))
            if guesses and not resolved:
                guess_sites += 1
                guess_right += label in guesses
        pct = lambda a, b: f"{100 * a / b:.1f} %" if b else "n/a"
        print(f"{cast}: resolved edges right {res_ok} of {res_all} ({pct(res_ok, res_all)}); "
              f"recall {hit} of {len(inrepo)} ({pct(hit, len(inrepo))}); "
              f"sites with guesses only {guess_sites} (one right at {guess_right})")
        for w in wrong:
            print("   wrong:", *w)
        if args.verbose:
            for m in missed:
                print("   missed:", *m)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--sample", type=int)
    ap.add_argument("--seed", type=int, default=40)
    ap.add_argument("--language", choices=sorted(EXTS))
    ap.add_argument("--commit")
    ap.add_argument("--out")
    ap.add_argument("--labels")
    ap.add_argument("--cast", action="append", default=[])
    ap.add_argument("--verbose", action="store_true", help="list the missed sites too")
    args = ap.parse_args()
    if args.sample:
        if not (args.language and args.out):
            sys.exit("--sample needs --language and --out")
        sample(args)
    elif args.labels and args.cast:
        score(args)
    else:
        sys.exit("give --sample N --language L --out F, or --labels F --cast BUILD")


if __name__ == "__main__":
    main()
