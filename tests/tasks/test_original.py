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
    make_original(tmp_path, "13-Cuda", {}, {"repo/model.py": "import torch\nx = torch.zeros(1).cuda()\n",
                                            "repo/losses.py": "import model\n" + MASKED})
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
    line = next(p for p in problems if p.kind == "lfs-pointer").line()  # one line per task, with the files
    assert line.startswith("03-lfs\terror\tlfs-pointer\t") and "tensors/x.pt" in line
    assert "empty file" in ts.task("11-zerobyterepo").defect
    # the clean tasks in between are untouched: every task loaded, those without a repository with their defect
    assert len(ts.tasks) == 12


def test_lint_finds_what_matters(tmp_path):
    cuda = "import torch\nx = torch.zeros(1).cuda()\n"
    test = TEST.replace("from losses import loss", "from losses import loss\nimport pickle\n"
                        "d = pickle.load(open('unit_test/data/in.pkl', 'rb'))\ne = open('tensors/out.pt', 'rb')\n"
                        "import golden_files.losses_golden")
    make_original(tmp_path, "01-Reach", {}, {
        "repo/unit_test/unit_test_1.py": test,
        "repo/losses.py": "import helpers\n" + MASKED,
        "repo/helpers.py": cuda,  # reached by the test through losses.py
        "repo/unused.py": cuda,  # reached by nothing: no warning
        "repo/vendor/other.py": cuda,
        "repo/unit_test/data/in.pkl": "version https://git-lfs.github.com/spec/v1\noid sha256:0\n"})
    make_original(tmp_path, "02-Logs", {}, {"repo/unit_test/unit_test_2.py": TEST.replace("unit_test_1.log",
                                                                                          "unit_test.log"),
                                            "repo/unit_test/unit_test_1.py": TEST.replace("unit_test_1.log",
                                                                                          "unit_test.log")})
    info = json.loads((tmp_path / "02-Logs" / "info.json").read_text())
    info["implementations"].append(dict(info["implementations"][0], index=2,
                                        unit_test_file="unit_test/unit_test_2.py"))
    (tmp_path / "02-Logs" / "info.json").write_text(json.dumps(info))
    long_golden = ("def loss(x):\n    total = 0\n    for i in range(len(x)):\n        total = total + x[i] * 2\n"
                   "    mean = total / max(1, len(x))\n    return mean.clamp(min=0).softmax(dim=-1)\n")
    renamed = long_golden.replace("def loss", "def other").replace("total", "acc").replace("mean", "m")
    make_original(tmp_path, "03-Near", {}, {"golden_files/losses_golden.py": long_golden,
                                            "repo/vendor/lib.py": renamed})
    problems = lint(load_tasks(tmp_path))
    gpu = [p for p in problems if p.kind == "needs-gpu-or-hub"]
    assert len(gpu) == 1 and gpu[0].task == "01-reach" and "helpers.py" in gpu[0].detail
    assert "unused.py" not in gpu[0].detail and "vendor" not in gpu[0].detail
    kinds = _kinds(problems, "01-reach")
    assert {(1, "lfs-fixture"), (1, "missing-fixture"), (1, "test-reads-golden")} <= kinds
    assert (None, "log-name-collision") in _kinds(problems, "02-logs")
    assert {(1, "log-name-mismatch"), (2, "log-name-mismatch")} <= _kinds(problems, "02-logs")
    near = [p for p in problems if p.kind == "body-near-elsewhere"]
    assert [p.task for p in near] == ["03-near"] and "vendor/lib.py" in near[0].detail
