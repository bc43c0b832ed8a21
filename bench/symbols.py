#!/usr/bin/env python3
"""Compare `cast symbols` with Python's `ast` (py_symbols.py) and time it against ctags.

    python3 bench/symbols.py [--cast target/release/cast] [--compare OTHER_CAST] [--runs 7] [TREE]

TREE defaults to this machine's Python standard library (site-packages included). For every
(path, kind, qualname, start_line, end_line) that `ast` reports on the .py/.pyi files it can
parse, the script counts matched / missing / extra against `cast symbols --json --no-ignore`.
Then it times, in one run on the same tree, these commands taking turns (round after round,
--runs rounds after one warm-up round, so every tool reads from the page cache and a change
of the machine's load falls on all of them alike), each writing to /dev/null:

    cast symbols --json TREE
    ctags -R --languages=Python -f /dev/null TREE                      (the issue's anchor)
    ctags -R --languages=Python --map-Python=+.pyi -f /dev/null TREE   (the same files as cast)
    python3 tests/fixtures/py_symbols.py TREE                           (--no-ast-timing skips it)

For each it reports the median wall time, the median CPU time (user + system) and the median
peak RSS (GNU time's `%M`, as `/usr/bin/time -v` reports it; needs GNU time), and
the load average at the start and the end. universal-ctags maps only .py .pyx .pxd .pxi
.scons .wsgi to Python, so the first ctags row skips the .pyi stubs that cast parses.

With --compare, a second `cast` binary (e.g. one built before a change) is checked against the
same `ast` output and timed in the same rounds, so a before/after pair is measured side by side.
The memory bound is shown on a tree of several copies of the standard library, e.g.
`mkdir /tmp/s3 && for c in a b c; do cp -al STDLIB /tmp/s3/$c; done` (hard links: no disk).

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
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE.parent / "tests" / "fixtures" / "py_symbols.py"


def key(row: dict) -> tuple:
    return (row["path"], row["kind"], row["qualname"], row["start_line"], row["end_line"])


def run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)


TIME = shutil.which("time") or "/usr/bin/time"


def measured(cmd: list[str]) -> tuple[float, float, float]:
    """One run: wall seconds, CPU seconds (user + system) and peak RSS in MB, as GNU time
    reports them. (A child's ru_maxrss as Python's wait4 sees it starts at Python's own size:
    the forked copy counts until exec.)"""
    with tempfile.NamedTemporaryFile("r") as report:
        subprocess.run([TIME, "-f", "%e %U %S %M", "-o", report.name] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall, user, system, rss_kb = report.read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss_kb) / 1024


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
    ap.add_argument("--runs", type=int, default=7)
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

    rows = [(f"{Path(cast).name} symbols --json", [cast, "symbols", "--json", str(tree)]) for cast in casts]
    ctags = shutil.which("ctags")
    if ctags and b"Universal Ctags" in run([ctags, "--version"]).stdout:
        anchor = [ctags, "-R", "--languages=Python", "-f", os.devnull]
        rows.append(("ctags -R --languages=Python", anchor + [str(tree)]))
        rows.append(("ctags ... --map-Python=+.pyi", anchor[:3] + ["--map-Python=+.pyi"] + anchor[3:] + [str(tree)]))
    else:
        print("(universal-ctags not installed: apt-get install universal-ctags)")
    if not args.no_ast_timing:
        rows.append(("py_symbols.py (ast)", [sys.executable, str(REFERENCE), str(tree)]))
    print(f"\n{args.runs} alternating rounds after a warm-up round, medians; {os.cpu_count()} cores,"
          f" load {os.getloadavg()[0]:.2f} at start:")
    for _, cmd in rows:
        measured(cmd)
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in rows}
    for _ in range(args.runs):
        for name, cmd in rows:
            runs[name].append(measured(cmd))
    print(f"  {'command':<36} {'wall':>8} {'CPU':>8} {'peak RSS':>9}  wall / first row's")
    base = None
    for name, _ in rows:
        wall, cpu, rss = (statistics.median(r[i] for r in runs[name]) for i in range(3))
        base = base or wall
        print(f"  {name:<36} {wall:7.2f}s {cpu:7.2f}s {rss:6.0f} MB  x{wall / base:.2f}")
    print(f"load at end: {os.getloadavg()[0]:.2f}")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
