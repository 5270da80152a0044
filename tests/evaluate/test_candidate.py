"""The candidate's code is taken once, when it is evaluated, and kept for the judge and the report."""

from __future__ import annotations

import difflib

from lmrbench.evaluate.batch import evaluate_predictions
from lmrbench.evaluate.candidate import kept_candidates
from lmrbench.records import Prediction
from lmrbench.rundir import RunDir

HELPER = "def _scale(y, k):\n    return k * y\n"
TARGET = "def add_scaled(a, b, k):\n    return [x + _scale(y, k) for x, y in zip(a, b)]\n"


def _diff(tasks) -> str:
    goal = (tasks.task("toy").repo_dir / "calc" / "ops.py").read_text()
    start = goal.index("    # TODO")
    end = goal.index("raise NotImplementedError") + len("raise NotImplementedError\n")
    revised = goal[:start] + "    return [x + k * y for x, y in zip(a, b)]\n" + goal[end:]
    return "".join(difflib.unified_diff(goal.splitlines(keepends=True), revised.splitlines(keepends=True),
                                        "a/calc/ops.py", "b/calc/ops.py"))


def test_the_evaluated_candidate_is_kept_beside_its_log(probe_tasks, tmp_path):
    run = RunDir(tmp_path / "run")
    diff = _diff(probe_tasks)
    preds = [Prediction(instance_id="toy/1", model="fn", functions={"calc/ops.py": {"add_scaled": TARGET,
                                                                                   "<module>": HELPER}}),
             Prediction(instance_id="toy/1", model="diff", diff=diff)]
    evs = evaluate_predictions(preds, probe_tasks, run.evaluations, run.work, run.logs)
    assert sorted(e.status.value for e in evs) == ["passed", "passed"], [e.reason for e in evs]
    kept = kept_candidates(run)
    assert kept[("toy/1", "fn", 0)].startswith(TARGET.strip()) and "_scale" in kept[("toy/1", "fn", 0)]
    assert kept[("toy/1", "diff", 0)].strip().endswith("return [x + k * y for x, y in zip(a, b)]")
