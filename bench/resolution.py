#!/usr/bin/env python3
"""Call resolution against a type-aware reference: CAST's call edges against Jedi's, site by site.

    python3 bench/resolution.py [--cast target/release/cast] [--mirrors /work/.mirror]
                                [--corpora /work/corpora/resolution] [--work target/resolution]
                                [--only dev|heldout] [--repo NAME]... [--edges show|sqlite]
                                [--label TEXT] [--json OUT] [--examples 4] [--jobs 2]
                                [--map-budget 2000 --map-budget 8000] [--venv DIR] [--no-cache]
                                [--tree NAME=PATH]...   # any tree instead of REPOS, role `adhoc`

Runs by hand (CI never fetches, never runs it). Everything CPU-heavy is worth running under
`nice -n 19` on a shared machine.

Fetching. The repositories in REPOS are read as bare git directories under --mirrors, in the
layout `OWNER+NAME/repo` (what this project's `fetch` tool produces; the same as
bench/localise.py). Elsewhere:
    git clone --bare https://github.com/OWNER/NAME MIRRORS/OWNER+NAME/repo
The tree of the pinned commit is written out (as `git archive COMMIT | tar -x` would, leaving out
blobs a fetched mirror lacks, such as large images) into --corpora/NAME/COMMIT once and kept; it
is never committed.

Dev and held-out. mkdocs and django-rest-framework are `dev` (the issue's projects A and B:
resolution may be tuned on them, and --examples lists their disagreements); flask and httpx are
`heldout` (only measured; the issue's goals are judged on them). The split was fixed before
the first run.

The reference: Jedi (pinned, JEDI_VERSION), in a virtualenv the script makes (--work/venv;
`python3 -m venv` with the Python running the script, then `pip install jedi==JEDI_VERSION`;
nothing is installed elsewhere; that Python's version decides which branch of an
`if sys.version_info` Jedi follows). Jedi sees the standard library and builtins (its bundled typeshed) and the repository itself (its
root, and `src/` in a src layout, on the path); not the repository's third-party dependencies.
Its answers are cached per repository, commit and Jedi version in --work/jedi-*.json (they do
not depend on CAST), so a second run, or a run of another CAST build, only rebuilds CAST's
index; --no-cache recomputes them.

Call sites: every `ast.Call` in the repository's library code — `.py` files outside tests,
docs, examples, scripts and benchmarks (the same rule as bench/localise.py: not under a folder
named `test*`, `*_tests`, `docs`, `doc`, `examples`, `example`, `benchmarks`, `scripts`,
`.github`; not `test_*.py`, `*_test.py`, `conftest.py`, `setup.py`, `noxfile.py`) whose callee
is a name (`f(...)`) or an attribute (`x.f(...)`); calls of other expressions (`f()()`,
`x[0]()`, lambdas) are counted but not judged. A site is the position of the callee's name (for
`x.f`, the `f`), its file and line.

Jedi's answer per site: `Script.goto(line, column, follow_imports=True)` at the callee's name;
when that names no function or class (a variable, a parameter, an attribute assigned a value),
`Script.infer` at the same place, keeping functions and classes. A site is:
- `in-repo` when some answer is a definition inside the repository (its targets: those
  definitions, as file and line of the `def`/`class`);
- `outside` when every answer is outside it (builtins, the standard library);
- `unknown` when Jedi gives nothing (a third-party receiver, a dynamic value).
A class and its own `__init__`/`__new__` count as one target (a constructor call).

CAST's answer per site: its stored call edges (kind `call`, or `decorator` on a decorator that is
a call), each with the line of the callee's name, its target symbol and how it was resolved
(`local`, `import`, `self`, `super`, `attribute`, or any other but `name` = resolved; `name` =
a name-only guess with k candidates). Two ways to read them (--edges):
- `show` (the default, the public surface): `cast show --json FILE:LINE` for every class and
  function of the library code; `references` (resolved) and `references_by_name` (guesses)
  give, per edge, the caller's line and the target's file and line. It covers calls inside
  definitions and in their decorators, bases and defaults only: other module-level code (`src`
  0) is not a symbol `show` can name, so its sites are left out of every figure; and each list
  stops at 50 (a symbol at the cap is counted in the report).
- `sqlite`: the edges decoded from the index itself (`file_data.edges`: varint count, then per
  edge varint src, varint dst, a byte how<<4|kind, varint k, varint line; symbols from
  `symbols`), module-level code included. It reads the store's private format: use it to
  cross-check `show`, or where `show` lacks something, and fix the decoder if the format moves.
The index is built cold into --work/index-NAME.sqlite for each run (`cast index TREE --db`).
Edges are matched to sites by file and line; where a line holds several calls, an edge goes to
the sites whose callee name is the target's name (or the class of a target `__init__`; CAST
keeps one edge per line and target, so two such calls share it), else to a site whose Jedi
targets hold it; an edge on a line with no call site (or none of these) is
`unplaced` and counted.

Figures per repository:
- precision of resolved edges: resolved call edges (one per site and target) at sites Jedi can
  judge (`in-repo` or `outside`) whose target is one of Jedi's, over those edges;
- recall: `in-repo` sites where some resolved CAST edge is one of Jedi's targets, over the
  `in-repo` sites;
- guesses: name-only candidates at judged sites that are one of Jedi's targets, over those
  candidates (per candidate), and the share of such sites where some candidate is right;
- the map: the `→ callee()` edges of `cast map TREE --json` at each --map-budget (default 2,000,
  the map an agent reads first, and 8,000), all languages: how many are name-only guesses (the
  caller's `cast show --json` lists that callee only under `references_by_name`), how many of
  those the map leaves unmarked (a `calls_to` entry counts as marked when it is an object with
  `guess` true, `how` "name" or `resolved` false, or a string starting or ending with `?`: adapt
  `map_edges` if the map marks guesses another way), how many edges sit in minified or bundled
  files (`*.min.js`, `*.bundle.*`, `dist/`), and, for edges in the Python library code, how many
  Jedi confirms (some site of the caller has that callee among Jedi's targets).
Then the disagreements: each wrong resolved edge (`wrong:`) and each missed `in-repo` site
(`missed:`) gets one category, the first that applies in CATEGORY_ORDER: CAST's target an
`@overload` stub; `mod.f()` where `import mod` names a standard-library module but CAST took an
in-repo module of that name; CAST's target a def whose name its module also binds otherwise
(`if/else` with an import from the standard library, `_removesuffix = str.removesuffix`);
recursion (the call is inside the function Jedi names); `super().m()`; then the shape of the receiver —
`self.m()` (`m` a class-level assignment such as `m_class = Foo`, a base subscripted
`Base[T]`, other), `self.__class__()`, `self.attr.m()` (by how the class types the attribute:
annotated, assigned an annotated parameter, assigned a call, unknown), `x.attr.m()`,
`param.m()` (annotated or not), a local variable (by its last binding before the call: a
constructor call, another call's result, a loop or `with` target, other), a module attribute,
`Class.m()`, `f().m()`; or a plain name — a parameter (`cls(...)`), defined more than once at
module level, rebound by assignment, imported, other.
A missed site is also tagged with what CAST had there: `[guessed right]` (a name-only candidate
is Jedi's target), `[guessed wrong]`, `[resolved elsewhere]` (a resolved edge to another
target), `[nothing]`. Counts for every repository; --examples of each for dev ones only.

Output: a markdown table (the method, the date, and --label: e.g. the CAST commit) and
--json OUT with every figure and category.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

JEDI_VERSION = "0.19.2"
# Bumped when what the Jedi worker records changes (the cache keys on it).
WORKER_VERSION = 1

# (owner/name, role, pinned commit). Fixed before the first run.
REPOS = [
    ("mkdocs/mkdocs", "dev", "2862536793b3c67d9d83c33e0dd6d50a791928f8"),
    ("encode/django-rest-framework", "dev", "751a19fe1b237beca9af7d587fce55d3e09d3741"),
    ("pallets/flask", "heldout", "2ac89889f4cc330eabd50f295dcef02828522c69"),
    ("encode/httpx", "heldout", "ae1b9f66238f75ced3ced5e4485408435de10768"),
]

NON_SOURCE_DIRS = {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "scripts", ".github"}
NON_SOURCE_NAMES = {"conftest.py", "setup.py", "noxfile.py"}
# Every `how` but "name" is a resolution (a build may add kinds: `local`, `import`, `self`,
# `super`, `attribute`, `global`, `typed` at the time of writing).
GUESS_HOW = "name"
EDGE_KINDS = {"call", "decorator"}
# The store's codes (crates/cast-index/src/graph/resolve.rs: How::code, ref_kind_of).
HOW_CODES = ["local", "import", "self", "super", "attribute", "name", "global", "typed"]
KIND_CODES = ["call", "attribute", "decorator", "inherit", "type"]


# --------------------------------------------------------------------------- files and sites


def is_library(rel: str) -> bool:
    if not rel.endswith(".py"):
        return False
    parts = rel.split("/")
    for p in parts[:-1]:
        if p in NON_SOURCE_DIRS or p.startswith("test") or p.endswith("_tests") or p.startswith("."):
            return False
    name = parts[-1]
    return not (name.startswith("test_") or name.endswith("_test.py") or name in NON_SOURCE_NAMES)


def python_files(tree: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
        for f in sorted(filenames):
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(dirpath, f), tree).replace(os.sep, "/"))
    return out


def parse(tree: Path, rel: str):
    src = (tree / rel).read_bytes()
    try:
        return src, ast.parse(src, filename=rel)
    except (SyntaxError, ValueError):
        return src, None


def char_col(line_bytes: bytes, byte_col: int) -> int:
    return len(line_bytes[:byte_col].decode("utf-8", errors="replace"))


class Site:
    """One call whose callee is a name or an attribute, at the callee name's position."""

    __slots__ = ("path", "line", "col", "name", "node", "scope", "cls", "func", "header")

    def __init__(self, path, line, col, name, node, scope, cls, func, header=None):
        # header: the def/class whose decorators, bases or defaults hold the call (CAST files
        # such a call under that definition; Python runs it in the enclosing scope).
        self.header = header
        self.path, self.line, self.col, self.name, self.node = path, line, col, name, node
        # scope: the innermost enclosing def/class node chain; cls: innermost enclosing class;
        # func: innermost enclosing function.
        self.scope, self.cls, self.func = scope, cls, func

    @property
    def key(self):
        return f"{self.path}:{self.line}:{self.col}"


