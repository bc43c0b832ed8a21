"""A LangGraph agent that works on a code base with CAST's map, find and edit tools.

The graph is LangGraph's usual tool loop: the model node answers or asks for tool calls, a
``ToolNode`` of CAST's tools (``cast.langchain.tools``) runs them, and their results go back to
the model until it answers without one.

Run it against the scripted model on a small demo tree (no network, no key)::

    python examples/langgraph_agent.py

or against a real model on a real tree (``pip install langchain-openai``)::

    python examples/langgraph_agent.py --root ~/src/app --model openai:gpt-4o-mini \
        "rename the helper that parses dates to parse_date"
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, List, Optional, Sequence

import cast
import cast.langchain
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

TOOLS = ["analyze_repository", "find_symbol", "show_symbol", "search_replace"]


def build_agent(model: Any, root: Path) -> Any:
    """The compiled graph: a model node and a ToolNode of CAST's tools over ``root``."""
    tools = cast.langchain.tools(root, names=TOOLS)
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


class ScriptedChatModel(FakeMessagesListChatModel):
    """A chat model that replies from a script (langchain-core's fake model, with tools)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "ScriptedChatModel":
        return self


def call(name: str, args: dict, n: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{n}"}])


def scripted_model() -> ScriptedChatModel:
    """The replies a model would give to fix the demo tree's bug: map, find, edit, answer."""
    fix = (
        "------- SEARCH\n"
        "    return round(price * (1 - percent), 2)\n"
        "=======\n"
        "    return round(price * (1 - percent / 100), 2)\n"
        "+++++++ REPLACE\n"
    )
    return ScriptedChatModel(
        responses=[
            call("analyze_repository", {"budget": 400}, 1),
            call("find_symbol", {"query": "apply a discount percent to a price", "top": 3}, 2),
            call("search_replace", {"target_file": "shop/pricing.py", "diff": fix}, 3),
            AIMessage(content="Fixed discount(): the percent is now divided by 100 (shop/pricing.py)."),
        ]
    )


DEMO_TREE = {
    "shop/__init__.py": '"""A tiny shop."""\n',
    "shop/pricing.py": (
        '"""Prices and discounts."""\n\n\n'
        "def discount(price: float, percent: float) -> float:\n"
        '    """Apply a discount of `percent` (0-100) to a price."""\n'
        "    return round(price * (1 - percent), 2)\n"
    ),
    "shop/cart.py": (
        '"""The shopping cart."""\n\n'
        "from shop.pricing import discount\n\n\n"
        "class Cart:\n"
        '    """Items and their total."""\n\n'
        "    def __init__(self):\n"
        "        self.items = []\n\n"
        "    def total(self, percent: float = 0) -> float:\n"
        "        return discount(sum(self.items), percent)\n"
    ),
}

TASK = "discount(100, 10) returns -900 instead of 90; fix it."


def make_demo_tree(folder: Path) -> Path:
    for rel, text in DEMO_TREE.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def run(model: Any, root: Path, task: str) -> List[BaseMessage]:
    """Runs the agent on ``task`` and returns the conversation."""
    agent = build_agent(model, root)
    final = agent.invoke({"messages": [HumanMessage(task)]}, {"recursion_limit": 20})
    return final["messages"]


def transcript(messages: List[BaseMessage]) -> str:
    lines = []
    for message in messages:
        for tool_call in getattr(message, "tool_calls", None) or []:
            lines.append(f"[{message.type}] call {tool_call['name']} {json.dumps(tool_call['args'])}")
        if message.content:
            lines.append(f"[{message.type}{':' + message.name if message.type == 'tool' else ''}] {message.content}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", nargs="?", default=TASK)
    parser.add_argument("--root", type=Path, help="the code base (default: a demo tree)")
    parser.add_argument("--model", help="e.g. openai:gpt-4o-mini (default: the scripted model)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root = args.root or make_demo_tree(Path(scratch))
        if args.model:
            from langchain.chat_models import init_chat_model

            model = init_chat_model(args.model)
        else:
            model = scripted_model()
        print(transcript(run(model, root, args.task)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
