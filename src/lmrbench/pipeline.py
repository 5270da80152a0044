"""The library pipeline: generate -> evaluate -> report, on a TaskSet and a RunDir, from the config models.

The command line is option parsing plus one call of this module per command; a notebook or another harness calls
it the same way:

    from lmrbench.pipeline import run
    from lmrbench.generate import GenOptions
    from lmrbench.rundir import RunDir
    from lmrbench.tasks.loader import load_tasks

    result = run(load_tasks().restrict(split="lite"), RunDir.for_model("reference"), GenOptions(model="reference"))

Progress is reported through the optional callbacks of `Hooks`; failures are raised (IsolationError before any
work when full isolation cannot be had, EnvBuildError, UnknownModel), never printed.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lmrbench.envs import EnvConfig, EnvMode, EnvRecord, attach_envs
from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.evaluate.executors import ExecutorConfig
from lmrbench.evaluate.regrade import Regraded, regrade_run
from lmrbench.evaluate.runner import EvalConfig
from lmrbench.generate import (
    BUILTIN_MODELS,
    BuiltinSolver,
    GenerateProgress,
    GenOptions,
    ModelSolver,
    Solver,
    generate,
    missing_items,
    with_budgets,
)
from lmrbench.jsonl import JsonlWriter
from lmrbench.judge.agreement import load_labels
from lmrbench.models import get_model
from lmrbench.models.base import Model
from lmrbench.models.ray_model import RayModel
from lmrbench.records import Evaluation, Prediction
from lmrbench.report.bundle import ReportData, collect, write_all
from lmrbench.rundir import RunDir
from lmrbench.sandbox import SandboxConfig
from lmrbench.sandbox.pool import check_isolation
from lmrbench.tasks.loader import TaskSet

__all__ = ["Hooks", "RunOutcome", "UnknownModel", "attach_environments", "evaluate_run", "generate_run",
           "regrade", "report_runs", "run"]


class UnknownModel(ValueError):
    """A model name no provider or built-in solver answers to."""


@dataclass
class Hooks:
    """What a caller may watch while the pipeline works (the CLI draws its progress bars with these)."""

    on_prediction: Callable[[GenerateProgress, Prediction], None] | None = None
    on_evaluation: Callable[[Evaluation], None] | None = None
    on_environment: Callable[[EnvRecord], None] | None = None
    env_cache: Path | None = None  # where task environments are cached; None: $LMRBENCH_CACHE or ~/.cache/lmrbench


def env_config(cache: Path | None = None, workers: int = 2) -> EnvConfig:
    return EnvConfig(workers=workers) if cache is None else EnvConfig(cache_dir=cache, workers=workers)


def attach_environments(tasks: TaskSet, patterns: list[str] | None, mode: EnvMode, hooks: Hooks | None = None
                        ) -> list[EnvRecord]:
    """Attach (building when missing) the environments of the selected tasks: all for None, none for []."""
    hooks = hooks or Hooks()
    ids = {i.task_id for i in tasks.select(patterns)} if patterns is None or patterns else set()
    return attach_envs(tasks, ids, mode, env_config(hooks.env_cache), hooks.on_environment)


def _solver(opts: GenOptions, run: RunDir, stack: contextlib.ExitStack, where: ExecutorConfig,
            sandbox: SandboxConfig | None) -> Solver:
    """The run's solver; with the ray executor a model's queries run on the cluster's nodes (the built-in reference
    and stub send no requests, so they stay here). UnknownModel for a name no provider answers to."""
    if opts.model in BUILTIN_MODELS:
        return BuiltinSolver(opts.model)
    try:
        model: Model = get_model(opts.model, opts.settings, opts.fake_script, use_cache=not opts.no_cache)
    except ValueError as exc:
        raise UnknownModel(str(exc)) from exc
    if where.kind == "ray":
        model = stack.enter_context(RayModel(model, where.ray_address, per_node=opts.concurrency))
    return ModelSolver(model, opts.solver, run, limits=opts.limits, paper=opts.paper, sandbox=sandbox)


def generate_run(tasks: TaskSet, run: RunDir, opts: GenOptions, patterns: list[str] | None = None,
                 executor: ExecutorConfig | None = None, sandbox: SandboxConfig | None = None,
                 hooks: Hooks | None = None) -> GenerateProgress:
    """Write the run's predictions.jsonl (resumable: finished items are skipped) and its run.json. The agent solver
    runs its commands in `sandbox` (refused before any step when its full isolation cannot be had), in the task's
    own environment for an upstream task."""
    hooks = hooks or Hooks()
    if opts.solver == "agent":
        check_isolation(sandbox or SandboxConfig())
        upstream = [i.instance_id for i in tasks.select(patterns) if tasks.task(i.task_id).upstream is not None]
        if upstream:  # the agent runs the code: in the task's environment
            attach_environments(tasks, upstream, "task", hooks)
    run.write_info(with_budgets(opts, tasks, patterns))
    with contextlib.ExitStack() as stack:
        solver = _solver(opts, run, stack, executor or ExecutorConfig(), sandbox)
        return generate(tasks, solver, run, opts.samples, opts.concurrency, patterns, hooks.on_prediction)


def evaluate_run(tasks: TaskSet, run: RunDir, config: EvalConfig | None = None, predictions: Path | None = None,
                 executor: ExecutorConfig | None = None, env: EnvMode = "task", only: Iterable[str] | None = None,
                 hooks: Hooks | None = None) -> list[Evaluation]:
    """Evaluate the run's predictions (a predictions file given is copied into the run folder first) in the
    sandbox into evaluations.jsonl (resumable), after attaching the environments of the tasks evaluated to this
    same task set; `only`: these instances (the rest of the file is neither evaluated nor reported invalid).
    Returns every latest evaluation of the run."""
    hooks = hooks or Hooks()
    config = config or EvalConfig(repo_root=run.workspaces)
    check_isolation(config.sandbox)
    source = run.adopt_predictions(predictions) if predictions is not None else run.predictions
    preds, invalid = load_predictions(source, tasks)
    if only is not None:
        chosen = set(only)
        preds = [p for p in preds if p.instance_id in chosen]
        invalid = [e for e in invalid if e.instance_id in chosen]
    attach_environments(tasks, sorted({p.instance_id for p in preds}), env, hooks)
    where = executor or ExecutorConfig()
    evaluate_predictions(preds, tasks, run, config=config, workers=where.workers, on_result=hooks.on_evaluation,
                         extra=invalid, executor_config=where)
    return latest_evaluations(run.evaluations)


def regrade(tasks: TaskSet, run: RunDir, write: bool = False) -> list[Regraded]:
    """Every latest evaluation of a finished run re-graded from its kept data, without a sandbox; with `write`, the
    records whose verdict changed are appended to its evaluations.jsonl (the last one wins)."""
    rows = regrade_run(run.root, tasks)
    changed = [r for r in rows if not r.same]
    if write and changed:
        writer = JsonlWriter(run.evaluations)
        for r in changed:
            writer.write(r.after)
    return rows


def report_runs(tasks: TaskSet, runs: list[RunDir], out: Path | None = None, labels: Path | None = None,
                since: dt.date | None = None) -> tuple[ReportData, list[Path]]:
    """The leaderboard of one or several runs over the implementations in `tasks`, written as report.md, .csv,
    .json and .html into `out` (default: the first run's folder)."""
    human = load_labels(labels) if labels else None
    data = collect([r.root for r in runs], tasks, human, since)
    return data, write_all(data, out or runs[0].root)


@dataclass
class RunOutcome:
    """What `run` did: the generation's progress, the run's evaluations, its report, and the items that still have
    no answer from the provider (a re-run retries exactly these)."""

    generated: GenerateProgress
    evaluations: list[Evaluation]
    report: ReportData
    files: list[Path]
    missing: list[str] = field(default_factory=list)


def run(tasks: TaskSet, run_dir: RunDir, opts: GenOptions, config: EvalConfig | None = None,
        executor: ExecutorConfig | None = None, env: EnvMode = "task", patterns: list[str] | None = None,
        hooks: Hooks | None = None) -> RunOutcome:
    """Generate, evaluate and report in one go, on one task set: the agent's commands and the evaluations share
    `config.sandbox`, and the environments are attached to the same set that is evaluated."""
    config = config or EvalConfig(repo_root=run_dir.workspaces)
    check_isolation(config.sandbox)  # before any work: the agent's commands and the evaluations alike
    generated = generate_run(tasks, run_dir, opts, patterns, executor, config.sandbox, hooks)
    evaluations = evaluate_run(tasks, run_dir, config, executor=executor, env=env,
                               only={i.instance_id for i in tasks.instances()}, hooks=hooks)
    report, files = report_runs(tasks, [run_dir])
    missing = missing_items(tasks, opts.model, run_dir, opts.samples, patterns)
    return RunOutcome(generated, evaluations, report, files, missing)
