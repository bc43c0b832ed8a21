"""PptAgent: researches a topic, writes an outline, and renders it as HTML slides.

    from ppt_agent.ppt_agent import PptAgent
    deck = PptAgent(out_dir="slides").run("A 6-slide intro to solar power for a school class")

The model first calls `write_outline` with the deck's structure, may search the web for facts,
then calls `render_slides`, which writes `deck.html` (one <section> per slide, arrow keys to move).
"""
from __future__ import annotations

import html
import json
import os
import pathlib
import sys
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable

AGENT_NAME = "ppt_agent"

SYSTEM_PROMPT = """You make clear, accurate slide decks. First understand the audience and the
length asked for. Then call write_outline with a title and the slides: each slide has a short
title, three to five bullets of at most twelve words, and speaker notes. Use web_search when you
need facts or numbers, and keep sources in the notes. Finally call render_slides and answer with
the path of the deck."""

TOOLS: list[dict[str, Any]] = [
    {"name": "web_search", "server": "web-search",
     "description": "Search the web; returns titles, links and snippets.",
     "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}},
    {"name": "write_outline", "server": None,
     "description": "Store the deck outline: a title and a list of slides (title, bullets, notes).",
     "parameters": {"type": "object", "properties": {
         "title": {"type": "string"},
         "slides": {"type": "array", "items": {"type": "object", "properties": {
             "title": {"type": "string"}, "bullets": {"type": "array", "items": {"type": "string"}},
             "notes": {"type": "string"}}, "required": ["title", "bullets"]}}},
         "required": ["title", "slides"]}},
    {"name": "render_slides", "server": None,
     "description": "Render the stored outline to deck.html and return its path.",
     "parameters": {"type": "object", "properties": {"theme": {"type": "string", "enum": ["light", "dark"]}}}},
    {"name": "final_answer", "server": None,
     "description": "Give the final answer (the deck's path) and stop.",
     "parameters": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}},
]

MAX_STEPS = 12

THEMES = {"light": ("#ffffff", "#1d2330", "#2b6cb0"), "dark": ("#14161c", "#e8eaf0", "#7fb3ff")}


def render_html(outline: dict, theme: str = "light") -> str:
    """The deck as one self-contained HTML page: one <section class="slide"> per slide."""
    bg, fg, accent = THEMES.get(theme, THEMES["light"])
    slides = []
    for i, slide in enumerate(outline.get("slides", []), 1):
        bullets = "".join(f"<li>{html.escape(str(b))}</li>" for b in slide.get("bullets", []))
        notes = html.escape(str(slide.get("notes", "")))
        slides.append(f'<section class="slide" id="s{i}"><h2>{html.escape(str(slide.get("title", "")))}</h2>'
                      f'<ul>{bullets}</ul><aside class="notes">{notes}</aside></section>')
    title = html.escape(str(outline.get("title", "Slides")))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ margin: 0; background: {bg}; color: {fg}; font-family: system-ui, sans-serif; }}
.slide {{ display: none; height: 100vh; padding: 8vh 10vw; box-sizing: border-box; }}
.slide.current {{ display: block; }}
h1, h2 {{ color: {accent}; }}
li {{ font-size: 1.6rem; margin: .6em 0; }}
.notes {{ display: none; }}
</style></head>
<body>
<section class="slide current" id="s0"><h1>{title}</h1></section>
{''.join(slides)}
<script>
let i = 0; const s = document.querySelectorAll('.slide');
document.addEventListener('keydown', e => {{
  s[i].classList.remove('current');
  i = Math.max(0, Math.min(s.length - 1, i + (e.key === 'ArrowLeft' ? -1 : 1)));
  s[i].classList.add('current');
}});
</script>
</body></html>
"""


@dataclass
class PptAgent:
    """The agent. `llm` takes (messages, tools) and returns an OpenAI-style assistant message;
    `call_mcp` takes (server, tool, arguments) and returns text."""

    out_dir: str = "slides"
    model: str = field(default_factory=lambda: os.environ.get("AGENT_MODEL", "gpt-4.1-mini"))
    llm: Callable[[list[dict], list[dict]], dict] | None = None
    call_mcp: Callable[[str, str, dict], str] | None = None
    outline: dict | None = None

    def tool_specs(self) -> list[dict]:
        return [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters")}}
                for t in TOOLS]

    def run(self, request: str) -> str:
        messages: list[dict] = [{"role": "system", "content": SYSTEM_PROMPT},
                                {"role": "user", "content": request}]
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
                    result = f"arguments are not valid JSON: {e}"
                else:
                    if name == "final_answer":
                        return args.get("answer", "")
                    result = self._dispatch(name, args)
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        return "No deck within the step limit."

    def _dispatch(self, name: str, args: dict) -> str:
        if name == "write_outline":
            if not args.get("slides"):
                return "the outline needs at least one slide"
            self.outline = {"title": args.get("title", ""), "slides": args["slides"]}
            return f"outline stored: {len(args['slides'])} slides"
        if name == "render_slides":
            if self.outline is None:
                return "no outline yet: call write_outline first"
            out = pathlib.Path(self.out_dir)
            out.mkdir(parents=True, exist_ok=True)
            path = out / "deck.html"
            path.write_text(render_html(self.outline, args.get("theme", "light")), encoding="utf-8")
            return str(path)
        tool = next((t for t in TOOLS if t["name"] == name), None)
        if tool is None:
            return f"unknown tool {name!r}; the tools are: {', '.join(t['name'] for t in TOOLS)}"
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


def selfcheck_extra() -> list[str]:
    """Renders a two-slide outline offline and checks the HTML (used by selfcheck.py)."""
    from html.parser import HTMLParser

    class Sections(HTMLParser):
        def __init__(self):
            super().__init__()
            self.slides = 0

        def handle_starttag(self, tag, attrs):
            classes = (dict(attrs).get("class") or "").split()
            if tag == "section" and "slide" in classes:
                self.slides += 1

    page = render_html({"title": "T <&>", "slides": [{"title": "A", "bullets": ["x"]}, {"title": "B", "bullets": []}]})
    parser = Sections()
    parser.feed(page)
    problems = []
    if parser.slides != 3:
        problems.append(f"render_html made {parser.slides} slides, expected 3 (title + 2)")
    if "T &lt;&amp;&gt;" not in page:
        problems.append("render_html does not escape the title")
    return problems


if __name__ == "__main__":
    print(PptAgent().run(" ".join(sys.argv[1:]) or "Three slides on how bees make honey"))
