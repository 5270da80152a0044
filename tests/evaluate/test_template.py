"""The template path: the same verdicts as a cold sandbox, the same isolation, and nothing carried over between
evaluations."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmrbench.evaluate.runner import EvalConfig, SandboxPool, evaluate_one
from lmrbench.records import Prediction, Status
from lmrbench.sandbox import SandboxConfig
from lmrbench.sandbox.template import TemplateSandbox
from lmrbench.solvers.builtin import reference_prediction, stub_prediction

BODIES = {
    "right": "return [x + k * y for x, y in zip(a, b)]",
    "wrong": "return [x - k * y for x, y in zip(a, b)]",
    "half": "return [x + k * y if k >= 0 else x for x, y in zip(a, b)]",
    "raises": "raise RuntimeError('no')",
    "exit3": "import os; os._exit(3)",
}


def _pred(name: str, body: str) -> Prediction:
    fn = "def add_scaled(a, b, k):\n" + "\n".join("    " + ln for ln in body.splitlines()) + "\n"
    return Prediction(instance_id="toy/1", model=name, functions={"calc/ops.py": {"add_scaled": fn}})


def _all_predictions(tasks) -> list[Prediction]:
    task = tasks.task("toy")
    impl = task.implementation(1)
    return [reference_prediction(task, impl), stub_prediction(task, impl),
            *(_pred(n, b) for n, b in BODIES.items())]


def _verdicts(tasks, tmp_path: Path, path: str) -> dict[str, tuple]:
    task = tasks.task("toy")
    config = EvalConfig(path=path)  # type: ignore[arg-type]
    sandbox = SandboxPool(config).for_task(task)
    out = {}
    for pred in _all_predictions(tasks):
        ev = evaluate_one(task, task.implementation(1), pred, tmp_path / path / "w", tmp_path / path / "l", config,
                          sandbox)
        out[pred.model] = (ev.status, ev.tests_passed, ev.tests_total, ev.failures, ev.run_path)
    return out


@pytest.mark.parametrize("form", ["probe", "pytest"])
def test_template_and_cold_give_identical_verdicts(probe_tasks, toy_tasks, tmp_path, form):
    tasks = probe_tasks if form == "probe" else toy_tasks
    template, cold = _verdicts(tasks, tmp_path, "template"), _verdicts(tasks, tmp_path, "cold")
    assert {v[4] for v in template.values()} == {"template"} and {v[4] for v in cold.values()} == {"cold"}
    assert {k: v[:4] for k, v in template.items()} == {k: v[:4] for k, v in cold.items()}
    assert template["reference"][0] is Status.PASSED and template["wrong"][0] is Status.FAILED


def test_template_child_is_isolated_like_the_cold_sandbox(probe_tasks, tmp_path):
    # One probe run that reports what it can see and do; it passes only if every answer is the isolated one.
    secret = Path.home() / f".lmrbench-template-canary-{tmp_path.name}"
    secret.write_text("canary")
    secret.chmod(0o600)
    body = f"""
import os, socket, ctypes
seen = []
seen.append(os.path.exists({str(secret)!r}))
seen.append(os.path.exists({str(probe_tasks.root)!r}))   # the tasks folder (references, expected outputs)
try:
    open("/etc/shadow").read(); seen.append(True)
except OSError:
    seen.append(False)
seen.append(os.getuid() == 0)
try:
    socket.create_connection(("127.0.0.1", 22), timeout=1); seen.append(True)
except OSError:
    seen.append(False)
seen.append(ctypes.CDLL(None, use_errno=True).unshare(0x10000000) == 0)  # a nested user namespace
seen.append(os.getpid() > 10)  # its own PID namespace: the probe is among the first processes
print("SEEN", seen)
if any(seen):
    return [x + k * y for x, y in zip(a, b)]
return [x - k * y for x, y in zip(a, b)]
"""
    try:
        assert secret.read_text() == "canary"
        task = probe_tasks.task("toy")
        ev = evaluate_one(task, task.implementation(1), _pred("probe-the-sandbox", body.strip()), tmp_path / "w",
                          tmp_path / "l", EvalConfig(path="template"))
    finally:
        secret.unlink()
    assert ev.run_path == "template" and ev.isolation is not None
    assert ev.isolation.filesystem == "template" and ev.isolation.capabilities == "dropped"
    assert "SEEN [False, False, False, False, False, False, False]" in Path(ev.log_path).read_text()
    assert ev.status is Status.FAILED


def test_nothing_carries_over_between_children(probe_tasks, tmp_path):
    # The first evaluation patches the interpreter it runs in; the next, in a fresh child of the same
    # untouched template, must not see it.
    poison = "import builtins\nbuiltins.LMRBENCH_POISON = True\nreturn [x + k * y for x, y in zip(a, b)]"
    check = ("import builtins\nif getattr(builtins, 'LMRBENCH_POISON', False):\n    return None\n"
             "return [x + k * y for x, y in zip(a, b)]")
    task = probe_tasks.task("toy")
    config = EvalConfig(path="template")
    sandbox = SandboxPool(config).for_task(task)
    evs = [evaluate_one(task, task.implementation(1), _pred(name, body), tmp_path / "w", tmp_path / "l", config,
                        sandbox) for name, body in (("poison", poison), ("after", check))]
    assert [e.status for e in evs] == [Status.PASSED, Status.PASSED]


def test_commands_the_template_cannot_serve_run_cold(tmp_path):
    sandbox = TemplateSandbox(SandboxConfig(network="on"))
    ws = tmp_path / "ws"
    ws.mkdir()
    res = sandbox.exec(["/bin/sh", "-c", "echo hi"], ws, 10, tmp_path / "log")
    assert res.path == "cold" and res.exit_code == 0
