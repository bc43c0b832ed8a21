"""The functions of ``import cast``: thin, typed wrappers over ``cast._native``."""

from __future__ import annotations

import json
import os
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from . import _native
from .errors import InvalidToolCall
from .results import (
    ChangedFile,
    Found,
    GlobResult,
    GrepResult,
    LogicMap,
    ReadResult,
    Skeleton,
    SymbolSource,
    Symbols,
    ToolResult,
    ToolSpec,
    UndoEntry,
    build,
)

PathLike = Union[str, "os.PathLike[str]"]

# The defaults of the `cast` commands (crates/cast-cli), so a call without options answers
# as the command without flags does.
DEFAULT_MAP_BUDGET = 2000
DEFAULT_FIND_TOP = 10
DEFAULT_GREP_MAX_RESULTS = 50
DEFAULT_GLOB_MAX_RESULTS = 10
DEFAULT_READ_MAX_LINES = 2000
DEFAULT_READ_MAX_BYTES = 100_000


def _count(name: str, value: Any, minimum: int = 0) -> int:
    """``value`` as a count CAST accepts, or a ValueError that says what is wrong."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, not {value!r}")
    return value


def _within(within: Union[str, Sequence[str], None]) -> List[str]:
    if within is None:
        return []
    if isinstance(within, str):
        return [within]
    return [str(w) for w in within]


class Index:
    """The code index of one tree, kept open between questions.

    Opening builds the index (``ROOT/.cast/index.sqlite``) or brings it up to date; every
    question is then answered as if it were refreshed first, as the ``cast`` command answers
    (between questions the kernel watches the tree, so a question asked while nothing changed
    checks no file). An ``Index`` may be shared by threads: their questions take turns, and
    none holds the GIL while CAST works.

    Example:
        >>> index = cast.Index(".")
        >>> print(index.map(budget=1000).render())
        >>> index.find("parse an HTTP date").symbols[0].qualname

    Args:
        root: The root of the code base.

    Raises:
        CastError: ``root`` is not a folder, or the index cannot be built.
    """

    def __init__(self, root: PathLike = ".") -> None:
        self._native = _native.Index(os.fspath(root))

    @property
    def root(self) -> Path:
        """The root, as given."""
        return Path(self._native.root)

    def __repr__(self) -> str:
        return f"cast.Index({os.fspath(self.root)!r})"

    def map(
        self,
        budget: int = DEFAULT_MAP_BUDGET,
        *,
        focus: Optional[str] = None,
        within: Union[str, Sequence[str], None] = None,
        trace: Optional[PathLike] = None,
    ) -> LogicMap:
        """The logic map (L1): the tree, key symbols by PageRank, imports and module
        descriptions, within a token budget (``cast map``).

        Args:
            budget: Tokens the map may use (estimated as bytes / 4).
            focus: A task in words: the files and symbols it is about come first.
            within: Map only these files: folders, files or globs relative to the root
                (``"src/http"``, ``"*.rs"``); ``"!tests"`` leaves some out.
            trace: A traceback, pytest log, JSON-lines execution log or CAST session trace to
                map onto the code: only what ran is shown, with call counts and errors.

        Returns:
            The map; ``.render()`` is the text ``cast map`` prints.

        Raises:
            CastError: A bad ``within`` pattern, an unreadable trace, or a broken index.
        """
        raw = self._native.map(
            _count("budget", budget),
            focus,
            _within(within),
            None if trace is None else os.fspath(trace),
        )
        return build(LogicMap, json.loads(raw))

    def find(
        self,
        query: str,
        top: int = DEFAULT_FIND_TOP,
        *,
        files: bool = False,
        within: Union[str, Sequence[str], None] = None,
    ) -> Found:
        """Where a task or question is: the symbols (or files) it is about, best first
        (``cast find``).

        Args:
            query: Words, an identifier, or a whole issue text.
            top: How many symbols (or files with ``files=True``) to return.
            files: Rank files instead of symbols.
            within: Search only these files: folders, files or globs relative to the root;
                ``"!tests"`` leaves some out.

        Returns:
            The hits with each score component; falsy when nothing matched (``note`` says why).

        Raises:
            CastError: An empty query or a bad ``within`` pattern.
        """
        raw = self._native.find(query, _count("top", top, 1), files, _within(within))
        return build(Found, json.loads(raw))

    def show(self, symbol: str) -> SymbolSource:
        """The exact source of a symbol (L3), with what it references and who references it
        (``cast show``).

        Args:
            symbol: A qualified name (``"Cart.add"``, ``"shop.cart.Cart.add"``) or
                ``"FILE:LINE"`` for the innermost definition enclosing that line.

        Returns:
            The symbol's source and references.

        Raises:
            SymbolNotFound: No symbol matches (``named`` lists symbols of the same last name).
        """
        return build(SymbolSource, json.loads(self._native.show(symbol)))

    def skeleton(self, path: PathLike) -> Skeleton:
        """The skeleton (L2) of a file of this tree (``cast skeleton``).

        Args:
            path: The file, relative to the root.

        Returns:
            The skeleton, named by ``path`` as given.

        Raises:
            CastError: No such file, or no parser for it.
        """
        return skeleton(self.root / path, name=os.fspath(path))


def skeleton(path: PathLike, *, name: Optional[str] = None) -> Skeleton:
    """The skeleton (L2) of a file: imports, signatures, decorators and first docstring
    paragraphs with their line numbers, bodies elided (``cast skeleton``).

    Args:
        path: The file.
        name: How the result names the file (default: ``path`` as given).

    Returns:
        The skeleton; ``.render()`` is the text ``cast skeleton`` prints.

    Raises:
        CastError: No such file, or no parser for it.
    """
    shown = os.fspath(path) if name is None else name
    return build(Skeleton, json.loads(_native.skeleton(os.fspath(path), shown)))


def symbols(
    path: PathLike = ".",
    *,
    kinds: Sequence[str] = (),
    hidden: bool = False,
    no_ignore: bool = False,
    follow_links: bool = False,
) -> Symbols:
    """The symbols of the files under a folder (or of one file), walked as ripgrep walks and
    parsed on all cores (``cast symbols``).

    Args:
        path: A folder or a file.
        kinds: Only these kinds (``"class"``, ``"function"``, ``"method"``, …); empty: all.
        hidden: Also walk hidden files and folders.
        no_ignore: Do not respect ``.gitignore`` and the like.
        follow_links: Follow symbolic links.

    Returns:
        The symbols in path, then line order, and the files skipped or not parsed.

    Raises:
        CastError: No such path, or an unknown kind.
    """
    raw = _native.symbols(os.fspath(path), list(kinds), hidden, no_ignore, follow_links)
    return build(Symbols, json.loads(raw))


def grep(
    pattern: str,
    path: PathLike = ".",
    *,
    fixed_strings: bool = False,
    ignore_case: bool = False,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_results: int = DEFAULT_GREP_MAX_RESULTS,
    context: int = 0,
    hidden: bool = False,
    no_ignore: bool = False,
    follow_links: bool = False,
) -> GrepResult:
    """Lines matching a regex (or exact text), exactly the lines ``rg -n`` finds, in
    path-then-line order (``cast grep``).

    Args:
        pattern: A regular expression (Rust syntax), or text with ``fixed_strings``.
        path: The folder or file to search.
        fixed_strings: Match ``pattern`` as exact text.
        ignore_case: Match case-insensitively.
        include: Search only files matching these globs.
        exclude: Skip files matching these globs.
        max_results: Stop after this many matching lines (0: all).
        context: Lines of context around each match.
        hidden: Also search hidden files and folders.
        no_ignore: Do not respect ``.gitignore`` and the like.
        follow_links: Follow symbolic links.

    Returns:
        The lines and the search's counts.

    Raises:
        CastError: A bad regex or glob, or no such path.
    """
    raw = _native.grep(
        pattern,
        os.fspath(path),
        fixed_strings,
        ignore_case,
        list(include),
        list(exclude),
        _count("max_results", max_results),
        _count("context", context),
        hidden,
        no_ignore,
        follow_links,
    )
    return build(GrepResult, json.loads(raw))


def glob(
    pattern: str,
    path: PathLike = ".",
    *,
    max_results: int = DEFAULT_GLOB_MAX_RESULTS,
    hidden: bool = False,
    no_ignore: bool = False,
    follow_links: bool = False,
) -> GlobResult:
    """Files whose path matches a glob, in path order (``cast glob``).

    Args:
        pattern: A glob: ``*`` stays within a folder, ``**`` crosses folders; it matches at
            any depth unless it starts with ``/``.
        path: The folder to walk.
        max_results: At most this many files (0: all).
        hidden: Also walk hidden files and folders.
        no_ignore: Do not respect ``.gitignore`` and the like.
        follow_links: Follow symbolic links.

    Returns:
        The matching paths, relative to ``path``.

    Raises:
        CastError: A bad glob, or no such folder.
    """
    raw = _native.glob(
        pattern, os.fspath(path), _count("max_results", max_results), hidden, no_ignore, follow_links
    )
    return build(GlobResult, json.loads(raw))


def read(
    path: PathLike,
    *,
    start: Optional[int] = None,
    end: Optional[int] = None,
    max_lines: int = DEFAULT_READ_MAX_LINES,
    max_bytes: int = DEFAULT_READ_MAX_BYTES,
) -> ReadResult:
    """Numbered lines of a file, within a size guard (``cast read``).

    Args:
        path: The file.
        start: The first line (1-based); default: the first.
        end: The last line (inclusive); default: the last.
        max_lines: The size guard: at most this many lines.
        max_bytes: The size guard: at most this many bytes.

    Returns:
        The lines; ``next_start`` says where to read on when the guard stopped early.

    Raises:
        CastError: No such file, a binary file, or a bad range.
    """
    start = None if start is None else _count("start", start, 1)
    end = None if end is None else _count("end", end, 1)
    raw = _native.read(
        os.fspath(path), start, end, _count("max_lines", max_lines, 1), _count("max_bytes", max_bytes, 1)
    )
    return build(ReadResult, json.loads(raw))


def apply_edit(
    edit: str,
    path: Optional[PathLike] = None,
    *,
    root: PathLike = ".",
    format: Optional[str] = None,
    dry_run: bool = False,
    exact_match_only: bool = False,
    refuse_syntax_errors: bool = False,
    journal: bool = True,
) -> List[ChangedFile]:
    """Applies a model-written edit exactly, or refuses it and changes nothing
    (``cast apply``).

    Every block, op or patch applies, or none does; files are written atomically after their
    old bytes go to the undo journal in ``ROOT/.cast/undo/`` (see :func:`undo`). Paths stay
    inside ``root`` (not into ``.git/`` or ``.cast/``).

    Args:
        edit: The edit's text: search-replace blocks (``------- SEARCH`` / ``=======`` /
            ``+++++++ REPLACE``, or the JSON operation form), ops (a JSON array of
            insert/replace/delete by original line number), a diff-match-patch patch, or a
            lazy sketch (the new file with ``... existing code ...`` lines).
        path: The file to edit, relative to ``root``. ``None``: the files the edit names
            (``<file-edit filePath="…">`` sections, ops' ``file_path``), all or nothing.
        root: The workspace root.
        format: ``"search-replace"``, ``"op"``, ``"dmp"`` or ``"lazy"``; default: told from
            the edit.
        dry_run: Plan the edit and return its diff, writing nothing.
        exact_match_only: Search-replace only: a block applies only where it matches exactly.
        refuse_syntax_errors: Refuse an edit that leaves a file which parsed unparseable (by
            default it is applied and ``new_syntax_error`` says where).
        journal: Record the change in the undo journal.

    Returns:
        What changed (or would change) in each file.

    Raises:
        EditRefused: The edit does not apply; ``reason`` says why (closest lines, ambiguous
            places, …). Nothing was written.
        OutsideWorkspace: A path outside ``root``.
        CastError: An unknown format, or a file that cannot be read or written.
    """
    raw = _native.apply_edit(
        os.fspath(root),
        edit,
        None if path is None else os.fspath(path),
        format,
        dry_run,
        exact_match_only,
        refuse_syntax_errors,
        journal,
    )
    return [build(ChangedFile, f) for f in json.loads(raw)]


def undo(root: PathLike = ".", *, steps: int = 1, force: bool = False) -> List[UndoEntry]:
    """Reverts the last change sets of the undo journal, each as a whole (``cast undo``).

    Args:
        root: The workspace root.
        steps: How many change sets to revert, newest first.
        force: Revert even when a file changed after the change set wrote it.

    Returns:
        The change sets reverted.

    Raises:
        UndoRefused: Nothing to undo, or a file changed since (without ``force``).
    """
    raw = _native.undo(os.fspath(root), _count("steps", steps, 1), force)
    return [build(UndoEntry, e) for e in json.loads(raw)]


def undo_history(root: PathLike = ".") -> List[UndoEntry]:
    """The change sets that can be undone, newest first (``cast undo --list``).

    Args:
        root: The workspace root.

    Returns:
        The journal's change sets.
    """
    return [build(UndoEntry, e) for e in json.loads(_native.undo_history(os.fspath(root)))]


# --- the agent tools -------------------------------------------------------------------------


def binary_path(name: str = "cast") -> Optional[Path]:
    """Where the ``cast`` binary (or ``cast-sandbox``) this package installed is.

    Args:
        name: ``"cast"`` or ``"cast-sandbox"``.

    Returns:
        The program installed with this package (in the environment's scripts folder), or
        ``None`` when there is none.
    """
    exe = name + (".exe" if sys.platform == "win32" else "")
    folders = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    user = sysconfig.get_path("scripts", f"{os.name}_user")
    if user:
        folders.append(Path(user))
    for folder in folders:
        candidate = folder / exe
        if candidate.is_file():
            return candidate
    return None


class Toolbox:
    """CAST's agent tools over one workspace, as ``cast mcp --root ROOT`` serves them: the
    same registry, JSON schemas, argument validation, and every path confined to the root.

    Calls from several threads run side by side; none holds the GIL while CAST works.

    Example:
        >>> box = cast.Toolbox(".")
        >>> [spec.name for spec in box.specs()][:3]
        ['read_file', 'edit_file', 'delete_file']
        >>> box.call("find_symbol", {"query": "parse a date"}).text

    Args:
        root: The workspace root.
        allow_commands: Offer ``run_command`` (confined by ``sandbox``).
        dry_run: Edit tools plan and return their diff but write nothing.
        refuse_syntax_errors: Refuse an edit that leaves a file which parsed unparseable.
        sandbox: How ``run_command`` is confined: ``"workspace-write"``, ``"read-only"`` or
            ``"danger-full-access"``.
        max_output_bytes: Cap on a tool's text (default 32 KiB).

    Raises:
        CastError: ``root`` is not a folder, or an unknown sandbox mode.
    """

    def __init__(
        self,
        root: PathLike = ".",
        *,
        allow_commands: bool = False,
        dry_run: bool = False,
        refuse_syntax_errors: bool = False,
        sandbox: str = "workspace-write",
        max_output_bytes: Optional[int] = None,
    ) -> None:
        helper = binary_path("cast-sandbox") if allow_commands else None
        self._native = _native.Toolbox(
            os.fspath(root),
            allow_commands,
            dry_run,
            refuse_syntax_errors,
            sandbox,
            None if helper is None else os.fspath(helper),
            max_output_bytes,
        )

    @property
    def root(self) -> Path:
        """The workspace root (resolved)."""
        return Path(self._native.root)

    def __repr__(self) -> str:
        return f"cast.Toolbox({os.fspath(self.root)!r})"

    def specs(self) -> List[ToolSpec]:
        """Every tool's name, description and parameter JSON Schema (``cast tools --json``).

        Returns:
            The tools, in the registry's order.
        """
        return [build(ToolSpec, s) for s in json.loads(self._native.specs())]

    def call(self, name: str, args: Optional[Mapping[str, Any]] = None) -> ToolResult:
        """Runs one tool call (``cast tool NAME --args JSON``).

        A tool that refuses (an edit that does not apply, a missing file) returns a result
        with ``status == "refused"`` and the reason in ``text``: that is an answer for the
        model, not an exception.

        Args:
            name: The tool's name.
            args: Its arguments, validated against its schema.

        Returns:
            The result: ``text`` for the model, ``data`` for programs.

        Raises:
            InvalidToolCall: An unknown tool, or arguments that do not fit its schema.
            OutsideWorkspace: A path outside the root.
            ToolRefused: A disabled tool, or a command that could not be confined.
        """
        if args is not None and not isinstance(args, Mapping):
            raise InvalidToolCall(
                f"the arguments of {name} must be a JSON object (a dict), not {type(args).__name__}"
            )
        raw = self._native.call(name, json.dumps(dict(args or {})))
        return build(ToolResult, json.loads(raw))


def tools(*, allow_commands: bool = False) -> List[ToolSpec]:
    """The agent tools: name, description for a model, JSON Schema of the parameters
    (``cast tools --json``).

    Args:
        allow_commands: Include ``run_command``.

    Returns:
        The tools, in the registry's order.
    """
    return _toolbox(".", allow_commands).specs()


def call_tool(
    name: str,
    args: Optional[Mapping[str, Any]] = None,
    *,
    root: PathLike = ".",
    allow_commands: bool = False,
) -> ToolResult:
    """Runs one agent tool call with every path confined to ``root``, as ``cast mcp`` does
    (``cast tool``). Calls for the same root share one :class:`Toolbox` (and its open index).

    Args:
        name: The tool's name (see :func:`tools`).
        args: Its arguments, validated against its schema.
        root: The workspace root.
        allow_commands: Offer ``run_command``.

    Returns:
        The result: ``status``, ``text`` for the model, ``data`` for programs.

    Raises:
        InvalidToolCall: An unknown tool, or arguments that do not fit its schema.
        OutsideWorkspace: A path outside the root.
        ToolRefused: A disabled tool, or a command that could not be confined.
    """
    return _toolbox(root, allow_commands).call(name, args)


_TOOLBOXES: Dict[Any, Toolbox] = {}


def _toolbox(root: PathLike, allow_commands: bool) -> Toolbox:
    key = (os.path.realpath(os.fspath(root)), allow_commands)
    box = _TOOLBOXES.get(key)
    if box is None:
        box = _TOOLBOXES.setdefault(key, Toolbox(root, allow_commands=allow_commands))
    return box
