"""Selecting tasks: patterns, splits, publication dates; a selection of nothing is a clear error."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from lmrbench.tasks.catalog import reference_lines, task_rows
from lmrbench.tasks.loader import load_tasks
from tests.conftest import write_task


@pytest.fixture
def two_splits(tmp_path):
    root = tmp_path / "suite"
    root.mkdir()
    write_task(root, "old")
    write_task(root, "new")
    info = json.loads((root / "new" / "info.json").read_text())
    info.update(split="main", publication_date="2025-06-01", year=2025)
    (root / "new" / "info.json").write_text(json.dumps(info))
    return load_tasks(root, strict=True)


def test_split_and_since_select_tasks(two_splits):
    assert [t.task_id for t in two_splits.restrict(split="main").tasks] == ["new"]
    assert [t.task_id for t in two_splits.restrict(split="lite").tasks] == ["old"]
    assert len(two_splits.restrict(split="all").tasks) == 2
    assert [t.task_id for t in two_splits.restrict(since=dt.date(2025, 1, 1)).tasks] == ["new"]
    assert [t.task_id for t in two_splits.restrict(["old*"]).tasks] == ["old"]


def test_a_selection_of_nothing_names_what_was_asked(two_splits):
    with pytest.raises(ValueError, match="no implementation matches"):
        two_splits.restrict(["nothing*"])
    with pytest.raises(ValueError, match="nothing selected"):
        two_splits.restrict(["old"], split="main")


def test_selecting_a_task_that_failed_to_load_says_why(tmp_path):
    root = tmp_path / "suite"
    root.mkdir()
    write_task(root, "good")
    write_task(root, "broken")
    info = json.loads((root / "broken" / "info.json").read_text())
    info["implementations"][0]["targets"] = 5
    (root / "broken" / "info.json").write_text(json.dumps(info))
    tasks = load_tasks(root)
    with pytest.raises(ValueError, match=r"broken could not be loaded \(malformed-task: .*targets"):
        tasks.restrict(["broken"])


def test_rows_carry_split_date_and_reference_size(two_splits):
    rows = {r.instance_id: r for r in task_rows(two_splits)}
    assert rows["new/1"].split == "main" and rows["new/1"].publication_date == "2025-06-01"
    # the toy reference's add_scaled: def line, docstring, comment, return = 4 non-blank lines
    assert rows["old/1"].reference_lines == 4
    assert reference_lines(two_splits.task("old").implementation(1)) == 4
