import difflib

import pytest

from lmrbench.evaluate.apply import InvalidPrediction, apply_prediction, make_workspace, restore_protected
from lmrbench.records import Prediction

GOOD = "def add_scaled(a, b, k):\n    return [x + k * y for x, y in zip(a, b)]\n"


def _pred(**form):
    return Prediction(instance_id="toy/1", model="m", **form)


def test_workspace_has_no_reference_or_tests(toy_tasks, tmp_path):
    ws = make_workspace(toy_tasks.task("toy"), tmp_path / "ws")
    names = {p.name for p in ws.rglob("*")}
    assert "ops_golden.py" not in names and "test_ops.py" not in names and "golden_files" not in names


def test_form_a_splices(toy_tasks, tmp_path):
    ws = make_workspace(toy_tasks.task("toy"), tmp_path / "ws")
    apply_prediction(_pred(functions={"calc/ops.py": {"add_scaled": GOOD}}), ws)
    text = (ws / "calc/ops.py").read_text()
    assert "import math  # used by norm" in text and "x + k * y" in text


def test_form_b_diff(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    ws = make_workspace(task, tmp_path / "ws")
    old = (task.repo_dir / "calc/ops.py").read_text().splitlines(keepends=True)
    new = (task.root / "golden_files/ops_golden.py").read_text().splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(old, new, "a/calc/ops.py", "b/calc/ops.py"))
    apply_prediction(_pred(diff=diff), ws)
    assert (ws / "calc/ops.py").read_text() == "".join(new)


def test_form_c_repo_dir_under_the_repo_root(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    revised = make_workspace(task, tmp_path / "revised")
    (revised / "calc/ops.py").write_text(GOOD)
    ws = make_workspace(task, tmp_path / "ws")
    apply_prediction(_pred(repo_dir=str(revised)), ws, repo_root=tmp_path)
    assert (ws / "calc/ops.py").read_text() == GOOD and (ws / "calc/data.txt").is_file()


def test_form_c_repo_dir_with_a_symlink_is_refused(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    revised = make_workspace(task, tmp_path / "revised")
    (revised / "leak.py").symlink_to(task.root / "golden_files/ops_golden.py")
    ws = make_workspace(task, tmp_path / "ws")
    with pytest.raises(InvalidPrediction, match=r"'leak\.py' is a symlink"):
        apply_prediction(_pred(repo_dir=str(revised)), ws, repo_root=tmp_path)


def test_form_c_repo_dir_needs_a_repo_root(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    revised = make_workspace(task, tmp_path / "revised")
    ws = make_workspace(task, tmp_path / "ws")
    with pytest.raises(InvalidPrediction, match="--repo-root"):
        apply_prediction(_pred(repo_dir=str(revised)), ws)
    with pytest.raises(InvalidPrediction, match="not under the repo root"):
        apply_prediction(_pred(repo_dir=str(revised)), ws, repo_root=tmp_path / "ws")


@pytest.mark.parametrize(
    ("form", "reason"),
    [
        ({"functions": {"calc/missing.py": {"f": GOOD}}}, "not in the repository"),
        ({"functions": {"../../etc/passwd": {"f": GOOD}}}, "escapes the repository"),
        ({"functions": {"calc/ops.py": {"add_scaled": "def add_scaled(:\n"}}}, "does not parse"),
        ({"functions": {"calc/ops.py": {"add_scaled": "x = 1\n"}}}, "no definition"),
        ({"diff": "--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-a\n+b\n"}, "does not apply"),
        ({"repo_dir": "/definitely/not/here"}, "--repo-root"),
        ({"error": "rate limited"}, "generation failed"),
    ],
)
def test_invalid_predictions_say_why(toy_tasks, tmp_path, form, reason):
    ws = make_workspace(toy_tasks.task("toy"), tmp_path / "ws")
    with pytest.raises(InvalidPrediction, match=reason):
        apply_prediction(_pred(**form), ws)


def test_protected_files_are_restored_and_hooks_removed(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    ws = make_workspace(task, tmp_path / "ws")
    (ws / "calc/data.txt").write_text("tampered")
    (ws / "sitecustomize.py").write_text("import os")
    touched = restore_protected(task, ws)
    assert (ws / "calc/data.txt").read_text() == "pristine fixture\n"
    assert not (ws / "sitecustomize.py").exists()
    assert set(touched) == {"calc/data.txt", "sitecustomize.py"}


def test_prediction_needs_exactly_one_form():
    with pytest.raises(ValueError, match="exactly one"):
        Prediction(instance_id="t/1", model="m", diff="x", functions={})
    with pytest.raises(ValueError, match="give one of"):
        Prediction(instance_id="t/1", model="m")


def test_content_hash_ignores_metadata():
    a = _pred(functions={"f.py": {"f": "def f(): pass"}})
    b = Prediction(instance_id="toy/1", model="m", functions={"f.py": {"f": "def f(): pass"}}, meta={"x": 1})
    c = _pred(functions={"f.py": {"f": "def f(): return 1"}})
    assert a.content_hash() == b.content_hash() != c.content_hash()




def test_form_a_keeps_crlf_and_module_additions(toy_tasks, tmp_path):
    ws = make_workspace(toy_tasks.task("toy"), tmp_path / "ws")
    goal = ws / "calc/ops.py"
    crlf = goal.read_bytes().replace(b"\n", b"\r\n")
    goal.write_bytes(crlf)
    code = "def add_scaled(a, b, k):\n    return [x + _mul(k, y) for x, y in zip(a, b)]\n"
    apply_prediction(_pred(functions={"calc/ops.py": {"add_scaled": code, "<module>": "import operator\n\n"
                                                      "def _mul(k, y):\n    return operator.mul(k, y)\n"}}), ws)
    text = goal.read_bytes()
    assert b"import operator\r\n" in text and b"def _mul(k, y):\r\n" in text
    assert text.count(b"\n") == text.count(b"\r\n")


def test_form_a_on_a_file_that_is_not_text_is_invalid(toy_tasks, tmp_path):
    ws = make_workspace(toy_tasks.task("toy"), tmp_path / "ws")
    (ws / "calc/blob.py").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(InvalidPrediction, match=r"calc/blob\.py: .*utf-8"):
        apply_prediction(_pred(functions={"calc/blob.py": {"f": "def f():\n    return 1\n"}}), ws)
