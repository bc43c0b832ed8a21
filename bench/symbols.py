#!/usr/bin/env python3
"""Compare `cast symbols` with Python's `ast` (py_symbols.py) and time it against ctags.

    python3 bench/symbols.py [--cast target/release/cast] [--compare OTHER_CAST] [--runs 3] [TREE]

TREE defaults to this machine's Python standard library (site-packages included). For every
(path, kind, qualname, start_line, end_line) that `ast` reports on the .py/.pyi files it can
parse, the script counts matched / missing / extra against `cast symbols --json --no-ignore`.
Then it times, in one run on the same tree, each command's wall time (the median of --runs
runs, after one warm-up run so every tool reads from the page cache):

    cast symbols --json --no-ignore TREE > /dev/null
    ctags -R --languages=Python -f /dev/null TREE       (universal-ctags; skipped if absent)
    python3 tests/fixtures/py_symbols.py TREE > /dev/null

With --compare, a second `cast` binary (e.g. one built before a change) is checked against the
same `ast` output and timed in the same run, so a before/after pair is measured side by side.

Needs only Python 3. `cargo xtask bench-symbols` builds the release binary and runs this.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE.parent / "tests" / "fixtures" / "py_symbols.py"


def key(row: dict) -> tuple:
    return (row["path"], row["kind"], row["qualname"], row["start_line"], row["end_line"])


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)


def timed(cmd: list[str], runs: int) -> float:
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def tree_size(root: Path) -> tuple[int, int, int]:
    files = lines = size = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith((".py", ".pyi")):
                data = (Path(dirpath) / name).read_bytes()
                files += 1
                size += len(data)
                lines += data.count(b"\n")
    return files, lines, size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--compare", metavar="OTHER_CAST", help="also check and time this cast binary")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-ast-timing", action="store_true", help="time cast and ctags only (the ast reference is slow)")
    ap.add_argument("--no-timing", action="store_true", help="only compare, do not time")
    args = ap.parse_args()
    tree = args.tree.resolve()

    files, lines, size = tree_size(tree)
    print(f"tree: {tree} ({files} .py/.pyi files, {lines:,} lines, {size / 1e6:.1f} MB)")

    ref = run([sys.executable, str(REFERENCE), str(tree)])
    skipped = {l.split(" ", 1)[1].rsplit(":", 1)[0] for l in ref.stderr.decode().splitlines()
               if l.startswith("skipped ")}
    expected = {key(json.loads(l)) for l in ref.stdout.decode().splitlines() if l.strip()}
    casts = [args.cast] + ([args.compare] if args.compare else [])
    disagree = False
    for cast in casts:
        ours = run([cast, "symbols", "--json", "--no-ignore", str(tree)])
        if ours.returncode not in (0, 1):
            sys.exit(f"{cast} failed: {ours.stderr.decode()[-2000:]}")
        got = {key(r) for r in map(json.loads, ours.stdout.decode().splitlines())
               if r["path"].endswith((".py", ".pyi")) and r["path"] not in skipped}
        missing, extra = sorted(expected - got), sorted(got - expected)
        disagree = disagree or bool(missing or extra)
        print(f"{cast}: agreement with ast: matched={len(expected & got)} missing={len(missing)}"
              f" extra={len(extra)} (ast skipped {len(skipped)} files it cannot parse)")
        for row in missing[:20]:
            print("  missing", row)
        for row in extra[:20]:
            print("  extra  ", row)
    if args.no_timing:
        return 1 if disagree else 0

    rows = [(f"{Path(cast).name} symbols --json --no-ignore", [cast, "symbols", "--json", "--no-ignore", str(tree)])
            for cast in casts]
    ctags = shutil.which("ctags")
    if ctags and b"Universal Ctags" in run([ctags, "--version"]).stdout:
        rows.append(("ctags -R --languages=Python", [ctags, "-R", "--languages=Python", "-f", os.devnull, str(tree)]))
    else:
        print("(universal-ctags not installed: apt-get install universal-ctags)")
    if not args.no_ast_timing:
        rows.append(("py_symbols.py (ast)", [sys.executable, str(REFERENCE), str(tree)]))
    print(f"\nwall time, median of {args.runs} warm runs, {os.cpu_count()} cores,"
          f" load {os.getloadavg()[0]:.2f} at start:")
    base = None
    for name, cmd in rows:
        secs = timed(cmd, args.runs)
        base = base or secs
        print(f"  {name:<44} {secs:8.2f} s   {size / 1e6 / secs:6.1f} MB/s   x{secs / base:.2f}")
    print(f"load at end: {os.getloadavg()[0]:.2f}")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
