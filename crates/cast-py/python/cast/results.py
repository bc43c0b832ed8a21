"""The typed results of CAST's calls.

Each class is a dataclass (not frozen: defining a frozen one costs more than twice as much at
import) whose fields are those of the JSON the ``cast`` command prints
with ``--json`` for the same call (the same Rust types serialise both); ``docs/python.md`` lists
where a result differs from that JSON and why. Kinds (``symbol_kind``, ``tier``, …) are strings,
as in the JSON.
"""

from __future__ import annotations

import dataclasses
import datetime
import sys
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__all__ = [
    "BlockMatch",
    "ChangedFile",
    "FileProblem",
    "Found",
    "GlobResult",
    "GrepLine",
    "GrepResult",
    "Hit",
    "Hunk",
    "LineRange",
    "LogicMap",
    "MapError",
    "MapFile",
    "MapSymbol",
    "NewSyntaxError",
    "ReadLine",
    "ReadResult",
    "Reference",
    "ReindentHint",
    "Scores",
    "Searched",
    "Skeleton",
    "SkeletonLine",
    "Symbol",
    "SymbolSource",
    "Symbols",
    "SyntaxError",
    "ToolResult",
    "ToolSpec",
    "UndoEntry",
    "UnparsedFile",
]


def build(cls: Any, value: Any) -> Any:
    """Builds ``cls`` (a dataclass, ``List[X]``, ``Optional[X]``, ``Dict``, a plain type)
    from decoded JSON."""
    if value is None:
        return None
    origin = typing.get_origin(cls)
    if origin is typing.Union:
        inner = [a for a in typing.get_args(cls) if a is not type(None)]
        return build(inner[0], value) if len(inner) == 1 else value
    if origin in (list, List):
        (item,) = typing.get_args(cls)
        return [build(item, v) for v in value]
    if dataclasses.is_dataclass(cls):
        hints = _hints(cls)
        kwargs = {
            f.name: build(hints[f.name], value[f.name])
            for f in dataclasses.fields(cls)
            if f.name in value
        }
        return cls(**kwargs)
    return value


_HINTS: Dict[type, Dict[str, Any]] = {}


def _hints(cls: type) -> Dict[str, Any]:
    hints = _HINTS.get(cls)
    if hints is None:
        hints = typing.get_type_hints(cls, vars(sys.modules[cls.__module__]))
        _HINTS[cls] = hints
    return hints


# --- L1: the logic map -----------------------------------------------------------------------


@dataclass
class SyntaxError:  # noqa: A001 - CAST's name for it; the builtin stays builtins.SyntaxError
    """Where and why a file does not parse (the first error its parser found).

    Attributes:
        line: The 1-based line of the error.
        message: What the parser expected or found.
    """

    line: int
    message: str


@dataclass
class MapError:
    """An error of a trace at a line of a mapped file.

    Attributes:
        line: The line (0 when the error is about the whole file).
        message: The error.
        code: The code at that line.
    """

    line: int
    message: str
    code: str


@dataclass
class MapSymbol:
    """A symbol shown in the map.

    Attributes:
        kind: ``class``, ``function``, ``method``, ``struct``, ….
        qualname: Its qualified name within the file (``Cart.add``).
        signature: Its signature on one line.
        line: Its first line.
        end_line: Its last line.
        rank: Its PageRank over the call graph.
        depth: Nesting depth (0 for top level).
        calls: Calls seen in the trace (with a trace).
        errors: Trace errors inside it.
        calls_to: What it calls, the highest ranked first, at most three.
    """

    kind: str
    qualname: str
    signature: str
    line: int
    end_line: int
    rank: float
    depth: int
    calls: Optional[int]
    errors: List[MapError]
    calls_to: List[str]


@dataclass
class MapFile:
    """A file shown in the map.

    Attributes:
        path: Relative to the root, with ``/``.
        rank: Its PageRank over the import graph.
        description: Its one-line description (module docstring or doc comment).
        lines: Its line count.
        imports: The shown files it imports.
        calls: Calls in it seen in the trace (with a trace).
        symbols: Its key symbols.
        errors: Trace errors at module level.
        syntax_error: Its first syntax error, when it does not parse.
    """

    path: str
    rank: float
    description: Optional[str]
    lines: int
    imports: List[str]
    calls: Optional[int]
    symbols: List[MapSymbol]
    errors: List[MapError]
    syntax_error: Optional[SyntaxError] = None


@dataclass
class UnparsedFile:
    """A file of the tree that does not parse.

    Attributes:
        path: Relative to the root.
        error: Its first syntax error.
    """

    path: str
    error: SyntaxError


