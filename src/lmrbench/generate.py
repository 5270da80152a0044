"""The generation stage: predictions.jsonl from a solver, resumable item by item."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.jsonl import JsonlWriter, read_lines
from lmrbench.models.base import Model, ModelSettings, Usage
from lmrbench.papers import paper_text
from lmrbench.records import Prediction
from lmrbench.rundir import RunDir
from lmrbench.solvers.agent import AgentLimits, agent_prediction
from lmrbench.solvers.builtin import reference_prediction, stub_prediction
from lmrbench.solvers.prompt import prompt_prediction
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation, Task

BuiltinSolver = Callable[[Task, Implementation, int], Prediction]
BUILTIN_MODELS: dict[str, BuiltinSolver] = {"reference": reference_prediction, "stub": stub_prediction}


def done_items(path: Path) -> set[tuple[str, str, int]]:
    """(instance, model, sample) already in a predictions file; failed generations are not done (retried)."""
    out = set()
    for _, obj, _ in read_lines(path):
        if obj and {"instance_id", "model"} <= obj.keys():
            item = (str(obj["instance_id"]), str(obj["model"]), int(obj.get("sample", 0)))
            if obj.get("error") and str(obj["error"]).startswith("model error"):
                out.discard(item)
            else:
                out.add(item)
    return out


class GenOptions(BaseModel):
    """How a run's predictions are made; written to the run folder's run.json."""

    model: str = Field(description="reference | stub | fake | a litellm model name.")
    solver: SolverName = Field(default="prompt", description="prompt: one request; agent: the tool loop.")
    samples: int = Field(default=1, ge=1, description="Samples per implementation (pass@k).")
    concurrency: int = Field(default=4, ge=1, description="Requests or agent episodes in flight.")
    settings: ModelSettings = Field(default_factory=ModelSettings, description="Temperature, max tokens, seed, ...")
    fake_script: Path | None = Field(default=None, description="The fake model's script (one JSON reply a line).")
    limits: AgentLimits = Field(default_factory=AgentLimits, description="The agent's step/token/cost/time limits.")
    no_cache: bool = Field(default=False, description="Do not read or write the response cache.")


def generate_builtin(tasks: TaskSet, model: str, out: Path, samples: int = 1,
                     patterns: list[str] | None = None) -> int:
    """Write predictions of a built-in model; returns how many were new."""
    if model not in BUILTIN_MODELS:
        raise KeyError(f"unknown built-in model '{model}'; choose one of {sorted(BUILTIN_MODELS)}")
    solver = BUILTIN_MODELS[model]
    done = done_items(out)
    writer = JsonlWriter(out)
    new = 0
    for impl in tasks.select(patterns):
        task = tasks.task(impl.task_id)
        for sample in range(samples):
            if (impl.instance_id, model, sample) in done:
                continue
            writer.write(solver(task, impl, sample))
            new += 1
    return new


SolverName = Literal["prompt", "agent"]


class GenerateProgress(BaseModel):
    """Running totals shown while generating."""

    done: int = 0
    total: int = 0
    failures: int = 0
    usage: Usage = Field(default_factory=Usage)


def _solve(task: Task, impl: Implementation, model: Model, solver: SolverName, sample: int, run_dir: Path,
           papers_dir: Path | None, limits: AgentLimits | None) -> Prediction:
    if task.defect:  # an original-layout task without a repository: nothing to show the model
        return Prediction(instance_id=impl.instance_id, model=model.name, sample=sample, error=task.defect)
    paper = paper_text(task, papers_dir)
    if solver == "prompt":
        return prompt_prediction(task, impl, model, paper, sample)
    return agent_prediction(task, impl, model, paper, run_dir, limits, sample)


def generate_with_model(
    tasks: TaskSet,
    model: Model,
    solver: SolverName,
    run_dir: Path,
    samples: int = 1,
    concurrency: int = 4,
    patterns: list[str] | None = None,
    papers_dir: Path | None = None,
    limits: AgentLimits | None = None,
    on_progress: Callable[[GenerateProgress, Prediction], None] | None = None,
) -> GenerateProgress:
    """Generate predictions item by item into run_dir/predictions.jsonl; resumable and safe to interrupt."""
    out = RunDir(run_dir).predictions
    done = done_items(out)
    writer = JsonlWriter(out)
    todo = [(tasks.task(i.task_id), i, s) for i in tasks.select(patterns) for s in range(samples)
            if (i.instance_id, model.name, s) not in done]
    progress = GenerateProgress(total=len(todo))
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        futures = [pool.submit(_solve, t, i, model, solver, s, run_dir, papers_dir, limits) for t, i, s in todo]
        for fut in as_completed(futures):
            pred = fut.result()
            writer.write(pred)
            progress.done += 1
            progress.failures += pred.error is not None
            progress.usage = progress.usage + pred.meta.usage
            if on_progress:
                on_progress(progress, pred)
    finally:
        # On Ctrl-C, queued items are dropped; finished ones are already on disk, so a re-run resumes.
        pool.shutdown(wait=True, cancel_futures=True)
    return progress
