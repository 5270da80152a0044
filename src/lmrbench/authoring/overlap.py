"""Near-copy detection between two sets of text files: do we commit anything of an upstream release?

Each file becomes a set of shingles: hashes of `SHINGLE` consecutive normalised lines (whitespace collapsed,
comments and blank lines dropped, lines too short to mean anything, like `else:` or `return x`, dropped). Two
files are near copies when the smaller shares at least `NEAR` of its shingles with the other, or when their
normalised lines are equal. Files with fewer than `MIN_SHINGLES` shingles are too small to judge (an empty
`__init__.py`, a two-line module).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

SHINGLE = 4
NEAR = 0.5
MIN_SHINGLES = 4
MIN_LINE = 12
MAX_BYTES = 2 * 1024 * 1024
TEXT_SUFFIXES = frozenset({".py", ".pyi", ".md", ".txt", ".rst", ".cfg", ".toml", ".json", ".yaml", ".yml", ".sh",
                           ".c", ".cc", ".cpp", ".h", ".cu", ".cuh", ".js", ".html", ".ipynb", ""})
SPACE = re.compile(r"\s+")


def normalised_lines(text: str) -> list[str]:
    """Lines as compared: comments, blank and very short lines dropped, whitespace collapsed."""
    out = []
    for raw in text.splitlines():
        line = SPACE.sub(" ", raw.split(" #")[0] if not raw.lstrip().startswith("#") else "").strip()
        if len(line) >= MIN_LINE:
            out.append(line)
    return out


def shingles(lines: list[str]) -> set[bytes]:
    return {hashlib.blake2b("\n".join(lines[i:i + SHINGLE]).encode(), digest_size=8).digest()
            for i in range(max(len(lines) - SHINGLE + 1, 0))}


@dataclass(frozen=True)
class Match:
    """A file of ours that (nearly) equals a file of theirs."""

    ours: str
    theirs: str
    share: float
    """Shared shingles over the smaller file's (1.0 for equal normalised text)."""


def _read_text(path: Path) -> str | None:
    if path.suffix not in TEXT_SUFFIXES or not path.is_file() or path.stat().st_size > MAX_BYTES:
        return None
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None


class Index:
    """The shingles of every text file under some roots, for finding near copies of other files in them."""

    def __init__(self) -> None:
        self.sizes: dict[str, int] = {}
        self.digests: dict[bytes, list[str]] = defaultdict(list)
        self.where: dict[bytes, list[str]] = defaultdict(list)

    def add_tree(self, root: Path, label: str) -> None:
        for path in sorted(root.rglob("*")):
            text = _read_text(path)
            if text is not None:
                self.add(f"{label}/{path.relative_to(root).as_posix()}", text)

    def add(self, name: str, text: str) -> None:
        lines = normalised_lines(text)
        found = shingles(lines)
        if len(found) < MIN_SHINGLES:
            return
        self.sizes[name] = len(found)
        self.digests[hashlib.sha256("\n".join(lines).encode()).digest()].append(name)
        for s in found:
            self.where[s].append(name)

    def near(self, name: str, text: str) -> list[Match]:
        """The indexed files that `text` (nearly) equals."""
        lines = normalised_lines(text)
        found = shingles(lines)
        if len(found) < MIN_SHINGLES:
            return []
        same = self.digests.get(hashlib.sha256("\n".join(lines).encode()).digest(), [])
        out = [Match(name, other, 1.0) for other in same]
        hits = Counter(other for s in found for other in self.where.get(s, ()))
        for other, count in hits.most_common():
            share = count / min(len(found), self.sizes[other])
            if share >= NEAR and other not in same:
                out.append(Match(name, other, round(share, 3)))
        return out


def near_copies(ours: dict[str, Path], index: Index) -> list[Match]:
    """Every file of ours (name -> path) that (nearly) equals an indexed file."""
    out = []
    for name, path in ours.items():
        text = _read_text(path)
        if text is not None:
            out += index.near(name, text)
    return out
