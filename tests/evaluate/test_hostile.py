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
from lmrbench.evaluate.runner import EvalConfig, evaluate_one
from lmrbench.records import Prediction, Status
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
        _pred("loop", "import time\nwhile True:\n    time.sleep(1)"),  # never ends (a busy loop: the test above)
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


# --- host writes: links and special files made by a prediction are refused before the harness touches them ---

def _diff_adding_symlink(path: str, target: str) -> str:
    return (f"diff --git a/{path} b/{path}\nnew file mode 120000\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n"
            f"+{target}\n\\ No newline at end of file\n")


def _diff_replacing_with_symlink(path: str, old: str, target: str) -> str:
    old_lines = old.splitlines()
    minus = "".join(f"-{ln}\n" for ln in old_lines)
    return (f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
            f"@@ -1,{len(old_lines)} +0,0 @@\n{minus}" + _diff_adding_symlink(path, target))


def test_diff_symlink_over_protected_file_is_not_written_through(toy_tasks, tmp_path):
    task = toy_tasks.task("toy")
    host_file = tmp_path / "host-file.txt"
    host_file.write_text("host original\n")
    diff = _diff_replacing_with_symlink("calc/data.txt", (task.repo_dir / "calc/data.txt").read_text(),
                                        str(host_file))
    ws = tmp_path / "probe"
    from lmrbench.evaluate.apply import _apply_diff, make_workspace  # the attack itself: git makes the link
    make_workspace(task, ws)
    _apply_diff(diff, ws)
    assert (ws / "calc/data.txt").is_symlink()  # without the check, restore_protected would write through it
    ev = _eval(toy_tasks, tmp_path, Prediction(instance_id="toy/1", model="hostile-symlink-restore", diff=diff))
    assert ev.status is Status.INVALID and "calc/data.txt" in ev.reason and "symlink" in ev.reason
    assert host_file.read_text() == "host original\n"


