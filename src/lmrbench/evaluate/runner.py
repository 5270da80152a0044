"""The one evaluation core: prepare an item, run it, finish it.

- `prepare`: a fresh item folder with the masked repository as the workspace, the prediction applied,
  protected files restored, and the hidden material (probe files or tests, the runner) placed *beside* the
  workspace, never inside it.
- `command`: the one place the sandboxed command line is built.
- `run_cold`: one sandbox for one item (every model prediction); `warm.py` runs many trusted items through a
  fork server with the same command lines.
- `finish`: grade from what the run left (probe data compared outside the sandbox) and build the record.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.evaluate.apply import (
    PREPARE_TIME_LIMIT_S,
    InvalidPrediction,
    apply_prediction,
    make_workspace,
    restore_protected,
)
from lmrbench.evaluate.candidate import from_applied
from lmrbench.evaluate.causes import Cause
from lmrbench.evaluate.evidence import Lacking
from lmrbench.evaluate.grading import grade, grade_probe, workspace_modules
from lmrbench.evaluate.legacy import legacy_command, legacy_grade, preflight, prepare_logs, refusal
from lmrbench.evaluate.probes import read_capped
from lmrbench.jsonl import MAX_DEPTH, within_depth
from lmrbench.records import Evaluation, Grading, ItemFields, Outcome, Prediction, RunPath, Status, Verdict
from lmrbench.rundir import eval_item_name, kept_candidate, kept_outputs, run_facts
from lmrbench.safefs import read_beneath
from lmrbench.sandbox import LocalSandbox, Sandbox, SandboxConfig
from lmrbench.sandbox.base import Isolation
from lmrbench.sandbox.template import PRELOADABLE, TemplateSandbox
from lmrbench.tasks.schema import Implementation, Layout, Task

RUNNER = Path(__file__).with_name("probe_runner.py")
PLUGIN = Path(__file__).with_name("pytest_results_plugin.py")
EVAL_VERSION = "2"
KEPT_OUTPUT_BYTES = 8 * 1024 * 1024
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
    path: Literal["template", "cold"] = Field(
        default="template",
        description="'template': each evaluation is a child of a pre-warmed template process that isolates itself "
        "as the cold sandbox would (falls back to cold where the kernel does not allow it); 'cold': a new sandboxed "
        "interpreter per evaluation. Either way every evaluation has its own sandbox.",
    )
    keep_workspaces: bool = Field(default=False, description="Keep each evaluation's workspace for debugging.")
    timeout_s: int | None = Field(default=None, ge=1, description="Override every task's own timeout.")
    repo_root: Path | None = Field(
        default=None, description="repo_dir predictions are read only under this folder; None rejects them."
    )
    prepare_timeout_s: float = Field(
        default=PREPARE_TIME_LIMIT_S, gt=0, description="Applying one prediction (splicing, `git apply`, copying a "
        "repo_dir) may take at most this long; past it the prediction is invalid_prediction with that reason.",
    )

    def settings_hash(self) -> str:
        """What in the settings can change a verdict (timeouts, limits, isolation), for evaluation keys. The
        preparation time limit is left out: an honest prediction applies in well under a second."""
        body = self.model_dump(mode="json", exclude={"keep_workspaces", "path", "repo_root", "prepare_timeout_s"})
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


class SandboxPool:
    """The sandboxes of one run: a template backend per set of preloaded libraries, or the cold backend."""

    def __init__(self, config: EvalConfig) -> None:
        self.config = config
        self.cold = LocalSandbox(config.sandbox)
        self._templates: dict[tuple[str, ...], TemplateSandbox] = {}
        self._lock = threading.Lock()

    def for_task(self, task: Task) -> Sandbox:
        """Only the task's declared requirements are preloaded (not torch for a task that does not use it)."""
        if self.config.path == "cold":
            return self.cold
        preload = tuple(p for p in PRELOADABLE if p in task.requirements)
        with self._lock:
            if preload not in self._templates:
                self._templates[preload] = TemplateSandbox(self.config.sandbox, preload)
            return self._templates[preload]


_POOLS: dict[str, SandboxPool] = {}


def shared_pool(config: EvalConfig) -> SandboxPool:
    """One pool per configuration for the whole process, so that its templates are started once."""
    key = config.model_dump_json()
    with _POOLS_LOCK:
        if key not in _POOLS:
            _POOLS[key] = SandboxPool(config)
        return _POOLS[key]


_POOLS_LOCK = threading.Lock()


