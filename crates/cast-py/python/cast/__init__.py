"""CAST — a code assistant toolkit for language-model agents, from Python.

``import cast`` calls CAST's Rust libraries in this process (no subprocess): an index of a code
base with its logic map, relevance search and exact source; skeletons, symbols, grep, glob and
read; edits applied exactly or refused with a reason, with undo; and the agent tools with their
JSON schemas, every path confined to a workspace root as ``cast mcp`` confines them. The
``cast`` command installed with this package is the same program ``cargo install`` builds.

Example:
    >>> import cast
    >>> index = cast.Index(".")
    >>> print(index.map(budget=1000).render())
    >>> hit = index.find("parse an HTTP date").symbols[0]
    >>> print(index.show(hit.full_name).source)
    >>> cast.apply_edit(reply_text, root=".")   # raises cast.EditRefused with the reason

Results are dataclasses (``cast.results``); errors are :class:`cast.CastError` and its
subclasses (``cast.errors``), with CAST's messages. Every call releases the GIL while CAST
works, so threads run meanwhile. Adapters for agent frameworks, imported only when used:
``cast.langchain`` (LangChain and LangGraph tools) and ``cast.pocketflow`` (a PocketFlow node).
"""

from . import results
from ._api import (
    Index,
    Toolbox,
    apply_edit,
    binary_path,
    call_tool,
    glob,
    grep,
    read,
    skeleton,
    symbols,
    tools,
    undo,
    undo_history,
)
from ._native import __version__
from .errors import (
    CastError,
    EditRefused,
    InvalidToolCall,
    OutsideWorkspace,
    SymbolNotFound,
    ToolRefused,
    UndoRefused,
)

__all__ = [
    "CastError",
    "EditRefused",
    "Index",
    "InvalidToolCall",
    "OutsideWorkspace",
    "SymbolNotFound",
    "ToolRefused",
    "Toolbox",
    "UndoRefused",
    "__version__",
    "apply_edit",
    "binary_path",
    "call_tool",
    "glob",
    "grep",
    "read",
    "results",
    "skeleton",
    "symbols",
    "tools",
    "undo",
    "undo_history",
]
