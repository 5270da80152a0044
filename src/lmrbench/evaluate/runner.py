"""Evaluate one prediction: fresh workspace, apply, restore protected files, run hidden tests, grade."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lmrbench.evaluate.apply import InvalidPrediction, apply_prediction, make_workspace, restore_protected
from lmrbench.evaluate.grading import grade, legacy_verdict
from lmrbench.evaluate.models import Evaluation, Prediction, Status
from lmrbench.jsonl import MAX_DEPTH, within_depth
from lmrbench.safefs import read_beneath
from lmrbench.sandbox import LocalSandbox, Sandbox, SandboxConfig
from lmrbench.tasks.schema import Implementation, Layout, Task

HIDDEN = "_hidden_tests"
OUT = "_lmrbench_out"
PLUGIN = Path(__file__).with_name("pytest_results_plugin.py")
EVAL_VERSION = "1"
MAX_RESULTS_BYTES = 16 * 1024 * 1024

LAUNCHER = """\
import os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import json  # noqa: F401  (bound before the workspace can shadow it)
import pytest
import pytest_results_plugin
sys.path.insert(0, os.getcwd())  # the repository, after pytest and the plugin are loaded
args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "-c", os.path.join(HERE, "pytest.ini"),
        "--rootdir", os.getcwd(), "--confcutdir", HERE, "-o", "addopts=", *sys.argv[1:]]
sys.exit(pytest.main(args, plugins=[pytest_results_plugin]))
"""


class EvalConfig(BaseModel):
    """How evaluations run."""

    sandbox: SandboxConfig = Field(default_factory=SandboxConfig, description="Isolation and limits.")
    keep_workspaces: bool = Field(default=False, description="Keep each evaluation's workspace for debugging.")
    timeout_s: int | None = Field(default=None, ge=1, description="Override every task's own timeout.")
    repo_root: Path | None = Field(
        default=None, description="repo_dir predictions are read only under this folder; None rejects them."
    )


def task_hash(task: Task) -> str:
    """Hash of everything in a task folder that can change a verdict."""
    h = hashlib.sha256()
    for path in sorted(task.root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(task.root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def evaluation_key(task_digest: str, pred: Prediction) -> str:
    item = f"{pred.instance_id}|{pred.model}|{pred.sample}"
    return hashlib.sha256(f"{EVAL_VERSION}|{task_digest}|{item}|{pred.content_hash()}".encode()).hexdigest()


def _workspace_modules(ws: Path) -> set[str]:
    return {p.stem if p.is_file() else p.name for p in ws.iterdir() if p.suffix == ".py" or p.is_dir()}


def install_hidden_tests(task: Task, ws: Path, nonce: str) -> Path:
    hidden = ws / HIDDEN
    if hidden.exists():
        shutil.rmtree(hidden)
    assert task.tests_dir is not None
    shutil.copytree(task.tests_dir, hidden, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copyfile(PLUGIN, hidden / "pytest_results_plugin.py")
    (hidden / "_launcher.py").write_text(LAUNCHER)
    (hidden / "pytest.ini").write_text("[pytest]\n")
    out = ws / OUT
    out.mkdir(exist_ok=True)
    (out / "nonce").write_text(nonce)
    return hidden


def grade_workspace(ws: Path, nonce: str, exit_code: int | None, timed_out: bool) -> dict[str, Any]:
    """Grade a finished pytest run from the results file the plugin left in the workspace."""
    try:  # the candidate could have replaced it with a link, a FIFO, a huge or deeply nested file
        results = json.loads(read_beneath(ws, f"{OUT}/results.json", MAX_RESULTS_BYTES))
        results = results if within_depth(results, MAX_DEPTH) else None
    except (OSError, ValueError, RecursionError, MemoryError):
        results = None
    g = grade(results, nonce, exit_code, timed_out, _workspace_modules(ws))
    return dict(status=g.status, tests_passed=g.passed, tests_total=g.total, tests_duration_s=g.tests_duration_s,
                reason=g.reason, exit_code=exit_code)


def hidden_test_path(task: Task, impl: Implementation) -> Path:
    """The implementation's test file, relative to the workspace, once the hidden tests are installed."""
    assert task.tests_dir is not None
    return Path(HIDDEN) / Path(impl.unit_test_file).relative_to(task.tests_dir.relative_to(task.root))