def task_hash(task: Task) -> str:
    """Hash of everything in a task folder that can change a verdict."""
    h = hashlib.sha256()
    for path in sorted(task.root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(task.root)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def evaluation_key(task_digest: str, pred: Prediction, config: EvalConfig | None = None) -> str:
    """Task content, item, prediction content and the settings that can change a verdict."""
    item = f"{pred.instance_id}|{pred.model}|{pred.sample}"
    settings = (config or EvalConfig()).settings_hash()
    body = f"{EVAL_VERSION}|{task_digest}|{item}|{pred.content_hash()}|{settings}"
    return hashlib.sha256(body.encode()).hexdigest()


def grading_of(task: Task, impl: Implementation) -> Grading:
    """Probe files (`probe_*.py`) are graded outside the sandbox; pytest files and the original layout inside."""
    if task.layout is Layout.ORIGINAL:
        return Grading.LEGACY
    return Grading.PROBE if Path(impl.unit_test_file).name.startswith("probe_") else Grading.PYTEST


@dataclass
class Prepared:
    """One item ready to run: its folders, its command's inputs, or why it cannot run."""

    task: Task
    impl: Implementation
    pred: Prediction
    key: str
    name: str
    item_dir: Path
    log: Path
    timeout: int
    grading: Grading
    invalid: str = ""
    refused: Cause | None = None
    candidate: str | None = None
    tampered: list[str] = field(default_factory=list)
    nonce: str = ""

    @property
    def ws(self) -> Path:
        return self.item_dir / "repo"

    @property
    def hidden(self) -> Path:
        """Probe files or tests plus the runner: read-only in the sandbox, outside the workspace."""
        return self.item_dir / "hidden"

    @property
    def out(self) -> Path:
        """Where the run writes its data (probe outputs, pytest results): writable, outside the workspace."""
        return self.item_dir / "out"

    @property
    def item(self) -> ItemFields:
        """The record's fields about the item itself."""
        return ItemFields(instance_id=self.impl.instance_id, task_id=self.task.task_id, index=self.impl.index,
                          model=self.pred.model, sample=self.pred.sample, key=self.key, log_path=str(self.log),
                          grading=self.grading,
                          env_substitutions=list(self.task.env.substituted) if self.task.env else [])


def _sandbox_files(task: Task) -> list[Path]:
    """Files of the tests folder that may enter the sandbox: not the expected outputs, not the trusted checks."""
    assert task.tests_dir is not None
    keep = []
    for path in sorted(task.tests_dir.rglob("*")):
        rel = path.relative_to(task.tests_dir)
        if not path.is_file() or "__pycache__" in rel.parts or rel.parts[0] == "expected":
            continue
        if path.name.startswith("check_") and path.suffix == ".py":
            continue
        keep.append(rel)
    return keep


def _place_hidden(p: Prepared) -> None:
    assert p.task.tests_dir is not None
    for rel in _sandbox_files(p.task):
        dest = p.hidden / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p.task.tests_dir / rel, dest)
    if p.grading is Grading.PROBE:
        shutil.copyfile(RUNNER, p.hidden / "lmrbench_probe.py")
    else:
        shutil.copyfile(PLUGIN, p.hidden / "pytest_results_plugin.py")
        (p.hidden / "_launcher.py").write_text(LAUNCHER)
        (p.hidden / "pytest.ini").write_text("[pytest]\n")
        p.nonce = secrets.token_hex(16)
        (p.out / "nonce").write_text(p.nonce)


def prepare(task: Task, impl: Implementation, pred: Prediction, item_dir: Path, log: Path, key: str,
            config: EvalConfig) -> Prepared:
    """Build an item's folder; an unusable prediction is recorded in `invalid`, never raised."""
    p = Prepared(task, impl, pred, key, item_dir.name, item_dir.resolve(), log.resolve(),
                 config.timeout_s or task.timeout_s, grading_of(task, impl))
    if p.item_dir.exists():
        shutil.rmtree(p.item_dir)
    p.out.mkdir(parents=True)
    p.hidden.mkdir()
    if p.grading is Grading.LEGACY:
        p.refused = preflight(task, impl)  # no repository, no test, LFS fixtures: nothing to measure here
        if p.refused is not None:
            return p
    try:
        make_workspace(task, p.ws)
        apply_prediction(pred, p.ws, config.repo_root, config.prepare_timeout_s)
        p.tampered = restore_protected(task, p.ws)
        p.candidate = _applied_candidate(p)
    except InvalidPrediction as exc:
        p.invalid = str(exc)
        return p
    if p.grading is not Grading.LEGACY:
        _place_hidden(p)
    for sub in (".home", ".tmp"):
        (p.ws / sub).mkdir(exist_ok=True)
    return p