def call_sites(rel: str, src: bytes, mod: ast.AST) -> tuple[list[Site], int]:
    """The judged sites of a file and the number of calls of other expressions."""
    lines = src.split(b"\n")
    sites, other = [], 0

    def visit(node, scope, header=None):
        nonlocal other
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # Decorators, defaults, annotations and bases run in the enclosing scope.
            outer = list(node.decorator_list)
            if isinstance(node, ast.ClassDef):
                outer += node.bases + [k.value for k in node.keywords]
            else:
                a = node.args
                outer += a.defaults + [d for d in a.kw_defaults if d is not None]
            for n in outer:
                visit(n, scope, node)
            for stmt in node.body:
                visit(stmt, scope + [node])
            return
        if isinstance(node, ast.Call):
            f = node.func
            site = None
            if isinstance(f, ast.Name):
                site = (f.lineno, f.col_offset, f.id)
            elif isinstance(f, ast.Attribute):
                site = (f.end_lineno, f.end_col_offset - len(f.attr.encode()), f.attr)
            if site is None:
                other += 1
            else:
                line, bcol, name = site
                lb = lines[line - 1] if line - 1 < len(lines) else b""
                if lb[bcol:bcol + len(name.encode())] != name.encode():
                    other += 1
                else:
                    cls = next((s for s in reversed(scope) if isinstance(s, ast.ClassDef)), None)
                    func = next((s for s in reversed(scope) if not isinstance(s, ast.ClassDef)), None)
                    sites.append(Site(rel, line, char_col(lb, bcol), name, node, scope, cls, func, header))
        for child in ast.iter_child_nodes(node):
            visit(child, scope, header)

    visit(mod, [])
    return sites, other


