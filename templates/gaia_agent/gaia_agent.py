"""GaiaAgent: answers open questions by searching the web, reading files and running code.

The agent follows the usual loop: the model sees the question, the system prompt and the tool
list, picks one tool call at a time, reads its result, and ends with `final_answer`.

    from gaia_agent.gaia_agent import GaiaAgent
    agent = GaiaAgent()                      # OPENAI_API_KEY / OPENAI_BASE_URL / AGENT_MODEL
    print(agent.run("How many moons does Mars have?"))
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

AGENT_NAME = "gaia_agent"

SYSTEM_PROMPT = """You are a careful research assistant that answers questions with evidence.
Work step by step: search the web or read the given files to gather facts, run Python code to
compute or check results, and cite where each fact came from. When you are sure, call
final_answer with a short, exact answer (a number, a name, or a short phrase) followed by one
sentence of justification. If the evidence is contradictory, say which source you trust and why."""

# The tools the model may call: local functions and tools served by the MCP servers in
# mcp_config.py (the "server" field names the server).
TOOLS: list[dict[str, Any]] = [
    {"name": "web_search", "server": "web-search",
     "description": "Search the web; returns titles, links and snippets.",
     "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
    {"name": "fetch_url", "server": "fetch",
     "description": "Fetch a web page and return its text.",
     "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}},
    {"name": "read_file", "server": "filesystem",
     "description": "Read a file from the workspace folder.",
     "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "run_python", "server": None,
     "description": "Run a short Python program and return what it prints.",
     "parameters": {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"]}},
    {"name": "final_answer", "server": None,
     "description": "Give the final answer and stop.",
     "parameters": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}},
]

MAX_STEPS = 15


def run_python(code: str, timeout: float = 20.0) -> str:
    """Runs code in a fresh interpreter and returns its output (stdout, then stderr)."""
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"[killed after {timeout:.0f} s]"
    return (done.stdout + done.stderr)[-8000:]


@dataclass
class Step:
    tool: str
    arguments: dict[str, Any]
    result: str


@dataclass
class GaiaAgent:
    """The agent. `llm` takes (messages, tools) and returns an OpenAI-style assistant message;
    `call_mcp` takes (server, tool, arguments) and returns text."""

    model: str = field(default_factory=lambda: os.environ.get("AGENT_MODEL", "gpt-4.1-mini"))
    llm: Callable[[list[dict], list[dict]], dict] | None = None
    call_mcp: Callable[[str, str, dict], str] | None = None
    steps: list[Step] = field(default_factory=list)

    def tool_specs(self) -> list[dict]:
        return [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters")}}
                for t in TOOLS]

    def run(self, question: str) -> str:
        messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT},
                                {"role": "user", "content": question}]
        ask = self.llm or self._openai
        for _ in range(MAX_STEPS):
            reply = ask(messages, self.tool_specs())
            messages.append(reply)
            calls = reply.get("tool_calls") or []
            if not calls:
                return reply.get("content") or ""
            for call in calls:
                name = call["function"]["name"]
                try:
                    args = json.loads(call["function"].get("arguments") or "{}")
                except json.JSONDecodeError as e:
                    args, result = {}, f"arguments are not valid JSON: {e}"
                else:
                    if name == "final_answer":
                        self.steps.append(Step(name, args, args.get("answer", "")))
                        return args.get("answer", "")
                    result = self._dispatch(name, args)
                self.steps.append(Step(name, args, result))
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        return "No answer within the step limit."

    def _dispatch(self, name: str, args: dict) -> str:
        tool = next((t for t in TOOLS if t["name"] == name), None)
        if tool is None:
            return f"unknown tool {name!r}; the tools are: {', '.join(t['name'] for t in TOOLS)}"
        if name == "run_python":
            return run_python(args.get("code", ""))
        if self.call_mcp is None:
            return f"{name} needs the MCP server {tool['server']!r}, which is not connected"
        return self.call_mcp(tool["server"], name, args)

    def _openai(self, messages: list[dict], tools: list[dict]) -> dict:
        base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
        body = json.dumps({"model": self.model, "messages": messages, "tools": tools}).encode()
        request = urllib.request.Request(f"{base}/chat/completions", data=body, headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', '')}"})
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.load(response)["choices"][0]["message"]


if __name__ == "__main__":
    print(GaiaAgent().run(" ".join(sys.argv[1:]) or "What is 2**10?"))