@dataclass
class Command:
    """A sandboxed command: argv, extra environment, and the paths it may see beyond its workspace."""

    argv: list[str]
    env: dict[str, str]
    readonly: list[Path]
    writable: list[Path]


def _test_rel(p: Prepared) -> Path:
    assert p.task.tests_dir is not None
    return Path(p.impl.unit_test_file).relative_to(p.task.tests_dir.relative_to(p.task.root))


def _python(task: Task) -> tuple[str, list[Path]]:
    """The interpreter that runs a task's tests: its own environment's (`lmrbench env build`), else ours."""
    if task.env is None:
        return sys.executable, []
    return str(task.env.python), [task.env.root]


def command(p: Prepared) -> Command:
    """The one place an item's command line is built (cold sandboxes and warm batches both run this)."""
    home = {"HOME": str(p.ws / ".home"), "TMPDIR": str(p.ws / ".tmp")}
    python, env_paths = _python(p.task)
    if p.grading is Grading.PROBE:
        argv = [python, "-P", str(p.hidden / "lmrbench_probe.py"), "--out", str(p.out / "outputs.jsonl"),
                "--root", str(p.ws), str(p.hidden / _test_rel(p))]
        return Command(argv, home, [p.hidden, *env_paths], [p.out])
    if p.grading is Grading.PYTEST:
        argv = [python, "-P", str(p.hidden / "_launcher.py"), str(p.hidden / _test_rel(p))]
        env = {**home, "LMRBENCH_NONCE_FILE": str(p.out / "nonce"), "LMRBENCH_RESULTS": str(p.out / "results.json"),
               "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        return Command(argv, env, [p.hidden, *env_paths], [p.out])
    argv, env, readonly = legacy_command(p.task, p.impl, p.ws)
    return Command(argv, {**home, **env}, readonly, [])


@dataclass
class RunResult:
    """What running an item's command gave, however it was run."""

    exit_code: int | None
    timed_out: bool
    duration_s: float
    isolation: Isolation | None
    path: RunPath = "cold"
    limits_hit: list[str] = field(default_factory=list)


def before_run(p: Prepared) -> None:
    """Last step before the command: a stale legacy log must not grade this run."""
    if p.grading is Grading.LEGACY:
        prepare_logs(p.impl, p.ws)


def run_cold(p: Prepared, sandbox: Sandbox) -> RunResult:
    """Run one prepared item in its own sandbox."""
    before_run(p)
    cmd = command(p)
    res = sandbox.exec(cmd.argv, p.ws, p.timeout, p.log, env=cmd.env, readonly=cmd.readonly, writable=cmd.writable)
    return RunResult(res.exit_code, res.timed_out, res.duration_s, res.isolation, res.path, list(res.limits_hit))


def _grade_fields(p: Prepared, r: RunResult, lacking: Lacking) -> Verdict:
    """The verdict; a duration the candidate's process reported never exceeds the harness's own timing."""
    v = _graded(p, r, lacking)
    return v.model_copy(update={"tests_duration_s": min(v.tests_duration_s, round(r.duration_s, 3))})


def _graded(p: Prepared, r: RunResult, lacking: Lacking) -> Verdict:
    if p.grading is Grading.PROBE:
        g = grade_probe(p.task, p.impl.unit_test_file, p.out / "outputs.jsonl", r.exit_code, r.timed_out, lacking)
        return Verdict(status=g.status, tests_passed=g.passed, tests_total=g.total,
                       tests_duration_s=g.tests_duration_s, reason=g.reason, failures=g.failures)
    if p.grading is Grading.PYTEST:
        raw = read_capped(p.out / "results.json", MAX_RESULTS_BYTES)
        try:  # the candidate could have replaced it with a link, a FIFO, a huge or deeply nested file
            results = json.loads(raw) if raw is not None else None
            results = results if within_depth(results, MAX_DEPTH) else None
        except (ValueError, RecursionError, MemoryError):
            results = None
        g = grade(results, p.nonce, r.exit_code, r.timed_out, lacking)
        return Verdict(status=g.status, tests_passed=g.passed, tests_total=g.total,
                       tests_duration_s=g.tests_duration_s, reason=g.reason, forgeable=True)
    return legacy_grade(p.task, p.impl, p.ws, p.log, r.exit_code, r.timed_out, lacking)


def with_notes(reason: str, limits_hit: list[str], tampered: int) -> str:
    """A graded reason plus what else happened: sandbox limits hit, protected files restored."""
    if limits_hit:
        reason = (reason + f"; sandbox limit hit: {', '.join(limits_hit)}").lstrip("; ")
    if tampered:
        reason = (reason + f"; restored {tampered} protected file(s)").lstrip("; ")
    return reason


def _applied_candidate(p: Prepared) -> str | None:
    """The candidate's code as applied (before anything ran), read without following a link."""
    try:
        texts = {rel: read_beneath(p.ws, rel, MAX_RESULTS_BYTES).decode("utf-8", errors="replace")
                 for rel in p.impl.target_map()}
    except (OSError, ValueError):
        return None
    return from_applied(p.impl, p.pred, texts[p.impl.goal_file], texts)


def _keep_candidate(p: Prepared) -> str:
    if p.candidate is None:
        return ""
    dest = kept_candidate(p.log)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(p.candidate, encoding="utf-8", errors="replace")
    return str(dest)


def _keep_outputs(p: Prepared, r: RunResult, lacking: Lacking) -> str:
    """Keep the probe data beside the log (capped) with what else grading used, so that a finished run can be
    re-graded from disk without a sandbox (`lmrbench evaluate --regrade`)."""
    dest = kept_outputs(p.log)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(read_capped(p.out / "outputs.jsonl", KEPT_OUTPUT_BYTES) or b"")
    run = RunFacts(exit_code=r.exit_code, timed_out=r.timed_out, workspace_modules=sorted(workspace_modules(p.ws)),
                   limits_hit=r.limits_hit, tampered=len(p.tampered), lacking=lacking.known())
    run_facts(dest).write_text(run.model_dump_json())
    return str(dest)


class RunFacts(BaseModel):
    """What grading a probe run needs besides its data; kept beside the data for re-grading."""

    exit_code: int | None
    timed_out: bool
    workspace_modules: list[str]
    limits_hit: list[str] = Field(default_factory=list)
    tampered: int = 0
    lacking: list[str] = Field(default_factory=list, description="Modules the reference's run needs that the "
                               "environment lacked (trusted evidence for a missing-module error), when grading "
                               "looked.")


def finish(p: Prepared, r: RunResult | None, started: float) -> Evaluation:
    """Grade an item from what its run left behind and build its record."""
    duration = round(time.monotonic() - started, 3)
    if p.pred.error is not None and p.pred.meta.outcome is Outcome.MODEL_ERROR:  # the provider's failure
        return Evaluation.of(p.item, Verdict(status=Status.MODEL_ERROR, reason="no answer from the provider "
                                             f"(re-run to retry): {p.pred.error[:500]}"), duration_s=duration)
    if p.pred.error is not None and p.pred.meta.outcome is Outcome.HARNESS_ERROR:  # ours: nothing of the model
        return Evaluation.of(p.item, Verdict(status=Status.MODEL_ERROR, reason="no prediction was made, a harness "
                                             f"error (re-run to retry): {p.pred.error[:500]}"), duration_s=duration)
    if p.refused is not None:
        return Evaluation.of(p.item, refusal(p.refused, p.log), duration_s=duration)
    if p.invalid or r is None:
        return Evaluation.of(p.item, Verdict(status=Status.INVALID, reason=p.invalid), duration_s=duration)
    lacking = Lacking(p.task, p.impl)
    verdict = _grade_fields(p, r, lacking)
    verdict.reason = with_notes(verdict.reason, r.limits_hit, len(p.tampered))
    outputs = _keep_outputs(p, r, lacking) if p.grading is Grading.PROBE else ""
    return Evaluation.of(p.item, verdict, exit_code=r.exit_code, isolation=r.isolation, duration_s=duration,
                         run_path=r.path, outputs_path=outputs, candidate_path=_keep_candidate(p))


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
    """Evaluate one prediction of one implementation in its own sandbox; never raises for what it contains."""
    config = config or EvalConfig()
    sandbox = sandbox or SandboxPool(config).for_task(task)
    start = time.monotonic()
    key = key or evaluation_key(task_hash(task), pred, config)
    name = eval_item_name(task.task_id, impl.index, pred.model, pred.sample, key)
    p = prepare(task, impl, pred, work_dir.resolve() / name, log_dir.resolve() / f"{name}.log", key, config)
    try:
        result = None if p.invalid or p.refused else run_cold(p, sandbox)
        return finish(p, result, start)
    finally:
        if not config.keep_workspaces:
            shutil.rmtree(p.item_dir, ignore_errors=True)