@dataclass
class LogicMap:
    """The logic map (L1) of a tree: ``cast map``.

    Attributes:
        root: The root, as given.
        files_total: Files in the index (or in the scope).
        symbols_total: Symbols in them.
        files: The files shown, with their key symbols.
        omitted_files: Files left out to fit the budget.
        omitted_symbols: Symbols left out to fit the budget.
        budget: The token budget.
        tokens: Estimated tokens of ``text``.
        trace_unmatched: Files of the trace that are not in the index.
        traced: Whether a trace was mapped.
        unparsed: Files that do not parse (the first few).
        unparsed_total: How many files do not parse.
        focus: The task the map is focused on.
        text: The map as ``cast map`` prints it (what a model reads).
        scope: The patterns of the part of the tree mapped (empty: all of it).
    """

    root: str
    files_total: int
    symbols_total: int
    files: List[MapFile]
    omitted_files: int
    omitted_symbols: int
    budget: int
    tokens: int
    trace_unmatched: List[str]
    traced: bool
    unparsed: List[UnparsedFile]
    unparsed_total: int
    focus: Optional[str]
    text: str = field(repr=False)
    scope: List[str] = field(default_factory=list)

    def render(self) -> str:
        """The map as ``cast map`` prints it."""
        return self.text


# --- find ------------------------------------------------------------------------------------


@dataclass
class Scores:
    """The components of a hit's score (``docs/analyzer.md`` gives every weight).

    Attributes:
        text: Full-text (BM25F) evidence.
        path: The query's words in the path.
        symbols: Evidence from the file's symbols (for a file).
        ident: An identifier of the query found exactly.
        graph: Personalised PageRank from the best hits.
        rank: Global PageRank.
        history: Past commits whose messages match the query.
        churn: How often the file changed lately.
        cover: How many of the query's words the file holds.
        factor: The demotion of tests, examples, stubs, third-party code.
        total: The score the hits are ranked by.
    """

    text: float
    path: float
    symbols: float
    ident: float
    graph: float
    rank: float
    history: float
    churn: float
    cover: float
    factor: float
    total: float


@dataclass
class Hit:
    """One symbol or file ``find`` ranked.

    Attributes:
        kind: ``symbol`` or ``file``.
        path: Relative to the root.
        line: The symbol's first line (1 for a file).
        end_line: Its last line.
        symbol_kind: ``class``, ``function``, … (symbols only).
        qualname: The qualified name within its file (symbols only).
        full_name: With the module (``shop.cart.Cart.add``).
        signature: Its signature.
        doc: The first line of its docstring or doc comment.
        matches: A file's symbols that matched the query.
        past_commit: The subject of the past commit that counted, if any.
        score: The total score.
        scores: Each component of it.
    """

    kind: str
    path: str
    line: int
    end_line: int
    symbol_kind: Optional[str]
    qualname: Optional[str]
    full_name: Optional[str]
    signature: Optional[str]
    doc: Optional[str]
    matches: List[str]
    past_commit: Optional[str]
    score: float
    scores: Scores


@dataclass
class Searched:
    """What a search covered.

    Attributes:
        files: Files searched.
        symbols: Symbols searched.
    """

    files: int
    symbols: int


@dataclass
class Found:
    """What ``find`` found: ``cast find``.

    Attributes:
        symbols: The best symbols, best first (empty with ``files=True``).
        files: The best files, best first.
        searched: How much was searched.
        text: The result as ``cast find`` prints it.
        note: When nothing matched, why (as ``cast find`` says on stderr); else ``None``.
        scope: The ``within`` patterns searched (empty: the whole tree).
    """

    symbols: List[Hit]
    files: List[Hit]
    searched: Searched
    text: str = field(repr=False)
    note: Optional[str] = None
    scope: List[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.symbols or self.files)

    def render(self) -> str:
        """The result as ``cast find`` prints it."""
        return self.text


# --- show ------------------------------------------------------------------------------------


@dataclass
class Reference:
    """A reference to or from a shown symbol.

    Attributes:
        path: Where the reference is written.
        line: Its line.
        symbol: The symbol on the other side (``None`` for module-level code).
        symbol_path: Where that symbol is defined.
        symbol_line: Its line.
        kind: ``call``, ``attribute``, ``decorator``, ``inherit`` or ``type``.
        how: How it was resolved: ``local``, ``import``, ``self``, ``super``, ``attribute``,
            ``name``, ….
        weight: 1/k when the name had k candidates, else 1.
    """

    path: str
    line: int
    symbol: Optional[str]
    symbol_path: str
    symbol_line: int
    kind: str
    how: str
    weight: float


