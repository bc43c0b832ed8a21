#!/usr/bin/env python3
"""File localisation on real history: `cast find --files` against BM25 over whole files.

    python3 bench/localise.py [--cast target/release/cast] [--mirrors /work/.mirror]
                              [--corpora /work/corpora/localise] [--per-repo 30]
                              [--only dev|heldout] [--repo NAME]... [--misses] [--json OUT]
                              [--set python|polyglot] [--map]

A task is one commit of a real repository: its message is the query, the non-test source files
it changed are the answer, and the code base searched is the tree of its parent commit. Both
rankers see the same tasks and trees; the benchmark runs by hand (CI never fetches).

Fetching. The repositories below are read as bare git directories under --mirrors, in the
layout `OWNER+NAME/repo` (what this project's `fetch` tool produces). Elsewhere:
    git clone --bare https://github.com/OWNER/NAME MIRRORS/OWNER+NAME/repo
Each repository's history is read up to the commit pinned in SETS, so the tasks are the same
on every machine whatever the mirror's newer history holds.

Dev and held-out. SETS says which repositories are `dev` (ranking may be tuned on them; their
misses may be listed with --misses) and which are `heldout` (only measured: --misses never
lists them, and the ranking is not tuned on them). The split was fixed before the first run.

Sets. `python` (the default) is the issue's benchmark: eight Python repositories. `fresh` is
four more Python repositories with the same rules (werkzeug, rich, httpx, httpie), added after
the ranking was set as an out-of-sample check; rich and httpie became dev after that first run,
werkzeug and httpx stay held-out. `polyglot`
asks whether the ranking carries over to other languages, reported on its own: ripgrep (Rust)
and hono (TypeScript) dev, fzf (Go), gson (Java) and Chart.js (JavaScript) held-out. For those,
step 3 also skips a subject that is only a version (`0.63.0`), step 4 their formatters and
linters (rustfmt, clippy, gofmt, eslint, prettier, …, and dependency bumps), step 6 takes the
language's own files (`.rs`; `.go`; `.java`; JavaScript and TypeScript as one family, `.js`
`.mjs` `.cjs` `.jsx` `.ts` `.mts` `.cts` `.tsx`, since a project moving to TypeScript holds
both) and also leaves out `testdata/`, `__tests__/`, `e2e/`, `*-tests/`, `benches/`,
`fixtures/`, `dist/`, `build/`, `vendor/`, `samples/`, hono's generated `deno_dist/` and its
`deno_test/`, test files by name (`_test.go`; `*Test.java`, `*Tests.java`; `*.test.ts`,
`*.spec.js`, `.d.ts`; Rust's `tests.rs` and `build.rs`) and build configuration and bundles
(`*.config.*`, `*.conf.*`, `gulpfile.*`, `*.min.js`); BM25 reads the language's files.

Tasks (every filter, in order; counts per filter are printed):
1. non-merge commits reachable from the pinned commit, committed since 2016-01-01 00:00 UTC, with one
   parent;
2. the message, cleaned: trailer lines (`Signed-off-by:`, `Co-authored-by:`, …), issue and pull
   request references (`#123`, `(#123)`, `gh-123`), URLs and `[skip ci]`-style tags removed;
   whitespace collapsed; at most 2,000 characters;
3. skipped: releases and version bumps (subject starts with release/bump/prepare/version/
   changelog/changes/merge/revert, says "development cycle", or names a version like `1.2.3`
   next to "release"/"bump"/"version");
4. skipped: tooling and formatting (subject names black, isort, flake8, pre-commit, ruff,
   pyupgrade, reformat, formatting, lint, typo, whitespace, spelling, copyright);
5. skipped: a cleaned message of fewer than 3 words;
6. answer files: files the commit modified or renamed away (status M or R, old path) that are
   source — `.py` files not under a folder named `test*` or `*_tests`, `docs/`, `doc/`,
   `examples/`, `example/`, `benchmarks/`, `scripts/` or `.github/`, not named `test_*.py`, `*_test.py`,
   `conftest.py`, `setup.py`, `noxfile.py`; a commit with none is skipped (it only touched
   tests, docs, configuration or added files — an added file cannot be found in the parent);
7. skipped: huge commits — more than 3 answer files, or more than 400 changed lines over all
   answer files (`git log --numstat`);
8. skipped: formatting-only changes — no changed line in the answer files once whitespace and
   blank lines are ignored (`git log --numstat -w --ignore-blank-lines`);
9. sampling: of the commits left (newest first), --per-repo are taken evenly spaced over the
   list (index round(i * len / n)), so tasks spread over the repository's history.

Trees: a checkout of PARENT with its history (`git clone --shared --no-checkout`, then
`git checkout --detach PARENT`) into --corpora/NAME/PARENT+git, as a user's clone would be:
`git log` from it sees the parent's ancestors only, never the task's commit or later ones.
With --no-history, `git archive PARENT | tar -x` into --corpora/NAME/PARENT instead (no
history for cast to read). Both are kept between runs, never committed. Every source file of
the tree is indexed; nothing is removed.

Rankers, each giving a ranked list of files (relative paths):
- BM25: a plain BM25 (k1 = 1.2, b = 0.75) over whole files, implemented here: every `.py`,
  `.pyi` and `.pyx` file of the tree outside hidden folders is one document of its path plus
  its text; tokens are alphanumeric runs, lower-cased, each split on `_`, camelCase and digits
  (the whole identifier kept as a token too), English stop words dropped, lightly stemmed
  (the same suffix stripping as cast's), query tokens processed alike.
- cast: `cast find --files QUERY --root TREE --db TMP --top 10 --json` (the index is built
  cold into a temporary database for each task; index time is not counted in the query
  latency). With `--mode aggregate` (the default when the binary has no `--files`, i.e. before
  the file mode existed): `cast find QUERY --top 100 --json`, each file scored by the best
  total of its symbol hits and its own file hit.

Metrics per repository, per role and overall: Acc@k — a task counts when *every* answer file is
among the top k (as SWE-bench localisation reports it: SweRank, LocAgent), for k = 1, 5, 10;
MRR — the mean of 1 / rank of the first answer file (0 when not in the top 10 for cast, top
100 for BM25, so it is cut at 10 for both); and the median latency of the cast query process.

With --map, the first thing an agent reads is measured too: `cast map TREE --focus QUERY --db
TMP --no-refresh` at the default budget (2,000 tokens), on the same index. Per group: how often
it shows every answer file, and some answer file, and the median line (counted from the top of
the map, its header line 1) of the first answer file shown, over the tasks where one is.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (owner/name, role, language, pinned commit) per set. Fixed before each set's first run: dev
# repositories may be tuned on, held-out ones are only measured. `python` is the issue's
# benchmark; `polyglot` (added later, split fixed before its first run) asks whether the ranking
# carries over to other languages.
SETS = {
    "python": [
        ("pallets/click", "dev", "python", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369"),
        ("encode/starlette", "dev", "python", "cb8f84f5284dc301ca7a31eb732b9e140769dd48"),
        ("python-attrs/attrs", "dev", "python", "c1dc5dcba16ed827aa6dcad896b41a3afedb4e32"),
        ("marshmallow-code/marshmallow", "heldout", "python", "341b927f219205704728c05cd61f04d7e9727523"),
        ("tornadoweb/tornado", "heldout", "python", "e530031405e2154654dedc4c84d5656b557ea310"),
        ("psf/requests", "heldout", "python", "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e"),
        ("pallets/jinja", "heldout", "python", "5ef70112a1ff19c05324ff889dd30405b1002044"),
        ("pallets/flask", "heldout", "python", "2ac89889f4cc330eabd50f295dcef02828522c69"),
    ],
    "polyglot": [
        ("BurntSushi/ripgrep", "dev", "rust", "3fce3b5bb0236da2df6d99672afb8a719642eca7"),
        ("honojs/hono", "dev", "typescript", "28a9c128912de19f3fb28b00ae289c9b93f6f392"),
        ("junegunn/fzf", "heldout", "go", "956562daaa82ddf55ea8f7aeab56883377b742c6"),
        ("google/gson", "heldout", "java", "9835b6f90192f79cdf5300c528fc6212455fb6c1"),
        ("chartjs/Chart.js", "heldout", "javascript", "cb02e1d207bd4c4c40b20c259017f85f26f1e30a"),
    ],
    # Python repositories first measured on 2026-11-27, after every weight of the ranking was
    # set: an out-of-sample check of the `python` set's figures. The first run scored all four
    # unseen; then (before any task of them was read) rich and httpie, the two weakest, became
    # dev repositories, since the `python` set's dev misses no longer teach anything.
    "fresh": [
        ("Textualize/rich", "dev", "python", "42899d8a0a96b121a514516f4be9db44ff7aeaf3"),
        ("httpie/cli", "dev", "python", "5b604c37c6c67e18e7c3e9aee6c88a8c22b98345"),
        ("pallets/werkzeug", "heldout", "python", "1b00618e787f40dfb21eba29caf8f8be7c8e1d93"),
        ("encode/httpx", "heldout", "python", "ae1b9f66238f75ced3ced5e4485408435de10768"),
    ],
}

SINCE = "2016-01-01"
# Midnight UTC written out: git reads a date alone as that day at the current time of day, so
# a repository with commits on that day would give other tasks at another hour.
SINCE_ARG = f"--since={SINCE} 00:00:00 +0000"
MAX_ANSWER_FILES = 3
MAX_CHANGED_LINES = 400
TOPS = (1, 5, 10)

TRAILER = re.compile(r"^\s*[A-Za-z-]+-by:|^\s*(Fixes|Closes|Resolves|Refs?|See|Issue|Ticket)\b:?\s*#?\S*\s*$", re.I)
ISSUE_REF = re.compile(r"\(?(?:gh-)?#\d+\)?|\(?\bgh-\d+\)?", re.I)
URL = re.compile(r"https?://\S+")
TAG = re.compile(r"\[(?:skip ci|ci skip|no ci|skip-ci)\]", re.I)
RELEASE = re.compile(
    r"^\s*(release|releasing|bump|prepare|version|changelog|changes|merge|revert)\b|\bdevelopment cycle\b"
    r"|\b(release|bump|version)\b.*\bv?\d+\.\d+|\bv?\d+\.\d+(\.\d+)?\b.*\b(release|released)\b",
    re.I,
)
VERSION_ONLY = re.compile(r"^\s*v?\d+(\.\d+)+\s*$")
TOOLING = re.compile(
    r"\b(black|isort|flake8|pre-commit|precommit|ruff|pyupgrade|reformat\w*|formatting|lint\w*|typos?|whitespace|spelling|copyright)\b",
    re.I,
)
NON_SOURCE_DIRS = {"tests", "test", "testing", "docs", "doc", "examples", "example", "benchmarks", "scripts", ".github"}
NON_SOURCE_NAMES = {"conftest.py", "setup.py", "noxfile.py"}


class Language:
    """A language's files: `documents` are what BM25 reads (what cast indexes of that language),
    `answers` what a task's answer may be; `test_name` and `more_dirs` leave out its tests and
    build output beyond the folders every language leaves out (NON_SOURCE_DIRS, `test*`,
    `*_tests`); `tooling` names its formatters and linters (their commits are skipped);
    `polyglot` turns on the polyglot set's own rules."""

    def __init__(self, documents, answers, test_name, more_dirs=(), tooling=None, polyglot=False):
        self.documents, self.answers = tuple(documents), tuple(answers)
        self.test_name, self.more_dirs, self.tooling = test_name, set(more_dirs), tooling
        # The polyglot set's own rules (test folders by JavaScript's names, a subject that is
        # only a version); the Python set's tasks stay as they were fixed.
        self.polyglot = polyglot

    def test_dir(self, p: str) -> bool:
        return (p in NON_SOURCE_DIRS or p in self.more_dirs or p.startswith("test") or p.endswith("_tests")
                or (self.polyglot and (p.endswith("-tests") or p in ("e2e-test", "integration-test", "unit-test"))))


