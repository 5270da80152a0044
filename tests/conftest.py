"""Shared fixtures: a tiny synthetic task in our layout (no torch, so it evaluates in a fraction of a second)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.source import mask

ROOT = Path(__file__).resolve().parents[1]

GOLDEN = '''"""Small arithmetic helpers used by the solver."""

import math  # used by norm


def add_scaled(a, b, k):
    """Return a + k * b, element-wise for lists."""
    # reference: one pass
    return [x + k * y for x, y in zip(a, b)]


def norm(v):
    return math.sqrt(sum(x * x for x in v))
'''

TEST = '''from calc.ops import add_scaled


def test_hand_checked():
    # 1 + 2*3 = 7 and 2 + 2*4 = 10
    assert add_scaled([1, 2], [3, 4], 2) == [7, 10]


def test_zero_scale_is_identity():
    assert add_scaled([1.5, -2.0], [9.0, 9.0], 0) == [1.5, -2.0]


def test_negative_scale():
    assert add_scaled([0, 0, 1], [1, 2, 3], -1) == [-1, -2, -2]
'''

PROBE = '''from calc.ops import add_scaled
from lmrbench_probe import case


@case
def hand_checked():
    return {"out": add_scaled([1, 2], [3, 4], 2)}


@case(params=[0, -1, 0.5], ids=["zero", "negative", "half"])
def scales(k):
    return {"out": add_scaled([1.5, -2.0, 0.0], [9.0, 9.0, 1.0], k)}
'''

CHECK = '''from lmrbench.checks import check, equal


@check("hand_checked")
def hand(out, ref):
    # 1 + 2*3 = 7 and 2 + 2*4 = 10
    equal(out["out.0"], 7)
    equal(out["out.1"], 10)
'''

WRONG = {
    "flipped_sign.py": "# wrong: subtracts\ndef add_scaled(a, b, k):\n    return [x - k * y for x, y in zip(a, b)]\n",
    "scale_a.py": "# wrong: scales a\ndef add_scaled(a, b, k):\n    return [k * x + y for x, y in zip(a, b)]\n",
    "no_scale.py": "# wrong: ignores k\ndef add_scaled(a, b, k):\n    return [x + y for x, y in zip(a, b)]\n",
}


def write_task(root: Path, task_id: str = "toy", timeout_s: int = 20, form: str = "pytest") -> Path:
    """Write a complete, valid toy task folder and return it (hidden tests as pytest, or as probe + check, whose
    expected outputs the caller generates with `build_fixtures`)."""
    task = root / task_id
    (task / "toy-repo" / "calc").mkdir(parents=True)
    (task / "golden_files").mkdir()
    (task / "tests").mkdir()
    (task / "wrong" / "1").mkdir(parents=True)
    (task / "golden_files" / "ops_golden.py").write_text(GOLDEN)
    (task / "toy-repo" / "calc" / "__init__.py").write_text("")
    (task / "toy-repo" / "calc" / "ops.py").write_text(mask(GOLDEN, "add_scaled"))
    (task / "toy-repo" / "calc" / "data.txt").write_text("pristine fixture\n")
    (task / "toy-repo" / "main.py").write_text("from calc.ops import add_scaled\nprint(add_scaled([1], [2], 3))\n")
    if form == "probe":
        (task / "tests" / "probe_ops.py").write_text(PROBE)
        (task / "tests" / "check_ops.py").write_text(CHECK)
    else:
        (task / "tests" / "test_ops.py").write_text(TEST)
    for name, text in WRONG.items():
        (task / "wrong" / "1" / name).write_text(text)
    (task / "paper.md").write_text("# Toy\n\nThe method adds k times b to a.\n")
    info = {
        "format": "lmrbench/1", "task_id": task_id, "paper_name": "A Toy Method", "folder_name": task_id,
        "paper_url": "https://example.org/toy", "year": 2024, "publication_date": "2024-01-02",
        "repo_folder_name": "toy-repo", "timeout_s": timeout_s, "requirements": [],
        "implementations": [{
            "index": 1, "instruction": "Implement add_scaled in calc/ops.py.",
            "category": "Training Objectives & Optimization Techniques", "goal_file": "calc/ops.py",
            "goal_function": "add_scaled", "golden_file": "golden_files/ops_golden.py",
            "retrieval_context": ["main.py"],
            "unit_test_file": "tests/probe_ops.py" if form == "probe" else "tests/test_ops.py",
        }],
    }
    (task / "info.json").write_text(json.dumps(info, indent=2))
    return task


@pytest.fixture
def toy_root(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    write_task(root)
    return root


@pytest.fixture
def two_toys(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    write_task(root, "toy")
    write_task(root, "toy2")
    return root


@pytest.fixture
def toy_tasks(toy_root: Path) -> TaskSet:
    return load_tasks(toy_root, strict=True)


@pytest.fixture(scope="session")
def probe_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy task in probe form, with its expected outputs generated from the reference (once a session)."""
    from lmrbench.authoring.fixtures import build_fixtures

    root = tmp_path_factory.mktemp("probe-suite")
    write_task(root, form="probe")
    result = build_fixtures(load_tasks(root, strict=True).task("toy"), check=False)
    assert result.ok, result.detail
    return root


@pytest.fixture
def probe_tasks(probe_suite: Path, tmp_path: Path) -> TaskSet:
    """A private copy of the probe-form toy task (tests may not change the session's copy)."""
    import shutil

    root = tmp_path / "probe-suite"
    shutil.copytree(probe_suite, root)
    return load_tasks(root, strict=True)
