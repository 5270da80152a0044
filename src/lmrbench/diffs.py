"""Unified diffs that `git apply` takes back whatever the files' endings."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(before: Sequence[str], after: Sequence[str], from_file: str, to_file: str) -> str:
    """difflib's unified diff of two files' lines (kept ends), with git's marker after a last line that has no
    newline: without it, that line runs into the next one and the patch is corrupt or does not apply."""
    out = []
    for line in difflib.unified_diff(before, after, from_file, to_file):
        out.append(line if line.endswith("\n") else line + "\n" + NO_NEWLINE)
    return "".join(out)
