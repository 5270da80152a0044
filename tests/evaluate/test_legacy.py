"""Legacy grading of original-layout tasks: the original log rule, and strict = rule + exit code 0."""

from lmrbench.evaluate.runner import evaluate_one
from lmrbench.records import ErrorCause, Prediction, Status
from lmrbench.solvers.builtin import reference_prediction, stub_prediction
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import GOLDEN, TEST, make_original


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


# --- each quirk of the published copy, reproduced in a synthetic original-layout folder ---

def _eval(root, name, pred_for=reference_prediction, index=1):
    ts = load_tasks(root)
    task = ts.task(name)
    impl = task.implementation(index)
    return evaluate_one(task, impl, pred_for(task, impl), root.parent / "w", root.parent / "l")


GOAL_IN_TEST = """import os
def loss(x):
    # TODO
    raise NotImplementedError

if __name__ == '__main__':
    os.makedirs('unit_test/logs', exist_ok=True)
    ok = loss(1) == 3
    open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed' if ok else 'Test Failed')
"""


def test_goal_file_inside_unit_test_keeps_the_prediction(tmp_path):
    golden = GOAL_IN_TEST.replace("    # TODO\n    raise NotImplementedError\n", "    return 2 * x + 1\n")
    make_original(tmp_path / "d", "03-Dola", {"impl": {"goal_file": "unit_test/unit_test_1.py"}},
                  {"golden_files/losses_golden.py": golden, "repo/unit_test/unit_test_1.py": GOAL_IN_TEST,
                   "repo/losses.py": None})
    assert _eval(tmp_path / "d", "03-dola").status is Status.PASSED
    assert _eval(tmp_path / "d", "03-dola", stub_prediction).status is Status.FAILED

    def cheat(task, impl):  # a right function, and the test's verdict line rewritten: only the function is kept
        text = golden.replace("'Test Passed' if ok else 'Test Failed'", "'Test Passed'").replace("2 * x + 1", "0")
        return Prediction(instance_id=impl.instance_id, model="cheat", diff=_diff(GOAL_IN_TEST, text))

    ev = _eval(tmp_path / "d", "03-dola", cheat)
    assert ev.status is Status.FAILED and ev.legacy is not None and not ev.legacy.log_rule


def _diff(old, new, path="unit_test/unit_test_1.py"):
    import difflib
    return "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), f"a/{path}", f"b/{path}"))


def test_unit_test_file_fallback_finds_the_numbered_test(tmp_path):
    make_original(tmp_path / "d", "13-Decbound", {"impl": {"unit_test_file": "unit_test/unit_test.py"}}, {})
    ts = load_tasks(tmp_path / "d")
    assert ts.task("13-decbound").implementation(1).unit_test_file == "unit_test/unit_test_1.py"
    assert _eval(tmp_path / "d", "13-decbound").status is Status.PASSED


def test_log_written_under_another_name_is_read(tmp_path):
    test3 = TEST.replace("unit_test_1.log", "unit_test.log")
    make_original(tmp_path / "d", "16-Knowprob", {"impl": {"unit_test_file": "unit_test/unit_test_3.py"}},
                  {"repo/unit_test/unit_test_3.py": test3, "repo/unit_test/unit_test_1.py": None})
    ev = _eval(tmp_path / "d", "16-knowprob")
    assert ev.status is Status.PASSED and ev.legacy is not None and ev.legacy.log_file == "unit_test.log"
    assert _eval(tmp_path / "d", "16-knowprob", stub_prediction).status is Status.FAILED


def test_empty_diff_reference_is_a_valid_prediction(tmp_path):
    make_original(tmp_path / "d", "24-Devient", {"impl": {"goal_function": None, "class_name": None}},
                  {"repo/losses.py": GOLDEN})
    ts = load_tasks(tmp_path / "d")
    task = ts.task("24-devient")
    pred = reference_prediction(task, task.implementation(1))
    assert pred.diff == ""
    assert _eval(tmp_path / "d", "24-devient").status is Status.PASSED


