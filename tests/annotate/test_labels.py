"""labels.jsonl: one whole line per label, durable and lock-protected appends, latest label wins, resume."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lmrbench.annotate.items import side_by_side
from lmrbench.annotate.labels import append_label, latest_for, read_labels, resume_position
from lmrbench.records import HumanLabel


def _lab(who: str, inst: str, cat: int, comment: str = "") -> HumanLabel:
    return HumanLabel(annotator=who, instance_id=inst, model="m", category=cat, comment=comment)  # type: ignore[arg-type]


def _writer(args: tuple[str, str, int]) -> None:
    path, who, n = args
    for i in range(n):
        append_label(Path(path), _lab(who, f"t/{i}", 1 + i % 3, "x" * (i * 97 % 5000)))


def test_writers_appending_at_once_lose_and_tear_no_line(tmp_path):
    # Threads here (each append opens its own file description, so flock excludes them as it does processes);
    # separate processes are tested through two `lmrbench annotate` servers in test_server.py.
    path = tmp_path / "labels.jsonl"
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(_writer, [(str(path), f"a{k}", 60) for k in range(4)]))
    labels = read_labels(path)  # raises on a torn or interleaved line
    assert len(path.read_text().splitlines()) == len(labels) == 240
    assert sorted((lab.annotator, lab.instance_id) for lab in labels) == sorted(
        (f"a{k}", f"t/{i}") for k in range(4) for i in range(60))
    assert all(lab.labelled_at for lab in labels)


def test_a_torn_last_line_is_left_alone_and_reported(tmp_path):
    path = tmp_path / "labels.jsonl"
    append_label(path, _lab("a", "t/1", 3))
    with open(path, "a") as fh:
        fh.write('{"annotator": "a", "inst')  # something else died mid-line
    append_label(path, _lab("a", "t/2", 2))
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and lines[2].startswith('{"annotator":"a","instance_id":"t/2"')
    with pytest.raises(ValueError, match=r"labels\.jsonl: line 2"):
        read_labels(path)


def test_latest_label_wins_and_resume_is_the_first_unlabelled(tmp_path):
    path = tmp_path / "labels.jsonl"
    for lab in (_lab("a", "t/1", 1), _lab("b", "t/2", 3), _lab("a", "t/1", 3, "second look"), _lab("a", "t/3", 2)):
        append_label(path, lab)
    done = latest_for(read_labels(path), "a")
    assert {k: (v.category, v.comment) for k, v in done.items()} == {
        ("t/1", "m", 0): (3, "second look"), ("t/3", "m", 0): (2, "")}
    keys = [(f"t/{i}", "m", 0) for i in (1, 2, 3)]
    assert resume_position(keys, done) == 1  # t/2: labelled by b only
    assert resume_position(keys, {k: done[("t/1", "m", 0)] for k in keys}) == 2  # all done: the last one
    assert resume_position([], {}) == 0
    assert read_labels(tmp_path / "missing.jsonl") == []


def test_side_by_side_pairs_changed_lines():
    rows, cut = side_by_side("a\nb\nc\n", "a\nB\nc\nd\n")
    assert not cut
    assert [(r.tag, r.left_no, r.left, r.right_no, r.right) for r in rows] == [
        ("equal", 1, "a", 1, "a"), ("replace", 2, "b", 2, "B"), ("equal", 3, "c", 3, "c"),
        ("insert", None, "", 4, "d")]
    rows, cut = side_by_side("x\ny\n", "")
    assert [(r.tag, r.left, r.right_no) for r in rows] == [("delete", "x", None), ("delete", "y", None)]
    rows, cut = side_by_side("", "\n".join(map(str, range(10))), limit=4)
    assert cut and len(rows) == 4
