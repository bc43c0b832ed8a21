"""A PocketFlow node that runs CAST's agent tools, and the tool list for an LLM's prompt.

Needs ``pocketflow`` (``pip install 'cast-toolkit[pocketflow]'``); ``import cast`` does not
import this module.

A PocketFlow agent decides in one node (an LLM call that names a tool and its arguments) and
acts in another; :class:`ToolNode` is the acting node. It reads ``shared["tool_call"]``
(``{"name": …, "args": {…}}``), runs it with :class:`cast.Toolbox` (arguments validated, paths
confined to the root), appends ``{"tool", "args", "status", "text"}`` to ``shared["history"]``
and returns the action ``"decide"`` (or ``"finish"`` after the ``finish`` tool)::

    decide = DecideNode()                      # yours: fills shared["tool_call"]
    act = cast.pocketflow.ToolNode(root)
    decide - "act" >> act
    act - "decide" >> decide
    Flow(start=decide).run(shared)

See ``examples/pocketflow_agent.py`` for a whole agent.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Sequence

from pocketflow import Node

from ._api import PathLike, Toolbox
from .errors import CastError

__all__ = ["ToolNode", "tool_prompt"]


class ToolNode(Node):
    """Runs the tool call in ``shared["tool_call"]`` with CAST and records its result.

    Args:
        root: The workspace root every path is confined to.
        toolbox: A :class:`cast.Toolbox` to call through instead of a new one over ``root``.
        next_action: The action returned after a tool other than ``finish``.
        max_retries: PocketFlow's retries of a call that raised (CAST's errors are answers,
            not retried).
    """

    def __init__(
        self,
        root: PathLike = ".",
        *,
        toolbox: Optional[Toolbox] = None,
        next_action: str = "decide",
        max_retries: int = 1,
    ) -> None:
        super().__init__(max_retries=max_retries)
        self.toolbox = toolbox or Toolbox(root)
        self.next_action = next_action

    def prep(self, shared: Dict[str, Any]) -> Dict[str, Any]:
        call = shared.get("tool_call")
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ValueError('shared["tool_call"] must be {"name": TOOL, "args": {...}}')
        return {"name": call["name"], "args": dict(call.get("args") or {})}

    def exec(self, call: Dict[str, Any]) -> Dict[str, Any]:
        try:
            result = self.toolbox.call(call["name"], call["args"])
        except CastError as err:
            # The model reads what went wrong and corrects its call.
            return {"status": "error", "text": str(err)}
        return {"status": result.status, "text": result.text}

    def post(self, shared: Dict[str, Any], call: Dict[str, Any], result: Dict[str, Any]) -> str:
        shared.setdefault("history", []).append({"tool": call["name"], "args": call["args"], **result})
        return "finish" if call["name"] == "finish" else self.next_action


def tool_prompt(toolbox: Toolbox, names: Optional[Sequence[str]] = None) -> str:
    """The tools described for an LLM's prompt: each name, description and parameter schema.

    Args:
        toolbox: The tools to describe.
        names: Only these tools, in this order; default: all.

    Returns:
        A text block, one paragraph per tool.
    """
    specs = {spec.name: spec for spec in toolbox.specs()}
    wanted = list(specs) if names is None else list(names)
    return "\n\n".join(
        f"{name}: {specs[name].description}\nparameters: {json.dumps(specs[name].parameters)}"
        for name in wanted
    )