class Defs:
    """Every class and function of the tree by (file, line of `def`/`class`), with what the
    categories need: qualname, whether an `@overload` stub, the class of an `__init__`."""

    def __init__(self):
        self.by_place: dict[tuple[str, int], dict] = {}
        self.canon: dict[tuple[str, int], tuple[str, int]] = {}
        self.module_names: dict[str, Counter] = {}
        self.module_assigned: dict[str, set] = {}

    def add(self, rel: str, mod: ast.AST):
        names, assigned = Counter(), set()
        for stmt in mod.body:
            for n in _defs_in_branches(stmt):
                names[n.name] += 1
            for t in _assigned_in_branches(stmt):
                assigned.add(t)
        self.module_names[rel] = names
        self.module_assigned[rel] = assigned

        def walk(node, prefix, cls):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    q = f"{prefix}{child.name}"
                    overload = any(_dec_name(d) == "overload" for d in getattr(child, "decorator_list", []))
                    info = {"qualname": q, "kind": "class" if isinstance(child, ast.ClassDef) else "def",
                            "overload": overload, "name": child.name}
                    self.by_place[(rel, child.lineno)] = info
                    if cls is not None and child.name in ("__init__", "__new__"):
                        self.canon[(rel, child.lineno)] = (rel, cls.lineno)
                    walk(child, q + ".", child if isinstance(child, ast.ClassDef) else None)
                else:
                    walk(child, prefix, cls)

        walk(mod, "", None)

    def canonical(self, place):
        return self.canon.get(place, place)


def _dec_name(d):
    while isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Attribute):
        return d.attr
    if isinstance(d, ast.Name):
        return d.id
    return None


def _defs_in_branches(stmt):
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt
    elif isinstance(stmt, (ast.If, ast.Try)) or type(stmt).__name__ == "TryStar":
        for block in ("body", "orelse", "finalbody"):
            for s in getattr(stmt, block, []):
                yield from _defs_in_branches(s)
        for h in getattr(stmt, "handlers", []):
            for s in h.body:
                yield from _defs_in_branches(s)


def _assigned_in_branches(stmt):
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                yield t.id
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        yield stmt.target.id
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for a in stmt.names:
            yield "import:" + (a.asname or a.name.split(".")[0])
    elif isinstance(stmt, (ast.If, ast.Try)) or type(stmt).__name__ == "TryStar":
        for block in ("body", "orelse", "finalbody"):
            for s in getattr(stmt, block, []):
                yield from _assigned_in_branches(s)
        for h in getattr(stmt, "handlers", []):
            for s in h.body:
                yield from _assigned_in_branches(s)


# --------------------------------------------------------------------------- Jedi


def ensure_venv(venv: Path) -> Path:
    py = venv / "bin" / "python"
    ok = False
    if py.exists():
        r = subprocess.run([str(py), "-c", "import jedi; print(jedi.__version__)"], capture_output=True, text=True)
        ok = r.returncode == 0 and r.stdout.strip() == JEDI_VERSION
    if not ok:
        print(f"making the virtualenv {venv} with jedi=={JEDI_VERSION}", file=sys.stderr)
        if venv.exists():
            shutil.rmtree(venv)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", f"jedi=={JEDI_VERSION}"], check=True)
    return py


def jedi_worker(args):
    """Runs inside the virtualenv: Jedi's answer at every site of the files named, as JSON."""
    tree = Path(args.jedi_worker)
    files = json.loads(Path(args.files).read_text())
    from multiprocessing import Pool

    with Pool(max(1, args.jobs), initializer=_jedi_init, initargs=(str(tree),)) as pool:
        results = {}
        for i, part in enumerate(pool.imap_unordered(_jedi_file, files, chunksize=1)):
            results.update(part)
            if (i + 1) % 20 == 0:
                print(f"  jedi: {i + 1}/{len(files)} files", file=sys.stderr, flush=True)
    Path(args.out).write_text(json.dumps(results))


_PROJECT = None
_TREE = None


def _jedi_init(tree):
    global _PROJECT, _TREE
    import jedi

    _TREE = Path(tree)
    extra = [str(_TREE / "src")] if (_TREE / "src").is_dir() else []
    _PROJECT = jedi.Project(path=str(_TREE), added_sys_path=extra)


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _jedi_file(rel):
    import signal

    import jedi

    src, mod = parse(_TREE, rel)
    out = {}
    if mod is None:
        return out
    sites, _ = call_sites(rel, src, mod)
    code = src.decode("utf-8", errors="replace")
    script = jedi.Script(code, path=str(_TREE / rel), project=_PROJECT)
    signal.signal(signal.SIGALRM, _alarm)
    for s in sites:
        # Two tries: the worker processes share Jedi's on-disk caches, and a read racing a
        # write fails (EOFError) now and then.
        for _attempt in range(2):
            answer, status, how = _jedi_site(script, s)
            if not status.startswith("error"):
                break
        out[s.key] = {"s": status, "how": how, "a": answer}
    return out


def _jedi_site(script, s):
    import signal

    answer = []
    signal.alarm(20)
    try:
        names = [d for d in script.goto(s.line, s.col, follow_imports=True) if d.type in ("function", "class")]
        how = "goto"
        if not names:
            names = [d for d in script.infer(s.line, s.col) if d.type in ("function", "class")]
            how = "infer"
        for d in names:
            mp = d.module_path
            rel_t = None
            if mp is not None:
                try:
                    rel_t = Path(mp).resolve().relative_to(_TREE.resolve()).as_posix()
                except ValueError:
                    rel_t = None
            answer.append([rel_t, d.line, d.type, d.full_name or d.name])
        status = "ok"
    except _Timeout:
        status, how = "timeout", ""
    except Exception as e:  # Jedi's own errors: the site is not judged
        status, how = f"error: {type(e).__name__}", ""
    finally:
        signal.alarm(0)
    answer.sort(key=lambda a: (a[0] or "", a[1] or 0, a[3]))
    return answer, status, how


