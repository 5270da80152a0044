"""The generation stage: predictions.jsonl from a solver, resumable item by item."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from lmrbench.budget import Budget
from lmrbench.jsonl import JsonlWriter, read_lines
from lmrbench.models.base import Model, ModelSettings, Usage
from lmrbench.papers import PaperMode, paper_text
from lmrbench.records import ItemKey, Outcome, Prediction, PredictionLine, PredictionMeta
from lmrbench.rundir import RunDir
from lmrbench.sandbox import SandboxConfig
from lmrbench.sandbox.pool import SandboxPool
from lmrbench.solvers.agent import AgentLimits, agent_prediction, task_budget
from lmrbench.solvers.builtin import reference_prediction, stub_prediction
from lmrbench.solvers.prompt import prompt_prediction
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation, Task

BUILTIN_MODELS: dict[str, Callable[[Task, Implementation, int], Prediction]] = {
    "reference": reference_prediction, "stub": stub_prediction}


def done_items(path: Path) -> set[ItemKey]:
    """(instance, model, sample) already in a predictions file; failed generations are not done (retried). A line
    that names no item is not done either (evaluation records it as an invalid line)."""
    out = set()
    for _, obj, _ in read_lines(path):
        try:
            line = PredictionLine.model_validate(obj)
        except ValidationError:
            continue
        if line.retried:
            out.discard(line.item_key)
        else:
            out.add(line.item_key)
    return out


class GenOptions(BaseModel):
    """How a run's predictions are made; written to the run folder's run.json."""

    model: str = Field(description="reference | stub | fake | a litellm model name.")
    solver: SolverName = Field(default="prompt", description="prompt: one request; agent: the tool loop.")
    samples: int = Field(default=1, ge=1, description="Samples per implementation (pass@k).")
    concurrency: int = Field(default=4, ge=1, description="Requests or agent episodes in flight.")
    settings: ModelSettings = Field(default_factory=ModelSettings, description="Temperature, max tokens, seed, ...")
    fake_script: Path | None = Field(default=None, description="The fake model's script (one JSON reply a line).")
    limits: AgentLimits = Field(default_factory=AgentLimits, description="The agent's step/token/cost/time limits "
                                "(a step, token or time limit set here overrides every task's budget).")
    budgets: dict[str, Budget] = Field(default_factory=dict, description="Agent solver: the budget in force, per "
                                       "split of the selected tasks ('original' for the original layout), and per "
                                       "task id for a task whose info.json sets its own.")
    no_cache: bool = Field(default=False, description="Do not read or write the response cache.")
    paper: PaperMode = Field(default="full", description="full: the paper's text in the prompt or workspace; "
                             "withheld: only its title (an ablation: how much the paper is needed).")


SolverName = Literal["prompt", "agent"]


def with_budgets(opts: GenOptions, tasks: TaskSet, patterns: list[str] | None = None) -> GenOptions:
    """`opts` with the budgets in force for the selected tasks (run.json records them; agent solver only)."""
    if opts.solver != "agent" or opts.model in BUILTIN_MODELS:
        return opts
    budgets: dict[str, Budget] = {}
    for impl in tasks.select(patterns):
        task = tasks.task(impl.task_id)
        budgets[task.task_id if task.budget else task.split or "original"] = task_budget(task, opts.limits).budget
    return opts.model_copy(update={"budgets": dict(sorted(budgets.items()))})


class GenerateProgress(BaseModel):
    """Running totals shown while generating."""

    done: int = 0
    total: int = 0
    failures: int = 0
    usage: Usage = Field(default_factory=Usage)


class Solver(Protocol):
    """Fills one implementation's targets: the one interface of reference, stub, prompt and agent."""

    @property
    def name(self) -> str:
        """The model name recorded in each prediction."""
        ...

    def solve(self, task: Task, impl: Implementation, sample: int) -> Prediction:
        """One prediction; a failure is a prediction with `error`, never an exception."""
        ...


@dataclass
class BuiltinSolver:
    """`reference` (the golden targets) or `stub` (the masked repository as it is)."""

    kind: str

    @property
    def name(self) -> str:
        return self.kind

    def solve(self, task: Task, impl: Implementation, sample: int) -> Prediction:
        return BUILTIN_MODELS[self.kind](task, impl, sample)


