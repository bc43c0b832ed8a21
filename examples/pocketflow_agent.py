"""A PocketFlow agent that works on a code base with CAST's map, find and edit tools.

Two nodes in a loop: ``Decide`` asks the LLM for the next tool call (as JSON, from a prompt
listing CAST's tools), ``cast.pocketflow.ToolNode`` runs it with CAST and records the result in
the shared store; the ``finish`` tool ends the flow.

Run it against the scripted LLM on a small demo tree (no network, no key)::

    python examples/pocketflow_agent.py

To use a real model, give ``run()`` a ``call_llm(prompt) -> str`` of your own.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

import cast
import cast.pocketflow
from pocketflow import Flow, Node

TOOLS = ["analyze_repository", "find_symbol", "show_symbol", "search_replace", "finish"]


class Decide(Node):
    """Asks the LLM for the next tool call and puts it in ``shared["tool_call"]``."""

    def __init__(self, call_llm: Callable[[str], str], tools_text: str) -> None:
        super().__init__()
        self.call_llm = call_llm
        self.tools_text = tools_text

    def prep(self, shared: Dict[str, Any]) -> str:
        history = "\n".join(
            f"- {h['tool']}({json.dumps(h['args'])}) -> {h['status']}:\n{h['text']}"
            for h in shared.get("history", [])
        )
        return (
            f"Task: {shared['task']}\n\nTools:\n{self.tools_text}\n\n"
            f"Done so far:\n{history or '(nothing)'}\n\n"
            'Reply with one JSON object: {"tool": NAME, "args": {...}}.'
        )

    def exec(self, prompt: str) -> Dict[str, Any]:
        reply = json.loads(self.call_llm(prompt))
        return {"name": reply["tool"], "args": reply.get("args", {})}

    def post(self, shared: Dict[str, Any], prompt: str, call: Dict[str, Any]) -> str:
        shared["tool_call"] = call
        return "act"


class Answer(Node):
    """Ends the flow: the ``finish`` tool's response is the answer."""

    def post(self, shared: Dict[str, Any], prep_res: Any, exec_res: Any) -> None:
        shared["answer"] = shared["tool_call"]["args"].get("response", "")


def build_flow(call_llm: Callable[[str], str], root: Path) -> Flow:
    toolbox = cast.Toolbox(root)
    decide = Decide(call_llm, cast.pocketflow.tool_prompt(toolbox, TOOLS))
    act = cast.pocketflow.ToolNode(toolbox=toolbox)
    decide - "act" >> act
    act - "decide" >> decide
    act - "finish" >> Answer()
    return Flow(start=decide)


def scripted_llm(replies: Iterable[Dict[str, Any]]) -> Callable[[str], str]:
    """An LLM that answers every prompt with the next scripted reply."""
    pending = iter(replies)

    def call_llm(prompt: str) -> str:
        return json.dumps(next(pending))

    return call_llm


SCRIPT = [
    {"tool": "analyze_repository", "args": {"budget": 400}},
    {"tool": "find_symbol", "args": {"query": "apply a discount percent to a price", "top": 3}},
    {
        "tool": "search_replace",
        "args": {
            "target_file": "shop/pricing.py",
            "diff": "------- SEARCH\n    return round(price * (1 - percent), 2)\n=======\n"
            "    return round(price * (1 - percent / 100), 2)\n+++++++ REPLACE\n",
        },
    },
    {"tool": "finish", "args": {"response": "Fixed discount(): percent is divided by 100."}},
]

DEMO_TREE = {
    "shop/__init__.py": '"""A tiny shop."""\n',
    "shop/pricing.py": (
        '"""Prices and discounts."""\n\n\n'
        "def discount(price: float, percent: float) -> float:\n"
        '    """Apply a discount of `percent` (0-100) to a price."""\n'
        "    return round(price * (1 - percent), 2)\n"
    ),
}

TASK = "discount(100, 10) returns -900 instead of 90; fix it."


def run(call_llm: Callable[[str], str], root: Path, task: str) -> List[Dict[str, Any]]:
    """Runs the agent on ``task``; returns the tool calls made, with their results."""
    shared: Dict[str, Any] = {"task": task}
    build_flow(call_llm, root).run(shared)
    return shared["history"]


def main(argv: Optional[Sequence[str]] = None) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        for rel, text in DEMO_TREE.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
        for step in run(scripted_llm(SCRIPT), root, TASK):
            print(f"[{step['tool']}] {json.dumps(step['args'])} -> {step['status']}")
            print(step["text"])
        print("--- shop/pricing.py now:")
        print((root / "shop/pricing.py").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