def jedi_answers(py: Path, tree: Path, files: list[str], cache: Path, jobs: int, no_cache: bool) -> dict:
    if cache.exists() and not no_cache:
        return json.loads(cache.read_text())
    print(f"  jedi: answering every call site of {len(files)} files (cached afterwards in {cache})", file=sys.stderr)
    cache.parent.mkdir(parents=True, exist_ok=True)
    lst = cache.with_suffix(".files.json")
    lst.write_text(json.dumps(files))
    tmp = cache.with_suffix(".tmp")
    t0 = time.time()
    subprocess.run([str(py), str(Path(__file__).resolve()), "--jedi-worker", str(tree), "--files", str(lst),
                    "--out", str(tmp), "--jobs", str(jobs)], check=True)
    tmp.rename(cache)
    lst.unlink()
    print(f"  jedi: {len(files)} files in {time.time() - t0:.0f} s", file=sys.stderr)
    return json.loads(cache.read_text())


# --------------------------------------------------------------------------- CAST


def cast_index(cast: str, tree: Path, db: Path) -> float:
    for p in (db, Path(str(db) + "-wal"), Path(str(db) + "-shm")):
        if p.exists():
            p.unlink()
    t0 = time.time()
    subprocess.run([cast, "index", str(tree), "--db", str(db)], check=True, stdout=subprocess.DEVNULL)
    return time.time() - t0


class CastEdge:
    __slots__ = ("path", "line", "caller", "target", "tname", "tqual", "how", "k", "kind")

    def __init__(self, path, line, caller, target, tqual, how, k, kind):
        self.path, self.line, self.caller = path, line, caller  # caller: (path, qualname) or None
        self.target, self.tqual, self.how, self.k, self.kind = target, tqual, how, k, kind
        self.tname = tqual.rsplit(".", 1)[-1]

    @property
    def resolved(self):
        return self.how != GUESS_HOW


def edges_show(cast: str, tree: Path, db: Path, lib: dict[str, ast.AST]) -> tuple[list[CastEdge], dict]:
    edges, capped, symbols = [], 0, 0
    seen = set()
    for rel, mod in lib.items():
        for node in ast.walk(mod):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            r = subprocess.run([cast, "show", "--json", "--no-refresh", "--root", str(tree), "--db", str(db),
                                f"{rel}:{node.lineno}"], capture_output=True, text=True)
            if r.returncode != 0:
                continue
            d = json.loads(r.stdout)
            key = (d["path"], d["qualname"], d["start_line"])
            if key in seen:
                continue
            seen.add(key)
            symbols += 1
            caller = (d["path"], d["qualname"])
            for lst in ("references", "references_by_name"):
                if len(d.get(lst, [])) >= 50:
                    capped += 1
                for e in d.get(lst, []):
                    if e["kind"] not in EDGE_KINDS:
                        continue
                    edges.append(CastEdge(e["path"], e["line"], caller, (e["symbol_path"], e["symbol_line"]),
                                          e["symbol"] or "", e["how"], round(1 / e["weight"]) if e["weight"] else 1,
                                          e["kind"]))
    return edges, {"symbols_shown": symbols, "lists_at_cap": capped}


def _varint(b, i):
    v = shift = 0
    while True:
        x = b[i]
        i += 1
        v |= (x & 0x7F) << shift
        if not x & 0x80:
            return v, i
        shift += 7


def decode_edges(blob: bytes):
    n, i = _varint(blob, 0)
    out = []
    for _ in range(n):
        src, i = _varint(blob, i)
        dst, i = _varint(blob, i)
        code = blob[i]
        i += 1
        k, i = _varint(blob, i)
        line, i = _varint(blob, i)
        how = HOW_CODES[code >> 4] if code >> 4 < len(HOW_CODES) else f"how{code >> 4}"
        kind = KIND_CODES[code & 0x0F] if code & 0x0F < len(KIND_CODES) else f"kind{code & 0x0F}"
        out.append((src, dst, how, kind, k, line))
    if i != len(blob):
        raise ValueError("edge blob longer than its count")
    return out


def edges_sqlite(db: Path) -> tuple[list[CastEdge], dict]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    syms = {sid: (path, q, line) for sid, path, q, line in con.execute(
        "SELECT s.id, f.path, s.qualname, s.start_line FROM symbols s JOIN files f ON f.id = s.file_id")}
    edges = []
    for path, blob in con.execute("SELECT path, edges FROM files JOIN file_data USING (id) WHERE edges IS NOT NULL"):
        for src, dst, how, kind, k, line in decode_edges(blob):
            if kind not in EDGE_KINDS or dst not in syms:
                continue
            caller = (syms[src][0], syms[src][1]) if src in syms else None
            tp, tq, tl = syms[dst]
            edges.append(CastEdge(path, line, caller, (tp, tl), tq, how, k, kind))
    con.close()
    # One per (place, target), as `show` lists them.
    uniq = {}
    for e in edges:
        uniq.setdefault((e.path, e.line, e.target, e.caller), e)
    return list(uniq.values()), {}


def map_edges(cast: str, tree: Path, db: Path, budget: int) -> list[dict]:
    """The `→ callee()` edges of `cast map --json`: caller (file, qualname, line), callee, and
    whether the map marks the edge as a guess."""
    r = subprocess.run([cast, "map", str(tree), "--db", str(db), "--no-refresh", "--no-server", "--json",
                        "--budget", str(budget)], capture_output=True, text=True, check=True)
    out = []
    for line in r.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        obj = json.loads(line)
        if "symbols" not in obj:
            continue
        for s in obj["symbols"]:
            for c in s.get("calls_to") or []:
                if isinstance(c, dict):
                    callee = c.get("qualname") or c.get("symbol") or c.get("name") or ""
                    marked = bool(c.get("guess")) or c.get("how") == "name" or c.get("resolved") is False
                else:
                    callee = c.strip().lstrip("?").strip().removesuffix("()").rstrip("?").strip()
                    marked = c.strip().startswith("?") or c.strip().endswith("?")
                out.append({"path": obj["path"], "caller": s["qualname"], "line": s["line"], "callee": callee,
                            "marked": marked})
    return out


