#!/usr/bin/env python3
"""Import circles between the modules of each crate: two modules that use each other, directly
or round a loop. Prints each circle and the count; exits 1 when there is one.

A module is a source file (`a/b.rs` and `a/b/mod.rs` are `a::b`; `lib.rs` and `main.rs` are the
crate root), with its inline modules (`mod tests { ... }`) counted as part of it. A module uses
another when its code names it by path: `crate::a::b`, `super::x`, `self::x`, or a child module
declared in it (`mod x;` then `x::f`); comments and string literals are skipped, and a path
names the longest module it starts with. Two kinds of use are not counted, as they are how
Rust code is laid out rather than a tangle: uses of the crate root (`lib.rs` declares the modules
and re-exports their types; `crate::Result` is a shorthand), and a module's uses of the modules
it is inside (a child reaching `super::`): a parent's uses of its children count. Test modules
(`#[cfg(test)] mod tests { … }`) are left out: what a test uses is not what the code depends on. Usage:
`python3 .ci/import_circles.py [CRATES_DIR]`.
"""

import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
CHILD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([a-z_][a-z0-9_]*)\s*;", re.M)


def strip_comments_and_strings(text):
    """The code of a Rust file without comments, string and char literals (kept as blanks)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not text[i - 1].isalnum() and text[i - 1] != "_"):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            i = n if j < 0 else j + len(end)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:i + 4]) or text.startswith("'\\u{", i):
            j = text.find("'", i + 1)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+[a-z_][a-z0-9_]*\s*\{")


def without_test_modules(code):
    """The code without its `#[cfg(test)] mod … { … }` blocks: a test's uses are not the crate's."""
    while True:
        m = TEST_MOD.search(code)
        if not m:
            return code
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[: m.start()] + code[i:]


def module_of(rel):
    """`a/b.rs` → ("a", "b"); `a/mod.rs` → ("a",); `lib.rs` → ()."""
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def crate_modules(src):
    modules = {}
    for dirpath, _, files in os.walk(src):
        for f in files:
            if f.endswith(".rs"):
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, src).replace(os.sep, "/")
                if rel.startswith("bin/"):
                    continue
                modules[module_of(rel)] = path
    return modules


GROUP = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{")


def group_paths(code):
    """The paths a `use` group names: `crate::a::{b, c::{d, e}}` → `crate::a::b`, `crate::a::c::d`, …"""
    out = []
    for m in GROUP.finditer(code):
        prefix = m.group(1) + m.group(2)
        depth, i, start = 1, m.end(), m.end()
        items, stack = [], [prefix]
        while i < len(code) and depth:
            c = code[i]
            if c == "{":
                head = code[start:i].strip().rstrip(":").strip()
                stack.append(stack[-1] + "::" + head if head else stack[-1])
                depth += 1
                start = i + 1
            elif c in ",}":
                item = code[start:i].strip()
                if item and item != "self":
                    item = re.match(r"[A-Za-z_][A-Za-z0-9_:]*", item)
                    if item:
                        items.append(stack[-1] + "::" + item.group(0).rstrip(":"))
                if c == "}":
                    depth -= 1
                    stack.pop()
                start = i + 1
            i += 1
        out.extend(items)
    return out


def uses(module, code, modules):
    found = set()
    children = set(CHILD_DECL.findall(code))
    paths = [(m.group(1), m.group(2)) for m in PATH.finditer(code)]
    for p in group_paths(code):
        base, _, rest = p.partition("::")
        paths.append((base, "::" + rest))
    for base, rest in paths:
        rest = rest.split("::")[1:]
        if base == "crate":
            parts = list(rest)
        elif base == "self":
            parts = list(module) + rest
        else:
            up = list(module)
            parts = rest
            if up:
                up.pop()
            while parts and parts[0] == "super":
                parts = parts[1:]
                if up:
                    up.pop()
            parts = up + parts
        found.add(longest_module(parts, modules))
    for m in re.finditer(r"\b([a-z_][a-z0-9_]*)::", code):
        name = m.group(1)
        if name in children and m.start() > 0 and code[m.start() - 1] != ":":
            found.add(longest_module(list(module) + [name], modules))
    return {
        m
        for m in found
        if m is not None and m != () and m != module and module[: len(m)] != m
    }


def longest_module(parts, modules):
    for k in range(len(parts), -1, -1):
        if tuple(parts[:k]) in modules:
            return tuple(parts[:k])
    return None


def circles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def name(module):
    return "::".join(module) or "(root)"


def main():
    crates_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "crates")
    total = 0
    for crate in sorted(os.listdir(crates_dir)):
        src = os.path.join(crates_dir, crate, "src")
        if not os.path.isdir(src):
            continue
        modules = crate_modules(src)
        graph = {}
        for module, path in modules.items():
            with open(path, encoding="utf-8") as f:
                code = without_test_modules(strip_comments_and_strings(f.read()))
            graph[module] = uses(module, code, modules)
        for comp in circles(graph):
            total += 1
            members = set(comp)
            edges = [f"{name(a)} → {name(b)}" for a in comp for b in sorted(graph[a]) if b in members]
            print(f"{crate}: {', '.join(name(m) for m in comp)}  ({'; '.join(edges)})")
    print(f"{total} import circle{'s' if total != 1 else ''}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