@dataclass
class ModelSolver:
    """A model in the paper's standard prompting setting (`prompt`) or as a tool-using agent (`agent`)."""

    model: Model
    kind: SolverName
    run_dir: RunDir | Path
    papers_dir: Path | None = None
    limits: AgentLimits | None = None
    paper: PaperMode = "full"
    sandbox: SandboxConfig | None = None  # the agent's commands run in the run's sandbox: its isolation, cache

    @property
    def name(self) -> str:
        return self.model.name

    def solve(self, task: Task, impl: Implementation, sample: int) -> Prediction:
        if task.defect:  # an original-layout task without a repository: nothing to show the model
            return Prediction(instance_id=impl.instance_id, model=self.name, sample=sample, error=task.defect,
                              meta=PredictionMeta(outcome=Outcome.NOT_RUN))
        paper = paper_text(task, self.papers_dir, self.paper)
        if self.kind == "prompt":
            return prompt_prediction(task, impl, self.model, paper, sample)
        return agent_prediction(task, impl, self.model, paper, self.run_dir, self.limits, sample,
                                SandboxPool(self.sandbox or SandboxConfig(), "cold").cold)


def safe_solve(solver: Solver, task: Task, impl: Implementation, sample: int) -> Prediction:
    """`solver.solve`, with any exception it lets through recorded as that item's error (retried on resume): one
    item's failure never stops a run."""
    try:
        return solver.solve(task, impl, sample)
    except Exception as exc:  # a solver promises not to raise; a bug of ours must not end the whole run
        return harness_error(impl.instance_id, solver.name, sample, f"{type(exc).__name__}: {exc}")


def harness_error(instance_id: str, model: str, sample: int, why: str) -> Prediction:
    """The prediction recorded when the harness failed to make one."""
    return Prediction(instance_id=instance_id, model=model, sample=sample, error=f"harness error: {why[:2000]}",
                      meta=PredictionMeta(outcome=Outcome.HARNESS_ERROR))


def generate(
    tasks: TaskSet,
    solver: Solver,
    run_dir: RunDir | Path,
    samples: int = 1,
    concurrency: int = 4,
    patterns: list[str] | None = None,
    on_progress: Callable[[GenerateProgress, Prediction], None] | None = None,
) -> GenerateProgress:
    """Generate predictions item by item into run_dir/predictions.jsonl; resumable and safe to interrupt."""
    out = RunDir.of(run_dir).predictions
    done = done_items(out)
    writer = JsonlWriter(out)
    todo = [(tasks.task(i.task_id), i, s) for i in tasks.select(patterns) for s in range(samples)
            if (i.instance_id, solver.name, s) not in done]
    progress = GenerateProgress(total=len(todo))
    pool = ThreadPoolExecutor(max_workers=max(1, concurrency))
    try:
        futures = [pool.submit(safe_solve, solver, t, i, s) for t, i, s in todo]
        for fut in as_completed(futures):
            pred = fut.result()
            writer.write(pred)  # record_line makes any text writable
            progress.done += 1
            progress.failures += pred.error is not None
            progress.usage = progress.usage + pred.meta.usage
            if on_progress:
                on_progress(progress, pred)
    finally:
        # On Ctrl-C, queued items are dropped; finished ones are already on disk, so a re-run resumes.
        pool.shutdown(wait=True, cancel_futures=True)
    return progress


def missing_items(tasks: TaskSet, name: str, run_dir: RunDir | Path, samples: int = 1,
                  patterns: list[str] | None = None) -> list[str]:
    """'<instance>#<sample>' of the selection with no usable prediction by `name` yet: never made, or the provider
    failed (model_error). A re-run of the same generation retries exactly these."""
    done = done_items(RunDir.of(run_dir).predictions)
    return [f"{i.instance_id}#{s}" for i in tasks.select(patterns) for s in range(samples)
            if (i.instance_id, name, s) not in done]


def generate_with_model(tasks: TaskSet, model: Model, solver: SolverName, run_dir: RunDir | Path, samples: int = 1,
                        concurrency: int = 4, patterns: list[str] | None = None, papers_dir: Path | None = None,
                        limits: AgentLimits | None = None,
                        on_progress: Callable[[GenerateProgress, Prediction], None] | None = None,
                        paper: PaperMode = "full") -> GenerateProgress:
    """`generate` with a model's prompt or agent solver."""
    return generate(tasks, ModelSolver(model, solver, run_dir, papers_dir, limits, paper), run_dir, samples,
                    concurrency, patterns, on_progress)
