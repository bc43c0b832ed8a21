#!/usr/bin/env python3
"""Measure cast-analyzer on a tree (default: this machine's Python standard library).

    python3 bench/analyzer.py [--cast target/release/cast] [--runs 3] [--keep] [TREE]
    cargo xtask bench-analyzer [-- ARGS]        (builds the release binary first)

Method. TREE's Python and HTML files (.py .pyi .pyx .html .htm) are copied into a temporary
folder first, so the benchmark can touch and edit files without changing the machine's Python;
every command below runs on that copy, in one run, on the same machine.

1. Index. After one warm-up read of the copy (so every tool reads from the page cache):
   - cold:       `cast index COPY --json` with no database (a fresh `.cast/`), timed once per
                 run (the database is deleted between runs); the median of --runs is reported,
                 with the phases the report gives (walk, parse+write, resolve, rank, commit);
   - anchors:    `ctags -R --languages=Python -f /dev/null COPY` (universal-ctags, skipped if
                 absent; the issue's anchor, which skips `.pyi` stubs: ctags maps only `.py .pyx
                 .pxd .pxi .scons .wsgi` to Python), the same with `--map-Python=+.pyi` (the
                 files cast parses), and `cast symbols --json --no-ignore COPY > /dev/null` (the
                 parse alone, no database, no graphs), medians of --runs;
   - no change:  `cast index COPY` again (nothing changed);
   - touch:      one file's mtime moved (content unchanged), then `cast index COPY`;
   - body edit:  one line appended to a function body of one file, then `cast index COPY`
                 (same definitions: only that file is re-parsed and re-resolved);
   - new def:    a new function appended to one file, then `cast index COPY` (definitions
                 changed: that file is re-parsed and every file's references are re-resolved);
   - database:   size of `.cast/index.sqlite` (plus its WAL file, if any) after the last run;
   - memory:     the largest maximum resident set size of the child processes by then
                 (getrusage RUSAGE_CHILDREN), i.e. of the cold `cast index`.
   Each refresh is timed as wall time of the whole command (process start to exit), median of
   --runs; the file edited is the largest .py file in the tree.
2. Skeletons (L2). `cast skeleton --json COPY` gives every file's skeleton; its size is the sum
   of the rendered lines (`(Line N) text` + newline) over the sum of the source bytes, for all
   files, .py only and .pyi only. Every class and def the parser reports (`cast symbols --json`,
   which agrees with Python's `ast`) must appear in its file's skeleton on its own line number
   as `class NAME` / `def NAME`; the count of those that do not is reported.
3. Search (`cast find`). For each query of --queries (default
   tests/fixtures/find_queries/stdlib.jsonl: {"query": ..., "expect": [module.qualname, ...]}),
   `cast find QUERY --root COPY --json --top 5`; a hit counts when the full name of one of the
   top 5 symbols is one of the expected names. Reports hit@1, hit@5, MRR and the median and
   p90 latency (whole process, the index warm), and lists the misses. Then each query as the
   task of `cast map COPY --focus QUERY` (default budget): median and p90 latency. These run
   with CAST_NO_SERVER set: each command opens and checks the index itself.
4. The same as a user runs them, CAST_NO_SERVER unset (unless --no-serve): the first two
   questions answer on their own, and the second (asked within two minutes of the first)
   starts `cast serve` in the background (its whole process is reported: what starting costs
   the command); once the server listens, every `cast find` and `cast map --focus` above runs
   again, now answered by it (whole process of the command, as before); each answer must be
   byte-identical to the command's own, or the benchmark stops. `cast serve --stop` ends it.

5. With --against OTHER (another build of cast that reads the same index schema): both builds'
   `cast find` and `cast map --focus`, alone, alternating query by query for --runs rounds
   (which build goes first alternates too), on the same copy and index; medians and p90s side
   by side, and how many outputs differ. Runs minutes apart differ by 10 ms and more on a busy
   machine, so a change of a few ms shows only when the two builds take turns like this.

With --markdown, the figures are also printed at the end as the Markdown tables of
docs/analyzer.md's "Measured" section (index, skeletons, search), each row stamped with the
build (this checkout's `git rev-parse --short HEAD`) and the day (UTC), ready to paste.

To score search on the standard library alone (its own task queries, no third-party
look-alikes), add `--exclude site-packages`; for the held-out set,
`--queries tests/fixtures/find_queries/heldout_dist_packages.jsonl /usr/lib/python3/dist-packages`.

Timings taken while other work runs on the machine are noisy; the load average is printed.
"""
from __future__ import annotations

