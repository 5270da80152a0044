"""Append-only JSONL files: one record a line, flushed per line, tolerant of a torn last line."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel


def read_lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | None, str]]:
    """(line number, parsed object or None, raw text) for each non-empty line."""
    if not path.is_file():
        return
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError:
                yield n, None, raw
                continue
            yield n, obj if isinstance(obj, dict) else None, raw


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
        line = record.model_dump_json() + "\n"
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
