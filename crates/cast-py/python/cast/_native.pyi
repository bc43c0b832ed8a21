"""Type stubs of ``cast._native``, the Rust half of ``import cast``. Every function returns its
result as JSON text (what ``cast … --json`` prints); the ``cast`` package reads it into the
dataclasses of ``cast.results``. Use the ``cast`` package, not this module."""

from typing import List, Optional

__version__: str

class Index:
    def __init__(self, root: str) -> None: ...
    @property
    def root(self) -> str: ...
    def map(
        self, budget: int, focus: Optional[str], within: List[str], trace: Optional[str]
    ) -> str: ...
    def find(self, query: str, top: int, files: bool, within: List[str]) -> str: ...
    def show(self, target: str) -> str: ...

class Toolbox:
    def __init__(
        self,
        root: str,
        allow_commands: bool,
        dry_run: bool,
        refuse_syntax_errors: bool,
        sandbox: str,
        sandbox_helper: Optional[str],
        max_output_bytes: Optional[int],
    ) -> None: ...
    @property
    def root(self) -> str: ...
    def specs(self) -> str: ...
    def call(self, name: str, args: str) -> str: ...

def symbols(
    path: str, kinds: List[str], hidden: bool, no_ignore: bool, follow_links: bool
) -> str: ...
def skeleton(path: str, name: str) -> str: ...
def grep(
    pattern: str,
    path: str,
    fixed_strings: bool,
    ignore_case: bool,
    include: List[str],
    exclude: List[str],
    max_results: int,
    context: int,
    hidden: bool,
    no_ignore: bool,
    follow_links: bool,
) -> str: ...
def glob(
    pattern: str, path: str, max_results: int, hidden: bool, no_ignore: bool, follow_links: bool
) -> str: ...
def read(
    path: str, start: Optional[int], end: Optional[int], max_lines: int, max_bytes: int
) -> str: ...
def apply_edit(
    root: str,
    edit: str,
    target: Optional[str],
    format: Optional[str],
    dry_run: bool,
    exact_match_only: bool,
    refuse_syntax_errors: bool,
    journal: bool,
) -> str: ...
def undo(root: str, steps: int, force: bool) -> str: ...
def undo_history(root: str) -> str: ...
