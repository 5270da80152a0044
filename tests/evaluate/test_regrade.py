"""`evaluate --regrade`: verdicts recomputed from the kept probe data, without a sandbox, bit for bit."""

from __future__ import annotations

from lmrbench.evaluate.batch import evaluate_predictions
from lmrbench.evaluate.regrade import regrade_run
from lmrbench.records import Prediction, Status
from lmrbench.solvers.builtin import reference_prediction, stub_prediction


def _preds(tasks):
    task = tasks.task("toy")
    impl = task.implementation(1)
    wrong = "def add_scaled(a, b, k):\n    return [x - k * y for x, y in zip(a, b)]\n"
    half = "def add_scaled(a, b, k):\n    return [x + k * y if k >= 0 else x for x, y in zip(a, b)]\n"
    return [
        reference_prediction(task, impl),
        stub_prediction(task, impl),
        Prediction(instance_id="toy/1", model="wrong", functions={"calc/ops.py": {"add_scaled": wrong}}),
        Prediction(instance_id="toy/1", model="half", functions={"calc/ops.py": {"add_scaled": half}}),
        Prediction(instance_id="toy/1", model="broken", diff="not a diff"),
    ]


def test_regrade_reproduces_every_verdict(probe_tasks, tmp_path):
    run = tmp_path / "run"
    evs = evaluate_predictions(_preds(probe_tasks), probe_tasks, run / "evaluations.jsonl", run / "work",
                               run / "logs", workers=2)
    assert sorted(e.status.value for e in evs) == ["failed", "failed", "failed", "invalid_prediction", "passed"]
    rows = regrade_run(run, probe_tasks)
    assert len(rows) == 5 and all(r.same for r in rows), [r.after.reason for r in rows if not r.same]
    by_model = {r.after.model: r.after for r in rows}
    assert by_model["half"].tests_passed == 3 and by_model["half"].tests_total == 4  # all but k = -1


def test_regrade_follows_a_changed_check_without_running_anything(probe_tasks, tmp_path):
    run = tmp_path / "run"
    evaluate_predictions(_preds(probe_tasks)[:1], probe_tasks, run / "evaluations.jsonl", run / "work",
                         run / "logs")
    check = probe_tasks.task("toy").tests_dir / "check_ops.py"
    check.write_text(check.read_text().replace("equal(out[\"out.0\"], 7)", "equal(out[\"out.0\"], 8)"))
    (row,) = regrade_run(run, probe_tasks)
    assert not row.same and row.before.status is Status.PASSED and row.after.status is Status.FAILED
    assert "hand_checked" in row.after.reason


def test_a_moved_run_folder_still_regrades_and_records_relative_paths(probe_tasks, tmp_path):
    run = tmp_path / "run"
    evs = evaluate_predictions(_preds(probe_tasks)[:2], probe_tasks, run / "evaluations.jsonl", run / "work",
                               run / "logs")
    assert all(not e.log_path.startswith("/") and e.log_path.startswith("logs/") for e in evs)
    moved = tmp_path / "elsewhere" / "run"
    moved.parent.mkdir()
    run.rename(moved)
    rows = regrade_run(moved, probe_tasks)
    assert len(rows) == 2 and all(r.same for r in rows)
