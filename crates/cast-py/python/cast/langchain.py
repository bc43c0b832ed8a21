"""CAST's agent tools as LangChain tools, for LangChain agents and LangGraph's ``ToolNode``.

Needs ``langchain-core`` (``pip install 'cast-toolkit[langchain]'``); ``import cast`` does not
import this module, so nothing of LangChain loads unless it is used.

Example:
    >>> from langgraph.prebuilt import ToolNode
    >>> import cast.langchain
    >>> tools = cast.langchain.tools(".", names=["analyze_repository", "find_symbol"])
    >>> node = ToolNode(tools)
    >>> model = model.bind_tools(tools)

Each tool's schema is the registry's own JSON Schema (what ``cast tools --json`` and MCP
clients see), every argument described; a call runs through :class:`cast.Toolbox`, so its
arguments are validated by CAST and its paths confined to the root. A tool's answer is the
text CAST writes for a model; a refusal (an edit that does not apply) is such an answer too,
and a call CAST cannot run (invalid arguments, a path outside the root) becomes a
``ToolException`` whose message LangChain hands back to the model.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from ._api import PathLike, Toolbox
from .errors import CastError

__all__ = ["tools"]


def tools(
    root: PathLike = ".",
    *,
    names: Optional[Sequence[str]] = None,
    allow_commands: bool = False,
    dry_run: bool = False,
    refuse_syntax_errors: bool = False,
    toolbox: Optional[Toolbox] = None,
) -> List[BaseTool]:
    """CAST's agent tools over one workspace, as LangChain tools.

    Args:
        root: The workspace root every path is confined to.
        names: Only these tools, in this order (e.g. ``["analyze_repository",
            "find_symbol", "search_replace"]``); default: all, in the registry's order.
        allow_commands: Offer ``run_command`` (confined by the command sandbox).
        dry_run: Edit tools return their diff but write nothing.
        refuse_syntax_errors: Refuse an edit that leaves a file which parsed unparseable.
        toolbox: A :class:`cast.Toolbox` to call through (then the options above but
            ``names`` are its own).

    Returns:
        One ``StructuredTool`` per CAST tool; each returns the text CAST writes for a model.

    Raises:
        ValueError: ``names`` holds a tool CAST does not have.
        CastError: ``root`` is not a folder.
    """
    box = toolbox or Toolbox(
        root,
        allow_commands=allow_commands,
        dry_run=dry_run,
        refuse_syntax_errors=refuse_syntax_errors,
    )
    specs = {spec.name: spec for spec in box.specs()}
    wanted = list(specs) if names is None else list(names)
    unknown = [name for name in wanted if name not in specs]
    if unknown:
        raise ValueError(f"CAST has no tool {', '.join(unknown)}; its tools are: {', '.join(specs)}")
    return [
        StructuredTool(
            name=name,
            description=specs[name].description,
            args_schema=specs[name].parameters,
            func=_caller(box, name),
            handle_tool_error=True,
        )
        for name in wanted
    ]


def _caller(box: Toolbox, name: str) -> Any:
    def call(**args: Any) -> str:
        try:
            return box.call(name, args).text
        except CastError as err:
            raise ToolException(str(err)) from err

    call.__name__ = name
    return call