def python_test_name(name: str) -> bool:
    return name.startswith("test_") or name.endswith("_test.py") or name in NON_SOURCE_NAMES


def js_test_name(name: str) -> bool:
    return (bool(re.search(r"\.(test|spec)\.[cm]?[jt]sx?$", name)) or name.endswith(".d.ts")
            or bool(JS_TOOLING_NAME.search(name)))


OTHER_TOOLING = re.compile(
    r"\b(rustfmt|clippy|cargo fmt|gofmt|goimports|golangci\w*|vet|eslint|prettier|tslint|biome|spotless"
    r"|checkstyle|error-?prone|deps|dependabot)\b", re.I)
OTHER_DIRS = ("testdata", "__tests__", "__mocks__", "benches", "bench", "fixtures", "dist", "build",
              "vendor", "node_modules", "samples", "sample", "e2e",
              # hono's generated copy of src/ for Deno, and its tests
              "deno_dist", "deno_test")
# Build and test-runner configuration, and minified bundles: not the code a task is about.
JS_TOOLING_NAME = re.compile(r"(\.config\.|\.conf\.|^gulpfile\.|^Gruntfile\.|\.min\.js$)", re.I)
JS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
LANGUAGES = {
    "python": Language((".py", ".pyi", ".pyx"), (".py",), python_test_name),
    "rust": Language((".rs",), (".rs",), lambda n: n in ("tests.rs", "build.rs"), OTHER_DIRS, OTHER_TOOLING, polyglot=True),
    "go": Language((".go",), (".go",), lambda n: n.endswith("_test.go"), OTHER_DIRS, OTHER_TOOLING, polyglot=True),
    "java": Language((".java",), (".java",), lambda n: bool(re.search(r"(Test|Tests|TestCase)\.java$", n)),
                     OTHER_DIRS, OTHER_TOOLING, polyglot=True),
    # One family: a JavaScript project moving to TypeScript (Chart.js's src/ holds both) has
    # its answers in both.
    "javascript": Language(JS, JS, js_test_name, OTHER_DIRS, OTHER_TOOLING, polyglot=True),
    "typescript": Language(JS, JS, js_test_name, OTHER_DIRS, OTHER_TOOLING, polyglot=True),
}


