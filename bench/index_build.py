#!/usr/bin/env python3
"""Time and size `cast index` builds (issue 36: the index engine's memory and speed).

    python3 bench/index_build.py [--cast target/release/cast] [--compare OLD_CAST] [--memory MIB ...]
                                 [--runs 3] [--copies 1] [--markdown] [--json OUT] [TREE]

For the issue, run both:

    python3 bench/index_build.py --cast target/release/cast --compare OLD --memory 128 --runs 3
    python3 bench/index_build.py --cast target/release/cast --compare OLD --memory 128 --copies 3 --runs 1

Method. TREE (default: this machine's Python standard library, `sysconfig`'s stdlib path, which
here includes site-packages) is COPIED into a temporary folder first, the same files analyzer.py
copies (its `copy_tree` and suffix set: .py .pyi .pyx .html .htm and the other languages' source
files cast parses), so the warm edits below never touch the machine's Python. With --copies N
the copy holds N copies side by side (`copy_0/ copy_1/ ...`, real copies, not hard links); every
command runs on the whole copy. One warm-up `cast symbols` reads it into the page cache first.

Variants. Each (build, memory) pair is one: --cast with each --memory MIB given (`cast index
--memory MIB`; `--memory default` or no --memory: the build's own default, with
CAST_INDEX_MEMORY removed from the environment), and --compare (an older build) without
--memory, which it does not have. Every cast command runs with CAST_NO_SERVER=1, and each
variant keeps its own database outside the copy (`--db`).

1. Cold build. For each of --runs rounds, the variants and the anchors take turns in one order,
   the start rotated by one each round (so a change of the machine's load falls on all alike):
   - each variant: `cast index COPY --db DB --json`, DB (and its -wal and -shm) deleted first;
   - `ctags -R --languages=Python --map-Python=+.pyi -f /dev/null COPY` (the files cast parses)
     and `ctags -R --languages=Python -f /dev/null COPY` (the issue's anchor, which skips the
     .pyi stubs), skipped if universal-ctags is absent;
   - `cast symbols --json COPY > /dev/null` of the --cast build (the parse alone).
   Each run is one `subprocess.Popen` reaped with `os.wait4(pid, 0)`: wall time (start to exit),
   CPU time (ru_utime + ru_stime) and peak RSS (ru_maxrss) of that child alone. Reported: the
   median wall and CPU, the largest RSS, and each variant's cold wall over ctags +.pyi's; then,
   round by round, each variant's wall over the ctags +.pyi run of the same round, and their
   median (a pair run back to back shares the machine's hour; the medians may not).
   Linux counts a child's ru_maxrss from the process that spawned it until its exec, so no
   figure reads below this script's own peak RSS (printed as "RSS floor"; about 20 MB here).
2. Serial fraction. During each cold `cast index`, a thread samples every 20 ms
   `/proc/PID/task/PID/stat` (the main thread) and `/proc/PID/stat` (the whole process),
   utime + stime (fields 14 and 15, in clock ticks, read after the last ')'); the last pair of
   samples before the exit gives the main thread's CPU and the process's (up to 20 ms before the
   end, so the last moments of the final commit are missed). main / process is the "serial
   fraction": the main thread writes the database and runs the single-threaded phases, while
   parse and resolve run on worker threads (and, in a cold build, each full-text table is
   written by a thread of its own). The sampler also reads every other thread's CPU
   (`/proc/PID/task/TID/stat`, the last sample of each) and prints the busiest thread that has a
   name of its own (the pools' threads carry the process's name and share their work over the
   cores): no thread takes less wall than its own CPU, so the larger of the main thread's CPU
   and that one's bounds a build on any number of cores. Median over the runs. The report's `phases` (seconds
   per phase, from --json) are given as the median of each phase.
3. Database size: the db plus its WAL after a variant's last cold build, against the copy's
   source bytes (percent).
4. Warm refreshes, per variant, on the databases the cold builds left: `cast index COPY --db DB
   --json` (the report shows what each refresh saw) after
   - no change;
   - one file touched (its mtime moved by a second, content unchanged);
   - a def added (a new function appended to the file), so every reference is re-resolved;
   - a body edited (a comment line appended inside the body of the function last added: the
     same definitions, so only that file is re-parsed and re-resolved).
   The file is the copy's largest .py file (in copy_0), as in analyzer.py. Each change is
   applied once per round; then every variant refreshes its own database (each sees the same
   change), in an order rotated each round. Medians of --runs.

Output: plain lines with the figures beside their anchors; with --markdown, also tables (cold,
warm, database), each stamped with this checkout's `git rev-parse --short HEAD`, the day (UTC),
the machine's core count and load average at the start, runs and copies; --json OUT writes
every figure. Python 3.11 standard library only; Linux (/proc, wait4).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from analyzer import SOURCE_EXT, commit_and_day, copy_tree  # noqa: E402  (the same files analyzer.py copies)

TICK = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.02
ENV = {k: v for k, v in os.environ.items() if k != "CAST_INDEX_MEMORY"}
ENV["CAST_NO_SERVER"] = "1"


def stat_cpu(path: str) -> tuple[int, int] | None:
    """(utime + stime in ticks, starttime) of a /proc stat file, or None once it is gone."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(b")") + 2:].split()  # fields[0] is field 3 (state)
    return int(fields[11]) + int(fields[12]), int(fields[19])