def measure_map(cast, tree, db, budget, jedi_by_caller, lib_set, examples) -> dict:
    """Each map edge's standing, by `cast show --json` of its caller (any language): resolved
    when the caller has a resolved reference to the callee, a guess when only a name-only one."""
    medges = map_edges(cast, tree, db, budget)
    shown = {}
    for m in medges:
        key = (m["path"], m["line"])
        if key in shown:
            continue
        r = subprocess.run([cast, "show", "--json", "--no-refresh", "--root", str(tree), "--db", str(db),
                            f"{m['path']}:{m['line']}"], capture_output=True, text=True)
        hows = defaultdict(set)
        if r.returncode == 0:
            d = json.loads(r.stdout)
            for e in d.get("references", []) + d.get("references_by_name", []):
                if e.get("symbol"):
                    hows[e["symbol"]].add(e["how"])
        shown[key] = hows
    res = Counter()
    ex = []
    for m in medges:
        hows = shown[(m["path"], m["line"])].get(m["callee"], set())
        python = m["path"] in lib_set
        minified = bool(re.search(r"\.min\.js$|[.-]bundle[.-]|/dist/", m["path"]))
        res["edges"] += 1
        res["python_library"] += python
        res["minified_or_bundle"] += minified
        if not hows:
            res["not_found_in_show"] += 1
            continue
        guess = hows == {GUESS_HOW}
        if python:
            ok = m["callee"] in jedi_by_caller.get((m["path"], m["caller"]), set())
            res["python_jedi_confirms"] += ok
            res["python_guesses"] += guess
            res["python_guesses_jedi_confirms"] += guess and ok
        if guess:
            res["guesses"] += 1
            res["guesses_marked"] += m["marked"]
            if not m["marked"]:
                res["guesses_unmarked"] += 1
                if len(ex) < examples:
                    ex.append(f"{m['path']}: {m['caller']} → {m['callee']}()")
    out = {"budget": budget, **{k: res[k] for k in (
        "edges", "python_library", "minified_or_bundle", "guesses", "guesses_marked", "guesses_unmarked",
        "python_guesses", "python_jedi_confirms", "python_guesses_jedi_confirms", "not_found_in_show")}}
    out["unmarked_guess_examples"] = ex
    return out


# --------------------------------------------------------------------------- evaluation

CATEGORY_ORDER = [
    # what CAST's target is
    "@overload stub",
    "stdlib module shadowed by an in-repo module of the same name (`import json` in a package with json/)",
    "target def has a twin binding of its name (if/else or rebinding to stdlib/builtin)",
    # what the call is
    "recursion (a function calling itself)",
    "super() call",
    "self.x() where x is a class-level assignment (x = SomeClass)",
    "self.method with a subscripted base (class C(Base[T]))",
    "self.method / cls.method, other",
    "self.method / cls.method, outside a class",
    "self.__class__(...)",
    "self.attr.method, attribute annotated",
    "self.attr.method, attribute assigned an annotated parameter",
    "self.attr.method, attribute assigned a call (constructor?)",
    "self.attr.method, attribute of unknown type",
    "x.attr.method (attribute of a name other than self)",
    "param.method, parameter annotated",
    "param.method, parameter not annotated",
    "local variable .method, annotated / assigned a constructor call / assigned a call's result / a loop variable / a with target / other assignment",
    "module attribute (mod.func)",
    "Class.attr",
    "call result .method (f().m)",
    "other receiver",
    "plain name, a parameter (cls(...), a callback)",
    "plain name defined more than once in its module",
    "plain name rebound by assignment",
    "plain name, imported",
    "plain name, other",
]


def _params(func):
    if func is None or isinstance(func, ast.ClassDef):
        return {}
    a = func.args
    return {p.arg: p.annotation for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if p is not None}


def _locals(func):
    names = set()
    if func is None or isinstance(func, ast.ClassDef):
        return names
    for n in ast.walk(func):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
    return names


def _module_aliases(mod):
    names = set()
    for n in ast.walk(mod):
        if isinstance(n, ast.Import):
            for a in n.names:
                names.add(a.asname or a.name.split(".")[0])
        elif isinstance(n, ast.ImportFrom):
            for a in n.names:
                names.add(a.asname or a.name)
    return names


def _attr_origin(cls, attr):
    """How the class gives `self.ATTR` a type, if it does: an annotation, an annotated
    parameter assigned to it, a constructor call assigned to it."""
    if cls is None:
        return ""
    found = set()
    for fn in ast.walk(cls):
        if isinstance(fn, ast.AnnAssign):
            t = fn.target
            if (isinstance(t, ast.Name) and t.id == attr) or (
                    isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == "self"):
                return "attribute annotated"
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = _params(fn)
        for n in ast.walk(fn):
            if isinstance(n, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == "self"
                    for t in n.targets):
                v = n.value
                if isinstance(v, ast.Name) and params.get(v.id) is not None:
                    found.add("attribute assigned an annotated parameter")
                elif isinstance(v, ast.Call) and isinstance(v.func, (ast.Name, ast.Attribute)):
                    found.add("attribute assigned a call (constructor?)")
    for label in ("attribute assigned an annotated parameter", "attribute assigned a call (constructor?)"):
        if label in found:
            return label
    return ""


def _local_origin(func, name, line):
    """How the local NAME got its value last before LINE: a class-looking call, another call,
    a loop or `with` target, something else."""
    best, kind = 0, "other assignment"
    for n in ast.walk(func):
        at = n.target.lineno if isinstance(n, ast.comprehension) else getattr(n, "lineno", line + 1)
        if at > line:
            continue
        if isinstance(n, (ast.Assign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) and n.lineno >= best:
                v = n.value
                if isinstance(n, ast.AnnAssign):
                    k = "annotated"
                elif isinstance(v, ast.Call):
                    callee = v.func.attr if isinstance(v.func, ast.Attribute) else getattr(v.func, "id", "")
                    k = "assigned a constructor call" if callee[:1].isupper() else "assigned a call's result"
                else:
                    k = "other assignment"
                best, kind = n.lineno, k
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            t = n.target
            if any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(t)) and at >= best:
                best, kind = at, "a loop variable"
        elif isinstance(n, (ast.With, ast.AsyncWith)):
            for item in n.items:
                if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name and n.lineno >= best:
                    best, kind = n.lineno, "a with target"
    return kind


