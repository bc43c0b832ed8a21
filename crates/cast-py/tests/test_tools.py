"""The tool registry: the same schemas as `cast tools --json`, calls confined like `cast mcp`."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import cast
from conftest import as_json


def test_specs_equal_cli(cli) -> None:
    assert [as_json(s) for s in cast.tools()] == cli("tools", "--json")
    with_commands = [s.name for s in cast.tools(allow_commands=True)]
    assert "run_command" in with_commands and "run_command" not in [s.name for s in cast.tools()]


def test_call_tool_equals_cli(tree: Path, cli) -> None:
    args = {"query": "discount", "top": 3}
    result = cast.call_tool("find_symbol", args, root=tree)
    assert result.ok and "discount" in result.text
    (theirs,) = cli("tool", "find_symbol", "--args", '{"query": "discount", "top": 3}', "--root", str(tree))
    assert as_json(result) == theirs


def test_tool_calls_are_confined_to_the_root(tree: Path) -> None:
    box = cast.Toolbox(tree)
    with pytest.raises(cast.OutsideWorkspace, match="outside the workspace|climbs above"):
        box.call("read_file", {"target_file": "/etc/passwd", "explanation": "x"})
    with pytest.raises(cast.OutsideWorkspace):
        box.call("read_file", {"target_file": "../../etc/passwd", "explanation": "x"})
    with pytest.raises(cast.InvalidToolCall, match="unknown field"):
        box.call("finish", {"answer": "x"})
    with pytest.raises(cast.InvalidToolCall, match="must be a JSON object"):
        box.call("finish", ["done"])  # type: ignore[arg-type]
    with pytest.raises(cast.InvalidToolCall, match="unknown tool"):
        box.call("no_such_tool", {})
    with pytest.raises(cast.ToolRefused, match="commands are off"):
        box.call("run_command", {"command": "true"})


def test_refusal_is_a_result(tree: Path) -> None:
    result = cast.Toolbox(tree).call(
        "search_replace",
        {"target_file": "shop/pricing.py", "diff": "------- SEARCH\nnot there\n=======\nx\n+++++++ REPLACE\n"},
    )
    assert result.status == "refused" and not result.ok
    assert "SEARCH" in result.text or "match" in result.text


def test_dry_run_toolbox_writes_nothing(tree: Path) -> None:
    before = (tree / "shop" / "pricing.py").read_text()
    box = cast.Toolbox(tree, dry_run=True)
    result = box.call(
        "search_replace",
        {
            "target_file": "shop/pricing.py",
            "diff": "------- SEARCH\nTAX = 0.2\n=======\nTAX = 0.25\n+++++++ REPLACE\n",
        },
    )
    assert result.ok and "+TAX = 0.25" in result.text
    assert (tree / "shop" / "pricing.py").read_text() == before


def test_toolbox_from_threads(tree: Path) -> None:
    box = cast.Toolbox(tree)
    texts, errors = [], []

    def ask() -> None:
        try:
            for q in ("discount", "receipt", "Cart"):
                texts.append(box.call("find_symbol", {"query": q}).text)
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(texts) == 9
