"""Data files a test loads, found statically: string literals in the test that name files of the repository.

The original's tests load fixtures by relative path (`torch.load("unit_test/tensors/x.pt")`), resolved against
the repository (the test's working directory) or the test's own folder. A literal naming a data file that is
missing, or that is a Git-LFS pointer instead of data, means the test cannot measure anything here.
"""

from __future__ import annotations

import ast
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel

from lmrbench import pyast

LFS_HEADER = b"version https://git-lfs"
DATA_SUFFIXES = {".pt", ".pth", ".pkl", ".pickle", ".npy", ".npz", ".json", ".jsonl", ".csv", ".tsv", ".txt",
                 ".bin", ".safetensors", ".h5", ".parquet", ".tar", ".gz", ".zip"}


class FixtureState(StrEnum):
    OK = "ok"
    MISSING = "missing"
    LFS_POINTER = "lfs_pointer"


class FixtureRef(BaseModel):
    """One data file a test names."""

    literal: str
    path: str  # relative to the repository
    state: FixtureState


def is_lfs_pointer(path: Path) -> bool:
    """A Git-LFS pointer file (small text starting with the LFS version line), not the data it stands for."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 1024:
            return False
        with open(path, "rb") as fh:
            return fh.read(len(LFS_HEADER)) == LFS_HEADER
    except OSError:
        return False


def _literals(source: str) -> list[str]:
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 300:
            text = node.value.strip()
            if "\n" not in text and Path(text).suffix.lower() in DATA_SUFFIXES:
                out.append(text)
    return list(dict.fromkeys(out))


def _inside(repo: Path, candidate: Path) -> bool:
    try:
        return candidate.resolve().is_relative_to(repo.resolve())
    except OSError:
        return False


def fixture_refs(repo: Path, test_rel: str) -> list[FixtureRef]:
    """Each data-file literal of the test at `repo/test_rel`, resolved against the repository, then the test's
    folder; literals that are absolute, escape the repository, or are log files are skipped."""
    test = repo / test_rel
    if not test.is_file() or test.is_symlink():
        return []
    out = []
    for lit in _literals(test.read_text(encoding="utf-8", errors="replace")):
        if Path(lit).is_absolute() or Path(lit).suffix == ".log" or "{" in lit:
            continue
        bases = [repo, test.parent]
        found = [b / lit for b in bases if (b / lit).is_file() and _inside(repo, b / lit)]
        if found:
            path = found[0]
            state = FixtureState.LFS_POINTER if is_lfs_pointer(path) else FixtureState.OK
            out.append(FixtureRef(literal=lit, path=str(path.relative_to(repo)), state=state))
        elif _inside(repo, repo / lit) and "/" in lit:
            out.append(FixtureRef(literal=lit, path=lit, state=FixtureState.MISSING))
    return out