def thread_name(path: str) -> str:
    """A thread's name (`comm`, at most 15 bytes) from its /proc stat file."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError:
        return "?"
    return text[text.index(b"(") + 1:text.rindex(b")")].decode(errors="replace")


class Sampler(threading.Thread):
    """Every 20 ms, the CPU ticks of PID's main thread, of the whole process and of each of its
    other threads (the last sample of a thread that ended before the process is kept)."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.stop = threading.Event()
        self.last: tuple[int, int] | None = None  # (main thread ticks, process ticks)
        self.threads: dict[int, tuple[str, int]] = {}  # other threads: tid -> (name, ticks)
        self.name = ""  # the main thread's (the process's) name
        self.samples = 0

    def run(self) -> None:
        main, whole = f"/proc/{self.pid}/task/{self.pid}/stat", f"/proc/{self.pid}/stat"
        start = None
        while not self.stop.is_set():
            m, w = stat_cpu(main), stat_cpu(whole)
            if m is None or w is None:
                break
            if start is None:
                start = w[1]
                self.name = thread_name(main)
            elif w[1] != start:  # the pid was reaped and reused
                break
            self.last = (m[0], w[0])
            try:
                tids = [int(t) for t in os.listdir(f"/proc/{self.pid}/task") if int(t) != self.pid]
            except OSError:
                tids = []
            for tid in tids:
                path = f"/proc/{self.pid}/task/{tid}/stat"
                t = stat_cpu(path)
                if t is not None:
                    name = self.threads[tid][0] if tid in self.threads else thread_name(path)
                    self.threads[tid] = (name, t[0])
            self.samples += 1
            self.stop.wait(SAMPLE_S)