import argparse
import json
import resource
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
QUERIES = HERE.parent / "tests" / "fixtures" / "find_queries" / "stdlib.jsonl"
SOURCE_EXT = (".py", ".pyi", ".pyx", ".html", ".htm", ".rs", ".go", ".js", ".mjs", ".cjs", ".jsx",
              ".ts", ".mts", ".cts", ".tsx", ".java")


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False, **kw)


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    p = run(cmd)
    return time.perf_counter() - t0, p


def median_time(cmd: list[str], runs: int, before=None) -> float:
    times = []
    for _ in range(runs):
        if before:
            before()
        t, p = timed(cmd)
        if p.returncode not in (0, 1):
            sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()[-2000:]}")
        times.append(t)
    return statistics.median(times)


def copy_tree(src: Path, dst: Path, exclude: list[str]) -> tuple[int, int, int]:
    files = lines = size = 0
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in exclude)
        rel = Path(dirpath).relative_to(src)
        for name in filenames:
            if not name.endswith(SOURCE_EXT) or name.startswith("."):
                continue
            data = (Path(dirpath) / name).read_bytes()
            target = dst / rel / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            files += 1
            size += len(data)
            lines += data.count(b"\n")
    return files, lines, size


def mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def bench_index(cast: str, copy: Path, runs: int) -> dict:
    db_dir = copy / ".cast"
    index = [cast, "index", str(copy), "--json"]
    # Warm the page cache.
    run([cast, "symbols", "--json", "--no-ignore", str(copy)])
    cold_times, reports = [], []
    peak_kb = 0
    for _ in range(runs):
        shutil.rmtree(db_dir, ignore_errors=True)
        t, p = timed(index)
        peak_kb = max(peak_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        if p.returncode != 0:
            sys.exit(p.stderr.decode()[-2000:])
        cold_times.append(t)
        reports.append(json.loads(p.stdout))
    cold = statistics.median(cold_times)
    report = sorted(reports, key=lambda r: r["seconds"])[len(reports) // 2]
    # ru_maxrss of the children so far: the largest process yet, the cold index (the warm-up
    # `cast symbols` before it is smaller).
    out = {"cold": cold, "report": report, "peak_kb": peak_kb}
    if shutil.which("ctags"):
        out["ctags"] = median_time(["ctags", "-R", "--languages=Python", "-f", "/dev/null", str(copy)], runs)
        out["ctags_pyi"] = median_time(
            ["ctags", "-R", "--languages=Python", "--map-Python=+.pyi", "-f", "/dev/null", str(copy)], runs)
    out["symbols"] = median_time([cast, "symbols", "--json", "--no-ignore", str(copy)], runs)
    out["nochange"] = median_time(index, runs)

    biggest = max((p for p in copy.rglob("*.py") if ".cast" not in p.parts), key=lambda p: p.stat().st_size)
    out["edited_file"] = str(biggest.relative_to(copy))
    original = biggest.read_bytes()

    def touch():
        st = biggest.stat()
        os.utime(biggest, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))

    out["touch"] = median_time(index, runs, before=touch)
    counter = [0]

    def body_edit():
        counter[0] += 1
        # A comment inside the last function body keeps every definition as it was.
        biggest.write_bytes(original + f"    # edit {counter[0]}\n".encode())

    out["body_edit"] = median_time(index, runs, before=body_edit)
    t, p = timed(index)
    out["body_edit_report"] = json.loads(p.stdout) if p.returncode == 0 else None

    def new_def():
        counter[0] += 1
        biggest.write_bytes(original + f"\n\ndef bench_added_{counter[0]}():\n    return {counter[0]}\n".encode())

    out["new_def"] = median_time(index, runs, before=new_def)
    biggest.write_bytes(original)
    timed(index)
    db = db_dir / "index.sqlite"
    wal = db_dir / "index.sqlite-wal"
    out["db_bytes"] = db.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    return out


def bench_skeleton(cast: str, copy: Path) -> dict:
    p = run([cast, "skeleton", "--json", str(copy)])
    skel = {}
    totals = {"all": [0, 0], ".py": [0, 0], ".pyi": [0, 0]}
    prefix = str(copy) + os.sep
    for line in p.stdout.decode().splitlines():
        row = json.loads(line)
        path = row["path"][len(prefix):] if row["path"].startswith(prefix) else row["path"]
        size = sum(len(f"(Line {l['line']}) {l['text']}\n".encode()) for l in row["lines"])
        skel[path] = row["lines"]
        for key in ("all", Path(path).suffix):
            if key in totals:
                totals[key][0] += size
                totals[key][1] += row["source_bytes"]
    syms = run([cast, "symbols", "--json", "--no-ignore", str(copy)])
    missing, checked, examples = 0, 0, []
    by_file: dict[str, dict[int, list[str]]] = {}
    for path, lines in skel.items():
        d = by_file.setdefault(path, {})
        for l in lines:
            d.setdefault(l["line"], []).append(l["text"])
    for line in syms.stdout.decode().splitlines():
        s = json.loads(line)
        if s["language"] != "python":
            continue
        checked += 1
        word = "class" if s["kind"] == "class" else "def"
        texts = by_file.get(s["path"], {}).get(s["start_line"], [])
        ok = any((f"{word} {s['name']}" in t) for t in texts)
        if not ok:
            missing += 1
            if len(examples) < 5:
                examples.append(f"{s['path']}:{s['start_line']} {s['qualname']}")
    return {"totals": totals, "checked": checked, "missing": missing, "examples": examples}


ALONE = dict(os.environ, CAST_NO_SERVER="1")
SERVED = {k: v for k, v in os.environ.items() if k != "CAST_NO_SERVER"}


def timed_env(cmd: list[str], env: dict) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.perf_counter()
    p = run(cmd, env=env)
    return time.perf_counter() - t0, p


def bench_find(cast: str, copy: Path, queries: Path, serve: bool) -> dict:
    rows = [json.loads(l) for l in queries.read_text().splitlines() if l.strip()]
    hits1 = hits5 = 0
    rr = 0.0
    times, misses = [], []
    find_cmds = [[cast, "find", q["query"], "--root", str(copy), "--json", "--top", "5"] for q in rows]
    map_cmds = [[cast, "map", str(copy), "--focus", q["query"]] for q in rows]
    outputs = {}
    for q, cmd in zip(rows, find_cmds):
        t, p = timed_env(cmd, ALONE)
        times.append(t)
        outputs[tuple(cmd)] = p.stdout
        names = [h.get("full_name") for h in map(json.loads, p.stdout.decode().splitlines()) if h["kind"] == "symbol"]
        rank = next((i + 1 for i, n in enumerate(names) if n in q["expect"]), None)
        if rank:
            hits5 += 1
            hits1 += rank == 1
            rr += 1 / rank
        else:
            misses.append((q["query"], names[:3]))
    n = len(rows)
    # The same queries as tasks for a focused map (default budget).
    map_times = []
    for cmd in map_cmds:
        t, p = timed_env(cmd, ALONE)
        map_times.append(t)
        outputs[tuple(cmd)] = p.stdout
    result = {"n": n, "hit1": hits1, "hit5": hits5, "mrr": rr / n, "latency": statistics.median(times),
              "p90": p90(times), "map_latency": statistics.median(map_times), "map_p90": p90(map_times),
              "misses": misses}
    if serve:
        result["served"] = bench_served(cast, copy, find_cmds, map_cmds, outputs)
    return result


def bench_served(cast: str, copy: Path, find_cmds, map_cmds, outputs) -> dict:
    """The commands again as a user runs them (CAST_NO_SERVER unset): the second question
    within two minutes starts a server in the background, which answers the rest. Every answer
    must equal the command's own."""
    socket = copy / ".cast" / "serve.sock"
    if socket.exists():
        sys.exit(f"{socket} exists before the commands started a server")
    # The first answers alone and notes the time; the second answers alone and starts a server.
    run(find_cmds[0], env=SERVED)
    starting, p = timed_env(find_cmds[1], SERVED)
    if p.stdout != outputs[tuple(find_cmds[1])]:
        sys.exit(f"the command that started a server answered differently: {' '.join(find_cmds[1])}")
    try:
        deadline = time.time() + 600
        while not socket.exists():
            if time.time() > deadline:
                sys.exit("no server started: see .cast/serve.log")
            time.sleep(0.05)
        run(find_cmds[0], env=SERVED)  # the first question arms the server's watch of the tree
        timings = {"starting": starting}
        for name, cmds in (("find", find_cmds), ("map", map_cmds)):
            times = []
            for cmd in cmds:
                t, p = timed_env(cmd, SERVED)
                if p.stdout != outputs[tuple(cmd)]:
                    sys.exit(f"the server answered differently: {' '.join(cmd)}")
                times.append(t)
            timings[name] = (statistics.median(times), p90(times))
        return timings
    finally:
        stopped = run([cast, "serve", "--stop", "--root", str(copy)])
        if stopped.returncode != 0:
            print(f"warning: `cast serve --stop` exited {stopped.returncode}: {stopped.stderr.decode().strip()}",
                  file=sys.stderr)


def bench_against(cast: str, other: str, copy: Path, queries: Path, rounds: int) -> dict:
    """`cast find` and `cast map --focus` of two builds alone, taking turns query by query."""
    report = run([other, "index", str(copy), "--json"])
    try:
        cold = json.loads(report.stdout.decode().splitlines()[-1]).get("cold", True)
    except (ValueError, IndexError):
        cold = True
    if report.returncode != 0 or cold:
        sys.exit(f"{other} does not read the index {cast} built (another schema?): compare them on separate copies")
    rows = [json.loads(l) for l in queries.read_text().splitlines() if l.strip()]
    result = {}
    for name, args in (("find", lambda q: ["find", q, "--root", str(copy), "--json", "--top", "5"]),
                       ("map", lambda q: ["map", str(copy), "--focus", q])):
        times = {other: [], cast: []}
        differ = 0
        for r in range(rounds):
            for i, q in enumerate(rows):
                order = (other, cast) if (r + i) % 2 == 0 else (cast, other)
                out = {}
                for build in order:
                    t, p = timed_env([build, *args(q["query"])], ALONE)
                    times[build].append(t)
                    out[build] = p.stdout
                differ += out[other] != out[cast]
        result[name] = {b: (statistics.median(v), p90(v)) for b, v in times.items()}
        result[name]["differ"] = differ
        result[name]["runs"] = rounds * len(rows)
    return result


def commit_and_day() -> tuple[str, str]:
    """This checkout's short commit (or "unknown build") and today's date (UTC)."""
    try:
        commit = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown build"
    return commit, time.strftime("%Y-%m-%d", time.gmtime())


def build_stamp(runs: int) -> str:
    """`COMMIT, YYYY-MM-DD, load L, medians of N`: the "build, date" cell of docs/analyzer.md."""
    commit, day = commit_and_day()
    medians = f", medians of {runs}" if runs > 1 else ""
    return f"{commit}, {day}, load {os.getloadavg()[0]:.1f}{medians}"


def index_markdown(r: dict, source_bytes: int, stamp: str) -> list[str]:
    """The index table of docs/analyzer.md's "Measured" section."""
    ph = r["report"]["phases"]
    rows = [("cold `cast index`", f"{r['cold']:.2f} s; peak RSS {r['peak_kb'] / 1024:.0f} MB")]
    if "ctags" in r:
        rows.append(("`ctags -R --languages=Python --map-Python=+.pyi` (the same files) / without the `.pyi` stubs",
                     f"{r['ctags_pyi']:.2f} s / {r['ctags']:.2f} s (cast: {r['cold'] / r['ctags_pyi']:.1f}× / "
                     f"{r['cold'] / r['ctags']:.1f}×)"))
    rows += [
        ("`cast symbols` (parse only, no database)", f"{r['symbols']:.2f} s"),
        ("phases of a cold build", ", ".join(f"{k} {v:.2f} s" for k, v in ph.items())),
        ("re-index, nothing changed", f"{r['nochange']:.3f} s"),
        ("re-index, one file touched", f"{r['touch']:.3f} s"),
        ("re-index, one function body edited (largest file)", f"{r['body_edit']:.2f} s"),
        ("re-index, a def added (every reference re-resolved)", f"{r['new_def']:.2f} s"),
        ("database", f"{mb(r['db_bytes'])} ({100 * r['db_bytes'] / source_bytes:.0f} % of the source bytes)"),
    ]
    return ["| measurement | figure | build, date |", "|---|---|---|"] + \
        [f"| {name} | {figure} | {stamp} |" for name, figure in rows] + [""]


def skeleton_markdown(s: dict, stamp: str) -> list[str]:
    """The skeleton table of docs/analyzer.md's "Measured" section."""
    out = [f"{s['checked'] - s['missing']:,} of {s['checked']:,} classes and defs at their true line "
           f"({s['missing']} missing); {stamp}.", "", "| | skeleton bytes / source bytes |", "|---|---|"]
    out += [f"| {key} | {100 * sk / src:.1f} % |" for key, (sk, src) in s["totals"].items() if src]
    return out + [""]


def find_markdown(f: dict, tree: str, stamp: str) -> list[str]:
    """One row of the search table of docs/analyzer.md's "Measured" section."""
    def ms(median: float, p90_: float) -> str:
        return f"{1000 * median:.0f} / {1000 * p90_:.0f} ms"
    served = f.get("served")
    find_served = ms(*served["find"]) if served else "–"
    map_served = ms(*served["map"]) if served else "–"
    return [
        "| tree | build, date | hit@5 | hit@1 | MRR | `find` served | `find` alone | `map --focus` served | `map --focus` alone |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| {tree} | {stamp} | {f['hit5']}/{f['n']} = {100 * f['hit5'] / f['n']:.0f} % | {f['hit1']}/{f['n']} | "
        f"{f['mrr']:.2f} | {find_served} | {ms(f['latency'], f['p90'])} | {map_served} | "
        f"{ms(f['map_latency'], f['map_p90'])} |",
        "",
    ]


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--queries", type=Path, default=QUERIES)
    ap.add_argument("--exclude", action="append", default=[], metavar="DIR",
                    help="leave folders of this name out of the copy (e.g. site-packages)")
    ap.add_argument("--keep", action="store_true", help="keep the copy (its path is printed)")
    ap.add_argument("--only", choices=["index", "skeleton", "find"], action="append")
    ap.add_argument("--no-serve", action="store_true", help="skip the search timings answered by the server the commands start")
    ap.add_argument("--against", metavar="OTHER_CAST",
                    help="also time another build's find and map --focus, taking turns with --cast query by query")
    ap.add_argument("--markdown", action="store_true",
                    help="also print the figures as docs/analyzer.md's Markdown tables, stamped with build and day")
    args = ap.parse_args()
    only = set(args.only or ["index", "skeleton", "find"])
    md: list[str] = []
    tree = args.tree.resolve()
    work = Path(tempfile.mkdtemp(prefix="cast-bench-"))
    copy = work / "tree"
    files, lines, size = copy_tree(tree, copy, args.exclude)
    excluded = f" without {', '.join(args.exclude)}" if args.exclude else ""
    print(f"tree: {tree}{excluded} -> copy {copy}: {files} files, {lines:,} lines, {mb(size)}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    try:
        if "find" in only and "index" not in only:
            # Search needs an index, not its timings (which edit a .py file of the tree).
            run([args.cast, "index", str(copy)])
        if "index" in only:
            r = bench_index(args.cast, copy, args.runs)
            rep = r["report"]
            ph = rep["phases"]
            print(f"\n== index (median of {args.runs})")
            print(f"cold `cast index`:         {r['cold']:.2f} s  ({rep['files']} files, {rep['symbols']:,} symbols, "
                  f"{rep['edges']:,} edges, {rep['file_edges']:,} file edges, {rep['rank_iterations']} PageRank iterations)")
            print("  phases: " + ", ".join(f"{k} {v:.2f} s" for k, v in ph.items()))
            if "ctags" in r:
                print(f"ctags -R --languages=Python: {r['ctags']:.2f} s  (cast cold / ctags = {r['cold'] / r['ctags']:.1f}x)")
                print(f"  with --map-Python=+.pyi:   {r['ctags_pyi']:.2f} s  (the same files as cast; "
                      f"cast cold / ctags = {r['cold'] / r['ctags_pyi']:.1f}x)")
            print(f"`cast symbols` (parse only): {r['symbols']:.2f} s")
            print(f"no change:                 {r['nochange']:.3f} s  ({100 * r['nochange'] / r['cold']:.1f}% of cold; goal < 5%)")
            print(f"touch one file:            {r['touch']:.3f} s  (goal < 1 s)")
            print(f"edit one function body:    {r['body_edit']:.3f} s  ({r['edited_file']})")
            print(f"add a def to one file:     {r['new_def']:.3f} s  (all references re-resolved)")
            print(f"database:                  {mb(r['db_bytes'])}  ({100 * r['db_bytes'] / size:.0f}% of the source bytes)")
            print(f"peak memory (max RSS of the child processes, the cold index): {r['peak_kb'] / 1024:.0f} MB")
            if args.markdown:
                md += index_markdown(r, size, build_stamp(args.runs))
        if "skeleton" in only:
            s = bench_skeleton(args.cast, copy)
            print("\n== skeletons (L2)")
            for key, (sk, src) in s["totals"].items():
                if src:
                    print(f"{key:>5}: {mb(sk)} of {mb(src)} = {100 * sk / src:.1f}% (goal <= 10%)")
            print(f"classes and defs at their true line: {s['checked'] - s['missing']:,} of {s['checked']:,} "
                  f"({s['missing']} missing){' e.g. ' + ', '.join(s['examples']) if s['examples'] else ''}")
            if args.markdown:
                md += skeleton_markdown(s, build_stamp(1))
        if "find" in only:
            f = bench_find(args.cast, copy, args.queries, serve=not args.no_serve)
            print(f"\n== cast find ({f['n']} queries from {args.queries.name})")
            print(f"hit@5 {f['hit5']}/{f['n']} = {100 * f['hit5'] / f['n']:.0f}%, hit@1 {f['hit1']}/{f['n']}, "
                  f"MRR {f['mrr']:.2f}, latency median {1000 * f['latency']:.0f} ms, p90 {1000 * f['p90']:.0f} ms "
                  "(whole process, warm index)")
            print(f"`cast map --focus QUERY`: latency median {1000 * f['map_latency']:.0f} ms, p90 {1000 * f['map_p90']:.0f} ms")
            if "served" in f:
                (fm, fp), (mm, mp) = f["served"]["find"], f["served"]["map"]
                print(f"the default, answered by the server the commands started (every answer identical): "
                      f"`cast find` median {1000 * fm:.0f} ms, p90 {1000 * fp:.0f} ms; `cast map --focus` median "
                      f"{1000 * mm:.0f} ms, p90 {1000 * mp:.0f} ms; the question that started it "
                      f"{1000 * f['served']['starting']:.0f} ms")
            for q, names in f["misses"]:
                print(f"  miss: {q!r} -> {names}")
            if args.markdown:
                md += find_markdown(f, f"{tree.name}{excluded} ({files:,} files)", build_stamp(args.runs))
            if args.against:
                a = bench_against(args.cast, args.against, copy, args.queries, args.runs)
                print(f"\nalone, taking turns with {args.against} ({args.runs} rounds), median / p90:")
                for name in ("find", "map"):
                    (om, op), (cm, cp) = a[name][args.against], a[name][args.cast]
                    print(f"  `cast {name}`: {1000 * om:.1f} / {1000 * op:.1f} ms -> {1000 * cm:.1f} / {1000 * cp:.1f} ms "
                          f"({a[name]['differ']} of {a[name]['runs']} outputs differ)")
        print(f"\nload average at end: {os.getloadavg()[0]:.2f}")
        if md:
            print("\n== Markdown (docs/analyzer.md)\n")
            print("\n".join(md))
    finally:
        if args.keep:
            print(f"kept {copy}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
