"""CAST's errors as Python exceptions.

Every exception CAST raises is a :class:`CastError`; its message is the one the ``cast``
command prints for the same failure (``str(err)``). Subclasses say what kind of failure it was
and carry what a program can act on.
"""

from __future__ import annotations

import json
from typing import Any, Optional

__all__ = [
    "CastError",
    "EditRefused",
    "InvalidToolCall",
    "OutsideWorkspace",
    "SymbolNotFound",
    "ToolRefused",
    "UndoRefused",
]


class CastError(Exception):
    """A CAST call failed.

    Attributes:
        message: CAST's message: what went wrong and what to do about it.
        detail: Details as JSON-like data, where the kind of failure has any (else ``None``).
    """

    def __init__(self, message: str, detail: Optional[str] = None) -> None:
        super().__init__(message)
        self.message: str = message
        self.detail: Any = json.loads(detail) if detail else None


class EditRefused(CastError):
    """An edit was refused and nothing was written.

    Attributes:
        reason: The refusal as ``cast apply --json`` prints it under ``refused``: ``kind``
            (``no_match``, ``ambiguous``, ``already_applied``, ``malformed``, …), ``path`` and
            the details of that kind (closest lines with their line numbers and similarity,
            the places an ambiguous block matched, …).
    """

    @property
    def reason(self) -> dict:
        return self.detail or {}


class SymbolNotFound(CastError):
    """No symbol matches the name given to ``Index.show``.

    Attributes:
        query: The name asked for.
        named: Symbols with the name the query ends in (``FULL.NAME (PATH:LINE)``), when only
            its qualifier did not fit.
    """

    @property
    def query(self) -> str:
        return (self.detail or {}).get("query", "")

    @property
    def named(self) -> list:
        return (self.detail or {}).get("named", [])


class UndoRefused(CastError):
    """Nothing to undo, or an undo that would overwrite a later change (give ``force=True``)."""


class OutsideWorkspace(CastError):
    """A path leads outside the workspace root (or into ``.git/`` or ``.cast/`` for a write)."""


class InvalidToolCall(CastError, ValueError):
    """An unknown tool, or arguments that do not fit the tool's schema."""


class ToolRefused(CastError):
    """A tool is disabled, or its command could not be confined as the sandbox requires."""
