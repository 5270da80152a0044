"""An Inspect scorer that runs lmrbench's evaluation core: the verdict `lmrbench evaluate` gives for the same code.

prompt setting: the code extracted from the completion (the prompt solver's extraction); agent setting: the final
workspace, read like `lmrbench predictions from-dirs`. The prediction goes into the score's metadata, so that
`lmrbench predictions from-inspect` gives back exactly what was scored.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any, Literal

import anyio
from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox
from pydantic import BaseModel, Field

from lmrbench.evaluate.executors import error_record
from lmrbench.evaluate.runner import EvalConfig, evaluate_one, evaluation_key, shared_pool, task_hash
from lmrbench.external import META, prediction_from_dir
from lmrbench.integrations.inspect.dataset import Setting, full_taskset
from lmrbench.integrations.inspect.sandbox import LmrbenchSandbox
from lmrbench.models.base import Usage
from lmrbench.records import Evaluation, Prediction, PredictionMeta
from lmrbench.rundir import RunDir
from lmrbench.safefs import read_tail
from lmrbench.sandbox import IsolationLevel, SandboxConfig
from lmrbench.solvers.prompt import PROMPT_VERSION, answer_prediction
from lmrbench.tasks.loader import TaskSet

HARNESS = {"harness": "inspect"}
SCRATCH = (".home", ".tmp")  # the sandbox's own HOME and TMPDIR, never part of an answer
KEPT_CHARS = 20_000
ExecPath = Literal["template", "cold"]


class ScorerConfig(BaseModel):
    """How the scorer evaluates (the options of `lmrbench evaluate`)."""

    setting: Setting = Field(description="prompt: code from the completion; agent: the final workspace.")
    tasks: Path | None = Field(default=None, description="Task folder; None: the built-in suite.")
    workers: int = Field(default=2, ge=1, description="Evaluations at once in this process.")
    path: ExecPath = Field(default="template", description="template | cold, as `lmrbench evaluate --path`.")
    isolation: IsolationLevel = Field(default="best", description="As `lmrbench evaluate --isolation`.")
    timeout_s: int | None = Field(default=None, ge=1, description="Override each task's timeout.")
    run_dir: Path | None = Field(default=None, description="Keep evaluation logs and candidates under "
                                 "RUN_DIR/logs; None: a temporary folder, the log's tail kept in the score.")

    def eval_config(self) -> EvalConfig:
        return EvalConfig(timeout_s=self.timeout_s, path=self.path, sandbox=SandboxConfig(isolation=self.isolation))


def _usage(state: TaskState) -> Usage:
    u = state.output.usage
    return Usage(input_tokens=u.input_tokens, output_tokens=u.output_tokens, calls=1) if u else Usage()


def prompt_prediction(ts: TaskSet, state: TaskState) -> Prediction:
    """The prompt solver's extraction on the completion."""
    task, impl = ts.resolve(state.metadata["instance_id"])
    finish = "length" if state.output.stop_reason in ("max_tokens", "model_length") else state.output.stop_reason
    meta = PredictionMeta.model_validate({"solver": "prompt", "prompt_version": PROMPT_VERSION,
                                          "finish_reason": finish,
                                          "paper_source": state.metadata.get("paper_source", ""),
                                          "usage": _usage(state).model_dump(), **HARNESS})
    return answer_prediction(task, impl, state.output.completion, str(state.model), state.epoch - 1, meta)


def _clear_scratch(ws: Path) -> None:
    for name in SCRATCH:
        path = ws / name
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path, ignore_errors=True)


def _trusted_meta(ws: Path, metadata: dict[str, Any]) -> None:
    """Rewrite the workspace's .lmrbench.json from the sample: the agent could have edited it to name another
    implementation. Its processes are gone by now; the old entry is unlinked (a link is never followed)."""
    path = ws / META
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    body = {"instance_id": metadata["instance_id"], "goal_file": metadata["goal_file"],
            "targets": metadata["targets"], "paper_source": metadata["paper_source"]}
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(body, fh, indent=2)


def workspace_prediction(ts: TaskSet, ws: Path, metadata: dict[str, Any], model: str, sample: int) -> Prediction:
    """The final workspace, as `predictions from-dirs` reads it (the targets, else a diff)."""
    _clear_scratch(ws)
    _trusted_meta(ws, metadata)
    pred = prediction_from_dir(ts, ws, model, sample)
    meta = pred.meta.model_dump() | {"source_dir": "", **HARNESS}
    return pred.model_copy(update={"meta": PredictionMeta.model_validate(meta)})


def evaluate(ts: TaskSet, pred: Prediction, config: ScorerConfig, folder: Path) -> Evaluation:
    """`lmrbench evaluate` on one prediction: the same core, settings, pool and key."""
    task, impl = ts.resolve(pred.instance_id)
    eval_config = config.eval_config()
    key = evaluation_key(task_hash(task) + (task.env.key if task.env else ""), pred, eval_config)
    run = RunDir(folder)
    try:
        return evaluate_one(task, impl, pred, run.work, run.logs, eval_config,
                            shared_pool(eval_config).for_task(task), key)
    except Exception as exc:  # as the local executor: a harness failure is an error record, never a crash
        return error_record(pred, key, "harness", exc)


def _kept(path: str) -> str:
    if not path or not Path(path).is_file():
        return ""
    return read_tail(Path(path), KEPT_CHARS)


def to_score(pred: Prediction, ev: Evaluation) -> Score:
    """CORRECT only for a passed evaluation; the explanation gives the tests passed and the reason."""
    explanation = f"{ev.status.value}: {ev.tests_passed}/{ev.tests_total} tests passed"
    if ev.reason:
        explanation += f"; {ev.reason}"
    metadata = {"status": ev.status.value, "tests_passed": ev.tests_passed, "tests_total": ev.tests_total,
                "reason": ev.reason, "log_tail": _kept(ev.log_path), "prediction": pred.model_dump(mode="json"),
                "evaluation": ev.model_dump(mode="json")}
    return Score(value=CORRECT if ev.passed else INCORRECT, answer=_kept(ev.candidate_path) or pred.error or "",
                 explanation=explanation, metadata=metadata)


@scorer(metrics=[accuracy(), stderr()])
def lmrbench_scorer(setting: Setting = "prompt", tasks: str | None = None, workers: int = 2,
                    eval_path: ExecPath = "template", isolation: IsolationLevel = "best", timeout: int | None = None,
                    run_dir: str | None = None) -> Scorer:
    """Evaluate the answer (prompt) or the final workspace (agent) with lmrbench's evaluation core."""
    config = ScorerConfig(setting=setting, tasks=Path(tasks) if tasks else None, workers=workers, path=eval_path,
                          isolation=isolation, timeout_s=timeout, run_dir=Path(run_dir) if run_dir else None)
    gate = threading.BoundedSemaphore(config.workers)

    def blocking(state: TaskState, ws: Path | None) -> Score:
        ts = full_taskset(config.tasks)
        if ws is None:
            pred = prompt_prediction(ts, state)
        else:
            pred = workspace_prediction(ts, ws, state.metadata, str(state.model), state.epoch - 1)
        with gate:
            if config.run_dir is not None:
                return to_score(pred, evaluate(ts, pred, config, config.run_dir))
            with tempfile.TemporaryDirectory(prefix="lmrbench-inspect-eval-") as tmp:
                return to_score(pred, evaluate(ts, pred, config, Path(tmp)))

    async def score(state: TaskState, target: Target) -> Score:
        ws = sandbox().as_type(LmrbenchSandbox).workspace if config.setting == "agent" else None
        return await anyio.to_thread.run_sync(blocking, state, ws)

    return score
