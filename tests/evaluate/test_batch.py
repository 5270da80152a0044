import json

from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.records import Status
from lmrbench.solvers.builtin import reference_prediction, stub_prediction

GOOD = "def add_scaled(a, b, k):\n    return [x + k * y for x, y in zip(a, b)]\n"


def test_bad_lines_become_invalid_predictions_and_the_run_goes_on(toy_tasks, tmp_path):
    path = tmp_path / "predictions.jsonl"
    lines = [
        "{not json",
        json.dumps({"instance_id": "nope/1", "model": "m", "functions": {}}),
        json.dumps({"instance_id": "toy/1", "model": "m"}),
        json.dumps({"instance_id": "toy/1", "model": "m", "sample": 1,
                    "functions": {"calc/ops.py": {"add_scaled": GOOD}}}),
    ]
    path.write_text("\n".join(lines) + "\n")
    preds, invalid = load_predictions(path, toy_tasks)
    assert len(preds) == 1
    reasons = [e.reason for e in invalid]
    assert reasons[0].startswith("predictions line 1: not valid JSON")
    assert "line 2: unknown instance" in reasons[1] and "nope" in reasons[1]
    assert "line 3: field '<line>'" in reasons[2] or "line 3:" in reasons[2]
    out = tmp_path / "evaluations.jsonl"
    evaluate_predictions(preds, toy_tasks, out, tmp_path / "w", tmp_path / "l", extra=invalid)
    evals = latest_evaluations(out)
    assert sorted(e.status.value for e in evals) == ["invalid_prediction"] * 3 + ["passed"]


def test_resume_skips_finished_and_reevaluates_changed(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    impl = task.implementation(1)
    out = tmp_path / "evaluations.jsonl"
    first = evaluate_predictions([reference_prediction(task, impl)], toy_tasks, out, tmp_path / "w", tmp_path / "l")
    assert len(first) == 1
    again = evaluate_predictions([reference_prediction(task, impl)], toy_tasks, out, tmp_path / "w", tmp_path / "l")
    assert again == []
    changed = stub_prediction(task, impl)
    changed.model = "reference"  # same item, new content: must be re-evaluated
    third = evaluate_predictions([changed], toy_tasks, out, tmp_path / "w", tmp_path / "l")
    assert len(third) == 1 and third[0].status is Status.FAILED
    latest = latest_evaluations(out)
    assert len(latest) == 1 and latest[0].status is Status.FAILED


def test_torn_last_line_is_tolerated(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    out = tmp_path / "evaluations.jsonl"
    out.write_text('{"instance_id": "toy/1", "sta')  # an interrupted write
    evaluate_predictions([reference_prediction(task, task.implementation(1))], toy_tasks, out,
                         tmp_path / "w", tmp_path / "l")
    assert [e.status for e in latest_evaluations(out)] == [Status.PASSED]
