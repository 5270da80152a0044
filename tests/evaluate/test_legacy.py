"""Legacy grading of original-layout tasks: the original log rule, and strict = rule + exit code 0."""

from lmrbench.evaluate.models import Prediction, Status
from lmrbench.evaluate.runner import evaluate_one
from lmrbench.solvers.builtin import reference_prediction, stub_prediction
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import make_original


def _run(tmp_path, pred_for):
    make_original(tmp_path / "data", "01-Demo", {}, {})
    ts = load_tasks(tmp_path / "data")
    task = ts.task("01-demo")
    impl = task.implementation(1)
    return evaluate_one(task, impl, pred_for(task, impl), tmp_path / "w", tmp_path / "l")


def test_reference_passes_legacy(tmp_path):
    ev = _run(tmp_path, reference_prediction)
    assert ev.status is Status.PASSED and ev.legacy is not None
    assert ev.legacy.log_rule and ev.legacy.strict


def test_stub_fails_legacy(tmp_path):
    ev = _run(tmp_path, stub_prediction)
    assert ev.status is Status.FAILED and ev.legacy is not None and not ev.legacy.strict


def test_spoofed_log_passes_only_the_original_rule(tmp_path):
    body = (
        "def loss(x):\n    import os\n    os.makedirs('unit_test/logs', exist_ok=True)\n"
        "    open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed')\n    os._exit(3)\n"
    )

    def spoof(task, impl):
        return Prediction(instance_id=impl.instance_id, model="spoof", functions={"losses.py": {"loss": body}})

    ev = _run(tmp_path, spoof)
    assert ev.legacy is not None and ev.legacy.log_rule and not ev.legacy.strict
    assert ev.status is Status.FAILED
