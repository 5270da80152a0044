"""A diff of files whose last line has no newline applies with git and gives back the revised file exactly (an
agent's edit of such a file, read by `predictions from-dirs`, was a corrupt patch before the marker)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lmrbench.diffs import unified_diff

BEFORE = "def f():\n    raise NotImplementedError\n        "  # a masked release's file: trailing blanks, no newline


@pytest.mark.parametrize("after", [
    "def f():\n    return 1\n        ",  # the end kept as it was (a context line with no newline)
    "def f():\n    return 1\n",  # the end gains a newline
    "def f():\n    return 1",  # the end changed, still no newline
], ids=["end-kept", "newline-added", "end-changed"])
def test_a_diff_of_a_file_without_a_final_newline_applies_exactly(tmp_path: Path, after: str):
    (tmp_path / "m.py").write_text(BEFORE)
    diff = unified_diff(BEFORE.splitlines(keepends=True), after.splitlines(keepends=True), "a/m.py", "b/m.py")
    (tmp_path / "p.diff").write_text(diff)
    res = subprocess.run(["git", "apply", "-p1", "p.diff"], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "m.py").read_text() == after


def test_files_that_end_in_a_newline_get_difflibs_own_diff():
    import difflib

    a, b = ["x = 1\n", "y = 2\n"], ["x = 1\n", "y = 3\n"]
    assert unified_diff(a, b, "a/m.py", "b/m.py") == "".join(difflib.unified_diff(a, b, "a/m.py", "b/m.py"))
