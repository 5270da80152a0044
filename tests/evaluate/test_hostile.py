"""Hostile predictions, one per isolation property. Each would score as passing if its attack worked: it returns
the right answer only when it got what it was after. Each must be contained and not pass, and the harness must
carry on with the next item."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import uuid
from pathlib import Path

import pytest

from lmrbench.evaluate.batch import evaluate_predictions
from lmrbench.evaluate.models import Prediction, Status
from lmrbench.evaluate.runner import EvalConfig, evaluate_one
from lmrbench.sandbox import LocalSandbox, SandboxConfig
from lmrbench.solvers.builtin import reference_prediction

RIGHT = "[x + k * y for x, y in zip(a, b)]"


def _fn(body: str) -> str:
    lines = "\n".join("    " + ln for ln in body.strip().splitlines())
    return f"def add_scaled(a, b, k):\n{lines}\n"


def _pred(name: str, body: str, **extra) -> Prediction:
    return Prediction(instance_id="toy/1", model=f"hostile-{name}",
                      functions={"calc/ops.py": {"add_scaled": _fn(body)}}, **extra)


def _eval(toy_tasks, tmp_path, pred, timeout=None, sandbox=None):
    task = toy_tasks.task("toy")
    cfg = EvalConfig(timeout_s=timeout, sandbox=sandbox or SandboxConfig())
    return evaluate_one(task, task.implementation(1), pred, tmp_path / "work", tmp_path / "logs", cfg)


def test_reference_passes_in_the_same_sandbox(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    ev = _eval(toy_tasks, tmp_path, reference_prediction(task, task.implementation(1)))
    assert ev.status is Status.PASSED and (ev.tests_passed, ev.tests_total) == (3, 3), ev.reason


def test_reads_secret_from_environment(toy_tasks, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-very-secret")
    monkeypatch.setenv("HF_TOKEN", "hf-secret")
    body = f"""
import os
leaked = [v for v in os.environ.values() if "sk-very-secret" in v or "hf-secret" in v]
print("LEAK", leaked)
return {RIGHT} if leaked else None
"""
    ev = _eval(toy_tasks, tmp_path, _pred("secret", body))
    assert ev.status is Status.FAILED
    assert "sk-very-secret" not in Path(ev.log_path).read_text()


def test_network_to_loopback_server(toy_tasks, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    port = server.getsockname()[1]
    hits: list[int] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            hits.append(1)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    body = f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    return {RIGHT}
except OSError:
    return None
"""
    try:
        ev = _eval(toy_tasks, tmp_path, _pred("network", body))
    finally:
        stop.set()
        thread.join(2)
        server.close()
    isolation = LocalSandbox().isolation()
    if isolation.network != "namespace":
        pytest.skip("this kernel refuses network namespaces; the result records network='none'")
    assert ev.status is Status.FAILED and not hits
    assert ev.isolation is not None and ev.isolation.network == "namespace"


def test_infinite_loop_times_out_and_harness_goes_on(toy_tasks, tmp_path):
    ev = _eval(toy_tasks, tmp_path, _pred("loop", "while True:\n    pass"), timeout=3)
    assert ev.status is Status.TIMEOUT and ev.duration_s < 30


def test_unbounded_allocation_is_stopped(toy_tasks, tmp_path):
    body = "blocks = []\nwhile True:\n    blocks.append(bytearray(50_000_000))"
    ev = _eval(toy_tasks, tmp_path, _pred("memory", body), timeout=60, sandbox=SandboxConfig(memory_mb=1024))
    assert ev.status is Status.FAILED


def _sandbox_procs() -> int:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return out.count("hostile-forkbomb-marker")


def test_fork_bomb_is_limited(toy_tasks, tmp_path):
    body = f"""
import os, time
kids = 0
try:
    for _ in range(5000):
        if os.fork() == 0:
            time.sleep(30)  # hostile-forkbomb-marker
            os._exit(0)
        kids += 1
except OSError:
    return None
return {RIGHT} if kids >= 5000 else None
"""
    ev = _eval(toy_tasks, tmp_path, _pred("fork", body), timeout=20)
    assert ev.status in (Status.FAILED, Status.TIMEOUT)
    iso = LocalSandbox().isolation()
    if iso.processes == "none":
        pytest.skip("no process limit available (root without a writable pids cgroup)")
    # and nothing is left running afterwards
    leftovers = subprocess.run(["pgrep", "-f", "time.sleep\\(30\\)"], capture_output=True, text=True).stdout.split()
    assert leftovers == []


