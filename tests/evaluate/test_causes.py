"""Environment causes read from a failed run's output: pure functions, on hand-written tracebacks."""

from lmrbench.evaluate.causes import classify_output
from lmrbench.records import ErrorCause

WS = "/runs/w/01-x__1/repo/"
SITE = "/envs/abc/lib/python3.11/site-packages"


def _tb(own_line: str) -> str:
    return (f'Traceback (most recent call last):\n  File "{WS}unit_test/unit_test_1.py", line 3, in <module>\n'
            f"    {own_line}\n  File \"{SITE}/torchvision/__init__.py\", line 8, in <module>\n"
            "    from torchvision import _meta_registrations\n"
            "RuntimeError: operator torchvision::nms does not exist\n")


def test_package_failing_at_import_is_incompatible():
    cause = classify_output(_tb("from torchvision.transforms import Compose"), set(), [], WS)
    assert cause is not None and cause.cause is ErrorCause.INCOMPATIBLE and "torchvision::nms" in cause.reason


def test_library_error_after_the_predictions_code_ran_stays_a_failure():
    assert classify_output(_tb("out = model(x)"), set(), [], WS) is None


def test_missing_module_is_an_environment_error_only_when_the_evidence_says_the_environment_lacks_it():
    text = "ModuleNotFoundError: No module named 'losses.helpers'\n"
    assert classify_output(text, {"einops"}, [], WS) is None  # a module of the workspace: the candidate's
    other = classify_output("ModuleNotFoundError: No module named 'einops'\n", {"einops"}, [], WS)
    assert other is not None and other.cause is ErrorCause.MISSING_MODULE
    assert classify_output("ModuleNotFoundError: No module named 'einops'\n", set(), [], WS) is None


def test_plain_assertion_is_a_failure():
    text = f'Traceback (most recent call last):\n  File "{WS}unit_test/unit_test_1.py", line 9, in test\n' \
           "    assert out == 3\nAssertionError\n"
    assert classify_output(text, set(), [], WS) is None
