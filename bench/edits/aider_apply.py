#!/usr/bin/env python3
"""Apply a SEARCH/REPLACE edit with Aider's own matcher, under the edit runner's contract.

    AIDER_PY apply_aider.py --format FORMAT --edit EDIT_FILE TARGET_FILE

where AIDER_PY is a Python with aider-chat installed (Aider is not part of this repository):

    python3 -m venv /tmp/aider-venv && /tmp/aider-venv/bin/pip install aider-chat==0.86.2
    python3 ../shared/bench/edits/run.py --cases ../shared/bench/edits/dev \\
      --variants sr-exact sr-multi sr-trailing-ws sr-indent sr-nearmiss sr-elided sr-ambiguous sr-missing \\
      --cmd '/tmp/aider-venv/bin/python bench/edits/aider_apply.py --format {format} --edit {edit} {target}'

What runs is Aider 0.86.2's code, unchanged: its block parser `find_original_update_blocks`
and, for every block, `do_replace` (strip_quoted_wrapping, then replace_most_similar_chunk:
perfect match, then leading-whitespace-flexible match, then `...` elision; its fuzzy tier is
disabled upstream) from aider/coders/editblock_coder.py, imported from the installed package.
Only Aider's heavy coder base class (LLM clients) is stubbed out so one case imports in
~0.1 s instead of ~4 s; the functions used never touch it.

The adapter's own choices, each in Aider's favour or neutral:
- Our markers (`------- SEARCH`, `+++++++ REPLACE`) are rewritten to Aider's (`<<<<<<< SEARCH`,
  `>>>>>>> REPLACE`) and the target's name is put on the line before, as Aider expects.
- Blocks apply in order, each to the text the previous ones produced, as Aider's apply_edits
  does. Aider writes the blocks that matched even when another failed; here, if any block fails
  nothing is written and the exit code is 1 (otherwise such cases would score CORRUPTED).
- Formats other than search-replace are not Aider's: exit 3 (they count as refused).
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import types
from pathlib import Path


def load_editblock():
    """Import aider.coders.editblock_coder without aider.coders' heavy package init."""
    import aider  # the installed package: its __init__ is light

    coders_dir = Path(aider.__file__).parent / "coders"
    pkg = types.ModuleType("aider.coders")
    pkg.__path__ = [str(coders_dir)]
    sys.modules["aider.coders"] = pkg
    base = types.ModuleType("aider.coders.base_coder")

    class Coder:  # stand-in for the LLM-driving base class, unused by the functions we call
        pass

    base.Coder = Coder
    sys.modules["aider.coders.base_coder"] = base
    spec = importlib.util.spec_from_file_location(
        "aider.coders.editblock_coder", coders_dir / "editblock_coder.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["aider.coders.editblock_coder"] = module
    spec.loader.exec_module(module)
    return module, aider.__version__


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--format", required=True)
    ap.add_argument("--edit", required=True, type=Path)
    ap.add_argument("target", type=Path)
    args = ap.parse_args()
    if args.format != "search-replace":
        print(f"aider_apply: format {args.format} is not Aider's", file=sys.stderr)
        return 3
    eb, version = load_editblock()
    edit = args.edit.read_text(encoding="utf-8")
    edit = re.sub(r"(?m)^-{7,} SEARCH>?[ \t]*$", "<<<<<<< SEARCH", edit)
    edit = re.sub(r"(?m)^\+{7,} REPLACE>?[ \t]*$", ">>>>>>> REPLACE", edit)
    name = args.target.name
    # Aider reads the file name from the line before each block.
    edit = re.sub(r"(?m)^<<<<<<< SEARCH$", f"{name}\n<<<<<<< SEARCH", edit)
    try:
        blocks = [b for b in eb.find_original_update_blocks(edit, valid_fnames=[name]) if b[0] is not None]
    except ValueError as e:
        print(f"aider {version}: malformed edit: {e}", file=sys.stderr)
        return 1
    if not blocks:
        print(f"aider {version}: no blocks", file=sys.stderr)
        return 1
    content = args.target.read_text(encoding="utf-8")
    for i, (_, original, updated) in enumerate(blocks, 1):
        new = eb.do_replace(str(args.target), content, original, updated, eb.DEFAULT_FENCE)
        if not new:
            print(f"aider {version}: block {i} of {len(blocks)} failed to match", file=sys.stderr)
            return 1
        content = new
    args.target.write_text(content, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
