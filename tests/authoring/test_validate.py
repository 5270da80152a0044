from lmrbench.authoring.validate import ValidateConfig, validate
from lmrbench.records import Status
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