def result_env(ws: Path) -> dict[str, str]:
    """Environment of a hidden-test run. Third-party pytest plugins are not auto-loaded: a test run should not
    depend on whatever happens to be installed (and scanning for them costs ~0.5 s per run)."""
    return {"LMRBENCH_NONCE_FILE": str(ws / OUT / "nonce"), "LMRBENCH_RESULTS": str(ws / OUT / "results.json"),
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _run_pytest(task: Task, impl: Implementation, ws: Path, sandbox: Sandbox, timeout: int,
                log: Path) -> dict[str, Any]:
    nonce = secrets.token_hex(16)
    hidden = install_hidden_tests(task, ws, nonce)
    res = sandbox.exec([sys.executable, "-P", str(hidden / "_launcher.py"), str(hidden_test_path(task, impl))], ws,
                       timeout, log, env=result_env(ws), readonly=[hidden])
    fields = grade_workspace(ws, nonce, res.exit_code, res.timed_out) | {"isolation": res.isolation}
    return note_limits(fields, res.limits_hit)


def _run_legacy(impl: Implementation, ws: Path, sandbox: Sandbox, timeout: int, log: Path) -> dict[str, Any]:
    test = Path(impl.unit_test_file)
    logs_dir = ws / test.parent / "logs"
    if logs_dir.exists():
        shutil.rmtree(logs_dir)  # a stale log must not grade this run
    logs_dir.mkdir(parents=True)
    res = sandbox.exec([sys.executable, str(test)], ws, timeout, log, env={"PYTHONPATH": str(ws)})
    verdict = legacy_verdict(logs_dir / f"{test.stem}.log", res.exit_code, root=ws)
    if res.timed_out:
        status, reason = Status.TIMEOUT, "wall-clock timeout"
    else:
        status = Status.PASSED if verdict.strict else Status.FAILED
        reason = "" if verdict.strict else f"legacy: log_rule={verdict.log_rule}, exit code {res.exit_code}"
    return note_limits(dict(
        status=status, tests_passed=int(verdict.strict), tests_total=1, reason=reason,
        exit_code=res.exit_code, isolation=res.isolation, legacy=verdict,
    ), res.limits_hit)


def prepare_workspace(task: Task, pred: Prediction, ws: Path, repo_root: Path | None = None) -> list[str]:
    """Fresh workspace with the prediction applied; returns the protected files it had tampered with."""
    make_workspace(task, ws)
    apply_prediction(pred, ws, repo_root)
    return restore_protected(task, ws)


def note_limits(fields: dict[str, Any], hits: Sequence[str]) -> dict[str, Any]:
    """Add the sandbox limits the command ran into (memory, workspace, processes) to a result's reason."""
    if hits:
        fields["reason"] = (fields["reason"] + f"; sandbox limit hit: {', '.join(hits)}").lstrip("; ")
    return fields


def note_tampered(fields: dict[str, Any], tampered: list[str]) -> dict[str, Any]:
    """Add the restored-files remark to a graded result's reason."""
    if tampered:
        fields["reason"] = (fields["reason"] + f"; restored {len(tampered)} protected file(s)").lstrip("; ")
    return fields


def workspace_name(task: Task, impl: Implementation, pred: Prediction, key: str) -> str:
    """A file name for one evaluation: a long or odd model name becomes a short prefix plus its hash."""
    model = pred.model.replace("/", "_")
    if len(model) > 64 or not re.fullmatch(r"[\w.+@=-]+", model, re.ASCII) or model.startswith("."):
        digest = hashlib.sha256(pred.model.encode(errors="surrogatepass")).hexdigest()[:12]
        model = re.sub(r"[^\w.+@=-]", "_", model, flags=re.ASCII)[:40].lstrip(".") + "-" + digest
    return f"{task.task_id}__{impl.index}__{model}__{pred.sample}__{key[:10]}"


def evaluate_one(
    task: Task,
    impl: Implementation,
    pred: Prediction,
    work_dir: Path,
    log_dir: Path,
    config: EvalConfig | None = None,
    sandbox: Sandbox | None = None,
    key: str | None = None,
) -> Evaluation:
    """Evaluate one prediction of one implementation; never raises for anything the prediction does."""
    config = config or EvalConfig()
    sandbox = sandbox or LocalSandbox(config.sandbox)
    work_dir, log_dir = work_dir.resolve(), log_dir.resolve()  # paths are handed to a sandbox with its own cwd
    key = key or evaluation_key(task_hash(task), pred)
    start = time.monotonic()
    name = workspace_name(task, impl, pred, key)
    ws = work_dir / name / "repo"
    log = log_dir / f"{name}.log"
    base: dict[str, Any] = dict(instance_id=impl.instance_id, task_id=task.task_id, index=impl.index, model=pred.model,
                sample=pred.sample, key=key, log_path=str(log))
    try:
        try:
            tampered = prepare_workspace(task, pred, ws, config.repo_root)
        except InvalidPrediction as exc:
            return Evaluation(**base, status=Status.INVALID, reason=str(exc),
                              duration_s=round(time.monotonic() - start, 3))
        timeout = config.timeout_s or task.timeout_s
        if task.layout is Layout.ORIGINAL:
            fields = _run_legacy(impl, ws, sandbox, timeout, log)
        else:
            fields = _run_pytest(task, impl, ws, sandbox, timeout, log)
        return Evaluation(**base, **note_tampered(fields, tampered), duration_s=round(time.monotonic() - start, 3))
    finally:
        if not config.keep_workspaces:
            shutil.rmtree(ws.parent, ignore_errors=True)
