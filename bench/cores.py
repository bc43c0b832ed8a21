#!/usr/bin/env python3
"""How a cold `cast index` scales with cores (issue 36: "the build scales with cores").

    python3 bench/cores.py [--cast target/release/cast] [--cores 16,8,4,2,1] [--runs 1]
                           [--cap-mb 500] [--budget-s 600] [--json OUT] [--keep-corpus DIR] [TREE ...]

Corpus. Each TREE (default: this Python's standard library and its `purelib` site-packages, from
`sysconfig`, the second left out when it lies inside the first) is copied into one temporary folder
(`tree_0/`, `tree_1/`, ...) with the same files analyzer.py copies (its suffix set). With --cap-mb,
top-level entries of each tree (packages, modules) are taken in name order until the copy holds that
many MB of source; the entries left out are counted and printed. --keep-corpus DIR keeps the copy
at DIR, for index_build.py to be pointed at afterwards.

Method. For each round and each core count N (in the order given, the start rotated by one each
round), `cast index COPY --db DB --json` runs cold (DB deleted first) pinned to CPUs 0..N-1 with
`os.sched_setaffinity` in the child before it execs: the build sizes its thread pools from
`available_parallelism`, which reads the same affinity, so the build sees N cores. In the same
round `ctags -R --languages=Python --map-Python=+.pyi -f /dev/null COPY` runs once (unpinned; it is
single-threaded) if universal-ctags is on PATH. Each run: wall, CPU and peak RSS of the child alone
(`os.wait4`) and the serial fraction (the main thread's CPU over the process's, sampled from /proc as
index_build.py does). Reported per N: the median wall and CPU, speed-up over the smallest N given,
and wall over ctags's. With --budget-s, no run starts once the script has run that long (the rows
measured so far are reported). Python 3.11 standard library only; Linux.
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
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from analyzer import SOURCE_EXT, commit_and_day  # noqa: E402
from index_build import ENV, TICK, last_json, measure  # noqa: E402


def default_trees() -> list[Path]:
    paths = sysconfig.get_paths()
    stdlib, purelib = Path(paths["stdlib"]).resolve(), Path(paths["purelib"]).resolve()
    return [stdlib] if purelib.is_relative_to(stdlib) else [stdlib, purelib]


def copy_entry(src: Path, dst: Path) -> tuple[int, int]:
    """Copy the source files under SRC (a file or a folder) to DST: (files, bytes)."""
    files = size = 0
    if src.is_file():
        walk = [(str(src.parent), [], [src.name])]
        base = src.parent
    else:
        walk = os.walk(src)
        base = src
    for dirpath, dirnames, filenames in walk:
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel = Path(dirpath).relative_to(base)
        for name in filenames:
            if not name.endswith(SOURCE_EXT) or name.startswith("."):
                continue
            data = (Path(dirpath) / name).read_bytes()
            target = (dst if src.is_dir() else dst.parent) / rel / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files += 1
            size += len(data)
    return files, size


def build_corpus(trees: list[Path], dest: Path, cap_bytes: int | None) -> dict:
    files = size = left_out = 0
    for i, tree in enumerate(trees):
        for entry in sorted(tree.iterdir()):
            if entry.name.startswith(".") or entry.is_symlink():
                continue
            if cap_bytes is not None and size >= cap_bytes:
                left_out += 1
                continue
            f, s = copy_entry(entry, dest / f"tree_{i}" / entry.name)
            files, size = files + f, size + s
    return {"files": files, "bytes": size, "entries_left_out": left_out}


def read_threads(pid: int) -> list[tuple[int, str, str, int, int]]:
    """(tid, name, state, utime, stime) of each thread of PID, from /proc."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index(b"(") + 1:text.rindex(b")")].decode(errors="replace")
        fields = text[text.rindex(b")") + 2:].split()
        out.append((int(tid), name, fields[0].decode(), int(fields[11]), int(fields[12])))
    return out


