"""Warm batches grade exactly like cold evaluations, contain a hanging job, and keep jobs apart."""

from __future__ import annotations

from lmrbench.authoring.validate import ValidateConfig, validate
from lmrbench.evaluate.runner import EvalConfig, evaluate_one
from lmrbench.evaluate.warm import evaluate_warm
from lmrbench.records import Prediction, Status
from lmrbench.solvers.builtin import code_prediction, reference_prediction, stub_prediction


def _fn(model: str, body: str) -> Prediction:
    return Prediction(instance_id="toy/1", model=model,
                      functions={"calc/ops.py": {"add_scaled": f"def add_scaled(a, b, k):\n    {body}\n"}})


def test_warm_batch_matches_cold_runs(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    impl = task.implementation(1)
    preds = [
        reference_prediction(task, impl),
        stub_prediction(task, impl),
        code_prediction(impl, "wrong", "def add_scaled(a, b, k):\n    return [x - k * y for x, y in zip(a, b)]\n"),
        _fn("half-right", "return [x + k * y if k >= 0 else 0 for x, y in zip(a, b)]"),
        Prediction(instance_id="toy/1", model="broken", error="no code"),
    ]
    warm = evaluate_warm(task, [(impl, p) for p in preds], tmp_path / "w", tmp_path / "wl")
    cold = [evaluate_one(task, impl, p, tmp_path / "c", tmp_path / "cl") for p in preds]
    assert [(e.model, e.status, e.tests_passed, e.tests_total) for e in warm] == [
        (e.model, e.status, e.tests_passed, e.tests_total) for e in cold]
    assert [e.status for e in warm] == [Status.PASSED, Status.FAILED, Status.FAILED, Status.FAILED, Status.INVALID]
    assert (warm[3].tests_passed, warm[3].tests_total) == (2, 3)
    assert [e.key for e in warm] == [e.key for e in cold]
    assert "NotImplementedError" in open(warm[1].log_path).read()


def test_a_hanging_job_times_out_and_the_batch_goes_on(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    impl = task.implementation(1)
    hang = _fn("hang", "import time; time.sleep(600)")
    items = [(impl, hang), (impl, reference_prediction(task, impl))]
    res = evaluate_warm(task, items, tmp_path / "w", tmp_path / "l", EvalConfig(), timeouts=[3, None])
    assert res[0].status is Status.TIMEOUT
    assert res[1].status is Status.PASSED
    assert res[0].duration_s < 30


def test_jobs_do_not_share_module_state(toy_tasks, tmp_path):
    """A job that patches a library module in place must not leak into the next forked job."""
    task = toy_tasks.task("toy")
    impl = task.implementation(1)
    patcher = _fn("patcher", "import json; json.dumps = None; return [x + k * y for x, y in zip(a, b)]")
    checker = _fn("checker", "import json; return [x + k * y for x, y in zip(a, b)] if json.dumps else []")
    res = evaluate_warm(task, [(impl, patcher), (impl, checker)], tmp_path / "w", tmp_path / "l")
    assert [e.status for e in res] == [Status.PASSED, Status.PASSED]


def test_validate_warm_and_cold_agree(toy_tasks):
    task = toy_tasks.task("toy")
    impls = [(task, task.implementation(1))]
    warm, cold = (validate(impls, ValidateConfig(repeat=2, mutants=True, warm=w, batch_size=5))[0]
                  for w in (True, False))
    assert warm.ok and cold.ok
    assert (warm.mutants_killed, warm.mutants_total) == (cold.mutants_killed, cold.mutants_total)
    assert warm.mutants_total > 0
    assert [s.mutant_id for s in warm.mutant_survivors] == [s.mutant_id for s in cold.mutant_survivors]


def test_an_expected_failing_job_stops_at_its_first_differing_case(probe_tasks, tmp_path):
    task = probe_tasks.task("toy")
    impl = task.implementation(1)
    slow_wrong = _fn("slow-wrong", "import time; time.sleep(1); return [x - k * y for x, y in zip(a, b)]")
    items = [(impl, slow_wrong), (impl, reference_prediction(task, impl)), (impl, slow_wrong)]
    res = evaluate_warm(task, items, tmp_path / "w", tmp_path / "l", stop_early=[True, True, False])
    assert [e.status for e in res] == [Status.FAILED, Status.PASSED, Status.FAILED]
    assert "stopped at its first failing case" in res[0].reason  # the same verdict, fewer cases run
    assert "stopped" not in res[1].reason + res[2].reason  # a matching job runs to the end; so does an unmarked one
    assert res[0].tests_total == res[2].tests_total and res[0].tests_passed < res[2].tests_total
    assert res[0].duration_s + 1.5 < res[2].duration_s, (res[0].duration_s, res[2].duration_s)
