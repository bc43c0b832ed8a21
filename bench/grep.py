#!/usr/bin/env python3
"""Time `cast grep` against ripgrep, side by side, on the same tree and queries.

    cargo build --release && python3 bench/grep.py [--cast target/release/cast] [--runs 7] [TREE]

TREE defaults to this machine's Python standard library (site-packages and __pycache__
included). Both tools run inside TREE on "." (ripgrep matches -g globs relative to its working
folder). For each query below, in one run of this script on the same tree:

  1. Agreement: one untimed run of each tool, counting output lines (`PATH:LINE:TEXT`, no context),
     so a speed figure is never bought by skipping work. (The exact (path, line) equality is the
     e2e test `grep_equals_ripgrep_on_the_python_standard_library`.)
  2. Uncapped wall time: `rg -n --no-ignore Q .` and `cast grep --max-results 0 --no-ignore Q .`, stdout to /dev/null (ripgrep does the full search there: its user time is the same as
     when writing to a file).
  3. The agent's default: `cast grep --no-ignore Q .` (capped at 50 matches, the first 50 in path
     order); "sooner" = uncapped cast time / capped time.
  Timing: one warm-up run of each of the three commands so all read from the page cache, then
  --runs rounds; each round runs the three back to back, rotating which goes first; each figure is
  the median of its rounds. ratio = cast / rg: below 1.0 cast is faster.

Both tools use every core (ripgrep's default; cast's too). Each cell shows the median wall time,
its spread over the rounds (min-max) and the median CPU time (user + system, all threads, from
wait4) in ms; "(cpu)" is the ratio of CPU times. Wall times from a machine busy with other work
are noisy (the script prints the load average before and after); CPU times much less so.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (label, flags shared by both tools except globs, rg-only flags, cast-only flags, pattern)
QUERIES = [
    ("regex", [], [], [], r"^\s*async def \w+\("),
    ("regex, many hits", [], [], [], r"def \w+\(self"),
    ("literal", ["-F"], [], [], "os.path.join("),
    ("literal, common", ["-F"], [], [], "import"),
    ("case-insensitive", ["-i"], [], [], "todo"),
    ("include glob", ["-i"], ["-g", "*.txt", "-g", "*.cfg"], ["--include", "*.txt", "--include", "*.cfg"], "license"),
    ("exclude glob", [], ["-g", "!test/**", "-g", "!*.pyc"], ["--exclude", "test/**", "--exclude", "*.pyc"], r"raise \w+Error\("),
    ("unicode class", [], [], [], r"\p{Greek}+"),
    ("no match", ["-F"], [], [], "zqxjvkwp"),
]


# Both tools run inside TREE on ".": ripgrep matches -g globs relative to its working folder,
# cast relative to the PATH searched; the same for both only when the two are the same.
CWD = "."


def run_once(cmd: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, all threads) of one run."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=CWD, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = 0
    return wall, usage.ru_utime + usage.ru_stime


def count_lines(cmd: list[str]) -> int:
    out = subprocess.run(cmd, cwd=CWD, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False).stdout
    return out.count(b"\n")


def timed_rounds(cmds: list[list[str]], runs: int) -> list[list[tuple[float, float]]]:
    """One warm-up run of each command, then `runs` rounds of all of them, rotating who goes first."""
    for cmd in cmds:
        run_once(cmd)
    times: list[list[tuple[float, float]]] = [[] for _ in cmds]
    for i in range(runs):
        for k in range(len(cmds)):
            j = (i + k) % len(cmds)
            times[j].append(run_once(cmds[j]))
    return times


def wall(times: list[tuple[float, float]]) -> float:
    return statistics.median(t[0] for t in times)


def cpu(times: list[tuple[float, float]]) -> float:
    return statistics.median(t[1] for t in times)


def fmt(times: list[tuple[float, float]]) -> str:
    walls = [t[0] for t in times]
    return f"{wall(times) * 1000:5.0f} ms ({min(walls) * 1000:.0f}-{max(walls) * 1000:.0f}) cpu {cpu(times) * 1000:4.0f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--rg", default=shutil.which("rg") or "rg")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--only", help="run only queries whose label contains this text")
    args = ap.parse_args()
    args.cast = str(Path(args.cast).resolve())
    global CWD
    tree = str(args.tree.resolve())
    CWD = tree
    if not shutil.which(args.rg):
        sys.exit("rg (ripgrep) is not installed: apt-get install ripgrep")
    if not Path(args.cast).exists():
        sys.exit(f"{args.cast} not found: cargo build --release")
    rg_version = subprocess.run([args.rg, "--version"], stdout=subprocess.PIPE, check=False).stdout.decode().split("\n")[0]

    files = size = 0
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if not name.startswith("."):
                files += 1
                size += os.lstat(os.path.join(dirpath, name)).st_size
    print(f"tree: {tree} ({files:,} files, {size / 1e6:.0f} MB, --no-ignore)")
    print(f"{rg_version}; cast: {args.cast}; {os.cpu_count()} cores; median of {args.runs} warm runs")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")

    header = f"{'query':<18} {'lines':>9}  {'rg -n':>30}  {'cast grep (uncapped)':>30}  {'ratio':>5} {'(cpu)':>5}  {'cast grep (cap 50)':>30}  {'sooner':>6}"
    print(header)
    print("-" * len(header))
    ratios, cpu_ratios, soons, mismatched = [], [], [], []
    for label, shared, rg_only, cast_only, pattern in QUERIES:
        if args.only and args.only not in label:
            continue
        rg_cmd = [args.rg, "--no-config", "-n", "--no-ignore", *shared, *rg_only, "-e", pattern, "."]
        cast_cmd = [args.cast, "grep", "--max-results", "0", "--no-ignore", *shared, *cast_only, "--", pattern, "."]
        capped_cmd = [args.cast, "grep", "--no-ignore", *shared, *cast_only, "--", pattern, "."]
        n_rg, n_cast = count_lines(rg_cmd), count_lines(cast_cmd)
        if n_rg != n_cast:
            mismatched.append(label)
        t_rg, t_cast, t_capped = timed_rounds([rg_cmd, cast_cmd, capped_cmd], args.runs)
        ratio = wall(t_cast) / wall(t_rg)
        cpu_ratio = cpu(t_cast) / cpu(t_rg)
        sooner = wall(t_cast) / wall(t_capped)
        ratios.append(ratio)
        cpu_ratios.append(cpu_ratio)
        soons.append(sooner)
        lines = f"{n_cast:,}" if n_rg == n_cast else f"{n_cast:,}≠{n_rg:,}"
        print(f"{label:<18} {lines:>9}  {fmt(t_rg):>30}  {fmt(t_cast):>30}  {ratio:5.2f} {cpu_ratio:5.2f}  {fmt(t_capped):>30}  {sooner:5.1f}x")
    if ratios:
        geo = statistics.geometric_mean(ratios)
        print(f"\nratio cast/rg, wall time: geometric mean {geo:.2f}, worst {max(ratios):.2f}, best {min(ratios):.2f}"
              f"; cpu time: geometric mean {statistics.geometric_mean(cpu_ratios):.2f}")
        print(f"cap of 50: returns {statistics.geometric_mean(soons):.1f}x sooner (geometric mean) than uncapped")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if mismatched:
        print(f"OUTPUT LINE COUNTS DIFFER for: {', '.join(mismatched)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
