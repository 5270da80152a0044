import pytest

from lmrbench.solvers.builtin import code_prediction, reference_prediction, stub_prediction
from lmrbench.tasks.schema import Implementation
from lmrbench.tasks.source import SourceError

GOLDEN = "def f(x):\n    return x + 1\n\n\ndef g(x):\n    return 2 * x\n"


def _impl() -> Implementation:
    return Implementation(task_id="t", index=1, instruction="i", category=None, goal_file="m.py",
                          targets=["f", "g"], golden_file=None, unit_test_file="tests/test_m.py")


def test_wrong_variant_may_define_only_the_target_it_breaks():
    pred = code_prediction(_impl(), "wrong:x", "def g(x):\n    return 3 * x\n", fallback=GOLDEN)
    assert pred.functions == {"m.py": {"f": "def f(x):\n    return x + 1\n", "g": "def g(x):\n    return 3 * x\n"}}


def test_snippet_without_any_target_is_an_error():
    with pytest.raises(SourceError):
        code_prediction(_impl(), "wrong:x", "def h(x):\n    return 0\n", fallback=GOLDEN)
    with pytest.raises(SourceError):
        code_prediction(_impl(), "answer", "def g(x):\n    return 3 * x\n")  # no fallback: f is missing


def test_reference_and_stub_on_the_toy(toy_tasks):
    task = toy_tasks.task("toy")
    impl = task.implementation(1)
    ref = reference_prediction(task, impl)
    assert ref.functions is not None and "x + k * y" in ref.functions["calc/ops.py"]["add_scaled"]
    assert stub_prediction(task, impl).functions == {}
