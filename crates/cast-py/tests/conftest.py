"""Fixtures of the Python package's tests: a small code base, and the `cast` command installed
with the package, to compare the API with the command's `--json`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

import cast

TREE = {
    "shop/__init__.py": '"""A tiny shop: carts, prices and receipts."""\n',
    "shop/pricing.py": (
        '"""Prices, taxes and discounts."""\n\n'
        "TAX = 0.2\n\n\n"
        "def discount(price: float, percent: float) -> float:\n"
        '    """Apply a discount of `percent` (0-100) to a price."""\n'
        "    return round(price * (1 - percent / 100), 2)\n\n\n"
        "def with_tax(price: float) -> float:\n"
        '    """The price with the sales tax added."""\n'
        "    return round(price * (1 + TAX), 2)\n"
    ),
    "shop/cart.py": (
        '"""The shopping cart."""\n\n'
        "from shop.pricing import discount, with_tax\n\n\n"
        "class Cart:\n"
        '    """Items a customer is about to buy, and their total."""\n\n'
        "    def __init__(self) -> None:\n"
        "        self.items: list[float] = []\n\n"
        "    def add(self, price: float) -> None:\n"
        '        """Put an item in the cart."""\n'
        "        self.items.append(price)\n\n"
        "    def total(self, percent: float = 0) -> float:\n"
        '        """The sum of the items, discounted, with tax."""\n'
        "        return with_tax(discount(sum(self.items), percent))\n"
    ),
    "shop/receipt.py": (
        '"""Printing receipts."""\n\n'
        "from shop.cart import Cart\n\n\n"
        "def receipt(cart: Cart) -> str:\n"
        '    """A receipt: one line per item, then the total."""\n'
        "    lines = [f'{p:8.2f}' for p in cart.items]\n"
        "    lines.append(f'total {cart.total():8.2f}')\n"
        "    return '\\n'.join(lines)\n"
    ),
    "tests/test_cart.py": (
        "from shop.cart import Cart\n\n\n"
        "def test_total():\n"
        "    cart = Cart()\n"
        "    cart.add(10)\n"
        "    assert cart.total() == 12\n"
    ),
    "README.md": "# shop\n",
}


def make_tree(folder: Path) -> Path:
    for rel, text in TREE.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A fresh copy of the shop tree."""
    return make_tree(tmp_path / "shop-tree")


@pytest.fixture(scope="session")
def cast_bin() -> Path:
    """The `cast` command installed with the package (or CAST_BIN)."""
    given = os.environ.get("CAST_BIN")
    program = Path(given) if given else cast.binary_path("cast")
    if program is None or not program.is_file():
        pytest.fail("the `cast` command is not installed with the package")
    return program


@pytest.fixture()
def cli(cast_bin: Path):
    """Runs `cast ARGS --json` and returns its JSON lines (and the exit status)."""

    def run(*args: str, cwd: Any = None, ok: bool = True) -> List[Dict[str, Any]]:
        env = dict(os.environ, CAST_NO_SERVER="1")
        done = subprocess.run(
            [os.fspath(cast_bin), *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if ok and done.returncode != 0:
            raise AssertionError(f"cast {' '.join(args)}: exit {done.returncode}: {done.stderr}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    return run


def as_json(result: Any) -> Any:
    """A result as the JSON its dataclass was read from."""
    return dataclasses.asdict(result) if dataclasses.is_dataclass(result) else result


def assert_same(api: Any, cli_object: Dict[str, Any], extra: tuple = ()) -> None:
    """The API's result holds every field of the command's JSON object with the same value;
    its other fields are `extra` ones or empty (what the JSON leaves out when empty)."""
    mine = as_json(api)
    assert {k: mine.get(k) for k in cli_object} == cli_object
    for key, value in mine.items():
        if key not in cli_object and key not in extra:
            assert value in (None, False, [], {}), f"{key}={value!r} is not in the JSON"