def _stdlib_imports(mod):
    names = set()
    std = getattr(sys, "stdlib_module_names", set())
    for n in ast.walk(mod):
        if isinstance(n, ast.Import):
            for a in n.names:
                if a.name.split(".")[0] in std:
                    names.add(a.asname or a.name.split(".")[0])
    return names


def _self_call_kind(site, attr):
    cls = site.cls
    if cls is None:
        return "self.method / cls.method, outside a class"
    for n in cls.body:
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == attr for t in targets):
            return "self.x() where x is a class-level assignment (x = SomeClass)"
    if any(isinstance(b, ast.Subscript) for b in cls.bases):
        return "self.method with a subscripted base (class C(Base[T]))"
    return "self.method / cls.method, other"


def categorise(site: Site, mod: ast.AST, defs: Defs, cast_targets, jedi_targets) -> str:
    if any(defs.by_place.get(t, {}).get("overload") for t in cast_targets):
        return "@overload stub"
    f = site.node.func
    if (cast_targets and isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
            and f.value.id in _stdlib_imports(mod)):
        return "stdlib module shadowed by an in-repo module of the same name (`import json` in a package with json/)"
    for t in cast_targets:
        info = defs.by_place.get(t, {})
        bound = defs.module_assigned.get(t[0], set())
        if info and "." not in info["qualname"] and (info["name"] in bound or "import:" + info["name"] in bound):
            return "target def has a twin binding of its name (if/else or rebinding to stdlib/builtin)"
    f = site.node.func
    func = site.func
    if func is not None and (site.path, func.lineno) in jedi_targets:
        return "recursion (a function calling itself)"
    if isinstance(f, ast.Attribute):
        v = f.value
        params = _params(func)
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "super":
            return "super() call"
        if isinstance(v, ast.Name) and v.id in ("self", "cls"):
            return _self_call_kind(site, f.attr)
        if isinstance(v, ast.Attribute) and v.attr == "__class__":
            return "self.__class__(...)"
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id in ("self", "cls"):
            origin = _attr_origin(site.cls, v.attr)
            return f"self.attr.method, {origin}" if origin else "self.attr.method, attribute of unknown type"
        if isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name):
            return "x.attr.method (attribute of a name other than self)"
        if isinstance(v, ast.Name):
            if v.id in params:
                return "param.method, parameter annotated" if params[v.id] is not None else "param.method, parameter not annotated"
            if v.id in _locals(func):
                return "local variable .method, " + _local_origin(func, v.id, site.line)
            if v.id in _module_aliases(mod) and v.id[:1].islower():
                return "module attribute (mod.func)"
            return "Class.attr" if v.id[:1].isupper() else "other receiver"
        if isinstance(v, ast.Call):
            return "call result .method (f().m)"
        return "other receiver"
    name = f.id
    if name in _params(func):
        return "plain name, a parameter (cls(...), a callback)"
    if defs.module_names.get(site.path, Counter())[name] > 1:
        return "plain name defined more than once in its module"
    assigned = defs.module_assigned.get(site.path, set())
    if name in assigned or name in _locals(func):
        return "plain name rebound by assignment"
    if "import:" + name in assigned or name in _module_aliases(mod):
        return "plain name, imported"
    return "plain name, other"