def git(mirror: Path, *args: str) -> str:
    p = subprocess.run(["git", f"--git-dir={mirror}", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {p.stderr.decode(errors='replace')[-500:]}")
    return p.stdout.decode("utf-8", errors="replace")


def clean_message(msg: str) -> str:
    lines = []
    for line in msg.splitlines():
        if TRAILER.match(line):
            continue
        lines.append(line)
    text = "\n".join(lines)
    text = URL.sub(" ", text)
    text = TAG.sub(" ", text)
    text = ISSUE_REF.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:2000]


def is_source(path: str, lang: Language = LANGUAGES["python"]) -> bool:
    if not path.endswith(lang.answers):
        return False
    parts = path.split("/")
    if any(lang.test_dir(p) for p in parts[:-1]):
        return False
    return not lang.test_name(parts[-1])


def log_entries(mirror: Path, pin: str, lang: Language, *extra: str) -> dict[str, list[str]]:
    """commit → the NUL-separated fields `git log -z EXTRA` prints after it, for the files an
    answer may be (so a mirror that lacks some large binary still reads)."""
    paths = [f"*{ext}" for ext in lang.answers]
    # --full-history: with paths, git would otherwise follow one parent of each merge.
    out = git(mirror, "log", "--no-merges", "--full-history", SINCE_ARG, "--format=%x1e%H", "-z", "-M", *extra, pin,
              "--", *paths)
    entries = {}
    for rec in out.split("\x1e"):
        if not rec.strip("\0\n"):
            continue
        sha, _, rest = rec.partition("\0")
        entries[sha.strip()] = [f for f in rest.lstrip("\n").split("\0")]
    return entries


def modified_paths(fields: list[str]) -> list[str]:
    """From `--name-status -z`: paths modified (M) or renamed away (R, the old path)."""
    out, i = [], 0
    while i < len(fields):
        st = fields[i].strip()
        if not st:
            i += 1
            continue
        if st[0] in "RC":
            if st[0] == "R":
                out.append(fields[i + 1])
            i += 3
        else:
            if st[0] == "M":
                out.append(fields[i + 1])
            i += 2
    return out


def changed_lines(fields: list[str], paths: set[str]) -> int:
    """From `--numstat -z`: lines added + deleted in `paths` (a rename counts under its old path)."""
    total, i = 0, 0
    while i < len(fields):
        f = fields[i].lstrip("\n")
        if not f:
            i += 1
            continue
        parts = f.split("\t")
        if len(parts) < 3:
            i += 1
            continue
        n = sum(int(x) for x in parts[:2] if x.isdigit())
        if parts[2] == "":  # rename: old and new paths follow
            if fields[i + 1] in paths:
                total += n
            i += 3
        else:
            if parts[2] in paths:
                total += n
            i += 1
    return total


def make_tasks(repo: str, mirror: Path, pin: str, per_repo: int, counts: Counter,
               lang: Language = LANGUAGES["python"]) -> list[dict]:
    log = git(mirror, "log", "--no-merges", SINCE_ARG, "--format=%H%x00%P%x00%B%x1e", pin)
    status = log_entries(mirror, pin, lang, "--name-status")
    numstat = log_entries(mirror, pin, lang, "--numstat")
    numstat_w = log_entries(mirror, pin, lang, "--numstat", "-w", "--ignore-blank-lines")
    eligible = []
    for rec in log.split("\x1e"):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, parents, body = rec.split("\x00", 2)
        parents = parents.split()
        counts["1 commits (non-merge, since %s)" % SINCE] += 1
        if len(parents) != 1:
            counts["1 skipped: not one parent"] += 1
            continue
        subject = body.strip().splitlines()[0] if body.strip() else ""
        query = clean_message(body)
        if RELEASE.search(subject) or (lang.polyglot and VERSION_ONLY.match(subject)):
            counts["3 skipped: release or version bump"] += 1
            continue
        if TOOLING.search(subject) or (lang.tooling and lang.tooling.search(subject)):
            counts["4 skipped: tooling or formatting"] += 1
            continue
        if len(re.findall(r"\w+", query)) < 3:
            counts["5 skipped: message under 3 words"] += 1
            continue
        answer = sorted({p for p in modified_paths(status.get(sha, [])) if is_source(p, lang)})
        if not answer:
            counts["6 skipped: no modified source file"] += 1
            continue
        if len(answer) > MAX_ANSWER_FILES:
            counts[f"7 skipped: more than {MAX_ANSWER_FILES} answer files"] += 1
            continue
        changed = changed_lines(numstat.get(sha, []), set(answer))
        if changed > MAX_CHANGED_LINES:
            counts[f"7 skipped: more than {MAX_CHANGED_LINES} changed lines"] += 1
            continue
        if changed_lines(numstat_w.get(sha, []), set(answer)) == 0:
            counts["8 skipped: formatting only"] += 1
            continue
        counts["9 eligible"] += 1
        eligible.append({"repo": repo, "commit": sha, "parent": parents[0], "query": query,
                         "answer": answer, "changed_lines": changed})
    n = min(per_repo, len(eligible))
    picked = [eligible[round(i * len(eligible) / n)] for i in range(n)] if n else []
    return picked


def materialise(mirror: Path, corpora: Path, repo: str, parent: str, history: bool) -> Path:
    """The parent's tree: a checkout with the history up to it (what a user has), or with
    --no-history a bare export of the files."""
    tree = corpora / repo.replace("/", "+") / (parent[:12] + ("+git" if history else ""))
    if (tree / ".complete").exists():
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    tree.parent.mkdir(parents=True, exist_ok=True)
    if history:
        # --shared borrows the mirror's objects; HEAD is detached at the parent, so `git log`
        # sees the parent's ancestors only, never the task's own commit or later ones.
        subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(mirror), str(tree)], check=True)
        subprocess.run(["git", "-C", str(tree), "checkout", "--quiet", "--detach", parent], check=True)
    else:
        tree.mkdir(parents=True)
        archive = subprocess.run(["git", f"--git-dir={mirror}", "archive", parent], stdout=subprocess.PIPE, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    (tree / ".complete").write_text(parent + "\n")
    return tree


# ---- BM25 over whole files -------------------------------------------------------------------

STOPWORDS = set("""a an the to for of in on and or with from into by is it as at be this that its all how do does
i me my we our you your can which what when where using use given some any are was if then than so via way get
not no should would will when""".split())
WORD = re.compile(r"[A-Za-z0-9]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def stem(w: str) -> str:
    for _ in range(2):
        for suffix in ("ing", "ies", "ed", "es", "s", "e", "ly"):
            if len(w) >= len(suffix) + 3 and w.endswith(suffix) and not w.endswith("ss"):
                w = w[: -len(suffix)] + ("y" if suffix == "ies" else "")
                break
        else:
            break
    return w


def tokens(text: str) -> list[str]:
    out = []
    for m in WORD.finditer(text.replace("_", " _ ")):
        tok = m.group(0)
        parts = CAMEL.findall(tok)
        whole = tok.lower()
        if len(parts) > 1 and whole not in STOPWORDS:
            out.append(whole)
        for p in parts:
            p = p.lower()
            if p not in STOPWORDS and len(p) > 1:
                out.append(stem(p))
    # identifiers joined by underscores: keep the whole (lower-cased) identifier as well
    for m in re.finditer(r"[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+", text):
        out.append(m.group(0).lower())
    return out


class Bm25:
    def __init__(self, tree: Path, k1: float = 1.2, b: float = 0.75, documents=(".py", ".pyi", ".pyx")):
        self.k1, self.b = k1, b
        self.docs: list[tuple[str, Counter, int]] = []
        df: Counter = Counter()
        for dirpath, dirnames, filenames in os.walk(tree):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith(documents) or name.startswith("."):
                    continue
                path = Path(dirpath) / name
                rel = str(path.relative_to(tree))
                text = path.read_bytes().decode("utf-8", errors="replace")
                tf = Counter(tokens(rel + "\n" + text))
                self.docs.append((rel, tf, sum(tf.values())))
                df.update(tf.keys())
        self.n = len(self.docs)
        self.avgdl = sum(d[2] for d in self.docs) / max(1, self.n)
        self.idf = {t: math.log(1 + (self.n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(self, query: str, top: int = 100) -> list[str]:
        q = set(tokens(query))
        scored = []
        for rel, tf, dl in self.docs:
            s = 0.0
            for t in q:
                f = tf.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * dl / self.avgdl))
            if s > 0:
                scored.append((s, rel))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [rel for _, rel in scored[:top]]


# ---- cast -------------------------------------------------------------------------------------

def cast_has_files(cast: str) -> bool:
    p = subprocess.run([cast, "find", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return b"--files" in p.stdout


def cast_rank(cast: str, tree: Path, db: Path, query: str, mode: str) -> tuple[list[str], float, float]:
    """Ranked files, index seconds, query seconds."""
    t0 = time.perf_counter()
    p = subprocess.run([cast, "index", str(tree), "--db", str(db)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, check=False)
    t_index = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"cast index {tree}: {p.stderr.decode()[-1000:]}")
    if mode == "files":
        cmd = [cast, "find", "--files", "--root", str(tree), "--db", str(db), "--top", "10", "--json"]
    else:
        cmd = [cast, "find", "--root", str(tree), "--db", str(db), "--top", "100", "--json"]
    cmd += ["--", query]  # a message may start with a dash (`--tmux vs. --height`)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    t_query = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd[:3])}: {p.stderr.decode()[-1000:]}")
    rows = [json.loads(l) for l in p.stdout.decode().splitlines() if l.strip()]
    if mode == "files":
        return [r["path"] for r in rows], t_index, t_query
    best: dict[str, float] = {}
    for r in rows:
        total = r["scores"]["total"]
        best[r["path"]] = max(best.get(r["path"], 0.0), total)
    ranked = sorted(best, key=lambda p: (-best[p], p))
    return ranked, t_index, t_query


# ---- metrics ----------------------------------------------------------------------------------

def map_shows(cast: str, tree: Path, db: Path, query: str, answer: list[str]) -> dict:
    """Where the focused map shows the answer files: all shown, any shown, first line."""
    p = subprocess.run([cast, "map", str(tree), f"--focus={query}", "--db", str(db), "--no-refresh"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"cast map {tree}: {p.stderr.decode()[-1000:]}")
    folder = ""
    lines: dict[str, int] = {}
    for number, line in enumerate(p.stdout.decode().splitlines(), 1):
        if number == 1 or line.startswith("… ") or not line.strip():
            continue
        if not line.startswith(" ") and line.endswith("/"):
            folder = "" if line == "./" else line
        elif line.startswith("  ") and not line.startswith("   "):
            name = line.strip().split(" ")[0]
            lines.setdefault(folder + name, number)
    shown = [lines[a] for a in answer if a in lines]
    return {"all": len(shown) == len(answer), "any": bool(shown), "first_line": min(shown, default=None)}


def summarise_map(rows: list[dict]) -> str:
    maps = [r["map"] for r in rows if "map" in r]
    if not maps:
        return ""
    first = [m["first_line"] for m in maps if m["first_line"] is not None]
    line = f"{statistics.median(first):5.0f}" if first else "    -"
    return (f" | map: every answer {sum(m['all'] for m in maps) / len(maps) * 100:5.1f} %, "
            f"some {sum(m['any'] for m in maps) / len(maps) * 100:5.1f} %, first at line {line}")


def score(ranked: list[str], answer: list[str]) -> dict:
    pos = {p: i + 1 for i, p in enumerate(ranked[:10])}
    ranks = [pos.get(a) for a in answer]
    out = {f"acc@{k}": all(r is not None and r <= k for r in ranks) for k in TOPS}
    first = min((r for r in ranks if r is not None), default=None)
    out["rr"] = 1.0 / first if first else 0.0
    return out


def summarise(rows: list[dict], who: str) -> str:
    n = len(rows)
    if not n:
        return "-"
    accs = " ".join(f"{sum(r[who][f'acc@{k}'] for r in rows) / n * 100:5.1f}" for k in TOPS)
    mrr = sum(r[who]["rr"] for r in rows) / n
    return f"{accs}  {mrr:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cast", default=str(HERE.parent / "target" / "release" / "cast"))
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--corpora", type=Path, default=Path("/work/corpora/localise"))
    ap.add_argument("--set", choices=sorted(SETS), default="python",
                    help="the repositories: `python` (the issue's benchmark, the default), `polyglot` "
                         "(Rust, TypeScript, Go, Java, JavaScript; reported on its own) or `fresh` "
                         "(four more Python repositories, first measured after the ranking was set)")
    ap.add_argument("--per-repo", type=int, default=30)
    ap.add_argument("--only", choices=["dev", "heldout"])
    ap.add_argument("--repo", action="append", default=[], help="only this repository (owner/name)")
    ap.add_argument("--mode", choices=["auto", "files", "aggregate"], default="auto")
    ap.add_argument("--misses", action="store_true", help="list the misses of dev repositories (never held-out)")
    ap.add_argument("--json", type=Path, help="write every task's result here")
    ap.add_argument("--no-history", action="store_true",
                    help="search exported trees without their git history (as before history was used)")
    ap.add_argument("--tasks-only", action="store_true", help="print the tasks of dev repositories and stop")
    ap.add_argument("--map", action="store_true",
                    help="also measure where `cast map --focus QUERY` shows the answer files")
    args = ap.parse_args()
    mode = args.mode
    if mode == "auto":
        mode = "files" if cast_has_files(args.cast) else "aggregate"
    print(f"cast: {args.cast} (mode {mode}); machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} at start")

    results = []
    repos = SETS[args.set]
    for repo, role, language, pin in repos:
        lang = LANGUAGES[language]
        if args.only and role != args.only:
            continue
        if args.repo and repo not in args.repo:
            continue
        mirror = args.mirrors / repo.replace("/", "+") / "repo"
        if not mirror.exists():
            sys.exit(f"{mirror}: missing; fetch {repo} first (see the top of this script)")
        counts: Counter = Counter()
        tasks = make_tasks(repo, mirror, pin, args.per_repo, counts, lang)
        print(f"\n{repo} ({role}): " + "; ".join(f"{k} {v}" for k, v in sorted(counts.items())) + f"; taken {len(tasks)}")
        if args.tasks_only:
            for t in tasks if role == "dev" else []:
                print(f"  {t['commit'][:10]} {t['answer']} {t['query'][:150]!r}")
            continue
        for t in tasks:
            tree = materialise(mirror, args.corpora, repo, t["parent"], not args.no_history)
            bm25 = Bm25(tree, documents=lang.documents).rank(t["query"])
            with tempfile.TemporaryDirectory(prefix="cast-loc-") as tmp:
                ranked, t_index, t_query = cast_rank(args.cast, tree, Path(tmp) / "index.sqlite", t["query"], mode)
                shown = map_shows(args.cast, tree, Path(tmp) / "index.sqlite", t["query"], t["answer"]) if args.map else None
            row = {**t, "role": role, "bm25": score(bm25, t["answer"]), "cast": score(ranked, t["answer"]),
                   "cast_top": ranked[:10], "bm25_top": bm25[:10], "index_s": t_index, "query_s": t_query}
            if shown is not None:
                row["map"] = shown
            results.append(row)
            if args.misses and role == "dev" and not row["cast"]["acc@5"]:
                print(f"  miss {t['commit'][:10]} {t['query'][:110]!r}\n     answer {t['answer']}\n     cast   {ranked[:5]}\n     bm25   {bm25[:5]}")

    print("\n                                 n | BM25 Acc@1 @5  @10  MRR      | cast Acc@1 @5  @10  MRR      | cast query median")
    groups = [(repo, [r for r in results if r["repo"] == repo]) for repo, *_ in repos]
    groups += [("dev (all)", [r for r in results if r["role"] == "dev"]),
               ("held-out (all)", [r for r in results if r["role"] == "heldout"]),
               ("overall", results)]
    for name, rows in groups:
        if not rows:
            continue
        lat = statistics.median(r["query_s"] for r in rows) * 1000
        print(f"{name:30} {len(rows):4} | {summarise(rows, 'bm25'):27} | {summarise(rows, 'cast'):27} | {lat:6.0f} ms"
              f"{summarise_map(rows)}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text("\n".join(json.dumps(r) for r in results) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