@dataclass
class SymbolSource:
    """A symbol's exact source (L3) with its references: ``cast show``.

    Attributes:
        path: Its file.
        kind: ``class``, ``function``, … (``None`` for module-level code).
        qualname: Its qualified name.
        signature: Its signature.
        start_line: The first line shown (its first decorator's).
        end_line: The last line.
        source: The exact text of those lines.
        referenced_by: Who references it, resolved (at most 50).
        referenced_by_total: How many resolved references there are.
        referenced_by_name: References by name alone (guesses; at most 50).
        referenced_by_name_total: How many of those there are.
        references: What it references, resolved (at most 50).
        references_by_name: What it may reference by name alone (at most 50).
        others: Other symbols the name matched (``path:line qualname``), best first.
        text: The result as ``cast show`` prints it.
    """

    path: str
    kind: Optional[str]
    qualname: str
    signature: str
    start_line: int
    end_line: int
    source: str
    referenced_by: List[Reference]
    referenced_by_total: int
    referenced_by_name: List[Reference]
    referenced_by_name_total: int
    references: List[Reference]
    references_by_name: List[Reference]
    others: List[str]
    text: str = field(repr=False)

    def render(self) -> str:
        """The result as ``cast show`` prints it."""
        return self.text


# --- skeleton, symbols -----------------------------------------------------------------------


@dataclass
class SkeletonLine:
    """One line of a skeleton.

    Attributes:
        line: Its line in the original file.
        text: The text, indented by nesting depth.
    """

    line: int
    text: str


@dataclass
class Skeleton:
    """The skeleton (L2) of a file: ``cast skeleton``.

    Attributes:
        path: The file, as named.
        language: Its language (``python``, ``rust``, …).
        line_count: Lines of the file.
        source_bytes: Bytes of the file.
        lines: The skeleton's lines.
        text: The skeleton as ``cast skeleton`` prints it (``(Line N) text``).
        syntax_error: The first syntax error, when the file does not parse.
    """

    path: str
    language: str
    line_count: int
    source_bytes: int
    lines: List[SkeletonLine]
    text: str = field(repr=False)
    syntax_error: Optional[SyntaxError] = None

    def render(self) -> str:
        """The skeleton as ``cast skeleton`` prints it."""
        return self.text


@dataclass
class Symbol:
    """A symbol: a line of ``cast symbols --json``.

    Attributes:
        path: Relative to the root walked.
        kind: ``class``, ``function``, ``method``, ….
        name: Its name.
        qualname: Its qualified name within the file.
        start_line: Its first line.
        end_line: Its last line.
        language: Its file's language.
        signature: Its signature on one line.
        decorated_line: Its first decorator's line (its first line when it has none).
        doc: The first line of its docstring or doc comment.
        root: The path walked, as given.
    """

    path: str
    kind: str
    name: str
    qualname: str
    start_line: int
    end_line: int
    language: str
    signature: str
    decorated_line: int
    doc: Optional[str]
    root: str


@dataclass
class FileProblem:
    """A file skipped (binary, too large, unreadable) or that does not parse.

    Attributes:
        path: Relative to the root walked.
        message: Why.
    """

    path: str
    message: str


@dataclass
class Symbols:
    """The symbols of a tree: ``cast symbols``.

    Attributes:
        symbols: In path, then line order.
        skipped: Files not parsed, with the reason (``cast symbols`` warns of them).
        syntax_errors: Files that do not parse (their symbols are best effort).
    """

    symbols: List[Symbol]
    skipped: List[FileProblem]
    syntax_errors: List[FileProblem]

    def __iter__(self) -> typing.Iterator[Symbol]:
        return iter(self.symbols)

    def __len__(self) -> int:
        return len(self.symbols)


# --- grep, glob, read ------------------------------------------------------------------------


@dataclass
class GrepLine:
    """A matching (or context) line.

    Attributes:
        path: Relative to the root searched.
        line: Its 1-based number.
        text: The line, without its ending (cut with a marker when long).
        context: A context line around a match, not a match.
        cut: The text was cut.
    """

    path: str
    line: int
    text: str
    context: bool = False
    cut: bool = False


@dataclass
class GrepResult:
    """What ``grep`` found: ``cast grep``.

    Attributes:
        lines: Matching and context lines, in path-then-line order.
        match_count: Matching lines.
        files_with_matches: Files with a matching line.
        capped: ``max_results`` stopped the search; more matches may exist.
        max_results: The cap that applied (0: none).
        files_searched: Files searched.
        binary_files: Files where a NUL byte stopped the search.
        errors: Files and folders that could not be read.
    """

    lines: List[GrepLine]
    match_count: int
    files_with_matches: int
    capped: bool
    max_results: int
    files_searched: int
    binary_files: int
    errors: List[FileProblem]


@dataclass
class GlobResult:
    """The files a glob matched: ``cast glob``.

    Attributes:
        paths: Relative to the root, in path order.
        capped: ``max_results`` cut the list.
        max_results: The cap that applied (0: none).
        files_walked: Files walked.
        errors: Files and folders that could not be read.
    """

    paths: List[str]
    capped: bool
    max_results: int
    files_walked: int
    errors: List[FileProblem]