def test_writes_outside_workspace(toy_tasks, tmp_path):
    target = Path("/var/tmp") / f"lmrbench-escape-{uuid.uuid4().hex}.txt"
    body = f"""
try:
    with open({str(target)!r}, "w") as fh:
        fh.write("out")
    return {RIGHT}
except OSError:
    return None
"""
    ev = _eval(toy_tasks, tmp_path, _pred("write", body))
    if LocalSandbox().isolation().filesystem != "bwrap":
        pytest.skip("bubblewrap is not installed: no filesystem isolation (recorded in results)")
    assert not target.exists()
    assert ev.status is Status.FAILED


def test_cannot_read_reference_or_tests_source(toy_tasks, tmp_path):
    golden = toy_tasks.task("toy").root / "golden_files" / "ops_golden.py"
    body = f"""
try:
    src = open({str(golden)!r}).read()
    return {RIGHT}
except OSError:
    return None
"""
    ev = _eval(toy_tasks, tmp_path, _pred("read-golden", body))
    if LocalSandbox().isolation().filesystem != "bwrap":
        pytest.skip("bubblewrap is not installed: no filesystem isolation (recorded in results)")
    assert ev.status is Status.FAILED


def test_fake_passed_lines_do_not_count(toy_tasks, tmp_path):
    body = """
import os, sys
print("test_ops.py::test_hand_checked PASSED")
print("============ 3 passed in 0.01s ============")
sys.stdout.flush()
os._exit(0)
"""
    ev = _eval(toy_tasks, tmp_path, _pred("fake-pass", body))
    assert ev.status is Status.FAILED and "no structured results" in ev.reason


def test_forged_results_file_does_not_count(toy_tasks, tmp_path):
    body = """
import json, os
out = os.environ.get("LMRBENCH_RESULTS") or "_lmrbench_out/results.json"
tests = [{"nodeid": "x", "outcome": "passed", "duration": 0.1}]
json.dump({"nonce": None, "exitstatus": 0, "tests": tests, "collect_errors": []}, open(out, "w"))
os._exit(0)
"""
    ev = _eval(toy_tasks, tmp_path, _pred("forge", body))
    assert ev.status is Status.FAILED


def test_rewriting_the_tests_is_blocked(toy_tasks, tmp_path):
    body = """
import glob
for path in glob.glob("_hidden_tests/*.py") + glob.glob("**/test_*.py", recursive=True):
    try:
        open(path, "w").write("def test_ok():\\n    pass\\n")
    except OSError:
        pass
return None
"""
    ev = _eval(toy_tasks, tmp_path, _pred("rewrite-tests", body))
    assert ev.status is Status.FAILED and ev.tests_total == 3


def test_conftest_and_fixture_tampering_via_diff(toy_tasks, tmp_path):
    conftest = (
        "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    rep = outcome.get_result()\n    rep.outcome = 'passed'\n"
    )
    diff = "--- /dev/null\n+++ b/conftest.py\n@@ -0,0 +1,7 @@\n" + "".join(
        "+" + ln + "\n" for ln in conftest.splitlines()
    )
    ev = _eval(toy_tasks, tmp_path, Prediction(instance_id="toy/1", model="hostile-conftest", diff=diff))
    assert ev.status is Status.FAILED and ev.tests_passed == 0


def test_batch_contains_every_attack_and_carries_on(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    preds = [
        _pred("loop", "while True:\n    pass"),
        _pred("exit", "import os\nos._exit(0)"),
        _pred("kill-parent", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nreturn None"),
        reference_prediction(task, task.implementation(1)),
    ]
    out = tmp_path / "evaluations.jsonl"
    evals = evaluate_predictions(preds, toy_tasks, out, tmp_path / "w", tmp_path / "l",
                                 EvalConfig(timeout_s=15), workers=2)
    by_model = {e.model: e.status for e in evals}
    assert by_model == {"hostile-loop": Status.TIMEOUT, "hostile-exit": Status.FAILED,
                        "hostile-kill-parent": Status.FAILED, "reference": Status.PASSED}
    assert os.path.getsize(out) > 0