def evaluate(name, role, tree, cast, db, args, work) -> dict:
    all_files = python_files(tree)
    lib_files = [f for f in all_files if is_library(f)]
    defs, lib_mods, srcs = Defs(), {}, {}
    for rel in all_files:
        src, mod = parse(tree, rel)
        if mod is None:
            continue
        defs.add(rel, mod)
        if rel in lib_files:
            lib_mods[rel], srcs[rel] = mod, src
    sites, other_calls = [], 0
    for rel, mod in lib_mods.items():
        s, o = call_sites(rel, srcs[rel], mod)
        sites += s
        other_calls += o

    py = ensure_venv(Path(args.venv) if args.venv else work / "venv")
    commit = tree.name
    cache = work / f"jedi-{name}-{commit[:12]}-jedi{JEDI_VERSION}-w{WORKER_VERSION}.json"
    jedi = jedi_answers(py, tree, sorted(lib_mods), cache, args.jobs, args.no_cache)
    if any(s.key not in jedi for s in sites):  # the cache predates a change to the sites
        jedi = jedi_answers(py, tree, sorted(lib_mods), cache, args.jobs, True)

    index_s = cast_index(cast, tree, db)
    if args.edges == "show":
        edges, edge_info = edges_show(cast, tree, db, lib_mods)
    else:
        edges, edge_info = edges_sqlite(db)
    lib_set = set(lib_mods)
    edges = [e for e in edges if e.path in lib_set]
    # `show` names no module-level code: its sites are left out of every figure then.
    module_level = sum(1 for s in sites if not s.scope and not s.header)
    if args.edges == "show":
        sites = [s for s in sites if s.scope or s.header]

    # Jedi per site.
    jt = {}  # key -> (status, set of in-repo canonical places, has_outside)
    for s in sites:
        a = jedi.get(s.key)
        if a is None or a["s"] != "ok" or not a["a"]:
            jt[s.key] = ("unknown", set(), False)
            continue
        inside = {defs.canonical((p, l)) for p, l, _t, _n in a["a"] if p is not None}
        outside = any(p is None for p, *_ in a["a"])
        jt[s.key] = ("in-repo" if inside else "outside", inside, outside)

    # Place edges on sites.
    by_line = defaultdict(list)
    for s in sites:
        by_line[(s.path, s.line)].append(s)
    site_edges = defaultdict(list)
    unplaced = Counter()
    for e in edges:
        cands = by_line.get((e.path, e.line), [])
        tcanon = defs.canonical(e.target)
        cls_name = defs.by_place.get(tcanon, {}).get("name")
        # An edge is one per (line, target): two calls of one name on a line share it.
        chosen = []
        if len(cands) == 1:
            chosen = cands
        elif cands:
            chosen = [s for s in cands if s.name in (e.tname, cls_name)]
            if not chosen:
                chosen = [s for s in cands if tcanon in jt[s.key][1]][:1]
        if not chosen:
            if e.kind == "call":
                unplaced["resolved" if e.resolved else "guess"] += 1
            continue
        for site in chosen:
            site_edges[site.key].append(e)

    res_total = res_judged = res_agree = 0
    recall_den = recall_hit = 0
    guess_cands = guess_right = guess_sites = guess_sites_right = 0
    categories = defaultdict(list)
    status_count = Counter(v[0] for v in jt.values())
    jedi_failed = sum(1 for s in sites if jedi.get(s.key, {}).get("s", "missing") != "ok")
    mods = lib_mods
    for s in sites:
        status, inside, outside = jt[s.key]
        es = site_edges.get(s.key, [])
        resolved = [e for e in es if e.resolved]
        guesses = [e for e in es if not e.resolved]
        res_t = {defs.canonical(e.target) for e in resolved}
        res_total += len(res_t)
        judged = status != "unknown"
        if judged:
            res_judged += len(res_t)
            res_agree += len(res_t & inside)
            gt = {defs.canonical(e.target) for e in guesses}
            if gt:
                guess_cands += len(gt)
                guess_right += len(gt & inside)
                guess_sites += 1
                guess_sites_right += bool(gt & inside)
            wrong = res_t - inside
            if wrong:
                cat = categorise(s, mods[s.path], defs, wrong, inside)
                categories["wrong: " + cat].append((s, sorted(wrong), sorted(inside), status))
        if status == "in-repo":
            recall_den += 1
            if res_t & inside:
                recall_hit += 1
            else:
                cat = categorise(s, mods[s.path], defs, res_t, inside)
                gt = {defs.canonical(e.target) for e in guesses}
                suffix = " [guessed right]" if gt & inside else (" [guessed wrong]" if gt else " [nothing]")
                if res_t:
                    suffix = " [resolved elsewhere]"
                categories["missed: " + cat + suffix].append((s, sorted(res_t | gt), sorted(inside), status))

    # The map.
    # Jedi's targets per caller, by qualname.
    jedi_by_caller = defaultdict(set)
    for s in sites:
        if s.func is None and s.cls is None:
            continue
        scope = s.scope[-1]
        q = defs.by_place.get((s.path, scope.lineno), {}).get("qualname")
        for t in jt[s.key][1]:
            tq = defs.by_place.get(t, {}).get("qualname")
            if tq:
                jedi_by_caller[(s.path, q)].add(tq)
                if t in defs.canon.values():  # a class also stands for its __init__
                    jedi_by_caller[(s.path, q)].add(tq + ".__init__")
    maps = [measure_map(cast, tree, db, budget, jedi_by_caller, lib_set, args.examples) for budget in args.map_budget]

    def pct(a, b):
        return round(100 * a / b, 1) if b else None

    cats = []
    for cat, items in sorted(categories.items(), key=lambda kv: -len(kv[1])):
        ex = []
        if role in ("dev", "adhoc"):
            for s, c, j, st in items[: args.examples]:
                line = srcs[s.path].split(b"\n")[s.line - 1].decode(errors="replace").strip()
                fmt = lambda ps: ", ".join(f"{defs.by_place.get(p, {}).get('qualname', '?')} ({p[0]}:{p[1]})" for p in ps) or "-"
                ex.append(f"{s.path}:{s.line} `{line[:90]}` CAST: {fmt(c)}; Jedi: {fmt(j)}")
        cats.append({"category": cat, "count": len(items), "examples": ex})
    return {
        "repo": name, "role": role, "commit": commit, "index_s": round(index_s, 2),
        "library_files": len(lib_mods), "sites": len(sites), "other_calls": other_calls,
        "module_level_sites": module_level, "module_level_measured": args.edges != "show",
        "jedi": dict(status_count), "jedi_failed": jedi_failed, "edges_read": len(edges), "edge_source": args.edges, **edge_info,
        "unplaced_edges": dict(unplaced),
        "resolved": {"edges": res_total, "judged": res_judged, "agree": res_agree, "precision": pct(res_agree, res_judged)},
        "recall": {"in_repo_sites": recall_den, "hit": recall_hit, "recall": pct(recall_hit, recall_den)},
        "guesses": {"candidates": guess_cands, "right": guess_right, "precision": pct(guess_right, guess_cands),
                    "sites": guess_sites, "sites_some_right": guess_sites_right,
                    "site_precision": pct(guess_sites_right, guess_sites)},
        "maps": maps,
        "categories": cats,
    }


# --------------------------------------------------------------------------- report


