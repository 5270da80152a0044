"""External agents: export workspaces, edit them as an outside agent would, import, evaluate."""

from __future__ import annotations

import json
from pathlib import Path

from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.records import Status
from lmrbench.tasks.loader import load_tasks
from tests.cli_inprocess import run_cli


def test_round_trip_through_the_cli(tmp_path):
    ts = load_tasks()
    impl = ts.task("dpo").implementation(1)
    assert impl.golden_file is not None
    res = run_cli("workspace", "export", "--out", str(tmp_path / "ws"), "-t", "dpo", "-t", "simpo", cwd=Path.cwd())
    assert res.returncode == 0, res.stderr
    dpo = tmp_path / "ws" / "dpo__1"
    assert {"paper.md", "INSTRUCTIONS.md", ".lmrbench.json"} <= {p.name for p in dpo.iterdir()}
    assert not any("golden" in p.name for p in dpo.rglob("*"))
    # the outside agent: implements dpo with the reference file, and edits simpo plus a second file
    (dpo / impl.goal_file).write_text(impl.golden_file.read_text())
    simpo_dirs = [p for p in (tmp_path / "ws").iterdir() if p.name.startswith("simpo__")]
    for d in simpo_dirs:
        meta = json.loads((d / ".lmrbench.json").read_text())
        (d / "NOTES_BY_AGENT.txt").write_text("scratch\n")
        assert meta["targets"]
    out = tmp_path / "predictions.jsonl"
    res = run_cli("predictions", "from-dirs", str(tmp_path / "ws"), "--model", "outside",
                          "--out", str(out), cwd=Path.cwd())
    assert res.returncode == 0, res.stderr
    preds, invalid = load_predictions(out, ts)
    assert not invalid
    by_id = {p.instance_id: p for p in preds}
    assert by_id["dpo/1"].functions is not None  # only the goal file changed: form (a)
    assert all(by_id[d.name.replace("__", "/")].diff for d in simpo_dirs)  # another file changed: a diff
    evaluate_predictions(preds, ts, tmp_path / "e.jsonl", tmp_path / "w", tmp_path / "l")
    status = {e.instance_id: e.status for e in latest_evaluations(tmp_path / "e.jsonl")}
    assert status["dpo/1"] is Status.PASSED
    assert all(status[d.name.replace("__", "/")] is Status.FAILED for d in simpo_dirs)


def _export_toy(toy_tasks, tmp_path):
    from lmrbench.external import export_workspaces

    [ws] = export_workspaces(toy_tasks, tmp_path / "ws", ["toy/1"])
    return ws


GOLDEN_BODY = "    return [x + k * y for x, y in zip(a, b)]\n"


def test_from_dirs_never_follows_symlinks(toy_tasks, tmp_path):
    from lmrbench.external import prediction_from_dir, predictions_from_dirs

    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SECRET-KEY-MATERIAL\n")
    ws = _export_toy(toy_tasks, tmp_path)
    (ws / "calc" / "ops.py").write_text((ws / "calc" / "ops.py").read_text().replace(
        "    # TODO: implement (see the method description).\n    raise NotImplementedError\n", GOLDEN_BODY))
    (ws / "key.txt").symlink_to(home / ".ssh" / "id_rsa")  # a new file that is a link
    (ws / "calc" / "data.txt").unlink()
    (ws / "calc" / "data.txt").symlink_to(home / ".ssh" / "id_rsa")  # a repository file replaced by a link
    (ws / "dotfiles").symlink_to(home / ".ssh", target_is_directory=True)  # a linked folder
    (tmp_path / "ws" / "alias__1").symlink_to(ws, target_is_directory=True)  # a linked workspace
    pred = prediction_from_dir(toy_tasks, ws, "outside")
    assert "SECRET" not in pred.model_dump_json()
    assert pred.meta.skipped_symlinks == ["calc/data.txt", "dotfiles", "key.txt"]
    assert pred.functions is not None and list(pred.functions) == ["calc/ops.py"]  # only the goal file changed
    (ws / "notes.md").write_text("agent notes\n")  # now a diff: it must not carry the links either
    pred = prediction_from_dir(toy_tasks, ws, "outside")
    assert pred.diff is not None and "notes.md" in pred.diff and "SECRET" not in pred.diff
    assert [p.instance_id for p in predictions_from_dirs(toy_tasks, tmp_path / "ws", "outside")] == ["toy/1"]


def test_from_dirs_keeps_added_imports_and_helpers_or_falls_back_to_a_diff(toy_tasks, tmp_path):
    from lmrbench.evaluate.apply import apply_prediction, make_workspace
    from lmrbench.external import prediction_from_dir

    task = toy_tasks.task("toy")
    ws = _export_toy(toy_tasks, tmp_path)
    goal = ws / "calc" / "ops.py"
    stub = "    # TODO: implement (see the method description).\n    raise NotImplementedError\n"
    helper = "def _scaled(k, y):\n    return operator.mul(k, y)\n\n\n"
    text = goal.read_text().replace("import math  # used by norm\n", "import math  # used by norm\nimport operator\n")
    text = text.replace("def add_scaled", helper + "def add_scaled").replace(
        stub, "    return [x + _scaled(k, y) for x, y in zip(a, b)]\n")
    for final, form in ((text, "functions"), (text.replace("import operator\n", "") + "import operator\n", "diff"),
                        (text.replace("def norm(v):\n    return math.sqrt(sum(x * x for x in v))\n", ""), "diff")):
        goal.write_text(final)  # the last two: an import at the end, a deleted function: only a diff is exact
        (ws / ".git").mkdir(exist_ok=True)
        (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # an agent's own repository is not a change
        pred = prediction_from_dir(toy_tasks, ws, "outside")
        assert getattr(pred, form) is not None and ".git" not in (pred.diff or "")
        if form == "functions":
            assert pred.functions == {"calc/ops.py": {
                "add_scaled": 'def add_scaled(a, b, k):\n    """Return a + k * b, element-wise for lists."""\n'
                              "    return [x + _scaled(k, y) for x, y in zip(a, b)]\n",
                "<module>": "import operator\n\ndef _scaled(k, y):\n    return operator.mul(k, y)\n"}}
        applied = make_workspace(task, tmp_path / f"applied-{form}")
        apply_prediction(pred, applied)
        assert (applied / "calc" / "ops.py").read_text() == final


def test_export_with_the_paper_withheld(tmp_path):
    res = run_cli("workspace", "export", "--out", str(tmp_path), "-t", "dpo", "--paper", "withheld", cwd=Path.cwd())
    assert res.returncode == 0, res.stderr
    ws = tmp_path / "dpo__1"
    assert "withheld" in (ws / "paper.md").read_text()
    assert json.loads((ws / ".lmrbench.json").read_text())["paper_source"] == "withheld"
    shown = run_cli("tasks", "prompt", "dpo/1", "--paper", "withheld", cwd=Path.cwd())
    assert shown.returncode == 0 and "withheld" in shown.stdout
    assert load_tasks().task("dpo").description_file.read_text().strip()[:200] not in shown.stdout
