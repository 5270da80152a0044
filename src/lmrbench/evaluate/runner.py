"""The one evaluation core: prepare an item, run it, finish it.

- `prepare`: a fresh item folder with the masked repository as the workspace, the prediction applied,
  protected files restored, and the hidden material (probe files or tests, the runner) placed *beside* the
  workspace, never inside it.
- `command`: the one place the sandboxed command line is built.
- `run_cold`: one sandbox for one item (every model prediction); `warm.py` runs many trusted items through a
  fork server with the same command lines.
- `finish`: grade from what the run left (probe data compared outside the sandbox) and build the record.

Every step that depends on how an item is graded goes through its grader (`graders.py`).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

from pydantic import BaseModel, Field

from lmrbench.evaluate.apply import (
    PREPARE_TIME_LIMIT_S,
    InvalidPrediction,
    apply_prediction,
    make_workspace,
    restore_protected,
)
from lmrbench.evaluate.candidate import from_applied
from lmrbench.evaluate.evidence import Lacking
from lmrbench.evaluate.graders import MAX_RESULTS_BYTES, grader_for
from lmrbench.evaluate.item import Command, Prepared, RunFacts, RunResult, with_notes
from lmrbench.evaluate.legacy import refusal
from lmrbench.records import Evaluation, Outcome, Prediction, Status, Verdict
from lmrbench.rundir import eval_item_name, kept_candidate
from lmrbench.safefs import read_beneath
from lmrbench.sandbox import Sandbox, SandboxConfig
from lmrbench.sandbox.pool import ExecPath, SandboxPool, shared_pool
from lmrbench.tasks.schema import Implementation, Task

__all__ = ["Command", "EvalConfig", "Prepared", "RunFacts", "RunResult", "SandboxPool", "command", "evaluate_one",
           "finish", "prepare", "run_cold", "shared_pool", "with_notes"]

EVAL_VERSION = "2"


class EvalConfig(BaseModel):
    """How evaluations run."""

    sandbox: SandboxConfig = Field(default_factory=SandboxConfig, description="Isolation and limits.")
    path: ExecPath = Field(
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


def prepare(task: Task, impl: Implementation, pred: Prediction, item_dir: Path, log: Path, key: str,
            config: EvalConfig) -> Prepared:
    """Build an item's folder; an unusable prediction is recorded in `invalid`, never raised."""
    p = Prepared(task, impl, pred, key, item_dir.name, item_dir.resolve(), log.resolve(),
                 config.timeout_s or task.timeout_s, task.grading(impl))
    if p.item_dir.exists():
        shutil.rmtree(p.item_dir)
    p.out.mkdir(parents=True)
    p.hidden.mkdir()
    grader = grader_for(p.grading)
    p.refused = grader.refuse(task, impl)
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
    grader.place_hidden(p)
    for sub in (".home", ".tmp"):
        (p.ws / sub).mkdir(exist_ok=True)
    return p


def command(p: Prepared) -> Command:
    """The one place an item's command line is built (cold sandboxes and warm batches both run this)."""
    return grader_for(p.grading).command(p)


def run_cold(p: Prepared, sandbox: Sandbox) -> RunResult:
    """Run one prepared item in its own sandbox."""
    cmd = command(p)
    res = sandbox.exec(cmd.argv, p.ws, p.timeout, p.log, env=cmd.env, readonly=cmd.readonly, writable=cmd.writable)
    return RunResult(res.exit_code, res.timed_out, res.duration_s, res.isolation, res.path, list(res.limits_hit))


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
    grader = grader_for(p.grading)
    verdict = grader.grade(p, r, lacking)
    # a duration the candidate's process reported never exceeds the harness's own timing
    verdict.tests_duration_s = min(verdict.tests_duration_s, round(r.duration_s, 3))
    verdict.reason = with_notes(verdict.reason, r.limits_hit, len(p.tampered))
    outputs = grader.keep(p, r, lacking.known())
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
