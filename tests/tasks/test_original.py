"""The original LMR-Bench layout: synthetic folders that reproduce each published quirk."""

import json
from pathlib import Path

from lmrbench.authoring.lint import lint
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.schema import Layout

GOLDEN = "def loss(x):\n    y = x * 2\n    return y + 1\n"
MASKED = "def loss(x):\n    # TODO\n    raise NotImplementedError\n"
TEST = """import sys, os
sys.path.insert(0, os.getcwd())
from losses import loss
os.makedirs('unit_test/logs', exist_ok=True)
ok = loss(1) == 3
open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed' if ok else 'Test Failed')
"""


def make_original(root: Path, name: str, info: dict, files: dict[str, str | bytes]) -> Path:
    task = root / name
    task.mkdir(parents=True)
    base = {"instance_id": 1, "paper_name": "P", "folder_name": name, "paper_url": "https://x", "year": 2024,
            "repo_folder_name": "repo", "implementations": [{
                "index": 1, "instruction": "Implement loss.", "category": "loss function",
                "goal_file": "losses.py", "goal_function": "loss", "class_name": "",
                "golden_file": "golden_files/losses_golden.py", "retrieval_context": [],
                "unit_test_file": "unit_test/unit_test_1.py"}]}
    impl_over = info.pop("impl", {})
    base.update(info)
    base["implementations"][0].update(impl_over)
    for key in [k for k, v in base["implementations"][0].items() if v is None]:
        del base["implementations"][0][key]
    (task / "info.json").write_text(json.dumps(base))
    default = {"golden_files/losses_golden.py": GOLDEN, "repo/losses.py": MASKED,
               "repo/unit_test/unit_test_1.py": TEST, "repo/paper.json": json.dumps({"1": "text"})}
    default.update(files)
    for rel, content in default.items():
        if content is None:
            continue
        path = task / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return task


def _kinds(problems, task):
    return {(p.index, p.kind) for p in problems if p.task == task}


def test_clean_original_task_loads(tmp_path):
    make_original(tmp_path, "01-Clean", {}, {})
    ts = load_tasks(tmp_path)
    task = ts.task("01-clean")
    assert task.layout is Layout.ORIGINAL and task.paper_json is not None
    assert task.implementations[0].category is not None
    assert task.implementations[0].category.value == "Training Objectives & Optimization Techniques"
    assert _kinds(lint(ts), "01-clean") == set()


def test_each_quirk_is_reported(tmp_path):
    make_original(tmp_path, "02-Drift", {"instance_id": "2", "folder_name": "02-Drfit",
                                         "impl": {"category": "", "retrieval_context": None,
                                                  "retrieval_content": ["a.py"]}}, {})
    make_original(tmp_path, "03-Lfs", {}, {"repo/tensors/x.pt": "version https://git-lfs.github.com/spec/v1\noid x\n"})
    make_original(tmp_path, "04-NoRepo", {"repo_folder_name": "gone"}, {})
    make_original(tmp_path, "05-GoalIsTest", {"impl": {"goal_file": "unit_test/unit_test_1.py"}}, {})
    make_original(tmp_path, "06-BadTestName", {"impl": {"unit_test_file": "unit_test/unit_test_9.py"}},
                  {"repo/unit_test/unit_test.py": TEST, "repo/unit_test/unit_test_1.py": None})
    make_original(tmp_path, "07-GoldenInside", {}, {"repo/losses_golden.py": GOLDEN})
    make_original(tmp_path, "08-BodyElsewhere", {}, {"repo/vendor/lib.py": "def other(x):\n    y = x * 2\n"
                                                                         "    return y + 1\n"})
    make_original(tmp_path, "09-EmptyPaper", {}, {"repo/paper.json": None, "repo/paper.pdf": b""})
    make_original(tmp_path, "10-NoGoalFunction", {"impl": {"goal_function": None, "class_name": None}}, {})
    (tmp_path / "11-ZeroByteRepo").mkdir()
    (tmp_path / "11-ZeroByteRepo" / "info.json").write_text(json.dumps({"repo_folder_name": "repo",
                                                                        "implementations": [{"index": 1}]}))
    (tmp_path / "11-ZeroByteRepo" / "repo").write_bytes(b"")
    make_original(tmp_path, "12-PdfOnly", {}, {"repo/paper.json": None, "repo/paper.pdf": b"%PDF-1.4 fake"})
    make_original(tmp_path, "13-Cuda", {}, {"repo/model.py": "import torch\nx = torch.zeros(1).cuda()\n"})
    ts = load_tasks(tmp_path)
    problems = lint(ts)
    assert {(1, "missing-category"), (None, "schema-drift"), (1, "schema-drift")} <= _kinds(problems, "02-drift")
    assert ts.task("02-drift").implementations[0].retrieval_context == ["a.py"]
    assert (None, "lfs-pointer") in _kinds(problems, "03-lfs")
    assert (None, "missing-repo") in _kinds(problems, "04-norepo")
    assert "does not exist" in ts.task("04-norepo").defect  # loads, so that each implementation is an error
    assert (1, "goal-is-test-file") in _kinds(problems, "05-goalistest")
    assert (1, "missing-unit-test-file") in _kinds(problems, "06-badtestname")
    assert ts.task("06-badtestname").implementations[0].unit_test_file == "unit_test/unit_test.py"
    assert (None, "golden-in-workspace") in _kinds(problems, "07-goldeninside")
    assert (1, "body-elsewhere") in _kinds(problems, "08-bodyelsewhere")
    assert {(None, "empty-paper"), (None, "missing-paper")} <= _kinds(problems, "09-emptypaper")
    assert ts.task("10-nogoalfunction").implementations[0].targets == []
    assert (None, "empty-repo") in _kinds(problems, "11-zerobyterepo")
    assert (None, "paper-pdf-only") in _kinds(problems, "12-pdfonly")
    assert (None, "needs-gpu-or-hub") in _kinds(problems, "13-cuda")
    # one line each, with task, implementation, kind and detail
    line = next(p for p in problems if p.kind == "lfs-pointer").line()
    assert line.startswith("03-lfs\terror\tlfs-pointer\t") and "tensors/x.pt" in line
    assert "empty file" in ts.task("11-zerobyterepo").defect
    # the clean tasks in between are untouched: every task loaded, those without a repository with their defect
    assert len(ts.tasks) == 12
