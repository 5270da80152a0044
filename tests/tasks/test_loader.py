import json
from pathlib import Path

import pytest

from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.schema import Layout, TaskFormatError


def _edit_info(task: Path, **changes):
    info = json.loads((task / "info.json").read_text())
    for key, value in changes.items():
        if key.startswith("impl_"):
            info["implementations"][0][key[5:]] = value
        else:
            info[key] = value
    (task / "info.json").write_text(json.dumps(info))


def test_loads_our_layout(toy_tasks):
    task = toy_tasks.task("toy")
    assert task.layout is Layout.LMRBENCH
    impl = task.implementation(1)
    assert impl.instance_id == "toy/1" and impl.targets == ["add_scaled"]
    assert impl.category is not None and impl.category.value.startswith("Training Objectives")
    assert toy_tasks.resolve("toy/1")[1] is impl


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ({"impl_category": "Vibes"}, "implementations.0.category", "Input should be"),
        ({"timeout_s": 0}, "timeout_s", "greater than or equal to 1"),
        ({"publication_date": "last spring"}, "publication_date", "date"),
        ({"impl_goal_file": "calc/nope.py"}, "implementations.0.goal_file", "an existing file"),
        ({"task_id": "other"}, "task_id", "equal to the folder name"),
        ({"colour": "blue"}, "colour", "Extra inputs are not permitted"),
    ],
)
def test_malformed_task_names_file_and_field(toy_root, change, field, expected):
    _edit_info(toy_root / "toy", **change)
    with pytest.raises(TaskFormatError) as exc:
        load_tasks(toy_root, strict=True)
    assert exc.value.field == field
    assert exc.value.file == toy_root / "toy" / "info.json"
    assert expected in str(exc.value)


def test_broken_json_is_reported_and_others_still_load(toy_root):
    from tests.conftest import write_task

    write_task(toy_root, "second")
    (toy_root / "toy" / "info.json").write_text("{not json")
    ts = load_tasks(toy_root)
    assert [t.task_id for t in ts.tasks] == ["second"]
    assert len(ts.problems) == 1 and "valid JSON" in ts.problems[0].detail and "toy/info.json" in ts.problems[0].detail


def test_select_by_glob(toy_tasks):
    assert [i.instance_id for i in toy_tasks.select(["to*"])] == ["toy/1"]
    assert toy_tasks.select(["nothing"]) == []
