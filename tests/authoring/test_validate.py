import pytest

from lmrbench.authoring.validate import ImplementationValidation, ValidateConfig, _mutant_predictions, validate
from lmrbench.records import Status
from lmrbench.tasks.schema import TaskFormatError
from tests.conftest import WRONG


def test_validate_toy_task_with_mutants(toy_tasks):
    task = toy_tasks.task("toy")
    [res] = validate([(task, task.implementation(1))], ValidateConfig(repeat=2, mutants=True, workers=2))
    assert (res.reference_passed, res.reference_runs) == (2, 2)
    assert res.stub_status is Status.FAILED
    assert (res.wrong_caught, res.wrong_total) == (len(WRONG), len(WRONG))
    assert res.mutants_total >= 3 and res.kill_rate is not None and res.kill_rate > 0.5
    assert res.ok and res.tests == 3
    # why each wrong variant failed: its first failing case (the toy task's tests are pytest functions)
    assert set(res.wrong_reasons) == {name.removesuffix(".py") for name in WRONG}
    assert all("did not pass" in why or "failed" in why for why in res.wrong_reasons.values()), res.wrong_reasons


def test_a_wrong_variant_that_passes_is_reported(toy_tasks):
    task = toy_tasks.task("toy")
    (task.wrong_dir(1) / "actually_right.py").write_text(
        "# not wrong at all\ndef add_scaled(a, b, k):\n    return [y * k + x for x, y in zip(a, b)]\n"
    )
    [res] = validate([(task, task.implementation(1))], ValidateConfig(repeat=1, workers=2))
    assert res.wrong_survivors == ["actually_right"] and not res.ok
    assert "actually_right" not in res.wrong_reasons


def test_declared_equivalent_mutants_leave_the_denominator_and_a_killed_one_fails(toy_tasks):
    # the rate: killed over the mutants run, less the survivors declared equivalent (counted apart)
    res = ImplementationValidation(instance_id="t/1", reference_passed=1, reference_runs=1, stub_status=Status.FAILED,
                                   mutants_killed=8, mutants_total=10, mutants_equivalent=["f:m1", "f:m2"])
    assert res.kill_rate == 1.0 and res.ok
    assert res.model_copy(update={"mutants_equivalent": []}).kill_rate == 0.8
    # a declaration that a test refutes (the mutant was killed) fails the validation until it is removed
    task = toy_tasks.task("toy")
    first = _mutant_predictions(task, task.implementation(1), None)[0][1]
    task.equivalent_mutants_file(1).write_text(f"# shown by hand\n\n{first} the sum is taken in another order\n")
    [res] = validate([(task, task.implementation(1))], ValidateConfig(repeat=1, mutants=True, wrong=False, workers=2))
    assert res.equivalent_killed == [first] and res.mutants_equivalent == [] and not res.ok
    task.equivalent_mutants_file(1).write_text(f"{first}\n")
    with pytest.raises(TaskFormatError, match="line 1"):
        validate([(task, task.implementation(1))], ValidateConfig(repeat=1, mutants=True, wrong=False))


def test_a_job_without_a_verdict_is_neither_caught_nor_killed():
    # a harness error (the warm server ended, the sandbox stopped the batch) proves nothing about the code: the
    # stub, a wrong variant or a mutant in that state leaves the validation failing until a re-run gives a verdict
    res = ImplementationValidation(instance_id="t/1", reference_passed=1, reference_runs=1, stub_status=Status.FAILED,
                                   mutants_killed=8, mutants_total=10,
                                   harness_errors={"mutant f:m3": "warm server ended early"})
    assert not res.ok and res.mutants_errored == 1 and res.kill_rate == 8 / 9
    assert not res.model_copy(update={"harness_errors": {}, "stub_status": Status.ERROR}).ok
    assert res.model_copy(update={"harness_errors": {}}).ok


def test_warm_batches_fit_the_sandboxs_workspace_caps(toy_root):
    # every job of a warm batch copies the task's repository into the batch's one sandbox; a batch whose copies
    # exceed the workspace caps is stopped whole, and before the batches were sized by footprint every job of it
    # came back an error that validation counted as caught or killed
    from lmrbench.authoring.validate import jobs_per_batch
    from lmrbench.evaluate.runner import EvalConfig
    from lmrbench.sandbox import SandboxConfig
    from lmrbench.tasks.loader import load_tasks

    repo = toy_root / "toy" / "toy-repo"
    for n in range(60):
        (repo / f"extra_{n}.txt").write_text("x\n")
    task = load_tasks(toy_root, strict=True).task("toy")
    files = sum(1 for _ in repo.rglob("*")) + 1
    limits = SandboxConfig(workspace_inodes=4 * files)
    assert jobs_per_batch([task], limits) == 2
    assert jobs_per_batch([task], SandboxConfig(workspace_inodes=10 * files, workspace_mb=1)) == 5
    [res] = validate([(task, task.implementation(1))], ValidateConfig(repeat=2, workers=1),
                     EvalConfig(sandbox=limits))
    assert res.ok and res.harness_errors == {}, res
    assert (res.reference_passed, res.wrong_caught) == (2, res.wrong_total) and res.stub_status is Status.FAILED
