"""Edits: applied and undone, refused with the reason, confined to the root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cast
from conftest import as_json


def without_empty(value):
    """JSON as serde writes it with `skip_serializing_if`: no None (and no empty list of blocks)."""
    if isinstance(value, dict):
        return {k: without_empty(v) for k, v in value.items() if v is not None and not (k == "blocks" and v == [])}
    if isinstance(value, list):
        return [without_empty(v) for v in value]
    return value

FIX = (
    "------- SEARCH\n"
    "    return round(price * (1 + TAX), 2)\n"
    "=======\n"
    "    return round(price * (1 + TAX), 4)\n"
    "+++++++ REPLACE\n"
)


def test_edit_applied_and_undone(tree: Path, cli) -> None:
    pricing = tree / "shop" / "pricing.py"
    before = pricing.read_text()
    (change,) = cast.apply_edit(FIX, "shop/pricing.py", root=tree)
    assert change.path == "shop/pricing.py" and change.changed and not change.created
    assert change.hunks[0].new_start == 13
    assert change.blocks[0].tier == "exact"
    assert "round(price * (1 + TAX), 4)" in pricing.read_text()
    (entry,) = cast.undo_history(tree)
    assert entry.files == ["shop/pricing.py"] and entry.when.year >= 2024
    (undone,) = cast.undo(tree)
    assert undone.id == entry.id
    assert pricing.read_text() == before
    with pytest.raises(cast.UndoRefused):
        cast.undo(tree)


def test_dry_run_equals_cli_and_writes_nothing(tree: Path, cli) -> None:
    pricing = tree / "shop" / "pricing.py"
    before = pricing.read_text()
    (change,) = cast.apply_edit(FIX, "shop/pricing.py", root=tree, dry_run=True)
    assert pricing.read_text() == before
    assert change.diff.startswith("--- a/shop/pricing.py")
    edit_file = tree.parent / "fix.txt"
    edit_file.write_text(FIX)
    (theirs,) = cli("apply", "--edit", str(edit_file), "--dry-run", "--json", "--root", str(tree), str(pricing))
    assert without_empty(as_json(change)) == theirs


def test_every_format(tree: Path) -> None:
    pricing = tree / "shop" / "pricing.py"
    ops = json.dumps([{"type": "insert", "after_line": 3, "content": ["RATE = 1.0"]}])
    cast.apply_edit(ops, "shop/pricing.py", root=tree, format="op")
    assert pricing.read_text().splitlines()[3] == "RATE = 1.0"
    lazy = pricing.read_text().replace("TAX = 0.2", "TAX = 0.25")
    cast.apply_edit(lazy, "shop/pricing.py", root=tree, format="lazy")
    assert "TAX = 0.25" in pricing.read_text()
    reply = '<file-edit filePath="shop/new.py">\n------- SEARCH\n=======\nX = 1\n+++++++ REPLACE\n</file-edit>\n'
    (created,) = cast.apply_edit(reply, root=tree)
    assert created.created and (tree / "shop" / "new.py").read_text() == "X = 1\n"
    assert len(cast.undo(tree, steps=3)) == 3
    assert not (tree / "shop" / "new.py").exists() and "TAX = 0.2\n" in pricing.read_text()


def test_refused_edit_raises_with_the_reason(tree: Path) -> None:
    pricing = tree / "shop" / "pricing.py"
    before = pricing.read_text()
    stale = FIX.replace("(1 + TAX), 2)", "(1 + VAT), 2)")
    with pytest.raises(cast.EditRefused) as caught:
        cast.apply_edit(stale, "shop/pricing.py", root=tree, exact_match_only=True)
    err = caught.value
    assert isinstance(err, cast.CastError)
    assert err.reason["kind"] == "no_match"
    assert err.reason["path"] == "shop/pricing.py"
    assert "SEARCH" in str(err) or "match" in str(err)
    assert pricing.read_text() == before
    cast.apply_edit(FIX, "shop/pricing.py", root=tree)
    with pytest.raises(cast.EditRefused) as again:
        cast.apply_edit(FIX, "shop/pricing.py", root=tree, exact_match_only=True)
    assert again.value.reason["kind"] == "no_match"
    assert "already present at line 13" in str(again.value)


def test_edits_stay_inside_the_root(tree: Path) -> None:
    with pytest.raises(cast.OutsideWorkspace):
        cast.apply_edit(FIX, "../elsewhere.py", root=tree)
    with pytest.raises(cast.OutsideWorkspace):
        cast.apply_edit("------- SEARCH\n=======\nx\n+++++++ REPLACE\n", ".git/config", root=tree)
    with pytest.raises(cast.CastError, match="is the workspace root"):
        cast.apply_edit("------- SEARCH\n=======\nx\n+++++++ REPLACE\n", ".", root=tree)
    with pytest.raises(cast.CastError, match="unknown edit format"):
        cast.apply_edit(FIX, "shop/pricing.py", root=tree, format="patchwork")
