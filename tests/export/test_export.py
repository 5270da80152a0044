"""`lmrbench export --format parquet`: a Hugging Face style dataset that the `datasets` library loads, one row per
implementation, with no solution in it unless --with-solutions."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest

from lmrbench.papers import paper_text
from lmrbench.solvers.prompt import build_prompt
from lmrbench.tasks.loader import load_tasks
from tests.cli_inprocess import run_cli
from tests.conftest import GOLDEN, TEST, write_task

SOLUTION_FIELDS = {"golden_file", "reference", "tests", "expected_outputs", "solutions"}


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    write_task(root, "alpha")
    write_task(root, "beta")
    info = json.loads((root / "beta" / "info.json").read_text())
    info["split"] = "main"
    (root / "beta" / "info.json").write_text(json.dumps(info))
    (root / "beta" / "toy-repo" / "blob.bin").write_bytes(b"\x00\xff\xfe binary")
    return root


def _load(out: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    import datasets  # pinned in requirements.txt: its absence is a failure, not a skip

    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # a private cache; nothing is fetched
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return datasets.load_dataset(str(out))


def test_export_loads_with_datasets_and_has_no_solutions(suite, tmp_path, monkeypatch):
    out = tmp_path / "ds"
    res = cli("export", "--format", "parquet", "--out", str(out), "--tasks", str(suite), "--split", "all",
              cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "2 row(s) (1 lite, 1 main)" in res.stdout
    assert sorted(p.name for p in (out / "data").iterdir()) == ["lite-00000-of-00001.parquet",
                                                                "main-00000-of-00001.parquet"]
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:\n") and "path: data/main-*" in card and "num_examples: 1" in card
    ds = _load(out, monkeypatch, tmp_path)
    assert sorted(ds) == ["lite", "main"] and ds["lite"].num_rows == ds["main"].num_rows == 1
    assert not SOLUTION_FIELDS & set(ds["lite"].column_names)
    row = ds["lite"][0]
    assert (row["instance_id"], row["task_id"], row["index"], row["split"]) == ("alpha/1", "alpha", 1, "lite")
    assert (row["paper_title"], row["paper_url"], row["publication_date"], row["year"]) == (
        "A Toy Method", "https://example.org/toy", "2024-01-02", 2024)
    assert row["category"] == "Training Objectives & Optimization Techniques"
    assert row["targets"] == ["add_scaled"] and row["goal_file"] == "calc/ops.py"
    task = load_tasks(suite).task("alpha")
    files = {f["path"]: f["content"] for f in row["repository"]}
    assert sorted(files) == ["calc/__init__.py", "calc/data.txt", "calc/ops.py", "main.py"]
    assert files["calc/ops.py"] == (task.repo_dir / "calc/ops.py").read_text()  # the masked file, as a solver sees
    assert "return [x + k * y" not in json.dumps(row)  # the reference's body appears nowhere
    assert "def test_hand_checked" not in json.dumps(row)
    assert row["method_description"] == (task.root / "paper.md").read_text()
    messages = build_prompt(task, task.implementations[0], paper_text(task))
    assert row["prompt_version"] == "prompt-v1"
    assert row["prompt"] == [{"role": m.role, "content": m.content} for m in messages]  # the exact prompt
    blob = next(f for f in ds["main"][0]["repository"] if f["path"] == "blob.bin")
    assert blob["encoding"] == "base64" and base64.b64decode(blob["content"]) == b"\x00\xff\xfe binary"


def test_with_solutions_adds_golden_tests_and_split_selection(suite, tmp_path, monkeypatch):
    out = tmp_path / "ds"
    cli("export", "--out", str(out), "--tasks", str(suite), "--split", "all", "--with-solutions", cwd=tmp_path)
    res = cli("export", "--out", str(out), "--tasks", str(suite), "--split", "lite", "--with-solutions",
              cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    assert [p.name for p in (out / "data").iterdir()] == ["lite-00000-of-00001.parquet"]  # no stale main split
    ds = _load(out, monkeypatch, tmp_path)
    assert list(ds) == ["lite"]
    row = ds["lite"][0]
    assert row["golden_file"] == [{"path": "golden_files/ops_golden.py", "content": GOLDEN, "encoding": "utf-8"}]
    assert row["reference"].startswith("def add_scaled(a, b, k):") and "x + k * y" in row["reference"]
    assert row["tests"] == [{"path": "test_ops.py", "content": TEST, "encoding": "utf-8"}]
    assert row["expected_outputs"] == []


def test_export_of_nothing_is_an_error(suite, tmp_path):
    res = cli("export", "--out", str(tmp_path / "ds"), "--tasks", str(suite), "-t", "gamma*", cwd=tmp_path)
    assert res.returncode == 2 and "no implementation matches" in res.stderr


def test_original_layout_keeps_its_unit_tests_out_of_the_repository(tmp_path):
    from lmrbench.export import dataset_rows
    from tests.tasks.test_original import TEST as ORIGINAL_TEST
    from tests.tasks.test_original import make_original

    make_original(tmp_path / "data", "01-Demo", {}, {})
    ts = load_tasks(tmp_path / "data")
    row = dataset_rows(ts)[0]
    assert row.split == "original" and row.solutions is None
    assert sorted(f.path for f in row.repository) == ["losses.py", "paper.json"]
    with_sol = dataset_rows(ts, with_solutions=True)[0].solutions
    assert with_sol is not None
    assert [(f.path, f.content) for f in with_sol.tests] == [("unit_test_1.py", ORIGINAL_TEST)]


def test_probe_tasks_export_their_expected_outputs(probe_tasks):
    from lmrbench.export import dataset_rows

    sol = dataset_rows(probe_tasks, with_solutions=True)[0].solutions
    assert sol is not None
    assert sorted(f.path for f in sol.tests) == ["check_ops.py", "probe_ops.py"]
    expected = probe_tasks.tasks[0].root / "tests" / "expected"
    assert [f.path for f in sol.expected_outputs] == sorted(p.name for p in expected.iterdir())
    assert sol.expected_outputs and all(f.content for f in sol.expected_outputs)