def measure(cmd: list[str], sample: bool = False, capture: bool = False, cpus: set[int] | None = None) -> dict:
    """One run of CMD: wall, CPU and peak RSS of that child alone (wait4), its exit code, its
    stdout if CAPTURE, and with SAMPLE the main thread's and the process's CPU (from /proc).
    With CPUS, the child runs pinned to those CPUs (its affinity set before it execs)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out if capture else subprocess.DEVNULL,
                             stderr=err, env=ENV,
                             preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        sampler = Sampler(p.pid) if sample else None
        if sampler:
            sampler.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        if sampler:
            sampler.stop.set()
            sampler.join()
        out.seek(0)
        err.seek(0)
        r = {"wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "rss_kb": ru.ru_maxrss, "rc": p.returncode,
             "stdout": out.read().decode(errors="replace") if capture else "",
             "stderr": err.read()[-2000:].decode(errors="replace")}
    if sampler and sampler.last:
        main, whole = sampler.last
        r["main_cpu"], r["proc_cpu"] = main / TICK, whole / TICK
        r["serial"] = main / whole if whole else None
        # Threads named apart from the process (the writer's helpers) do one job each; unnamed
        # ones (the parse and resolve pools) share theirs over the cores.
        named = [t for t in sampler.threads.values() if t[0] != sampler.name]
        if named:
            name, ticks = max(named, key=lambda x: x[1])
            r["busiest_other"], r["busiest_other_cpu"] = name, ticks / TICK
    return r


def checked(cmd: list[str], ok=(0,), **kw) -> dict:
    r = measure(cmd, **kw)
    if r["rc"] not in ok:
        sys.exit(f"failed ({r['rc']}): {' '.join(cmd)}\n{r['stderr']}")
    return r


class Variant:
    def __init__(self, label: str, cast: str, memory: str | None, db: Path):
        self.label, self.cast, self.memory, self.db = label, cast, memory, db
        self.cold: list[dict] = []
        self.reports: list[dict] = []
        self.db_bytes = 0
        self.warm: dict[str, list[dict]] = {}

    def index(self, copy: Path) -> list[str]:
        cmd = [self.cast, "index", str(copy), "--db", str(self.db), "--json"]
        return cmd + (["--memory", self.memory] if self.memory else [])

    def drop_db(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(str(self.db) + suffix).unlink(missing_ok=True)

    def db_size(self) -> int:
        wal = Path(str(self.db) + "-wal")
        return self.db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


def last_json(text: str) -> dict:
    lines = [l for l in text.splitlines() if l.strip().startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def rotated(items: list, k: int) -> list:
    k %= len(items)
    return items[k:] + items[:k]


def median_phases(reports: list[dict]) -> dict[str, float]:
    keys: list[str] = []
    for rep in reports:
        keys += [k for k in rep.get("phases", {}) if k not in keys]
    return {k: statistics.median(rep.get("phases", {}).get(k, 0.0) for rep in reports) for k in keys}


def stamp(runs: int, copies: int, cores: int, load: float) -> str:
    commit, day = commit_and_day()
    return (f"{commit}, {day}, {cores} cores, load {load:.1f} at start, "
            f"{'median of ' if runs > 1 else ''}{runs} run{'s' if runs > 1 else ''}, "
            f"{copies} cop{'ies' if copies > 1 else 'y'}")


def mib(kb: float) -> str:
    return f"{kb / 1024:.0f} MiB"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--compare", metavar="OTHER_CAST", help="an older build, timed in the same rounds (never given --memory)")
    ap.add_argument("--memory", action="append", default=[], metavar="MIB",
                    help="a variant of --cast with `cast index --memory MIB` (repeatable; 'default' = without the flag)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--copies", type=int, default=1, help="copies of the tree side by side in the copy")
    ap.add_argument("--exclude", action="append", default=[], metavar="DIR",
                    help="leave folders of this name out of the copy (e.g. site-packages)")
    ap.add_argument("--markdown", action="store_true", help="also print the figures as Markdown tables, stamped")
    ap.add_argument("--json", type=Path, metavar="OUT", help="write every figure to OUT as JSON")
    ap.add_argument("--keep", action="store_true", help="keep the copy and databases (their folder is printed)")
    args = ap.parse_args()
    if args.runs < 1 or args.copies < 1:
        sys.exit("--runs and --copies must be at least 1")
    for m in args.memory:
        if m != "default" and not m.isdigit():
            sys.exit(f"--memory {m}: a number of MiB or 'default'")
    cores, load = os.cpu_count() or 0, os.getloadavg()[0]
    st = stamp(args.runs, args.copies, cores, load)
    how_many = f"median of {args.runs} runs" if args.runs > 1 else "1 run"

    tree = args.tree.resolve()
    work = Path(tempfile.mkdtemp(prefix="cast-index-build-"))
    copy = work / "tree"
    try:
        files, lines, size = copy_tree(tree, copy / "copy_0", args.exclude)
        for i in range(1, args.copies):
            shutil.copytree(copy / "copy_0", copy / f"copy_{i}")
        files, lines, size = files * args.copies, lines * args.copies, size * args.copies
        excluded = f" without {', '.join(args.exclude)}" if args.exclude else ""
        print(f"tree: {tree}{excluded} x {args.copies} -> {copy}: {files:,} files, {lines:,} lines, "
              f"{size / 1e6:.1f} MB (suffixes {' '.join(SOURCE_EXT)})")
        print(f"machine: {cores} cores, load average {load:.2f} at start; build {st.split(',')[0]}")

        names = {args.cast: Path(args.cast).name}
        if args.compare:
            names[args.compare] = Path(args.compare).name
            if names[args.compare] == names[args.cast]:
                names = {args.cast: args.cast, args.compare: args.compare}
        variants = [Variant(names[args.cast] + (f" --memory {m}" if m != "default" else ""), args.cast,
                            None if m == "default" else m, work / f"db_{i}.sqlite")
                    for i, m in enumerate(dict.fromkeys(args.memory or ["default"]))]
        if args.compare:
            variants.append(Variant(names[args.compare], args.compare, None, work / "db_compare.sqlite"))
        for cast in names:
            v = subprocess.run([cast, "--version"], capture_output=True, text=True)
            print(f"build: {cast}: {(v.stdout or v.stderr).strip()}")

        anchors: dict[str, tuple[list[str], tuple[int, ...]]] = {}
        ctags = shutil.which("ctags")
        if ctags and b"Universal Ctags" in subprocess.run([ctags, "--version"], capture_output=True).stdout:
            anchors["ctags +.pyi"] = ([ctags, "-R", "--languages=Python", "--map-Python=+.pyi", "-f", os.devnull,
                                       str(copy)], (0,))
            anchors["ctags"] = ([ctags, "-R", "--languages=Python", "-f", os.devnull, str(copy)], (0,))
        else:
            print("(universal-ctags not installed: no ctags anchors)")
        symbols = f"{names[args.cast]} symbols"
        anchors[symbols] = ([args.cast, "symbols", "--json", str(copy)], (0, 1))
        anchor_runs: dict[str, list[dict]] = {name: [] for name in anchors}

        checked(anchors[symbols][0], ok=(0, 1))  # warm-up: the copy into the page cache

        # 1-3. Cold builds and anchors, taking turns.
        items = [("variant", v) for v in variants] + [("anchor", name) for name in anchors]
        for r in range(args.runs):
            print(f"cold round {r + 1}/{args.runs}", file=sys.stderr, flush=True)
            for kind, item in rotated(items, r):
                if kind == "variant":
                    item.drop_db()
                    res = checked(item.index(copy), sample=True, capture=True)
                    item.cold.append(res)
                    item.reports.append(last_json(res["stdout"]))
                    item.db_bytes = item.db_size()
                else:
                    cmd, ok = anchors[item]
                    anchor_runs[item].append(checked(cmd, ok=ok))

        def summary(runs: list[dict]) -> dict:
            serial = [x["serial"] for x in runs if x.get("serial") is not None]
            return {"wall": statistics.median(x["wall"] for x in runs),
                    "cpu": statistics.median(x["cpu"] for x in runs),
                    "rss_kb": max(x["rss_kb"] for x in runs),
                    "serial": statistics.median(serial) if serial else None,
                    "main_cpu": statistics.median(x["main_cpu"] for x in runs if "main_cpu" in x)
                    if serial else None,
                    "proc_cpu": statistics.median(x["proc_cpu"] for x in runs if "proc_cpu" in x)
                    if serial else None,
                    "busiest_other": next((x["busiest_other"] for x in runs if "busiest_other" in x), None),
                    "busiest_other_cpu": statistics.median(x["busiest_other_cpu"] for x in runs
                                                           if "busiest_other_cpu" in x)
                    if any("busiest_other_cpu" in x for x in runs) else None}

        cold = {v.label: summary(v.cold) for v in variants}
        anchor = {name: summary(runs) for name, runs in anchor_runs.items()}
        ctags_pyi = anchor.get("ctags +.pyi", {}).get("wall")
        rss_floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(f"\n== cold build ({how_many}, taking turns; RSS: the largest; RSS floor {mib(rss_floor)}, "
              f"this script's own peak)")
        print(f"  {'command':<34} {'wall':>8} {'CPU':>8} {'peak RSS':>9} {'x ctags+.pyi':>13} {'serial':>7}")
        for v in variants:
            c = cold[v.label]
            ratio = f"x{c['wall'] / ctags_pyi:.1f}" if ctags_pyi else "-"
            serial = f"{100 * c['serial']:.0f}%" if c["serial"] is not None else "-"
            print(f"  {v.label + ' index':<34} {c['wall']:7.2f}s {c['cpu']:7.2f}s {mib(c['rss_kb']):>9} "
                  f"{ratio:>13} {serial:>7}")
        for name, a in anchor.items():
            ratio = f"x{a['wall'] / ctags_pyi:.1f}" if ctags_pyi else "-"
            print(f"  {name:<34} {a['wall']:7.2f}s {a['cpu']:7.2f}s {mib(a['rss_kb']):>9} {ratio:>13} {'-':>7}")
        # Each round's build over the ctags run of the same round: the machine's speed drifts
        # from hour to hour (ctags over one tree took 3.0-5.1 s within one night), and a pair
        # run back to back shares the hour, where the medians above may come from different
        # rounds.
        paired = {}
        if ctags_pyi:
            for v in variants:
                paired[v.label] = [c["wall"] / a["wall"]
                                   for c, a in zip(v.cold, anchor_runs["ctags +.pyi"])]
                print(f"  {v.label + ' index':<34} x ctags+.pyi round by round: "
                      + " ".join(f"{x:.2f}" for x in paired[v.label])
                      + f" (median {statistics.median(paired[v.label]):.2f})")
        phases = {}
        for v in variants:
            phases[v.label] = median_phases(v.reports)
            rep = v.reports[-1]
            c = cold[v.label]
            main_cpu = (f"; CPU sampled: main thread {c['main_cpu']:.2f} s of the process's {c['proc_cpu']:.2f} s"
                        if c["main_cpu"] is not None else "")
            if c.get("busiest_other_cpu") is not None:
                main_cpu += f"; busiest named thread ({c['busiest_other']}) {c['busiest_other_cpu']:.2f} s"
            print(f"  {v.label}: {rep.get('files', '?')} files, {rep.get('symbols', 0):,} symbols, "
                  f"{rep.get('edges', 0):,} edges{main_cpu}")
            print("    phases: " + ", ".join(f"{k} {s:.2f} s" for k, s in phases[v.label].items()))

        print("\n== database (db + WAL after the cold build)")
        for v in variants:
            print(f"  {v.label:<34} {v.db_bytes / 1e6:7.1f} MB  ({100 * v.db_bytes / size:.0f}% of "
                  f"{size / 1e6:.1f} MB of source)")

        # 4. Warm refreshes.
        biggest = max((p for p in (copy / "copy_0").rglob("*.py")), key=lambda p: p.stat().st_size)
        original = biggest.read_bytes()
        if not original.endswith(b"\n"):
            original += b"\n"
        current = [original]
        counter = [0]

        def touch():
            s = biggest.stat()
            os.utime(biggest, ns=(s.st_atime_ns, s.st_mtime_ns + 1_000_000_000))

        def new_def():
            counter[0] += 1
            current[0] += f"\n\ndef bench_added_{counter[0]}():\n    return {counter[0]}\n".encode()
            biggest.write_bytes(current[0])

        def body_edit():
            counter[0] += 1
            # Inside the body of the def added last: the same definitions.
            biggest.write_bytes(current[0] + f"    # edit {counter[0]}\n".encode())

        scenarios = [("no change", None), ("touch", touch), ("def added", new_def), ("body edit", body_edit)]
        for r in range(args.runs):
            print(f"warm round {r + 1}/{args.runs}", file=sys.stderr, flush=True)
            for name, change in scenarios:
                if change:
                    change()
                for v in rotated(variants, r):
                    res = checked(v.index(copy), capture=True)
                    res["report"] = last_json(res["stdout"])
                    v.warm.setdefault(name, []).append(res)
        biggest.write_bytes(original)

        warm = {v.label: {name: {"wall": statistics.median(x["wall"] for x in v.warm[name]),
                                 "cpu": statistics.median(x["cpu"] for x in v.warm[name]),
                                 "rss_kb": max(x["rss_kb"] for x in v.warm[name])}
                          for name, _ in scenarios} for v in variants}
        print(f"\n== warm refresh ({how_many}; wall / CPU; "
              f"edited: copy_0/{biggest.relative_to(copy / 'copy_0')})")
        for v in variants:
            parts = []
            for name, _ in scenarios:
                w = warm[v.label][name]
                rep = v.warm[name][-1]["report"]
                saw = ", ".join(f"{k} {rep[k]}" for k in ("changed", "touched", "resolved_files") if rep.get(k))
                parts.append(f"{name} {1000 * w['wall']:.0f} / {1000 * w['cpu']:.0f} ms" + (f" ({saw})" if saw else ""))
            print(f"  {v.label}: " + "; ".join(parts))
        print(f"\nload average at end: {os.getloadavg()[0]:.2f}")

        def times_ctags(wall: float) -> str:
            return f"{wall / ctags_pyi:.1f}×" if ctags_pyi else "–"

        if args.markdown:
            md = ["", "== Markdown", "",
                  f"Cold `cast index` ({tree.name}{excluded}, {args.copies} × {files // args.copies:,} files, "
                  f"{size / 1e6:.1f} MB of source; {st}):", "",
                  "| variant | wall | CPU | peak RSS | × ctags +.pyi | serial fraction | build, date |",
                  "|---|---|---|---|---|---|---|"]
            for v in variants:
                c = cold[v.label]
                serial = f"{100 * c['serial']:.0f} %" if c["serial"] is not None else "–"
                md.append(f"| `{v.label}` | {c['wall']:.2f} s | {c['cpu']:.2f} s | {mib(c['rss_kb'])} | "
                          f"{times_ctags(c['wall'])} | {serial} | {st} |")
            for name, a in anchor.items():
                md.append(f"| `{name}` | {a['wall']:.2f} s | {a['cpu']:.2f} s | {mib(a['rss_kb'])} | "
                          f"{times_ctags(a['wall'])} | – | {st} |")
            md += ["", f"Warm refresh, wall ({st}):", "",
                   "| variant | " + " | ".join(name for name, _ in scenarios) + " | build, date |",
                   "|---|" + "---|" * len(scenarios) + "---|"]
            for v in variants:
                md.append(f"| `{v.label}` | " + " | ".join(f"{1000 * warm[v.label][name]['wall']:.0f} ms"
                                                           for name, _ in scenarios) + f" | {st} |")
            md += ["", f"Database ({st}):", "", "| variant | db + WAL | % of source bytes | build, date |",
                   "|---|---|---|---|"]
            for v in variants:
                md.append(f"| `{v.label}` | {v.db_bytes / 1e6:.1f} MB | {100 * v.db_bytes / size:.0f} % | {st} |")
            print("\n".join(md))

        if args.json:
            args.json.write_text(json.dumps({
                "stamp": st, "tree": str(tree), "copies": args.copies, "runs": args.runs, "files": files,
                "lines": lines, "source_bytes": size, "cores": cores, "load_at_start": load,
                "rss_floor_kb": rss_floor, "edited_file": str(biggest.relative_to(copy)),
                "cold": cold, "anchors": anchor, "phases": phases, "paired_ratios": paired,
                "reports": {v.label: v.reports for v in variants},
                "db_bytes": {v.label: v.db_bytes for v in variants},
                "warm": warm,
                "variants": {v.label: {"cast": v.cast, "memory": v.memory} for v in variants},
            }, indent=1) + "\n")
            print(f"wrote {args.json}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
