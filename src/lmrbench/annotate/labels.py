"""RUN_DIR/labels.jsonl: human labels appended the moment they are given, safe with several annotators at once.

Each label is one `write` of one complete line to a file opened with O_APPEND, under an exclusive `flock`, then
fsync'ed: a killed server loses nothing it acknowledged, and two servers (or two threads) never interleave or
drop lines. A re-label appends a new line; the latest line for (annotator, item) wins.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
from pathlib import Path

from lmrbench.judge.agreement import load_labels
from lmrbench.records import HumanLabel

LABELS_FILE = "labels.jsonl"
Key = tuple[str, str, int]


def labels_path(run_dir: Path) -> Path:
    return run_dir / LABELS_FILE


def append_label(path: Path, label: HumanLabel) -> HumanLabel:
    """Append one label as one line (stamped with the time if it has none), durable before this returns."""
    if not label.labelled_at:
        label = label.model_copy(update={"labelled_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")})
    line = (label.model_dump_json() + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line  # a line torn by something else stays alone on its line (and is reported)
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
    return label


def read_labels(path: Path) -> list[HumanLabel]:
    """Every label in file order; a missing file is no labels. Raises ValueError naming the file and line of the
    first line that is not a label."""
    return load_labels(path) if path.is_file() else []


def latest_for(labels: list[HumanLabel], annotator: str) -> dict[Key, HumanLabel]:
    """One annotator's latest label per item."""
    return {lab.item_key: lab for lab in labels if lab.annotator == annotator}


def resume_position(keys: list[Key], done: dict[Key, HumanLabel]) -> int:
    """Where a returning annotator starts: the first item they have not labelled (the last item when all are)."""
    for n, key in enumerate(keys):
        if key not in done:
            return n
    return max(len(keys) - 1, 0)
