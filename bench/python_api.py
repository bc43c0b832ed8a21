#!/usr/bin/env python3
"""The Python package's figures (docs/python.md): the wheel's size, `pip install` time into a
fresh virtualenv, `import cast` time, and the per-call time of `find` through the API against
the `cast` command run as a subprocess on the same query.

    python3 bench/python_api.py --wheel target/wheels/cast_toolkit-*.whl [--runs 20]

Method:
- install: a new virtualenv (`python -m venv`, not timed), then `pip install --no-deps
  --no-index WHEEL` timed once (the package has no dependencies).
- import: `import cast` timed inside a fresh interpreter (perf_counter around the import), the
  median of 10 interpreters.
- find: the standard library's `.py` files (site-packages left out) copied to a temporary
  folder and indexed once (`cast index`); then the same query `--runs` times each way, median:
  - API, kept: one `cast.Index(copy)` in one process, `index.find(QUERY)` per call (the
    intended use: an agent's process keeps the index open);
  - API, opened per call: `cast.Index(copy).find(QUERY)` per call;
  - of the kept call: the native call alone (`_native` returns JSON text) and reading that
    JSON into the dataclasses;
  - CLI: `cast find QUERY --root COPY --json` as a subprocess per call, CAST_NO_SERVER=1 (no
    `cast serve` answers for it), output read and parsed as JSON lines; and `cast --version`
    as a subprocess, the floor of any command's cost.
  Every way answers as if the index were refreshed first (the default of both). The ways take
  turns, one call each per round, so a changing load weighs on all of them alike.
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

QUERY = "parse an HTTP date"


def copy_stdlib(dst: Path) -> int:
    src = Path(sysconfig.get_paths()["stdlib"])
    files = 0
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if d not in ("site-packages", "__pycache__") and not d.startswith("."))
        rel = Path(dirpath).relative_to(src)
        for name in filenames:
            if name.endswith(".py"):
                target = dst / rel / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(dirpath) / name, target)
                files += 1
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wheel", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--query", default=QUERY)
    args = ap.parse_args()
    out: dict = {"wheel": args.wheel.name, "wheel_mb": round(args.wheel.stat().st_size / 1e6, 1)}

    with tempfile.TemporaryDirectory(prefix="cast-bench-py-") as scratch:
        scratch = Path(scratch)
        venv = scratch / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        started = time.perf_counter()
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "--no-index", str(args.wheel)],
            check=True,
        )
        out["pip_install_s"] = round(time.perf_counter() - started, 2)
        cast_bin = venv / "bin" / "cast"
        out["cast_binary_mb"] = round(cast_bin.stat().st_size / 1e6, 1)

        probe = "import time; t = time.perf_counter(); import cast; print(time.perf_counter() - t)"
        imports = [float(subprocess.run([str(python), "-c", probe], check=True, stdout=subprocess.PIPE, text=True).stdout) for _ in range(10)]
        out["import_ms"] = round(statistics.median(imports) * 1000, 1)

        corpus = scratch / "stdlib"
        out["corpus_files"] = copy_stdlib(corpus)
        env = dict(os.environ, CAST_NO_SERVER="1")
        subprocess.run([str(cast_bin), "index", str(corpus)], check=True, env=env, stdout=subprocess.DEVNULL)

        # Every way in the same loop, one call each per round: the machine's load (other builds)
        # weighs on all of them alike.
        rounds = (
            "import json, os, statistics, subprocess, sys, time, cast\n"
            "root, query, runs, cast_bin = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]\n"
            "index = cast.Index(root)\n"
            "index.find(query)\n"
            "subprocess.run([cast_bin, 'find', query, '--root', root, '--json'], check=True, stdout=subprocess.PIPE)\n"
            "times = {k: [] for k in ('kept', 'raw', 'convert', 'opened', 'cli', 'spawn')}\n"
            "def timed(key, f):\n"
            "    t = time.perf_counter(); r = f(); times[key].append(time.perf_counter() - t); return r\n"
            "def cli():\n"
            "    out = subprocess.run([cast_bin, 'find', query, '--root', root, '--json'], check=True, stdout=subprocess.PIPE, text=True).stdout\n"
            "    return [json.loads(line) for line in out.splitlines()]\n"
            "for _ in range(runs):\n"
            "    found = timed('kept', lambda: index.find(query))\n"
            "    text = timed('raw', lambda: index._native.find(query, 10, False, []))\n"
            "    timed('convert', lambda: cast.results.build(cast.results.Found, json.loads(text)))\n"
            "    timed('opened', lambda: cast.Index(root).find(query))\n"
            "    hits = timed('cli', cli)\n"
            "    timed('spawn', lambda: subprocess.run([cast_bin, '--version'], check=True, stdout=subprocess.PIPE))\n"
            "out = {k: statistics.median(v) for k, v in times.items()}\n"
            "out.update(top=found.symbols[0].full_name, cli_top=hits[0]['full_name'])\n"
            "print(json.dumps(out))\n"
        )
        measured = json.loads(
            subprocess.run(
                [str(python), "-c", rounds, str(corpus), args.query, str(args.runs), str(cast_bin)],
                check=True,
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            ).stdout
        )
        out.update(
            query=args.query,
            top_hit=measured["top"],
            cli_top_hit=measured["cli_top"],
            api_kept_ms=round(measured["kept"] * 1000, 1),
            api_opened_per_call_ms=round(measured["opened"] * 1000, 1),
            api_native_call_ms=round(measured["raw"] * 1000, 1),
            api_json_to_dataclasses_ms=round(measured["convert"] * 1000, 2),
            cli_subprocess_ms=round(measured["cli"] * 1000, 1),
            cli_version_subprocess_ms=round(measured["spawn"] * 1000, 1),
            runs=args.runs,
            load_average=os.getloadavg(),
        )
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