def report(results, args) -> str:
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    out = [f"Call resolution against Jedi {JEDI_VERSION} (bench/resolution.py, edges via `{args.edges}`), "
           f"{date}, CAST {args.label or args.cast}", ""]
    hdr = "| | " + " | ".join(f"{r['repo']} ({r['role']})" for r in results) + " |"
    out += [hdr, "|---" * (len(results) + 1) + "|"]

    def row(title, f):
        out.append(f"| {title} | " + " | ".join(f(r) for r in results) + " |")

    def frac(a, b, p):
        return f"{a} of {b} ({p} %)" if p is not None else f"{a} of {b}"

    row("library files / call sites (Jedi: in-repo, outside, unknown) / calls of other expressions", lambda r: f"{r['library_files']} / {r['sites']} ({r['jedi'].get('in-repo', 0)}, {r['jedi'].get('outside', 0)}, {r['jedi'].get('unknown', 0)}) / {r['other_calls']}")
    row("Jedi errors or timeouts (counted unknown)", lambda r: str(r["jedi_failed"]))
    row("module-level sites " + ("left out (`show` cannot name them)" if args.edges == "show" else "(included)"),
        lambda r: str(r["module_level_sites"]))
    row("**precision of resolved edges** (agree with Jedi / judged)", lambda r: frac(r["resolved"]["agree"], r["resolved"]["judged"], r["resolved"]["precision"]))
    row("resolved edges Jedi cannot judge", lambda r: str(r["resolved"]["edges"] - r["resolved"]["judged"]))
    row("**recall of Jedi's in-repo targets**", lambda r: frac(r["recall"]["hit"], r["recall"]["in_repo_sites"], r["recall"]["recall"]))
    row("name-only guesses right, per candidate", lambda r: frac(r["guesses"]["right"], r["guesses"]["candidates"], r["guesses"]["precision"]))
    row("sites with guesses where one is right", lambda r: frac(r["guesses"]["sites_some_right"], r["guesses"]["sites"], r["guesses"]["site_precision"]))
    for i, budget in enumerate(args.map_budget):
        row(f"map at {budget} tokens: edges / name-only guesses / **unmarked guesses** / in minified or bundled files",
            lambda r: f"{r['maps'][i]['edges']} / {r['maps'][i]['guesses']} / {r['maps'][i]['guesses_unmarked']} / {r['maps'][i]['minified_or_bundle']}")
        row(f"map at {budget} tokens, Python library edges: Jedi confirms / all (guesses: confirmed / all)",
            lambda r: f"{r['maps'][i]['python_jedi_confirms']} / {r['maps'][i]['python_library']} ({r['maps'][i]['python_guesses_jedi_confirms']} / {r['maps'][i]['python_guesses']})")
    row("cold index (s)", lambda r: str(r["index_s"]))
    row("edges on no call site (resolved, guess)", lambda r: f"{r['unplaced_edges'].get('resolved', 0)}, {r['unplaced_edges'].get('guess', 0)}")
    if args.edges == "show":
        row("`show` lists at the 50 cap", lambda r: str(r.get("lists_at_cap", 0)))
    out.append("")
    # The categories over all repositories, without the tag of what CAST had there.
    tot = defaultdict(Counter)
    for r in results:
        for c in r["categories"]:
            tot[c["category"].split(" [")[0]][r["repo"]] += c["count"]
    out += ["Disagreements by category (wrong = a resolved edge Jedi contradicts; missed = an in-repo "
            "site with no resolved edge to Jedi's target):", "",
            "| category | " + " | ".join(r["repo"] for r in results) + " | all |",
            "|---" * (len(results) + 2) + "|"]
    for cat, per in sorted(tot.items(), key=lambda kv: -sum(kv[1].values())):
        out.append(f"| {cat} | " + " | ".join(str(per.get(r["repo"], 0)) for r in results) + f" | {sum(per.values())} |")
    out.append("")
    for r in results:
        out.append(f"Disagreements, {r['repo']} ({r['role']}):")
        for c in r["categories"]:
            out.append(f"- {c['count']:4d}  {c['category']}")
            for e in c["examples"]:
                out.append(f"        {e}")
        for m in r["maps"]:
            if m["unmarked_guess_examples"] and r["role"] in ("dev", "adhoc"):
                out.append(f"  unmarked guesses in the map at {m['budget']} tokens: " + "; ".join(m["unmarked_guess_examples"]))
        out.append("")
    return "\n".join(out)


def extract(mirror: Path, commit: str, tree: Path):
    """The tree of COMMIT written out from the bare mirror, as `git archive | tar -x` would, but
    leaving out blobs the mirror lacks (a fetched mirror may hold large binaries as absent)."""
    ls = subprocess.run(["git", f"--git-dir={mirror}", "ls-tree", "-r", "-z", "--full-tree", commit],
                        capture_output=True, check=True).stdout.split(b"\0")
    entries = []
    for rec in ls:
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, sha = meta.split()
        if typ == b"blob" and mode != b"120000":
            entries.append((sha.decode(), path.decode("utf-8", errors="surrogateescape")))
    tmp = tree.with_name(tree.name + ".part")
    if tmp.exists():
        shutil.rmtree(tmp)
    cat = subprocess.Popen(["git", f"--git-dir={mirror}", "cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    missing = 0
    for sha, path in entries:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        dest = tmp / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    cat.stdin.close()
    cat.wait()
    tmp.rename(tree)
    if missing:
        print(f"  {missing} files absent from the mirror, left out", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cast", default=str(ROOT / "target/release/cast"))
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--corpora", default="/work/corpora/resolution")
    ap.add_argument("--work", default=str(ROOT / "target/resolution"), help="virtualenv, Jedi cache, index databases")
    ap.add_argument("--venv", default=None, help="the virtualenv (default WORK/venv)")
    ap.add_argument("--only", choices=["dev", "heldout"])
    ap.add_argument("--repo", action="append", help="only this repository (NAME or OWNER/NAME); repeatable")
    ap.add_argument("--edges", choices=["show", "sqlite"], default="show")
    ap.add_argument("--label", default="", help="what CAST build this is (e.g. its commit), for the table")
    ap.add_argument("--json", default=None)
    ap.add_argument("--examples", type=int, default=4)
    ap.add_argument("--map-budget", type=int, action="append", help="repeatable (default 2000 and 8000)")
    ap.add_argument("--jobs", type=int, default=2, help="Jedi processes")
    ap.add_argument("--no-cache", action="store_true", help="recompute Jedi's answers")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                    help="measure this tree instead of REPOS (role `adhoc`; the Jedi cache keys on PATH's last part)")
    ap.add_argument("--jedi-worker", help=argparse.SUPPRESS)
    ap.add_argument("--files", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.jedi_worker:
        return jedi_worker(args)

    args.map_budget = args.map_budget or [2000, 8000]
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    cast = str(Path(args.cast).resolve()) if os.sep in args.cast else args.cast
    results = []
    for spec in args.tree:
        name, _, path = spec.partition("=")
        print(f"{name} (adhoc) at {path}", file=sys.stderr)
        results.append(evaluate(name, "adhoc", Path(path).resolve(), cast, work / f"index-{name}.sqlite", args, work))
    for full, role, commit in [] if args.tree else REPOS:
        name = full.split("/")[1]
        if args.only and role != args.only:
            continue
        if args.repo and name not in args.repo and full not in args.repo:
            continue
        mirror = Path(args.mirrors) / full.replace("/", "+") / "repo"
        tree = Path(args.corpora) / name / commit
        if not tree.exists():
            if not mirror.exists():
                sys.exit(f"no mirror at {mirror}: fetch {full} first (see the docstring)")
            extract(mirror, commit, tree)
        print(f"{full} ({role}) at {commit[:12]}", file=sys.stderr)
        db = work / f"index-{name}.sqlite"
        results.append(evaluate(name, role, tree, cast, db, args, work))
    text = report(results, args)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"label": args.label, "edges": args.edges, "jedi": JEDI_VERSION,
                                               "results": results}, indent=1))


if __name__ == "__main__":
    main()
