"""Append-only JSONL files: one record a line, flushed per line, tolerant of a torn last line.

Reading is bounded: a line longer than MAX_LINE_BYTES or nested deeper than MAX_DEPTH is one bad record (with
its reason), never a crash or a multi-gigabyte string.

Writing never fails on what a record holds (`record_line`, the one place records become text): text that is not
valid Unicode (a lone surrogate, from a candidate's exception message or output) is written with the bad code
points escaped as the six characters `\\udXXX` (in a mapping's keys, pydantic replaces each by U+FFFD); a NaN
or infinite number in a float field is written as the string "NaN", "Infinity" or "-Infinity" (which the field
reads back as that number), and in free-form data (`meta.settings` and the like) as null.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64


def within_depth(obj: Any, max_depth: int) -> bool:
    """Whether lists and dicts in `obj` nest at most `max_depth` deep (checked without recursion)."""
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                return False
            stack += [(v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)]
    return True


@dataclass(frozen=True)
class Record:
    """One non-empty line: its object, or None and why not."""

    line_no: int
    obj: dict[str, Any] | None
    raw: str  # the line, cut to 1,000 characters
    error: str = ""


def parse_line(raw: bytes) -> tuple[dict[str, Any] | None, str]:
    """A JSON object, or None and the reason."""
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return None, "not valid JSON"
    if not within_depth(obj, MAX_DEPTH):
        return None, f"nested deeper than {MAX_DEPTH} levels"
    if not isinstance(obj, dict):
        return None, "not a JSON object"
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return None, "holds text that is not valid Unicode (a lone surrogate)"
    return obj, ""


def _lines(fh: Any, cap: int) -> Iterator[tuple[bytes, bool]]:
    """(line, complete) pairs; a line over `cap` bytes comes back cut, with complete=False, its rest skipped."""
    while True:
        line = fh.readline(cap + 1)
        if not line:
            return
        if len(line) <= cap or line.endswith(b"\n"):
            yield line, True
            continue
        while True:  # skip the rest of an over-long line
            rest = fh.readline(1 << 20)
            if not rest or rest.endswith(b"\n"):
                break
        yield line[:1000], False


def read_records(path: Path, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[Record]:
    """Each non-empty line of a JSONL file as a Record."""
    if not path.is_file():
        return
    with open(path, "rb") as fh:
        for n, (line, complete) in enumerate(_lines(fh, max_line_bytes), start=1):
            if not line.strip():
                continue
            shown = line[:1000].decode("utf-8", errors="replace")
            if not complete:
                yield Record(n, None, shown, f"longer than {max_line_bytes:,} bytes")
                continue
            obj, error = parse_line(line)
            yield Record(n, obj, shown, error)


def read_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(line number, parsed object or None, raw text cut to 1,000 characters) for each non-empty line."""
    for rec in read_records(path):
        yield rec.line_no, rec.obj, rec.raw


NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def _clean_text(text: str) -> str:
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", errors="backslashreplace").decode("utf-8")


def _clean(value: Any) -> Any:
    """`value` (plain JSON data) with invalid text escaped and non-finite numbers as strings."""
    if isinstance(value, str):
        return _clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return NON_FINITE.get(value, "NaN")
    if isinstance(value, dict):
        return {_clean_text(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def record_line(record: BaseModel) -> str:
    """One record as one line of strict JSON (no newline), whatever its text and numbers hold."""
    data = _clean(record.model_dump(mode="json"))
    return json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


class JsonlWriter:
    """Thread-safe appender; each record is one complete line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
            with open(path, "a", encoding="utf-8") as fh:
                fh.write("\n")  # a torn last line from an interrupted run stays torn, alone on its line

    def write(self, record: BaseModel) -> None:
        line = record_line(record) + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