@dataclass
class ReadLine:
    """A numbered line of a file.

    Attributes:
        line: Its 1-based number.
        text: The line, without its ending.
        cut: The text was cut (a very long line).
    """

    line: int
    text: str
    cut: bool = False


@dataclass
class ReadResult:
    """Lines of a file: ``cast read``.

    Attributes:
        lines: The lines shown.
        total_lines: How many lines the file has.
        size: Its size in bytes.
        next_start: When the size guard stopped early, the line to read on from.
        lossy_utf8: The file is not valid UTF-8 (undecodable bytes shown as U+FFFD).
    """

    lines: List[ReadLine]
    total_lines: int
    size: int
    next_start: Optional[int]
    lossy_utf8: bool

    @property
    def text(self) -> str:
        """The lines joined with newlines, without numbers."""
        return "\n".join(line.text for line in self.lines)


# --- edits -----------------------------------------------------------------------------------


@dataclass
class Hunk:
    """A changed range of lines.

    Attributes:
        old_start: First old line.
        old_lines: Old lines removed.
        new_start: First new line.
        new_lines: New lines written.
    """

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int


@dataclass
class LineRange:
    """An inclusive range of 1-based lines.

    Attributes:
        start: First line.
        end: Last line (``end < start``: an insertion point before ``start``).
    """

    start: int
    end: int


@dataclass
class BlockMatch:
    """How a search-replace block matched.

    Attributes:
        block: The block's number (1-based).
        tier: ``exact``, ``trailing_whitespace``, ``blank_lines``, ``indentation``,
            ``whitespace``, ``punctuation`` or ``fuzzy``.
        lines: The lines it matched.
        similarity: For ``fuzzy``, how similar the match was (0–1).
        elided: It used ``...`` to elide lines.
        line_numbers_stripped: Line-number prefixes were stripped from it.
    """

    block: int
    tier: str
    lines: LineRange
    elided: bool
    line_numbers_stripped: bool
    similarity: Optional[float] = None


@dataclass
class ReindentHint:
    """The REPLACE of a block re-indented as the file's indentation would have it.

    Attributes:
        block: The block's number.
        replace: Its REPLACE lines, re-indented.
    """

    block: int
    replace: List[str]


@dataclass
class NewSyntaxError:
    """A syntax error an edit brought into a file that parsed before.

    Attributes:
        line: Its line.
        message: The parser's message.
        reindent: A likely fix, when the cause looks like indentation.
    """

    line: int
    message: str
    reindent: Optional[ReindentHint] = None


@dataclass
class ChangedFile:
    """What an edit did (or in a dry run would do) to one file: a line of ``cast apply --json``.

    Attributes:
        path: Relative to the workspace root.
        created: The file is new.
        changed: Its bytes change at all.
        diff: The unified diff (empty when nothing changes).
        hunks: The changed line ranges.
        blocks: How each search-replace block matched.
        new_syntax_error: A syntax error the edit brought into a file that parsed.
    """

    path: str
    created: bool
    changed: bool
    diff: str
    hunks: List[Hunk]
    blocks: List[BlockMatch] = field(default_factory=list)
    new_syntax_error: Optional[NewSyntaxError] = None


@dataclass
class UndoEntry:
    """A change set of the undo journal: a line of ``cast undo --json``.

    Attributes:
        id: Its number (rising).
        time: When it was written (seconds since the Unix epoch).
        description: What wrote it.
        files: The files it changed, relative to the root.
    """

    id: int
    time: int
    description: str
    files: List[str]

    @property
    def when(self) -> datetime.datetime:
        """``time`` as an aware UTC datetime."""
        return datetime.datetime.fromtimestamp(self.time, tz=datetime.timezone.utc)


# --- tools -----------------------------------------------------------------------------------


@dataclass
class ToolSpec:
    """An agent tool: a line of ``cast tools --json``.

    Attributes:
        name: The tool's name.
        description: What it does, written for a model.
        parameters: The JSON Schema (draft 2020-12) of its arguments.
    """

    name: str
    description: str
    parameters: Dict[str, Any]


@dataclass
class ToolResult:
    """The result of one tool call: what ``cast tool`` prints.

    Attributes:
        tool: The tool's name.
        status: ``ok``, or ``refused`` (nothing changed; ``text`` says why).
        text: What the model reads.
        data: The structured result (its shape depends on the tool).
        truncated: ``text`` was cut to fit the output cap.
    """

    tool: str
    status: str
    text: str
    data: Any
    truncated: bool

    @property
    def ok(self) -> bool:
        """Whether the tool did what was asked."""
        return self.status == "ok"