def test_diff_symlinked_hidden_tests_folder_is_refused_and_the_run_goes_on(toy_tasks, tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    task = toy_tasks.task("toy")
    preds = [Prediction(instance_id="toy/1", model="hostile-hidden-link", diff=_diff_adding_symlink(
        "_hidden_tests", str(target))), reference_prediction(task, task.implementation(1))]
    evals = evaluate_predictions(preds, toy_tasks, tmp_path / "e.jsonl", tmp_path / "w", tmp_path / "l")
    by_model = {e.model: e for e in evals}
    assert by_model["hostile-hidden-link"].status is Status.INVALID
    assert "_hidden_tests" in by_model["hostile-hidden-link"].reason
    assert by_model["reference"].status is Status.PASSED
    assert (target / "keep.txt").read_text() == "keep"  # rmtree never reached through the link


def test_diff_symlink_to_golden_file_is_refused(toy_tasks, tmp_path):
    golden = toy_tasks.task("toy").root / "golden_files" / "ops_golden.py"
    ev = _eval(toy_tasks, tmp_path, Prediction(instance_id="toy/1", model="hostile-golden-link",
                                               diff=_diff_adding_symlink("leak.py", str(golden))))
    assert ev.status is Status.INVALID and "leak.py" in ev.reason


def _revised(toy_tasks, tmp_path) -> Path:
    from lmrbench.evaluate.apply import make_workspace

    revised = make_workspace(toy_tasks.task("toy"), tmp_path / "root" / "revised")
    (revised / "calc/ops.py").write_text(_fn(f"return {RIGHT}"))
    return revised


def _eval_repo(toy_tasks, tmp_path, repo_dir: Path | str, root: Path | None):
    task = toy_tasks.task("toy")
    cfg = EvalConfig(repo_root=root)
    pred = Prediction(instance_id="toy/1", model="hostile-repo", repo_dir=str(repo_dir))
    return evaluate_one(task, task.implementation(1), pred, tmp_path / "work", tmp_path / "logs", cfg)


def test_repo_dir_hard_link_to_host_canary_is_refused(toy_tasks, tmp_path):
    canary = tmp_path / "canary.txt"
    canary.write_text("host secret")
    revised = _revised(toy_tasks, tmp_path)
    os.link(canary, revised / "calc" / "leak.txt")
    assert (revised / "calc" / "leak.txt").read_text() == "host secret"  # the link reaches the canary
    ev = _eval_repo(toy_tasks, tmp_path, revised, tmp_path / "root")
    assert ev.status is Status.INVALID and "hard link" in ev.reason and "leak.txt" in ev.reason


def test_repo_dir_fifo_is_refused_without_blocking(toy_tasks, tmp_path):
    revised = _revised(toy_tasks, tmp_path)
    os.mkfifo(revised / "calc" / "pipe")
    ev = _eval_repo(toy_tasks, tmp_path, revised, tmp_path / "root")
    assert ev.status is Status.INVALID and "special file" in ev.reason and ev.duration_s < 10


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_repo_dir_device_file_is_refused(toy_tasks, tmp_path):
    import stat

    revised = _revised(toy_tasks, tmp_path)
    os.mknod(revised / "calc" / "zero", stat.S_IFCHR | 0o666, os.makedev(1, 5))  # like /dev/zero: endless
    ev = _eval_repo(toy_tasks, tmp_path, revised, tmp_path / "root")
    assert ev.status is Status.INVALID and "special file" in ev.reason


def test_repo_dir_outside_the_root_or_special_is_refused(toy_tasks, tmp_path):
    revised = _revised(toy_tasks, tmp_path)
    assert _eval_repo(toy_tasks, tmp_path, revised, tmp_path / "root").status is Status.PASSED  # honest: fine
    (tmp_path / "root" / "to-proc").symlink_to("/proc")
    cases = [(revised, None, "--repo-root"), ("/proc", None, "--repo-root"),
             (tmp_path / "root" / "to-proc", tmp_path / "root", "not under the repo root"),
             ("/proc/self", Path("/"), "special folder"), ("/dev", Path("/"), "special folder")]
    for repo_dir, root, why in cases:
        ev = _eval_repo(toy_tasks, tmp_path, repo_dir, root)
        assert ev.status is Status.INVALID and why in ev.reason, (repo_dir, ev.reason)


# --- one line must not stop the run ---

def _batch(toy_tasks, tmp_path, lines: list[str]):
    from lmrbench.evaluate.batch import load_predictions

    path = tmp_path / "predictions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    preds, invalid = load_predictions(path, toy_tasks)
    return evaluate_predictions(preds, toy_tasks, tmp_path / "e.jsonl", tmp_path / "w", tmp_path / "l",
                                extra=invalid)


def _reference_line(toy_tasks, model: str = "reference") -> str:
    task = toy_tasks.task("toy")
    pred = reference_prediction(task, task.implementation(1))
    return pred.model_copy(update={"model": model}).model_dump_json()


def test_100000_deep_json_line_is_one_invalid_result(toy_tasks, tmp_path):
    deep = '{"instance_id": "toy/1", "model": "deep", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}"
    evals = _batch(toy_tasks, tmp_path, [deep, _reference_line(toy_tasks)])
    statuses = sorted(e.status.value for e in evals)
    assert statuses == ["invalid_prediction", "passed"]
    assert any("line 1" in e.reason for e in evals if e.status is Status.INVALID)


def test_lone_surrogate_and_over_long_lines_are_one_invalid_result_each(toy_tasks, tmp_path):
    from lmrbench.jsonl import read_records

    bad = '{"instance_id": "toy/1", "model": "a\\ud800b", "functions": {}}'
    evals = _batch(toy_tasks, tmp_path, [bad, _reference_line(toy_tasks)])
    assert sorted(e.status.value for e in evals) == ["invalid_prediction", "passed"]
    path = tmp_path / "long.jsonl"
    path.write_text('{"a": "' + "x" * 5000 + '"}\n{"b": 1}\n')
    recs = list(read_records(path, max_line_bytes=1000))
    assert recs[0].obj is None and "longer than" in recs[0].error and recs[1].obj == {"b": 1}


def test_320_character_model_name_is_hashed_in_file_names(toy_tasks, tmp_path):
    model = "m" * 320
    evals = _batch(toy_tasks, tmp_path, [_reference_line(toy_tasks, model)])
    assert [e.status for e in evals] == [Status.PASSED] and evals[0].model == model
    assert len(Path(evals[0].log_path).name) < 200


def test_100000_term_expression_is_one_invalid_result(toy_tasks, tmp_path):
    body = "return " + " + ".join(["1"] * 100_000)
    evals = evaluate_predictions([_pred("expr", body), _pred("ok", f"return {RIGHT}")], toy_tasks,
                                 tmp_path / "e.jsonl", tmp_path / "w", tmp_path / "l")
    by_model = {e.model: e for e in evals}
    assert by_model["hostile-expr"].status is Status.INVALID and "Recursion" in by_model["hostile-expr"].reason
    assert by_model["hostile-ok"].status is Status.PASSED


def test_deeply_nested_or_huge_results_file_cannot_stop_grading(toy_tasks, tmp_path):
    write = """
import os
out = os.environ["LMRBENCH_RESULTS"]
with open(out, "w") as fh:
    fh.write({payload})
os._exit(0)
"""
    deep = _pred("deep-results", write.format(payload='"[" * 200000 + "]" * 200000'))
    huge = _pred("huge-results", write.format(payload='"[" + "0," * 9_000_000 + "0]"'))  # 18 MB > 16 MB cap
    evals = evaluate_predictions([deep, huge, _pred("ok", f"return {RIGHT}")], toy_tasks, tmp_path / "e.jsonl",
                                 tmp_path / "w", tmp_path / "l", EvalConfig(timeout_s=60))
    by_model = {e.model: e.status for e in evals}
    assert by_model == {"hostile-deep-results": Status.FAILED, "hostile-huge-results": Status.FAILED,
                        "hostile-ok": Status.PASSED}


def test_results_file_replaced_by_a_link_to_a_host_file_is_not_read(toy_tasks, tmp_path):
    forged = tmp_path / "forged.json"
    forged.write_text('{"nonce": "x", "exitstatus": 0, "tests": [], "collect_errors": []}')
    body = f"""
import os
out = os.environ["LMRBENCH_RESULTS"]
os.symlink({str(forged)!r}, out)
os._exit(0)
"""
    ev = _eval(toy_tasks, tmp_path, _pred("results-link", body))
    assert ev.status is Status.FAILED and "no structured results" in ev.reason


# --- reports and read-back ---

def test_huge_output_is_tail_capped_in_reports(toy_tasks, tmp_path):
    from lmrbench.report.bundle import LOG_TAIL_BYTES, collect, write_all

    # printed output of a failing test lands in the log (pytest shows captured output)
    body = "import sys\nfor _ in range(20):\n    sys.stdout.write('y' * (1024 * 1024) + '\\n')\nreturn None"
    run = tmp_path / "run"
    pred = _pred("chatty", body)
    (run).mkdir()
    (run / "predictions.jsonl").write_text(pred.model_dump_json() + "\n")
    evaluate_predictions([pred], toy_tasks, run / "evaluations.jsonl", run / "work", run / "logs")
    logs = list((run / "logs").glob("*.log"))
    assert logs and logs[0].stat().st_size > 20 * 1024 * 1024  # the output really was that big
    data = collect([run], toy_tasks)
    assert len(data.drills[0].log_tail) <= LOG_TAIL_BYTES
    files = write_all(data, run)
    for f in files:
        assert f.stat().st_size < 1024 * 1024, f


def test_report_does_not_follow_a_forged_log_path(toy_tasks, tmp_path):
    from lmrbench.report.bundle import collect

    canary = tmp_path / "host-secret.txt"
    canary.write_text("TOP-SECRET-CANARY")
    run = tmp_path / "run"
    pred = _pred("ok", f"return {RIGHT}")
    run.mkdir()
    (run / "predictions.jsonl").write_text(pred.model_dump_json() + "\n")
    evals = evaluate_predictions([pred], toy_tasks, run / "evaluations.jsonl", run / "work", run / "logs")
    forged = evals[0].model_copy(update={"log_path": str(canary)})
    (run / "evaluations.jsonl").write_text(forged.model_dump_json() + "\n")
    drill = collect([run], toy_tasks).drills[0]
    assert "TOP-SECRET-CANARY" not in drill.log_tail and "outside the run directory" in drill.log_tail
    link = run / "logs" / "link.log"
    link.symlink_to(canary)
    (run / "evaluations.jsonl").write_text(forged.model_copy(update={"log_path": str(link)}).model_dump_json() + "\n")
    assert "TOP-SECRET-CANARY" not in collect([run], toy_tasks).drills[0].log_tail


def test_from_dirs_does_not_follow_a_symlink_to_a_home_canary(toy_tasks, tmp_path):
    from lmrbench.external import export_workspaces, predictions_from_dirs

    canary = Path.home() / f".lmrbench-canary-{uuid.uuid4().hex}"
    canary.write_text("HOME-CANARY-CONTENT")
    try:
        ws = export_workspaces(toy_tasks, tmp_path / "ws")[0]
        (ws / "calc" / "notes.txt").symlink_to(canary)
        preds = predictions_from_dirs(toy_tasks, tmp_path / "ws", "agent")
        assert (ws / "calc" / "notes.txt").read_text() == "HOME-CANARY-CONTENT"  # following it would leak
        assert len(preds) == 1 and preds[0].meta.skipped_symlinks == ["calc/notes.txt"]
        assert "HOME-CANARY-CONTENT" not in preds[0].model_dump_json()
    finally:
        canary.unlink()


def test_full_isolation_refuses_the_whole_run_before_any_item(toy_tasks, tmp_path):
    from lmrbench.sandbox import IsolationError

    task = toy_tasks.task("toy")
    cfg = EvalConfig(sandbox=SandboxConfig(isolation="full", cgroups="off"))
    with pytest.raises(IsolationError):
        evaluate_predictions([reference_prediction(task, task.implementation(1))], toy_tasks,
                             tmp_path / "e.jsonl", tmp_path / "w", tmp_path / "l", cfg)
    assert not (tmp_path / "e.jsonl").exists() or not (tmp_path / "e.jsonl").read_text().strip()
