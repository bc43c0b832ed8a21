"""The two examples run their agents against a scripted model, on a demo tree, offline."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_langgraph_agent_fixes_the_bug(tmp_path: Path) -> None:
    pytest.importorskip("langgraph")
    example = load("langgraph_agent")
    root = example.make_demo_tree(tmp_path)
    messages = example.run(example.scripted_model(), root, example.TASK)
    text = example.transcript(messages)
    print(text)
    tools_called = [c["name"] for m in messages for c in (getattr(m, "tool_calls", None) or [])]
    assert tools_called == ["analyze_repository", "find_symbol", "search_replace"]
    tool_answers = [m for m in messages if m.type == "tool"]
    assert "Logic map of" in tool_answers[0].content
    assert "discount" in tool_answers[1].content
    assert "percent / 100" in (root / "shop/pricing.py").read_text()
    assert messages[-1].content.startswith("Fixed discount()")


def test_langgraph_example_main(capsys) -> None:
    pytest.importorskip("langgraph")
    assert load("langgraph_agent").main([]) == 0
    assert "[tool:search_replace]" in capsys.readouterr().out


def test_pocketflow_agent_fixes_the_bug(tmp_path: Path, capsys) -> None:
    pytest.importorskip("pocketflow")
    example = load("pocketflow_agent")
    root = tmp_path
    for rel, text in example.DEMO_TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    history = example.run(example.scripted_llm(example.SCRIPT), root, example.TASK)
    assert [h["tool"] for h in history] == ["analyze_repository", "find_symbol", "search_replace", "finish"]
    assert all(h["status"] == "ok" for h in history)
    assert "percent / 100" in (root / "shop/pricing.py").read_text()
    assert example.main([]) == 0
    assert "percent / 100" in capsys.readouterr().out