def test_repository_that_is_an_empty_file_loads_and_is_an_error(tmp_path):
    make_original(tmp_path / "d", "10-Timedistill", {}, {"repo/losses.py": None, "repo/unit_test/unit_test_1.py": None,
                                                         "repo/paper.json": None})
    (tmp_path / "d" / "10-Timedistill" / "repo").write_bytes(b"")
    ts = load_tasks(tmp_path / "d")
    task = ts.task("10-timedistill")
    assert task.defect and [i.instance_id for i in ts.instances()] == ["10-timedistill/1"]
    for pred_for in (reference_prediction, stub_prediction):
        ev = _eval(tmp_path / "d", "10-timedistill", pred_for)
        assert ev.status is Status.ERROR and ev.cause is ErrorCause.MISSING_REPO and "empty file" in ev.reason
    # a model is never asked (there is nothing to show it): an error prediction, and generation goes on
    from lmrbench.generate import generate_with_model
    from lmrbench.models.fake import FakeModel

    fake = FakeModel(["```python\ndef loss(x):\n    return 0\n```"], name="fake/m")
    prog = generate_with_model(ts, fake, "prompt", tmp_path / "run", concurrency=1)
    assert prog.done == 1 and prog.failures == 1


# --- environment errors apart from model failures ---

LFS = "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 10\n"


def _env_case(tmp_path, test_body, files=None):
    test = "import os, sys\nsys.path.insert(0, os.getcwd())\nfrom losses import loss\n" + test_body
    make_original(tmp_path / "d", "01-Env", {}, {"repo/unit_test/unit_test_1.py": test, **(files or {})})
    return _eval(tmp_path / "d", "01-env")


def test_lfs_pointer_fixture_is_an_error_before_the_run(tmp_path):
    ev = _env_case(tmp_path, "import pickle\nx = pickle.load(open('unit_test/data/x.pkl', 'rb'))\n",
                   {"repo/unit_test/data/x.pkl": LFS})
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.LFS_POINTER and "unit_test/data/x.pkl" in ev.reason
    assert ev.exit_code is None  # never ran


def test_missing_module_is_an_error(tmp_path):
    ev = _env_case(tmp_path, "import lmrbench_no_such_module\n")
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.MISSING_MODULE
    assert "lmrbench_no_such_module" in ev.reason


def test_refused_network_is_an_error(tmp_path):
    ev = _env_case(tmp_path, "import urllib.request\nurllib.request.urlopen('https://huggingface.co/x', timeout=5)\n")
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.NETWORK


def test_gpu_required_is_an_error(tmp_path):
    ev = _env_case(tmp_path, "raise AssertionError('Torch not compiled with CUDA enabled')\n")
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.GPU


def test_missing_fixture_is_an_error(tmp_path):
    ev = _env_case(tmp_path, "x = open('tensors/policy.pt', 'rb').read()\n")
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.MISSING_FIXTURE and "tensors/policy.pt" in ev.reason


def test_missing_test_file_is_an_error(tmp_path):
    make_original(tmp_path / "d", "01-Notest", {}, {"repo/unit_test/unit_test_1.py": None})
    ev = _eval(tmp_path / "d", "01-notest")
    assert ev.status is Status.ERROR and ev.cause is ErrorCause.MISSING_TEST


def test_a_wrong_answer_stays_failed(tmp_path):
    def wrong(task, impl):
        return Prediction(instance_id=impl.instance_id, model="w",
                          functions={"losses.py": {"loss": "def loss(x):\n    return x\n"}})

    make_original(tmp_path / "d", "01-Wrong", {}, {})
    ev = _eval(tmp_path / "d", "01-wrong", wrong)
    assert ev.status is Status.FAILED and ev.cause is None


def test_a_log_forger_that_exits_0_passes_legacy_and_is_marked_forgeable(tmp_path):
    # The documented limit of in-process grading: the candidate shares the test's process, so code that writes the
    # log the test would write and exits 0 passes. It is kept as a pass and marked forgeable; reports count it
    # apart (tests/report/test_forgeable.py).
    body = (
        "def loss(x):\n    import os\n    os.makedirs('unit_test/logs', exist_ok=True)\n"
        "    open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed')\n    os._exit(0)\n"
    )

    def forge(task, impl):
        return Prediction(instance_id=impl.instance_id, model="forger", functions={"losses.py": {"loss": body}})

    ev = _run(tmp_path, forge)
    assert ev.status is Status.PASSED and ev.forgeable
    assert _run(tmp_path / "honest", reference_prediction).forgeable  # every legacy verdict is, honest or not
