"""Evaluate one prediction: fresh workspace, apply, restore protected files, run hidden tests, grade."""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lmrbench.evaluate.apply import InvalidPrediction, apply_prediction, make_workspace, restore_protected
from lmrbench.evaluate.grading import grade
from lmrbench.evaluate.legacy import preflight, refusal, run_legacy
from lmrbench.evaluate.models import Evaluation, Prediction, Status
from lmrbench.sandbox import LocalSandbox, Sandbox, SandboxConfig
from lmrbench.tasks.schema import Implementation, Layout, Task

HIDDEN = "_hidden_tests"
OUT = "_lmrbench_out"
PLUGIN = Path(__file__).with_name("pytest_results_plugin.py")
EVAL_VERSION = "1"

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
    results_path = ws / OUT / "results.json"
    try:
        results = json.loads(results_path.read_text()) if results_path.is_file() else None
    except (json.JSONDecodeError, UnicodeDecodeError):
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


def _run_pytest(task: Task, impl: Implementation, ws: Path, sandbox: Sandbox, timeout: int, log: Path,
                hide: list[Path]) -> dict[str, Any]:
    nonce = secrets.token_hex(16)
    hidden = install_hidden_tests(task, ws, nonce)
    res = sandbox.exec([sys.executable, "-P", str(hidden / "_launcher.py"), str(hidden_test_path(task, impl))], ws,
                       timeout, log, env=result_env(ws), readonly=[hidden], hide=hide)
    return grade_workspace(ws, nonce, res.exit_code, res.timed_out) | {"isolation": res.isolation}


def prepare_workspace(task: Task, pred: Prediction, ws: Path) -> list[str]:
    """Fresh workspace with the prediction applied; returns the protected files it had tampered with."""
    make_workspace(task, ws)
    apply_prediction(pred, ws)
    return restore_protected(task, ws)


def note_tampered(fields: dict[str, Any], tampered: list[str]) -> dict[str, Any]:
    """Add the restored-files remark to a graded result's reason."""
    if tampered:
        fields["reason"] = (fields["reason"] + f"; restored {len(tampered)} protected file(s)").lstrip("; ")
    return fields


def hidden_paths(task: Task, work_dir: Path, log_dir: Path) -> list[Path]:
    """What the sandbox must not see: all tasks (references), other runs' work and logs, the caller's cwd."""
    return sorted({task.root.parent.resolve(), work_dir.resolve(), log_dir.resolve(), Path.cwd().resolve()})


def workspace_name(task: Task, impl: Implementation, pred: Prediction, key: str) -> str:
    return f"{task.task_id}__{impl.index}__{pred.model.replace('/', '_')}__{pred.sample}__{key[:10]}"


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
        refused = preflight(task, impl) if task.layout is Layout.ORIGINAL else None
        if refused is not None:  # nothing to measure (no repository, no test, LFS fixtures): before applying
            return Evaluation(**base, **refusal(refused, log), duration_s=round(time.monotonic() - start, 3))
        try:
            tampered = prepare_workspace(task, pred, ws)
        except InvalidPrediction as exc:
            return Evaluation(**base, status=Status.INVALID, reason=str(exc),
                              duration_s=round(time.monotonic() - start, 3))
        timeout = config.timeout_s or task.timeout_s
        hide = hidden_paths(task, work_dir, log_dir)
        if task.layout is Layout.ORIGINAL:
            fields = run_legacy(task, impl, ws, sandbox, timeout, log, hide)
        else:
            fields = _run_pytest(task, impl, ws, sandbox, timeout, log, hide)
        return Evaluation(**base, **note_tampered(fields, tampered), duration_s=round(time.monotonic() - start, 3))
    finally:
        if not config.keep_workspaces:
            shutil.rmtree(ws.parent, ignore_errors=True)
