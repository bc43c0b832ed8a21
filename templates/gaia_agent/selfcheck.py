"""Self-check: `python -m <package>.selfcheck` imports the agent, validates mcp_config and runs
one offline loop with a scripted model. Exit 0 when everything holds; otherwise each problem is
printed on its own line and the exit status is 1. It works under any package name."""
from __future__ import annotations

import importlib
import json
import pathlib
import sys

PACKAGE = __name__.rpartition(".")[0] or pathlib.Path(__file__).parent.name
HERE = pathlib.Path(__file__).parent


def check_mcp_config(config: object) -> list[str]:
    problems = []
    if not isinstance(config, dict) or not config:
        return ["mcp_config must be a non-empty dict of server name -> {command, args, env}"]
    for name, server in config.items():
        where = f"mcp_config[{name!r}]"
        if not isinstance(name, str) or not name:
            problems.append(f"{where}: the name must be a non-empty string")
        if not isinstance(server, dict):
            problems.append(f"{where} must be a dict")
            continue
        extra = set(server) - {"command", "args", "env"}
        if extra:
            problems.append(f"{where} has unknown keys {sorted(extra)}")
        if not isinstance(server.get("command"), str) or not server.get("command"):
            problems.append(f"{where}['command'] must be a non-empty string")
        args = server.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            problems.append(f"{where}['args'] must be a list of strings")
        env = server.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            problems.append(f"{where}['env'] must be a dict of strings")
    return problems


def agent_module():
    modules = sorted(p.stem for p in HERE.glob("*_agent.py"))
    if len(modules) != 1:
        raise SystemExit(f"expected exactly one *_agent.py in {HERE}, found {modules}")
    return importlib.import_module(f"{PACKAGE}.{modules[0]}")


def check_agent(module, config: dict) -> list[str]:
    problems = []
    prompt = getattr(module, "SYSTEM_PROMPT", "")
    if not isinstance(prompt, str) or len(prompt.strip()) < 40:
        problems.append("SYSTEM_PROMPT must be a real prompt (40+ characters)")
    tools = getattr(module, "TOOLS", None)
    if not isinstance(tools, list) or not tools:
        return problems + ["TOOLS must be a non-empty list"]
    names = [t.get("name") for t in tools]
    if len(set(names)) != len(names):
        problems.append(f"tool names repeat: {names}")
    for t in tools:
        if not isinstance(t.get("parameters"), dict) or t["parameters"].get("type") != "object":
            problems.append(f"tool {t.get('name')!r}: parameters must be a JSON Schema object")
        server = t.get("server")
        if server is not None and server not in config:
            problems.append(f"tool {t.get('name')!r} uses MCP server {server!r}, which mcp_config does not define")
    used = {t.get("server") for t in tools} - {None}
    for name in config:
        if name not in used:
            problems.append(f"mcp_config defines {name!r} but no tool uses it")
    if "final_answer" not in names and "finish" not in names:
        problems.append("one tool must end the run (final_answer)")
    return problems


def check_loop(module) -> list[str]:
    """One offline run: the scripted model calls the first local tool, then final_answer."""
    cls = next((v for k, v in vars(module).items() if k.endswith("Agent") and isinstance(v, type)), None)
    if cls is None:
        return ["no *Agent class in the agent module"]
    script = [
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "final_answer", "arguments": json.dumps({"answer": "42"})}}]},
    ]
    try:
        agent = cls(llm=lambda messages, tools: script.pop(0), call_mcp=lambda s, t, a: "offline")
        answer = agent.run("self-check question")
    except Exception as e:  # noqa: BLE001 - any failure is a finding
        return [f"the offline run failed: {type(e).__name__}: {e}"]
    return [] if answer == "42" else [f"the offline run answered {answer!r}, expected '42'"]


def main() -> int:
    config_module = importlib.import_module(f"{PACKAGE}.mcp_config")
    config = getattr(config_module, "mcp_config", None)
    problems = check_mcp_config(config)
    module = agent_module()
    if not problems:
        problems += check_agent(module, config)
    problems += check_loop(module)
    extra = getattr(module, "selfcheck_extra", None)
    if callable(extra):
        problems += list(extra())
    for p in problems:
        print(f"selfcheck: {p}")
    if not problems:
        print(f"selfcheck: {PACKAGE} ok ({len(module.TOOLS)} tools, {len(config)} MCP servers)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