def timeline_run(cmd: list[str], cpus: set[int], every_s: float = 0.05) -> dict:
    """One run of CMD pinned to CPUS, with every thread's state and CPU ticks sampled every
    EVERY_S seconds, and the machine's iowait ticks (/proc/stat): where a build waits."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         env=ENV, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    samples = []
    while p.poll() is None:
        with open("/proc/stat") as f:
            iowait = int(f.readline().split()[5])
        samples.append({"t": time.perf_counter() - t0, "iowait": iowait, "threads": read_threads(p.pid)})
        time.sleep(every_s)
    out = p.stdout.read().decode(errors="replace") if p.stdout else ""
    return {"wall": time.perf_counter() - t0, "tick": TICK, "samples": samples, "report": last_json(out)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trees", nargs="*", type=Path)
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--cores", default=None, help="core counts, comma-separated (default: all, then halves down to 1)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--cap-mb", type=float, default=None, help="stop adding a tree's entries at this many MB of source")
    ap.add_argument("--budget-s", type=float, default=None, help="start no run after this many seconds")
    ap.add_argument("--json", type=Path, metavar="OUT")
    ap.add_argument("--keep-corpus", type=Path, metavar="DIR")
    ap.add_argument("--timeline", type=Path, metavar="OUT",
                    help="after the rounds, one more cold build on the most cores, each thread's state and CPU "
                         "sampled every 50 ms, written to OUT as JSON (a diagnosis, not a figure)")
    args = ap.parse_args()
    t_start = time.monotonic()
    cpus = sorted(os.sched_getaffinity(0))
    if args.cores:
        try:
            counts = [int(c) for c in args.cores.split(",")]
        except ValueError:
            sys.exit(f"--cores {args.cores}: comma-separated numbers")
    else:
        counts, n = [], len(cpus)
        while n >= 1:
            counts.append(n)
            n //= 2
    if any(c < 1 or c > len(cpus) for c in counts):
        sys.exit(f"--cores: each between 1 and {len(cpus)} (this process may run on {len(cpus)} CPUs)")
    trees = [t.resolve() for t in args.trees] or default_trees()
    for t in trees:
        if not t.is_dir():
            sys.exit(f"{t}: not a folder")

    work = Path(tempfile.mkdtemp(prefix="cast-cores-"))
    corpus = args.keep_corpus.resolve() if args.keep_corpus else work / "tree"
    db = work / "index.sqlite"
    try:
        info = build_corpus(trees, corpus, int(args.cap_mb * 1e6) if args.cap_mb else None)
        commit, day = commit_and_day()
        print(f"corpus: {', '.join(map(str, trees))} -> {corpus}: {info['files']:,} files, "
              f"{info['bytes'] / 1e6:.1f} MB ({info['entries_left_out']} top-level entries left out by --cap-mb)")
        print(f"machine: {len(cpus)} CPUs, load {os.getloadavg()[0]:.2f} at start; build {commit}, {day}")
        ctags = shutil.which("ctags")
        if ctags and b"Universal Ctags" not in subprocess.run([ctags, "--version"], capture_output=True).stdout:
            ctags = None
        subprocess.run([args.cast, "symbols", "--json", str(corpus)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, env=ENV)  # warm the page cache
        rows: dict[int, list[dict]] = {c: [] for c in counts}
        ctags_runs: list[dict] = []
        items: list[int | None] = list(counts) + ([None] if ctags else [])
        stopped = False
        for r in range(args.runs):
            k = r % len(items)
            for item in items[k:] + items[:k]:
                if args.budget_s and time.monotonic() - t_start > args.budget_s:
                    stopped = True
                    break
                if item is None:
                    res = measure([ctags, "-R", "--languages=Python", "--map-Python=+.pyi", "-f", os.devnull,
                                   str(corpus)])
                    ctags_runs.append(res)
                    print(f"  ctags +.pyi: {res['wall']:.2f} s", file=sys.stderr, flush=True)
                    continue
                for suffix in ("", "-wal", "-shm"):
                    Path(str(db) + suffix).unlink(missing_ok=True)
                res = measure([args.cast, "index", str(corpus), "--db", str(db), "--json"], sample=True,
                              capture=True, cpus=set(cpus[:item]))
                res["report"] = last_json(res.pop("stdout"))
                if res["rc"] != 0:
                    sys.exit(f"cast index failed on {item} cores ({res['rc']}):\n{res['stderr']}")
                rows[item].append(res)
                print(f"  {item} cores: {res['wall']:.2f} s", file=sys.stderr, flush=True)
            if stopped:
                print(f"(--budget-s {args.budget_s:.0f} reached in round {r + 1}: later runs skipped)")
                break

        if args.timeline:
            for suffix in ("", "-wal", "-shm"):
                Path(str(db) + suffix).unlink(missing_ok=True)
            tl = timeline_run([args.cast, "index", str(corpus), "--db", str(db), "--json"], set(cpus[:max(counts)]))
            args.timeline.write_text(json.dumps(tl))
            print(f"timeline: {len(tl['samples'])} samples over {tl['wall']:.2f} s -> {args.timeline}")
        ctags_wall = statistics.median(x["wall"] for x in ctags_runs) if ctags_runs else None
        done = [c for c in counts if rows[c]]
        base = min(done) if done else None
        print(f"{'cores':>5} {'wall':>8} {'CPU':>8} {'peak RSS':>9} {'speed-up':>9} {'x ctags':>8} {'serial':>7} runs")
        summary = {}
        for c in done:
            wall = statistics.median(x["wall"] for x in rows[c])
            cpu = statistics.median(x["cpu"] for x in rows[c])
            rss = max(x["rss_kb"] for x in rows[c])
            serial = [x["serial"] for x in rows[c] if x.get("serial") is not None]
            ser = statistics.median(serial) if serial else None
            base_wall = statistics.median(x["wall"] for x in rows[base])
            summary[c] = {"wall": wall, "cpu": cpu, "rss_kb": rss, "serial": ser,
                          "speedup": base_wall / wall, "phases": rows[c][-1]["report"].get("phases", {})}
            print(f"{c:>5} {wall:>7.2f}s {cpu:>7.2f}s {rss / 1024:>6.0f} MiB {base_wall / wall:>8.2f}x "
                  f"{(f'x{wall / ctags_wall:.2f}' if ctags_wall else '-'):>8} "
                  f"{(f'{ser:.0%}' if ser is not None else '-'):>7} {len(rows[c])}")
        if ctags_wall:
            print(f"ctags +.pyi: {ctags_wall:.2f} s wall, "
                  f"{statistics.median(x['cpu'] for x in ctags_runs):.2f} s CPU, "
                  f"{max(x['rss_kb'] for x in ctags_runs) / 1024:.0f} MiB ({len(ctags_runs)} runs)")
        for c in done:
            ph = summary[c]["phases"]
            print(f"phases at {c} cores (last run): " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items()
                                                                if isinstance(v, (int, float))))
        if args.json:
            args.json.write_text(json.dumps({"corpus": info, "trees": [str(t) for t in trees], "commit": commit,
                                             "day": day, "cpus": len(cpus), "ctags": ctags_runs,
                                             "runs": {str(c): rows[c] for c in counts}, "summary": summary},
                                            indent=1, default=str))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
