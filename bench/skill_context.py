#!/usr/bin/env python3
"""The token cost of the context a skill sends (L1 + L2) against the agent's full source.

    cargo build --release && python3 bench/skill_context.py [--cast target/release/cast] [DIR ...]

DIR defaults to the two templates (templates/gaia_agent, templates/ppt_agent). Pass any agent
code base to compare, e.g. Aider's package from a venv
(`.../site-packages/aider`).

Method, per DIR (tokens are estimated as bytes / 4, rounded up, as CAST estimates them):
  full source  every file the agent's source consists of: *.py plus README/Markdown and TOML/JSON
               config files (the text a "send the whole template" prompt would paste);
  L1           `cast map --budget B DIR` — the map the skills put in their system prompt
               (B = 1500, the skills' budget);
  L2           `cast skeleton` of every .py file — what the model reads to see every signature
               and docstring before it opens any body (an upper bound: a skill reads the
               skeletons it needs, not necessarily all);
  L1 + L2      against full source: the ratio and the saving.
The index (DIR/.cast) is built by `cast map` on first use; it is not counted.
"""
from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys

TEXT_SUFFIXES = {".py", ".md", ".toml", ".json", ".txt", ".cfg"}


def tokens(n_bytes: int) -> int:
    return (n_bytes + 3) // 4


def source_files(root: pathlib.Path) -> list[pathlib.Path]:
    out = []
    for p in sorted(root.rglob("*")):
        parts = set(p.relative_to(root).parts)
        if p.is_file() and p.suffix in TEXT_SUFFIXES and not parts & {".cast", "__pycache__", ".git"}:
            out.append(p)
    return out


def measure(cast: str, root: pathlib.Path, budget: int) -> dict:
    files = source_files(root)
    full = sum(p.stat().st_size for p in files)
    l1 = subprocess.run([cast, "map", "--budget", str(budget), str(root)], capture_output=True, check=True).stdout
    py = [str(p) for p in files if p.suffix == ".py"]
    l2 = b""
    for i in range(0, len(py), 200):
        l2 += subprocess.run([cast, "skeleton", *py[i:i + 200]], capture_output=True, check=True).stdout
    return {"files": len(files), "py": len(py), "full": tokens(full), "l1": tokens(len(l1)), "l2": tokens(len(l2))}


def main() -> int:
    here = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cast", default=str(here / "target/release/cast"))
    ap.add_argument("--budget", type=int, default=1500)
    ap.add_argument("dirs", nargs="*", type=pathlib.Path)
    args = ap.parse_args()
    dirs = args.dirs or [here / "templates/gaia_agent", here / "templates/ppt_agent"]
    print(f"{'code base':<28} {'files':>5} {'full source':>12} {'L1':>7} {'L2 (all .py)':>13} {'L1+L2':>8} {'ratio':>6}")
    for d in dirs:
        m = measure(args.cast, d.resolve(), args.budget)
        both = m["l1"] + m["l2"]
        print(f"{d.name:<28} {m['files']:>5} {m['full']:>12,} {m['l1']:>7,} {m['l2']:>13,} {both:>8,} {both / m['full']:>6.1%}")
    print("tokens = bytes / 4; L1 at a budget of", args.budget, "tokens")
    return 0


if __name__ == "__main__":
    sys.exit(main())
