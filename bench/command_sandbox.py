#!/usr/bin/env python3
"""Wall time of `run_command "true"`, sandboxed and not, side by side.

Method: a release `cast` (`cargo build --release --bin cast` first) runs
`cast tool run_command --allow-commands --sandbox MODE --args '{"command": "true"}'` in a fresh
temporary workspace (with `.git/` and `.cast/`), ROUNDS times (default 200), the modes taken in
turn within each round so that drifting machine load falls on all of them alike. Two figures per
mode, median and 90th percentile, in milliseconds, with the median's extra over
`danger-full-access` (no sandbox):
- spawn: the tool's own `seconds` (cast-tools' run_shell: making the private TMPDIR, starting
  the helper, its mount namespace + Landlock + seccomp, exec of `sh -c true`, until its pipes
  close). This is what every command costs inside a running agent.
- call: the whole `cast tool` process as seen from here (adds CAST's own start-up, the same for
  every mode).
`workspace-write (no userns)` is the fallback without user namespaces
(CAST_SANDBOX_SIMULATE=no-userns). The load (`uptime`) is printed before and after.

`cast` uses the small `cast-sandbox` binary beside it as its helper when it is there
(`cargo build --release -p cast-cli` builds both), else itself. A second table isolates the
helper: `sh -c true` started directly, through `cast __sandbox-exec` and through `cast-sandbox`
(when target/release/cast-sandbox exists), each in the workspace scope, wall time from here,
same interleaving.

    python3 bench/command_sandbox.py [--cast target/release/cast] [--rounds 200]
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

MODES = [
    ("danger-full-access", "danger-full-access", {}),
    ("read-only", "read-only", {}),
    ("workspace-write", "workspace-write", {}),
    ("workspace-write (no userns)", "workspace-write", {"CAST_SANDBOX_SIMULATE": "no-userns"}),
]


def one_call(cast, root, mode, extra_env):
    env = dict(os.environ)
    env.pop("CAST_SANDBOX", None)
    env.pop("CAST_SANDBOX_SIMULATE", None)
    env.update(extra_env)
    started = time.perf_counter()
    out = subprocess.run(
        [cast, "tool", "run_command", "--allow-commands", "--sandbox", mode, "--root", root,
         "--args", json.dumps({"command": "true"})],
        capture_output=True, env=env, check=False)
    call = time.perf_counter() - started
    result = json.loads(out.stdout)
    if result["status"] != "ok" or result["data"]["exit_code"] != 0:
        raise SystemExit(f"{mode}: {result}")
    return result["data"]["seconds"], call


def p90(values):
    return sorted(values)[int(len(values) * 0.9)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cast", default="target/release/cast")
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "ws")
        for d in (".git", ".cast", "src"):
            os.makedirs(os.path.join(root, d))
        spawn = {name: [] for name, _, _ in MODES}
        call = {name: [] for name, _, _ in MODES}
        for name, mode, env in MODES:  # warm-up: page cache, first exec
            one_call(args.cast, root, mode, env)
        for _ in range(args.rounds):
            for name, mode, env in MODES:
                s, c = one_call(args.cast, root, mode, env)
                spawn[name].append(s * 1000)
                call[name].append(c * 1000)
    print("load after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    base_spawn = statistics.median(spawn["danger-full-access"])
    base_call = statistics.median(call["danger-full-access"])
    print(f"\n{args.rounds} rounds; milliseconds (median / p90; extra = median over danger-full-access)")
    print(f"{'mode':30} {'spawn med':>9} {'p90':>6} {'extra':>7}   {'call med':>8} {'p90':>6} {'extra':>7}")
    for name, _, _ in MODES:
        sm, cm = statistics.median(spawn[name]), statistics.median(call[name])
        print(f"{name:30} {sm:9.2f} {p90(spawn[name]):6.2f} {sm - base_spawn:+7.2f}   "
              f"{cm:8.2f} {p90(call[name]):6.2f} {cm - base_call:+7.2f}")
    helper_table(args.cast, args.rounds)


def helper_table(cast, rounds):
    cast = os.path.abspath(cast)
    helper = os.path.join(os.path.dirname(cast), "cast-sandbox")
    with tempfile.TemporaryDirectory() as tmp:
        root, temp = os.path.join(tmp, "ws"), os.path.join(tmp, "t")
        for d in (os.path.join(root, ".git"), os.path.join(root, ".cast"), temp):
            os.makedirs(d)
        protocol = ["--scope", "workspace", "--root", root, "--temp", temp, "--"]
        ways = [("sh -c true (direct)", ["sh", "-c", "true"]),
                ("cast __sandbox-exec", [cast, "__sandbox-exec"] + protocol + ["sh", "-c", "true"])]
        if os.path.exists(helper):
            ways.append(("cast-sandbox", [helper] + protocol + ["sh", "-c", "true"]))
        times = {name: [] for name, _ in ways}
        for _ in range(rounds):
            for name, argv in ways:
                started = time.perf_counter()
                subprocess.run(argv, cwd=root, check=True)
                times[name].append((time.perf_counter() - started) * 1000)
    base = statistics.median(times[ways[0][0]])
    print(f"\nthe helper alone, {rounds} rounds; milliseconds")
    print(f"{'how':30} {'median':>9} {'p90':>6} {'extra':>7}")
    for name, _ in ways:
        m = statistics.median(times[name])
        print(f"{name:30} {m:9.2f} {p90(times[name]):6.2f} {m - base:+7.2f}")


if __name__ == "__main__":
    main()
