"""The API answers as the `cast` command's `--json` does, on the same tree."""

from __future__ import annotations

import sysconfig
import threading
from pathlib import Path

import pytest

import cast
from cast.results import Found, LogicMap, SymbolSource
from conftest import as_json, assert_same


def test_map_equals_cli(tree: Path, cli) -> None:
    index = cast.Index(tree)
    api = index.map(budget=1500)
    assert isinstance(api, LogicMap)
    *files, summary = cli("map", str(tree), "--budget", "1500", "--json")
    assert len(api.files) == len(files) > 0
    for mine, theirs in zip(api.files, files):
        assert_same(mine, theirs)
    assert summary.pop("summary") is True
    assert summary.pop("shown_files") == len(api.files)
    assert_same(api, summary, extra=("text", "files", "traced", "unparsed", "unparsed_total"))
    assert "shop/cart.py" in api.render()
    assert api.text.startswith("Logic map of")


def test_map_focus_and_within(tree: Path, cli) -> None:
    index = cast.Index(tree)
    api = index.map(focus="tax on the total", within=["shop", "!shop/receipt.py"])
    *files, _ = cli(
        "map", str(tree), "--focus", "tax on the total", "--in", "shop", "--in", "!shop/receipt.py", "--json"
    )
    assert [f.path for f in api.files] == [f["path"] for f in files]
    assert "shop/receipt.py" not in [f.path for f in api.files]
    assert api.scope == ["shop", "!shop/receipt.py"]


def test_find_symbols_and_files_equal_cli(tree: Path, cli) -> None:
    index = cast.Index(tree)
    found = index.find("apply a discount to a price", top=5)
    assert isinstance(found, Found) and found
    hits = cli("find", "apply a discount to a price", "--root", str(tree), "--top", "5", "--json")
    assert len(found.symbols) + len(found.files) == len(hits)
    for mine, theirs in zip([*found.symbols, *found.files], hits):
        assert_same(mine, theirs)
    assert found.symbols[0].qualname == "discount"
    assert found.symbols[0].scores.total == found.symbols[0].score

    files = index.find("receipt printing", files=True, top=3)
    hits = cli("find", "receipt printing", "--files", "--root", str(tree), "--top", "3", "--json")
    assert [as_json(h) for h in files.files] == hits
    assert files.symbols == []


def test_find_nothing_says_why(tree: Path) -> None:
    found = cast.Index(tree).find("zzzqqq")
    assert not found
    assert found.note and "zzzqqq" in found.note


def test_show_equals_cli(tree: Path, cli) -> None:
    shown = cast.Index(tree).show("Cart.total")
    assert isinstance(shown, SymbolSource)
    (theirs,) = cli("show", "Cart.total", "--root", str(tree), "--json")
    assert_same(shown, theirs, extra=("text",))
    assert "def total" in shown.source
    assert {r.symbol for r in shown.references} >= {"discount", "with_tax"}
    assert shown.render().startswith("shop/cart.py")


def test_show_unknown_symbol_raises(tree: Path) -> None:
    with pytest.raises(cast.SymbolNotFound) as caught:
        cast.Index(tree).show("Cart.nothing_here")
    assert "no symbol matches" in str(caught.value)
    assert caught.value.query == "Cart.nothing_here"
    assert isinstance(caught.value, cast.CastError)


def test_index_refreshes_as_the_cli_does(tree: Path) -> None:
    index = cast.Index(tree)
    assert not index.find("refund_order")
    (tree / "shop" / "refund.py").write_text('def refund_order(order):\n    """Give the money back."""\n')
    assert index.find("refund_order").symbols[0].path == "shop/refund.py"


def test_skeleton_equals_cli(tree: Path, cli) -> None:
    api = cast.skeleton(tree / "shop" / "cart.py")
    (theirs,) = cli("skeleton", str(tree / "shop" / "cart.py"), "--json")
    assert_same(api, theirs, extra=("text",))
    assert "(Line 6) class Cart:" in api.render()
    via_index = cast.Index(tree).skeleton("shop/cart.py")
    assert via_index.path == "shop/cart.py" and via_index.lines == api.lines


def test_symbols_equal_cli(tree: Path, cli) -> None:
    api = cast.symbols(tree)
    theirs = cli("symbols", str(tree), "--json")
    assert [as_json(s) for s in api] == theirs
    classes = cast.symbols(tree, kinds=["class"])
    assert [s.qualname for s in classes] == ["Cart"]
    with pytest.raises(cast.CastError, match="unknown kind"):
        cast.symbols(tree, kinds=["nonsense"])


def test_grep_glob_read_equal_cli(tree: Path, cli) -> None:
    grep = cast.grep(r"def \w+", tree)
    theirs = cli("grep", r"def \w+", str(tree), "--json")
    assert [as_json(line) for line in grep.lines] == [
        {"context": False, "cut": False, **line} for line in theirs
    ]
    assert grep.match_count == len(theirs) and not grep.capped

    globbed = cast.glob("*.py", tree, max_results=0)
    assert globbed.paths == [row["path"] for row in cli("glob", "*.py", str(tree), "--max-results", "0", "--json")]

    read = cast.read(tree / "shop" / "pricing.py", start=5, end=7)
    theirs = cli("read", str(tree / "shop" / "pricing.py"), "--start", "5", "--end", "7", "--json")
    assert [as_json(line) for line in read.lines] == [{"cut": False, **line} for line in theirs]
    assert read.total_lines == 13


def test_bad_input_raises_cast_errors(tree: Path) -> None:
    with pytest.raises(cast.CastError, match="no such folder"):
        cast.Index(tree / "missing")
    with pytest.raises(cast.CastError, match="query is empty"):
        cast.Index(tree).find("   ")
    with pytest.raises(cast.CastError):
        cast.grep("(unclosed", tree)
    with pytest.raises(cast.CastError, match="outside the root"):
        cast.Index(tree).find("x", within=["/"])
    with pytest.raises(cast.CastError):
        cast.read(tree / "nothing.py")
    with pytest.raises(ValueError, match="top must be an integer of at least 1"):
        cast.Index(tree).find("x", top=-1)
    with pytest.raises(ValueError, match="max_results"):
        cast.grep("x", tree, max_results=-5)


def test_index_is_shared_by_threads(tree: Path) -> None:
    index = cast.Index(tree)
    expected = as_json(index.find("tax"))
    results, errors = [], []

    def ask() -> None:
        try:
            for _ in range(5):
                results.append(as_json(index.find("tax")))
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == [expected] * 20


def test_the_gil_is_released_while_cast_works() -> None:
    # A Python thread counts while the main thread is in one long CAST call (a search through
    # the whole standard library): with the GIL held it could hardly count at all.
    stdlib = sysconfig.get_paths()["stdlib"]
    ticks, stop = [0], threading.Event()

    def count() -> None:
        while not stop.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = ticks[0]
        found = cast.grep("qz_not_in_any_file_zq", stdlib, max_results=0, no_ignore=True)
        during = ticks[0] - before
    finally:
        stop.set()
        counter.join()
    assert found.files_searched > 1000
    assert during > 10_000


def test_version_and_command(cast_bin: Path) -> None:
    assert cast.__version__
    assert cast_bin.name.startswith("cast")
