"""Fails when the workspace's rust-version is older than what a dependency needs.

Reads `cargo metadata` on stdin. The project once declared 1.88 while the Ruff crates needed 1.95.
"""
import json
import sys


def version(text):
    return tuple(int(part) for part in (text or "0").split("."))


meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
declared = [p for p in meta["packages"] if p["id"] in members and p.get("rust_version")]
deps = [p for p in meta["packages"] if p["id"] not in members and p.get("rust_version")]
need = max(deps, key=lambda p: version(p["rust_version"]))
stale = [p for p in declared if version(p["rust_version"]) < version(need["rust_version"])]
if stale:
    names = ", ".join(f"{p['name']} ({p['rust_version']})" for p in stale)
    sys.exit(
        f"rust-version too old in {names}: {need['name']} {need['version']} needs "
        f"{need['rust_version']}; raise it in Cargo.toml and README.md"
    )
print(f"rust-version covers every dependency (highest need: {need['name']} {need['rust_version']})")
