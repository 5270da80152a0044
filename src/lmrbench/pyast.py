"""`ast.parse` behind one process-wide lock.

CPython 3.11 keeps the AST converter's recursion-depth counter in state shared by every thread; two threads turning
source into `ast` objects at once can trip it ("SystemError: AST constructor recursion depth mismatch",
python/cpython#106905). The harness parses model answers and task files from several threads (generation and
evaluation workers), so every parse in lmrbench goes through here. Parsing is fast next to everything else a thread
does, so the lock costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source)`, serialised across threads."""
    with _LOCK:
        return ast.parse(source, filename=filename)
