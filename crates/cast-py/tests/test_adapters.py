"""The framework adapters: LangChain tools (their schemas), the PocketFlow node, and that
`import cast` loads neither framework."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cast


def test_import_cast_loads_no_framework() -> None:
    code = (
        "import sys, cast\n"
        "heavy = [m for m in ('langchain_core', 'langgraph', 'pocketflow', 'pydantic') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, stdout=subprocess.PIPE, text=True)
    assert out.stdout.strip() == "[]"


def check_schema(schema: dict) -> None:
    """A JSON Schema of an object whose every property is typed and described (what
    smolagents and LangChain need to show a model every argument)."""
    assert schema["type"] == "object"
    properties = schema["properties"]
    assert set(schema.get("required", [])) <= set(properties)
    for name, prop in properties.items():
        assert prop.get("description"), f"{name} is not described"
        assert "type" in prop or "anyOf" in prop or "enum" in prop, f"{name} has no type"


def test_langchain_tools_schemas(tree: Path) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.utils.function_calling import convert_to_openai_tool

    import cast.langchain

    tools = cast.langchain.tools(tree)
    specs = {s.name: s for s in cast.tools()}
    assert [t.name for t in tools] == list(specs)
    for tool in tools:
        openai = convert_to_openai_tool(tool)["function"]
        assert openai["name"] == tool.name
        assert openai["description"] == specs[tool.name].description
        check_schema(openai["parameters"])
        assert openai["parameters"]["properties"] == specs[tool.name].parameters["properties"]
        schema = {k: v for k, v in tool.tool_call_schema.items() if k != "description"}
        assert schema == specs[tool.name].parameters


def test_langchain_tool_runs_and_reports_errors(tree: Path) -> None:
    pytest.importorskip("langchain_core")
    import cast.langchain

    find, read = cast.langchain.tools(tree, names=["find_symbol", "read_file"])
    assert "discount" in find.invoke({"query": "discount"})
    # A call CAST cannot run comes back as a message for the model, not an exception.
    answer = read.invoke({"target_file": "../outside.py", "explanation": "x"})
    assert "workspace" in answer
    with pytest.raises(ValueError, match="no tool"):
        cast.langchain.tools(tree, names=["nope"])


def test_langgraph_tool_node(tree: Path) -> None:
    pytest.importorskip("langgraph")
    from langchain_core.messages import AIMessage
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    import cast.langchain

    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode(cast.langchain.tools(tree, names=["show_symbol", "read_file"])))
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    calls = [
        {"name": "show_symbol", "args": {"symbol": "Cart.add"}, "id": "1"},
        {"name": "read_file", "args": {"target_file": "/etc/passwd", "explanation": "x"}, "id": "2"},
    ]
    out = graph.compile().invoke({"messages": [AIMessage(content="", tool_calls=calls)]})
    shown, refused = out["messages"][1:]
    assert shown.tool_call_id == "1" and "def add" in shown.content
    assert refused.tool_call_id == "2" and "outside the workspace" in refused.content


def test_pocketflow_node(tree: Path) -> None:
    pytest.importorskip("pocketflow")
    import cast.pocketflow

    node = cast.pocketflow.ToolNode(tree)
    shared = {"tool_call": {"name": "find_symbol", "args": {"query": "receipt"}}}
    assert node.run(shared) == "decide"
    shared["tool_call"] = {"name": "read_file", "args": {"target_file": "/etc/passwd", "explanation": "x"}}
    node.run(shared)
    shared["tool_call"] = {"name": "finish", "args": {"response": "done"}}
    assert node.run(shared) == "finish"
    statuses = [h["status"] for h in shared["history"]]
    assert statuses == ["ok", "error", "ok"]
    assert "outside the workspace" in shared["history"][1]["text"]
    prompt = cast.pocketflow.tool_prompt(node.toolbox, ["find_symbol"])
    assert prompt.startswith("find_symbol: ")
