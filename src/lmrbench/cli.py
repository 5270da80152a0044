"""The `lmrbench` command line: a thin typer layer, one library call per command."""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lmrbench.annotate import AnnotateConfig, annotation_session, labels_path, load_items, make_server
from lmrbench.authoring.fixtures import build_fixtures
from lmrbench.authoring.lint import lint
from lmrbench.authoring.lint_run import run_checks
from lmrbench.authoring.validate import ValidateConfig, validate
from lmrbench.budget import BudgetOverride
from lmrbench.envs import EnvBuildError, EnvConfig, EnvMode, EnvRecord, EnvStatus, attach_envs, build_envs
from lmrbench.envs.build import needs_env
from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.evaluate.executors import ExecutorConfig, ExecutorKind
from lmrbench.evaluate.regrade import regrade_run
from lmrbench.evaluate.runner import EvalConfig
from lmrbench.export import dataset_rows, write_dataset
from lmrbench.external import export_workspaces, predictions_from_dirs
from lmrbench.generate import (
    BUILTIN_MODELS,
    BuiltinSolver,
    GenerateProgress,
    GenOptions,
    ModelSolver,
    Solver,
    SolverName,
    generate,
    missing_items,
    with_budgets,
)
from lmrbench.importers.human_eval import Scale, import_labels
from lmrbench.importers.openhands import from_openhands
from lmrbench.jsonl import JsonlWriter
from lmrbench.judge.agreement import agreement_table, fleiss_agreement, load_labels
from lmrbench.judge.run import judge_run, load_judgments
from lmrbench.models import ModelSettings, get_model
from lmrbench.models.base import Model
from lmrbench.models.ray_model import RayModel
from lmrbench.models.registry import MissingCredentials, check_credentials
from lmrbench.papers import PaperMode, fetch_paper, paper_text
from lmrbench.records import Evaluation, Prediction, Status
from lmrbench.report import strict_json
from lmrbench.report.bundle import collect, write_all
from lmrbench.rundir import RunDir
from lmrbench.sandbox import IsolationError, IsolationLevel, Kernels, SandboxConfig
from lmrbench.sandbox.pool import check_isolation
from lmrbench.solvers.agent import AgentLimits
from lmrbench.solvers.prompt import PROMPT_VERSION, build_prompt
from lmrbench.tasks.catalog import task_rows
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import TaskFormatError
from lmrbench.tasks.source import SourceError
from lmrbench.tasks.upstream import FetchConfig, UpstreamError, ensure_task

app = typer.Typer(help="lmrbench: can a model reproduce the code of a language-modeling paper?",
                  no_args_is_help=True, pretty_exceptions_enable=False)
tasks_app = typer.Typer(help="List, show, lint the tasks and rebuild their fixtures.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
out = Console()
err = Console(stderr=True, soft_wrap=True)

TasksOpt = Annotated[Path | None, typer.Option("--tasks", help="Task folder (either layout); default: built-in.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]
# No --split: commands that start new work (list, run, generate, validate, export, ...) take the main split, the
# split at the original benchmark's difficulty (issue #9), or every split when -t names what to take; commands
# that work on existing files (evaluate, report, judge, lint, fixtures) take every split.
DEFAULT_SPLIT = None
SplitOpt = Annotated[str | None, typer.Option("--split", help="main | lite | upstream | all | every: which split of "
                                              "the built-in suite; all = lite and main, every = all three "
                                              "(default: main for new work, all for existing results, every when "
                                              "-t selects; tasks of the original layout are in every split).")]
SinceOpt = Annotated[str | None, typer.Option("--since", help="Only tasks published on or after this ISO date "
                                              "(e.g. a model's training cut-off).")]
SelectOpt = Annotated[list[str] | None, typer.Option("--task", "-t", help="Only these tasks/instances (glob).")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-w", min=1, help="Evaluations in parallel.")]
RunDirOpt = Annotated[Path | None, typer.Option("--run-dir", help="Run directory; default runs/<model>.")]
HfCacheOpt = Annotated[Path | None, typer.Option("--hf-cache", exists=True, file_okay=False, help="A pre-downloaded "
                       "Hugging Face cache, read-only in the sandbox, offline mode set.")]
GpusOpt = Annotated[bool, typer.Option("--gpus", help="Expose the NVIDIA devices; no address-space limit.")]
ExecutorOpt = Annotated[ExecutorKind, typer.Option(
    "--executor", help="local: threads on this machine; ray: evaluations (--workers per node) and model requests "
    "(--concurrency per node) on the nodes of a Ray cluster.")]
KernelsOpt = Annotated[Kernels, typer.Option(
    help="CPU kernels in the sandbox: pinned (AVX2 on every x86-64 host that has it) | host | other-blas "
    "(pinned, another BLAS summation order: proves the tolerances cover another host's BLAS) | mkl-avx2 | "
    "mkl-avx512 | mkl-sse4_2 (pinned, MKL forced onto that branch).")]
RayAddressOpt = Annotated[str | None, typer.Option(
    "--ray-address", help="With --executor ray: the cluster to join ('auto', HOST:6379, ray://HOST:10001); "
    "default: a private Ray on this machine.")]


def _resolve_split(split: str | None, select: list[str] | None, new_work: bool) -> str:
    """The split a command works on when --split is not given (see DEFAULT_SPLIT)."""
    if split is not None:
        return split
    if select:
        return "every"
    return "main" if new_work else "all"


def _must_restrict(ts: TaskSet, select: list[str] | None, split: str, day: dt.date | None) -> bool:
    """Whether a selection changes the set ('all' leaves the upstream split out)."""
    leaves_out = split != "every" and (split != "all" or any(t.upstream for t in ts.tasks))
    return bool(select) or leaves_out or bool(day)


def _fetched(ts: TaskSet) -> TaskSet:
    """The upstream tasks of a selection fetched, verified and masked (cached); a failure is a clear error."""
    try:
        for task in ts.tasks:
            if task.upstream is not None:
                ensure_task(task)
    except (UpstreamError, OSError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc
    return ts


def _load(path: Path | None, quiet: bool = False, select: list[str] | None = None, split: str | None = "every",
          since: str | None = None) -> TaskSet:
    """The task folder, restricted to the selection; a bad folder or an empty selection is a clear error."""
    split = _resolve_split(split, select, new_work=True)
    try:
        tasks = load_tasks(path)
        day = dt.date.fromisoformat(since) if since else None
        if _must_restrict(tasks, select, split, day):
            tasks = _fetched(tasks.restrict(select, split, day))
    except (TaskFormatError, FileNotFoundError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if tasks.problems and not quiet:
        errors = [p for p in tasks.problems if p.severity == "error"]
        named = "; ".join(f"{p.task}: {p.kind}" for p in errors[:3]) + (", ..." if len(errors) > 3 else "")
        err.print(f"[yellow]{len(tasks.problems)} problem(s) while loading{f' ({named})' if named else ''}; "
                  "see `lmrbench tasks lint`[/yellow]", highlight=False)
    return tasks


def _select(ts: TaskSet, select: list[str] | None, split: str | None, since: str | None,
            new_work: bool = True) -> TaskSet:
    """The implementations a command works on; an empty selection is a clear error."""
    split = _resolve_split(split, select, new_work)
    try:
        day = dt.date.fromisoformat(since) if since else None
        chosen = ts.restrict(select, split, day) if _must_restrict(ts, select, split, day) else ts
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    return _fetched(chosen)


def status_style(status: Status) -> str:
    return {Status.PASSED: "green", Status.FAILED: "red", Status.TIMEOUT: "yellow"}.get(status, "magenta")


def _emit_json(data: object) -> None:
    sys.stdout.write(strict_json.dumps(data) + "\n")


@tasks_app.command("list")
def tasks_list(tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = DEFAULT_SPLIT,
               since: SinceOpt = None, as_json: JsonOpt = False) -> None:
    """List every implementation with its split, category, publication date and reference size."""
    ts = _load(tasks, select=select, split=split, since=since)
    rows = [row.model_dump(mode="json") for row in task_rows(ts)]
    if as_json:
        _emit_json(rows)
        return
    papers = len({r["paper"] for r in rows})
    table = Table(title=f"{len(rows)} implementations from {papers} papers in {len(ts.tasks)} tasks ({ts.root})")
    for col in ("instance", "split", "category", "published", "ref. lines", "masked target"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["instance_id"], r["split"] or "-", r["category"] or "[red]unmapped[/red]",
                      r["publication_date"] or "?", str(r["reference_lines"]), r["goal"])
    out.print(table)


@tasks_app.command("prompt")
def tasks_prompt(instance: str, tasks: TasksOpt = None,
                 papers_dir: Annotated[Path | None, typer.Option(help="Cached paper texts.")] = None,
                 paper: PaperOpt = "full", as_json: JsonOpt = False) -> None:
    """Print the exact prompt the `prompt` solver sends for one implementation (`dpo/1`)."""
    ts = _load(tasks, quiet=True)
    try:
        task, impl = ts.resolve(instance)
    except KeyError as exc:
        err.print(f"[red]error:[/red] {exc.args[0]}")
        raise typer.Exit(2) from exc
    _fetched(TaskSet(ts.root, [task]))
    messages = build_prompt(task, impl, paper_text(task, papers_dir, paper))
    if as_json:
        _emit_json({"prompt_version": PROMPT_VERSION, "messages": [m.model_dump(mode="json") for m in messages]})
        return
    for m in messages:
        sys.stdout.write(f"===== {m.role} =====\n{m.content}\n")


@tasks_app.command("show")
def tasks_show(instance: str, tasks: TasksOpt = None, as_json: JsonOpt = False) -> None:
    """Show one task or implementation (`dpo` or `dpo/1`)."""
    ts = _load(tasks, quiet=True)
    try:
        task = ts.task(instance.split("/")[0])
    except KeyError as exc:
        err.print(f"[red]error:[/red] {exc.args[0]}")
        raise typer.Exit(2) from exc
    _fetched(TaskSet(ts.root, [task]))
    if as_json:
        _emit_json(task.model_dump(mode="json"))
        return
    out.print(f"[bold]{task.task_id}[/bold] ({task.layout.value}): {task.paper_name}\n{task.paper_url}")
    for impl in task.implementations:
        if "/" in instance and impl.instance_id != instance:
            continue
        cat = impl.category.value if impl.category else impl.raw_category
        goals = "; ".join(f"{f}::{', '.join(n)}" for f, n in impl.target_map().items())
        out.print(f"\n[bold]{impl.instance_id}[/bold] [{cat}] {goals}")
        out.print(impl.instruction)


@tasks_app.command("lint")
def tasks_lint(path: Annotated[Path | None, typer.Argument(help="Task folder; default: built-in.")] = None,
               tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = DEFAULT_SPLIT,
               since: SinceOpt = None, as_json: JsonOpt = False,
               run: Annotated[bool, typer.Option("--run", help="Also run each reference and stub (validate): "
                                                 "tests the stub passes, references that fail.")] = False,
               env: EnvOpt = "task") -> None:
    """Report each defect of a task folder, one line each: task or task/index, severity, kind, detail."""
    ts = _select(_load(path or tasks, quiet=True), select, split, since, new_work=False)
    problems = lint(ts)
    if run:
        problems += lint_by_running(ts, select, env)
    if as_json:
        _emit_json([p.model_dump() for p in problems])
    else:
        for p in problems:
            out.print(p.line(), markup=False, highlight=False, soft_wrap=True)
        out.print(f"{len(ts.tasks)} task(s), {len(problems)} problem(s)", highlight=False)
    if any(p.severity == "error" for p in problems):
        raise typer.Exit(1)


@tasks_app.command("fixtures")
def tasks_fixtures(tasks: TasksOpt = None, select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
                   check: Annotated[bool, typer.Option("--check", help="Compare instead of writing.")] = False,
                   kernels: Annotated[Kernels, typer.Option(
                       help="CPU kernels in the sandbox: pinned | other-blas (another host's BLAS: a fixture must "
                       "still check) | host.")] = "pinned",
                   ) -> None:
    """Regenerate tests/fixtures of each task from its reference (or check they are up to date)."""
    ts = _select(_load(tasks), select, split, since, new_work=False)
    ids = {i.task_id for i in ts.select(select)}
    upstream = [i.instance_id for i in ts.select(select) if ts.task(i.task_id).upstream is not None]
    if upstream:  # their probes import the task environment's requirements
        attach_task_envs(ts, upstream, "task")
    bad = 0
    for task in (t for t in ts.tasks if t.task_id in ids):
        res = build_fixtures(task, check, SandboxConfig(kernels=kernels))
        bad += not res.ok
        colour = "green" if res.ok else "red"
        out.print(f"[{colour}]{task.task_id}[/{colour}]: {res.detail}", highlight=False)
    if bad:
        raise typer.Exit(1)


FindLinksOpt = Annotated[Path | None, typer.Option("--find-links", exists=True, file_okay=False, help="Take the "
                        "pinned files from this local folder instead of the package index (no network).")]


@tasks_app.command("fetch")
def tasks_fetch(tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = "upstream",
                since: SinceOpt = None, find_links: FindLinksOpt = None, env: EnvOpt = "task") -> None:
    """Download, verify, unpack and mask the selected upstream tasks' pinned releases, and build their
    environments (everything cached under $LMRBENCH_CACHE/upstream; idempotent)."""
    ts = load_upstream(tasks, select, split, since)
    cfg = FetchConfig() if find_links is None else FetchConfig(find_links=find_links.resolve())
    for task in ts.tasks:
        assert task.upstream is not None
        try:
            repo = ensure_task(task, cfg)
        except (UpstreamError, OSError) as exc:
            err.print(f"[red]error:[/red] {exc}", highlight=False)
            raise typer.Exit(2) from exc
        up = task.upstream
        out.print(f"{task.task_id}: {up.package}=={up.version} ({up.filename}, sha256 ok) masked in {repo}",
                  highlight=False)
    attach_task_envs(ts, select, env)
    for task in ts.tasks:
        if task.env is not None:
            state = f"could not install {task.env.failed}" if task.env.failed else "ready"
            out.print(f"{task.task_id}: environment {state} ({task.env.root})", highlight=False)


def load_upstream(tasks: Path | None, select: list[str] | None, split: str | None, since: str | None) -> TaskSet:
    """The selected upstream tasks (not yet fetched); none is a clear error."""
    ts = load_tasks_or_exit(tasks)
    try:
        day = dt.date.fromisoformat(since) if since else None
        chosen = ts.restrict(select, split or "upstream", day)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    chosen.tasks = [t for t in chosen.tasks if t.upstream is not None]
    if not chosen.tasks:
        err.print("[red]error:[/red] no upstream task selected")
        raise typer.Exit(2)
    return chosen


def load_tasks_or_exit(path: Path | None) -> TaskSet:
    try:
        return load_tasks(path)
    except (TaskFormatError, FileNotFoundError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc


@app.command("validate")
def validate_cmd(
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
    repeat: Annotated[int, typer.Option(min=1, help="Reference runs; each must pass.")] = 3,
    mutants: Annotated[bool, typer.Option("--mutants", help="Also run mechanical mutants.")] = False,
    max_mutants: Annotated[int | None, typer.Option(help="Sample at most this many mutants per impl.")] = None,
    no_wrong: Annotated[bool, typer.Option("--no-wrong", help="Skip the hand-written wrong variants.")] = False,
    min_kill: Annotated[float, typer.Option(help="Fail when a kill rate is below this (0-1).")] = 0.0,
    workers: WorkersOpt = 2,
    cold: Annotated[bool, typer.Option("--cold", help="One cold sandbox per job instead of warm batches.")] = False,
    kernels: KernelsOpt = "pinned",
    isolation: IsolationOpt = "best",
    reasons: Annotated[bool, typer.Option("--reasons", help="Also print why each wrong variant failed.")] = False,
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
) -> None:
    """Prove tasks discriminate: reference N/N, stub fails, wrong variants fail, mutants killed."""
    sandbox = sandbox_config(isolation, hf_cache, gpus, kernels)
    require_isolation(sandbox)
    ts = _select(_load(tasks), select, split, since)
    attach_task_envs(ts, select, env)
    impls = [(ts.task(i.task_id), i) for i in ts.select(select)]
    cfg = ValidateConfig(repeat=repeat, wrong=not no_wrong, mutants=mutants, max_mutants=max_mutants,
                         workers=workers, warm=not cold)
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("validating")
        try:
            results = validate(impls, cfg, EvalConfig(sandbox=sandbox),
                               tick=lambda msg: bar.update(job, description=msg))
        except (UpstreamError, SourceError) as exc:  # a declared wrong variant that does not apply
            err.print(f"[red]error:[/red] {exc}", highlight=False)
            raise typer.Exit(2) from exc
    if as_json:
        _emit_json([r.model_dump(mode="json") | {"ok": r.ok, "kill_rate": r.kill_rate} for r in results])
    else:
        table = Table(title="validation")
        for col in ("instance", "tests", "reference", "stub", "wrong caught", "mutants killed", "s/run", "ok"):
            table.add_column(col)
        for r in results:
            kill = f"{r.mutants_killed}/{r.mutants_total} ({r.kill_rate:.0%})" if r.kill_rate is not None else "-"
            table.add_row(r.instance_id, str(r.tests), f"{r.reference_passed}/{r.reference_runs}",
                          r.stub_status.value, f"{r.wrong_caught}/{r.wrong_total}", kill, f"{r.seconds:.1f}",
                          "[green]yes[/green]" if r.ok else "[red]NO[/red]")
        out.print(table)
        for r in results:
            for reason in r.reference_reasons:
                out.print(f"[red]{r.instance_id} reference failed:[/red] {reason}", highlight=False)
            for w in r.wrong_survivors:
                out.print(f"[red]{r.instance_id} wrong variant passed:[/red] {w}", highlight=False)
            for w, why in r.wrong_reasons.items() if reasons else ():
                out.print(f"{r.instance_id} wrong variant {w} failed: {why}", highlight=False)
            for s in r.mutant_survivors:
                out.print(f"{r.instance_id} surviving mutant {s.mutant_id}: {s.description}", highlight=False)
    low = [r for r in results if r.kill_rate is not None and r.kill_rate < min_kill]
    if not all(r.ok for r in results) or low:
        raise typer.Exit(1)


def _run_dir(run_dir: Path | None, model: str) -> Path:
    return run_dir or RunDir.for_model(model).root


ExecPath = Literal["template", "cold"]
PathOpt = Annotated[ExecPath, typer.Option(
    "--path", help="template: each evaluation is a child of a pre-warmed template that isolates itself (cold where "
    "the kernel does not allow it); cold: a new sandboxed interpreter per evaluation.")]
IsolationOpt = Annotated[IsolationLevel, typer.Option(
    "--isolation", help="best: run with what this machine allows (recorded); full: refuse unless fully isolated.")]
RepoRootOpt = Annotated[Path | None, typer.Option(
    "--repo-root", file_okay=False, help="repo_dir predictions are read only under this folder "
    "(default: 'workspaces/' beside the predictions file, where the agent solver leaves its workspaces).")]


def sandbox_config(isolation: IsolationLevel = "best", hf_cache: Path | None = None, gpus: bool = False,
                   kernels: Kernels = "pinned") -> SandboxConfig:
    """The one SandboxConfig of a command, from its options: evaluate, run, validate and the agent solver."""
    return SandboxConfig(isolation=isolation, hf_cache=hf_cache, gpus=gpus, kernels=kernels)


def require_isolation(config: SandboxConfig) -> None:
    """Stop before any work when --isolation full cannot be had here (evaluation and the agent alike)."""
    try:
        check_isolation(config)
    except (IsolationError, RuntimeError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc


def _evaluate(ts: TaskSet, predictions: Path, run_dir: Path, workers: int, timeout: int | None,
              sandbox: SandboxConfig, env: EnvMode, repo_root: Path | None = None,
              only: set[str] | None = None, path: ExecPath = "template",
              executor: ExecutorKind = "local", ray_address: str | None = None,
              ) -> list[Evaluation]:
    """Evaluate with the task set given, after attaching (building when missing) the environments of the tasks
    evaluated to that same set: run and evaluate share this one path (validate attaches the same way)."""
    preds, invalid = load_predictions(predictions, ts)
    if only is not None:  # a selection: the rest of the file is neither evaluated nor reported invalid
        preds = [p for p in preds if p.instance_id in only]
        invalid = [e for e in invalid if e.instance_id in only]
    config = EvalConfig(timeout_s=timeout, path=path, sandbox=sandbox,
                        repo_root=repo_root or RunDir(predictions.parent).workspaces)
    require_isolation(config.sandbox)
    attach_task_envs(ts, sorted({p.instance_id for p in preds}), env)
    with Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=len(preds))
        failures = 0

        def tick(ev: Evaluation) -> None:
            nonlocal failures
            failures += not ev.passed
            bar.update(job, advance=1, description=f"{ev.instance_id} {ev.status.value} · not passed: {failures}")

        where = ExecutorConfig(kind=executor, workers=workers, ray_address=ray_address)
        evaluate_predictions(preds, ts, RunDir(run_dir), config=config, workers=workers, on_result=tick,
                             extra=invalid, executor_config=where)
    return latest_evaluations(RunDir(run_dir).evaluations)


def _report(ts: TaskSet, run_dirs: list[Path], as_json: bool, out_dir: Path | None = None,
            labels: Path | None = None, since: dt.date | None = None) -> None:
    try:
        human = load_labels(labels) if labels else None
        data = collect(run_dirs, ts, human, since)
    except (FileNotFoundError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    files = write_all(data, out_dir or run_dirs[0])
    if as_json:
        _emit_json(data.model_dump(mode="json"))
        return
    table = Table(title=f"results: {', '.join(map(str, run_dirs))}")
    for col in ("instance", "model", "sample", "status", "tests", "reason"):
        table.add_column(col)
    for d in data.drills:
        style = status_style(d.status)
        table.add_row(d.instance_id, d.model, str(d.sample), f"[{style}]{d.status}[/{style}]",
                      f"{d.tests_passed}/{d.tests_total}", d.reason[:70])
    out.print(table)
    for s in data.scores:  # model errors (no answer from the provider) are outside the denominator
        n = sum(s.status_counts.values()) - s.status_counts.get(Status.MODEL_ERROR, 0)
        counts = ", ".join(f"{k}={v}" for k, v in s.status_counts.items() if v)
        out.print(f"[bold]{escape(s.label())}[/bold]: {s.status_counts[Status.PASSED]}/{n} passed "
                  f"({s.pass_rate.value:.1%}, 95% CI "
                  f"{s.pass_rate.ci_low:.1%}-{s.pass_rate.ci_high:.1%}); mean test share {s.test_share.value:.1%}; "
                  f"{counts}; tokens {s.usage.input_tokens + s.usage.output_tokens:,}, cost ${s.usage.cost_usd:.4f}"
                  + (f"; {len(s.forgeable_passes)} of the passes graded in the candidate's process (forgeable)"
                     if s.forgeable_passes else ""), highlight=False)
    out.print(f"report: {', '.join(str(f) for f in files)}", highlight=False)


ModelOpt = Annotated[str, typer.Option(help="reference | stub | fake | any litellm name (e.g. openai/gpt-4o).")]
SolverOpt = Annotated[SolverName, typer.Option(help="prompt: one request per implementation; agent: tool loop.")]


def _solver(opts: GenOptions, rd: Path, stack: contextlib.ExitStack, where: ExecutorConfig,
            sandbox: SandboxConfig | None = None) -> Solver:
    """The run's solver; with `--executor ray` a model's queries run on the cluster's nodes (the builtin
    reference and stub send no requests, so they stay here)."""
    if opts.model in BUILTIN_MODELS:
        return BuiltinSolver(opts.model)
    try:
        model: Model = get_model(opts.model, opts.settings, opts.fake_script, use_cache=not opts.no_cache)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if where.kind == "ray":
        model = stack.enter_context(RayModel(model, where.ray_address, per_node=opts.concurrency))
    return ModelSolver(model, opts.solver, rd, limits=opts.limits, paper=opts.paper, sandbox=sandbox)


def _generate(ts: TaskSet, opts: GenOptions, rd: Path, select: list[str] | None,
              where: ExecutorConfig | None = None, sandbox: SandboxConfig | None = None) -> None:
    run = RunDir(rd)
    run.write_info(with_budgets(opts, ts, select))
    with contextlib.ExitStack() as stack:
        solver = _solver(opts, rd, stack, where or ExecutorConfig(), sandbox)
        _generate_with(ts, opts, rd, select, solver)


def check_keys(models: list[str], api_base: str | None) -> None:
    """Stop before any work (and any request) when a provider's key is missing, naming the variable."""
    try:
        check_credentials(models, ModelSettings(api_base=api_base))
    except MissingCredentials as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc


def exit_if_missing(ts: TaskSet, opts: GenOptions, rd: Path, select: list[str] | None) -> None:
    """Exit 1 while items have no prediction (the provider failed them: model_error); a re-run retries them."""
    missing = missing_items(ts, opts.model, rd, opts.samples, select)
    if missing:
        shown = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
        err.print(f"[yellow]{len(missing)} item(s) have no answer from the provider (model_error: {shown}); they are "
                  "outside the pass rate. Re-run the same command to retry exactly these.[/yellow]", highlight=False)
        raise typer.Exit(1)


def _generate_with(ts: TaskSet, opts: GenOptions, rd: Path, select: list[str] | None, solver: Solver) -> None:
    run = RunDir(rd)
    with Progress(TextColumn("generating"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=None)

        def tick(p: GenerateProgress, pred: Prediction) -> None:
            u = p.usage
            bar.update(job, completed=p.done, total=p.total, description=(
                f"failures {p.failures} · tokens {u.input_tokens + u.output_tokens:,} · ${u.cost_usd:.4f} "
                f"· cached {u.cached_calls}"))

        prog = generate(ts, solver, rd, opts.samples, opts.concurrency, select, on_progress=tick)
    u = prog.usage
    err.print(f"{prog.done} new prediction(s) in {run.predictions}, {prog.failures} failed; tokens in "
              f"{u.input_tokens:,} out {u.output_tokens:,}; cost ${u.cost_usd:.4f}; {u.calls} calls "
              f"({u.cached_calls} cached)", highlight=False)


def _gen_options(model: str, solver: SolverName, samples: int, concurrency: int, temperature: float,
                 max_tokens: int, seed: int | None, api_base: str | None, fake_script: Path | None,
                 budget: BudgetOverride, no_cache: bool, paper: PaperMode = "full",
                 max_retries: int = 5) -> GenOptions:
    return GenOptions(model=model, solver=solver, samples=samples, concurrency=concurrency,
                      settings=ModelSettings(temperature=temperature, max_tokens=max_tokens, seed=seed,
                                             api_base=api_base, max_retries=max_retries),
                      fake_script=fake_script, limits=AgentLimits(**budget.model_dump()), no_cache=no_cache,
                      paper=paper)


SamplesOpt = Annotated[int, typer.Option(min=1, help="Samples per implementation (for pass@k).")]
ConcOpt = Annotated[int, typer.Option(min=1, help="Requests (or agent episodes) in flight.")]
TempOpt = Annotated[float, typer.Option(min=0.0, max=2.0, help="Sampling temperature.")]
MaxTokOpt = Annotated[int, typer.Option(min=1, help="Most tokens in one answer.")]
SeedOpt = Annotated[int | None, typer.Option(help="Seed, where the provider supports it.")]
ApiBaseOpt = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp).")]
FakeOpt = Annotated[Path | None, typer.Option(exists=True, dir_okay=False, help="JSONL script for --model fake.")]
StepsOpt = Annotated[int | None, typer.Option(min=1, help="Agent budget: steps (model calls); default: each "
                                              "task's budget (its split's: lite/main 30, upstream 60).")]
TotalTokOpt = Annotated[int | None, typer.Option(min=1, help="Agent budget: input + output tokens over an episode; "
                                                 "default: each task's budget (lite/main 400k, upstream 1.5M).")]
WallOpt = Annotated[float | None, typer.Option(min=1.0, help="Agent budget: wall seconds of an episode; default: "
                                               "each task's budget (lite/main 1800, upstream 2700).")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")]
RetriesOpt = Annotated[int, typer.Option("--max-retries", min=0, help="Retries of a failed request (429, timeout, "
                                         "connection, 5xx), with backoff; then the item is model_error.")]
PaperOpt = Annotated[PaperMode, typer.Option(
    help="full: the paper's text; withheld: only its title (an ablation: does the model need the paper?).")]


@app.command("generate")
def generate_cmd(
    model: ModelOpt,
    solver: SolverOpt = "prompt",
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
    samples: SamplesOpt = 1,
    concurrency: ConcOpt = 4,
    temperature: TempOpt = 0.0,
    max_tokens: MaxTokOpt = 4096,
    seed: SeedOpt = None,
    api_base: ApiBaseOpt = None,
    fake_script: FakeOpt = None,
    max_steps: StepsOpt = None,
    max_total_tokens: TotalTokOpt = None,
    max_wall_s: WallOpt = None,
    no_cache: NoCacheOpt = False,
    paper: PaperOpt = "full",
    run_dir: RunDirOpt = None,
    executor: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    max_retries: RetriesOpt = 5,
    isolation: IsolationOpt = "best",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
    kernels: KernelsOpt = "pinned",
) -> None:
    """Write predictions.jsonl for a model (resumable: finished items and only those are skipped)."""
    check_keys([model], api_base)
    sandbox = sandbox_config(isolation, hf_cache, gpus, kernels)  # the agent solver's commands run in it
    if solver == "agent":
        require_isolation(sandbox)
    opts = _gen_options(model, solver, samples, concurrency, temperature, max_tokens, seed, api_base, fake_script,
                        BudgetOverride(max_steps=max_steps, max_tokens=max_total_tokens, max_wall_s=max_wall_s),
                        no_cache, paper, max_retries)
    ts, rd = _select(_load(tasks), select, split, since), _run_dir(run_dir, model)
    upstream = [i.instance_id for i in ts.select(select) if ts.task(i.task_id).upstream is not None]
    if upstream and solver == "agent":  # the agent runs the code: in the task's environment
        attach_task_envs(ts, upstream, "task")
    _generate(ts, opts, rd, select, ExecutorConfig(kind=executor, ray_address=ray_address), sandbox)
    exit_if_missing(ts, opts, rd, select)


@app.command("evaluate")
def evaluate_cmd(
    predictions: Annotated[Path | None, typer.Option(exists=True, dir_okay=False,
                                                     help="A predictions.jsonl file.")] = None,
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
    run_dir: RunDirOpt = None,
    workers: WorkersOpt = 1,
    timeout: Annotated[int | None, typer.Option(min=1, help="Override each task's timeout (s).")] = None,
    regrade: Annotated[Path | None, typer.Option(exists=True, file_okay=False, help="Re-grade this finished run "
                                                 "from its kept data, without a sandbox.")] = None,
    write: Annotated[bool, typer.Option(help="With --regrade: append the re-graded records.")] = False,
    isolation: IsolationOpt = "best",
    repo_root: RepoRootOpt = None,
    path: PathOpt = "template",
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
    kernels: KernelsOpt = "pinned",
    executor: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
) -> None:
    """Evaluate predictions in the sandbox into evaluations.jsonl (resumable), then report; or re-grade a run."""
    full = _load(tasks)
    ts = _select(full, select, split, since, new_work=False)
    if regrade is not None:
        _regrade(ts, regrade, write, as_json)
        return
    if predictions is None:
        raise typer.BadParameter("give --predictions FILE (or --regrade RUN_DIR)")
    preds = load_predictions(predictions, full)[0]
    rd = run_dir or _run_dir(None, preds[0].model if preds else "unknown")
    kept = RunDir(rd).adopt_predictions(predictions)
    _evaluate(ts, kept, rd, workers, timeout, sandbox_config(isolation, hf_cache, gpus, kernels), env,
              repo_root or RunDir(predictions.parent).workspaces, only={i.instance_id for i in ts.instances()},
              path=path, executor=executor, ray_address=ray_address)
    _report(ts, [rd], as_json)


def _regrade(ts: TaskSet, run_dir: Path, write: bool, as_json: bool) -> None:
    rows = regrade_run(run_dir, ts)
    changed = [r for r in rows if not r.same]
    if write and changed:
        writer = JsonlWriter(RunDir(run_dir).evaluations)
        for r in changed:
            writer.write(r.after)
    if as_json:
        _emit_json({"evaluations": len(rows), "same": len(rows) - len(changed),
                    "changed": [{"instance_id": r.before.instance_id, "model": r.before.model,
                                 "sample": r.before.sample, "before": r.before.status.value,
                                 "after": r.after.status.value, "reason": r.after.reason} for r in changed]})
    else:
        for r in changed:
            out.print(f"{r.before.instance_id} {r.before.model}#{r.before.sample}: {r.before.status.value} -> "
                      f"{r.after.status.value} ({r.after.reason})")
        out.print(f"re-graded {len(rows)} evaluation(s): {len(rows) - len(changed)} identical, {len(changed)} changed")
    if changed and not write:
        raise typer.Exit(1)


LabelsOpt = Annotated[Path | None, typer.Option(exists=True, dir_okay=False, help="Human labels (JSONL).")]


@app.command("report")
def report_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(exists=True, file_okay=False, help="One or more run dirs.")],
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Where to write; default the first run dir.")] = None,
    labels: LabelsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Leaderboard of one or several runs: report.md, .csv, .json and a self-contained report.html."""
    # --since adds a row for the implementations published on or after it (it does not drop the others)
    _report(_select(_load(tasks, quiet=True), select, split, None, new_work=False), run_dirs, as_json, out_dir, labels,
            since=dt.date.fromisoformat(since) if since else None)


judge_app = typer.Typer(help="LLM-as-judge: judge a run, agreement with human labels, import labels.",
                        no_args_is_help=True)
app.add_typer(judge_app, name="judge")
JudgeOpt = Annotated[list[str] | None, typer.Option("--judge", help="Judge model(s); several = majority vote.")]


@judge_app.command("run")
def judge_run_cmd(
    run_dir: Annotated[Path, typer.Argument(help="The run folder whose predictions are judged.")],
    judge: JudgeOpt = None,
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
    fake_script: FakeOpt = None,
    concurrency: ConcOpt = 4,
    api_base: ApiBaseOpt = None,
) -> None:
    """LLM-as-judge categories 1/2/3 for every prediction of a run, into judgments.jsonl (resumable)."""
    check_keys(judge or [], api_base)
    ts = _select(_load(tasks, quiet=True), select, split, since, new_work=False)
    run = RunDir(run_dir)
    if not run.predictions.is_file():
        err.print(f"[red]error:[/red] {run.predictions} does not exist")
        raise typer.Exit(2)
    if not judge:
        err.print("[red]error:[/red] give at least one --judge MODEL")
        raise typer.Exit(2)
    settings = ModelSettings(api_base=api_base)
    models = [get_model(n, settings, fake_script) for n in judge]
    results = judge_run(run_dir, ts, models, concurrency)
    counts = Counter(f"{j.judge}:{j.status.value}" for j in results)
    out.print(f"{len(results)} new judgment(s): {dict(counts)} -> {run.judgments}", highlight=False)


@judge_app.command("agreement")
def judge_agreement_cmd(
    run_dir: Annotated[Path, typer.Argument(help="The run folder whose judgments are compared.")],
    labels: Annotated[Path | None, typer.Option(dir_okay=False, help="Human labels (JSONL); default: "
                                                "RUN_DIR/labels.jsonl, as `lmrbench annotate` writes it.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Judges against human labels, annotators against each other (n, accuracy, macro-F1, Cohen's kappa), and
    Fleiss' kappa over the items every annotator labelled."""
    labels = labels or labels_path(run_dir)
    if not labels.is_file():
        err.print(f"[red]error:[/red] {labels}: no such labels file (give --labels, or label with `lmrbench "
                  "annotate`)", highlight=False)
        raise typer.Exit(2)
    try:
        human = load_labels(labels)
        rows = agreement_table(load_judgments(RunDir(run_dir).judgments), human)
        fleiss = fleiss_agreement(human)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    if as_json:
        _emit_json({"pairs": [r.model_dump() for r in rows], "fleiss": fleiss.model_dump() if fleiss else None})
        return
    table = Table(title="judge agreement")
    for col in ("rater", "vs", "n", "accuracy", "macro-F1", "kappa", "confusion"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.a, r.b, str(r.n), f"{r.accuracy:.1%}", f"{r.macro_f1:.3f}", f"{r.kappa:.3f}",
                      str(r.confusion))
    out.print(table)
    if fleiss:
        out.print(f"Fleiss' kappa, {len(fleiss.annotators)} annotators ({', '.join(fleiss.annotators)}) on the "
                  f"{fleiss.n} item(s) each labelled: {fleiss.kappa:.3f} (observed {fleiss.observed:.3f}, chance "
                  f"{fleiss.expected:.3f})", highlight=False)


@judge_app.command("import-labels")
def judge_import_labels_cmd(
    files: Annotated[list[Path], typer.Argument(exists=True, dir_okay=False,
                                                help="The original's human-evaluation JSON files.")],
    labels_out: Annotated[Path | None, typer.Option("--out", help="The labels JSONL to write.")] = None,
    scale: Annotated[list[str] | None, typer.Option("--scale", help="ANNOTATOR=0-2 or =1-3 (default: 0-2 when "
                                                    "the annotator used a 0).")] = None,
    tasks: TasksOpt = None,
) -> None:
    """The original benchmark's human evaluations as our labels (scales mapped onto 1-3)."""
    judge_import_labels(_load(tasks, quiet=True), files, labels_out, scale or [])


@app.command("annotate")
def annotate_cmd(
    run_dir: Annotated[Path, typer.Argument(help="The run folder whose predictions are labelled.")],
    annotator: Annotated[str, typer.Option("--annotator", help="Your name, recorded with every label.")],
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Loopback port (0: a free one).")] = 8765,
    show_verdict: Annotated[bool, typer.Option("--show-verdict", help="Show the unit-test verdict and the judges' "
                                               "rationale before an item is labelled (default: only after).")] = False,
    tasks: TasksOpt = None,
) -> None:
    """Label a run's predictions by hand (1/2/3) on a local page; each label is appended to RUN_DIR/labels.jsonl."""
    if not annotator.strip() or len(annotator) > 200:
        raise typer.BadParameter("give your name, 1 to 200 characters", param_hint="--annotator")
    try:
        config = AnnotateConfig(annotator=annotator, port=port, show_verdict=show_verdict)
        items = load_items(run_dir, _load(tasks, quiet=True))
        session = annotation_session(run_dir, items, config)
    except (ValueError, OSError) as exc:  # RunFolderError, a corrupt labels file, a bad name, an unreadable file
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    try:
        server = make_server(session)
    except OSError as exc:
        err.print(f"[red]error:[/red] cannot serve on 127.0.0.1:{port}: {escape(str(exc))} (choose another --port, or "
                  "0 for a free one)", highlight=False)
        raise typer.Exit(2) from exc
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    out.print(f"annotating {len(items)} item(s) of {run_dir} as {annotator}: open {url}  (Ctrl-C stops; every "
              "label is saved as it is given)", highlight=False, soft_wrap=True)
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@app.command("run")
def run_cmd(
    model: ModelOpt = "reference",
    solver: SolverOpt = "prompt",
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
    samples: SamplesOpt = 1,
    concurrency: ConcOpt = 4,
    temperature: TempOpt = 0.0,
    max_tokens: MaxTokOpt = 4096,
    seed: SeedOpt = None,
    api_base: ApiBaseOpt = None,
    fake_script: FakeOpt = None,
    max_steps: StepsOpt = None,
    max_total_tokens: TotalTokOpt = None,
    max_wall_s: WallOpt = None,
    no_cache: NoCacheOpt = False,
    paper: PaperOpt = "full",
    run_dir: RunDirOpt = None,
    workers: WorkersOpt = 2,
    isolation: IsolationOpt = "best",
    path: PathOpt = "template",
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
    kernels: KernelsOpt = "pinned",
    executor: ExecutorOpt = "local",
    ray_address: RayAddressOpt = None,
    max_retries: RetriesOpt = 5,
) -> None:
    """Generate, evaluate and report in one go (resumable: a re-run retries the items the provider failed)."""
    check_keys([model], api_base)
    sandbox = sandbox_config(isolation, hf_cache, gpus, kernels)  # one config: the agent's commands and the evaluations
    require_isolation(sandbox)
    ts = _select(_load(tasks), select, split, since)
    rd = _run_dir(run_dir, model)
    opts = _gen_options(model, solver, samples, concurrency, temperature, max_tokens, seed, api_base, fake_script,
                        BudgetOverride(max_steps=max_steps, max_tokens=max_total_tokens, max_wall_s=max_wall_s),
                        no_cache, paper, max_retries)
    _generate(ts, opts, rd, select, ExecutorConfig(kind=executor, ray_address=ray_address), sandbox)
    _evaluate(ts, RunDir(rd).predictions, rd, workers, None, sandbox, env,
              only={i.instance_id for i in ts.instances()}, path=path, executor=executor, ray_address=ray_address)
    _report(ts, [rd], as_json)
    exit_if_missing(ts, opts, rd, select)


papers_app = typer.Typer(help="Paper text for prompts.", no_args_is_help=True)
app.add_typer(papers_app, name="papers")
workspace_app = typer.Typer(help="Workspaces for external agents.", no_args_is_help=True)
app.add_typer(workspace_app, name="workspace")
predictions_app = typer.Typer(help="Predictions from external agents.", no_args_is_help=True)
app.add_typer(predictions_app, name="predictions")


@papers_app.command("fetch")
def papers_fetch(tasks: TasksOpt = None, select: SelectOpt = None,
    split: SplitOpt = DEFAULT_SPLIT,
    since: SinceOpt = None,
                 cache: Annotated[Path | None, typer.Option(help="Papers cache folder.")] = None) -> None:
    """Download each task's paper PDF from its paper_url and convert it to per-page text."""
    ts = _select(_load(tasks), select, split, since)
    bad = 0
    for task_id in dict.fromkeys(i.task_id for i in ts.select(select)):
        try:
            path = fetch_paper(ts.task(task_id), cache)
            out.print(f"[green]{task_id}[/green]: {path}", highlight=False)
        except (OSError, ValueError) as exc:
            bad += 1
            out.print(f"[red]{task_id}[/red]: {exc}", highlight=False)
    if bad:
        raise typer.Exit(1)


@workspace_app.command("export")
def workspace_export(out_dir: Annotated[Path, typer.Option("--out", help="Folder to write workspaces into.")],
                     tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = DEFAULT_SPLIT,
                     since: SinceOpt = None, paper: PaperOpt = "full") -> None:
    """Write one ready workspace per implementation (repository, paper.md, INSTRUCTIONS.md)."""
    made = export_workspaces(_select(_load(tasks), select, split, since), out_dir, select, paper=paper)
    out.print(f"{len(made)} workspace(s) in {out_dir}", highlight=False)


@app.command("export")
def export_cmd(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the dataset into (README.md, data/).")],
    fmt: Annotated[Literal["parquet"], typer.Option("--format", help="parquet: a Hugging Face style dataset "
                                                    "(parquet files and a dataset card).")] = "parquet",
    with_solutions: Annotated[bool, typer.Option("--with-solutions", help="Add the golden files, hidden tests and "
                                                 "expected outputs (never show these to a model).")] = False,
    tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = DEFAULT_SPLIT, since: SinceOpt = None,
) -> None:
    """Write the tasks as a dataset: one row per implementation (ids, paper, instruction, masked repository,
    method description, the exact prompt-v1 messages)."""
    ts = _select(_load(tasks), select, split, since)
    try:
        res = write_dataset(dataset_rows(ts, with_solutions), out_dir, with_solutions)
    except (ValueError, OSError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    rows = ", ".join(f"{n} {s}" for s, n in res.rows.items())
    out.print(f"{fmt}: {sum(res.rows.values())} row(s) ({rows}){' with solutions' if with_solutions else ''} "
              f"-> {out_dir}", highlight=False)


@predictions_app.command("from-dirs")
def predictions_from_dirs_cmd(
    root: Annotated[Path, typer.Argument(exists=True, file_okay=False, help="Folder of exported workspaces.")],
    model: Annotated[str, typer.Option(help="Name to record for the agent.")],
    output: Annotated[Path, typer.Option("--out", help="predictions.jsonl to append to.")],
    tasks: TasksOpt = None,
) -> None:
    """Turn revised workspaces back into predictions (target functions, else a diff)."""
    ts = _load(tasks)
    writer = JsonlWriter(output)
    preds = predictions_from_dirs(ts, root, model)
    for pred in preds:
        writer.write(pred)
    out.print(f"{len(preds)} prediction(s) appended to {output}", highlight=False)


def lint_by_running(ts: TaskSet, select: list[str] | None, env: EnvMode) -> list[Problem]:
    """`tasks lint --run`: the reference and the stub of each selected implementation, run."""
    attach_task_envs(ts, select, env)
    impls = [(ts.task(i.task_id), i) for i in ts.select(select)]
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("running")
        return run_checks(impls, tick=lambda msg: bar.update(job, description=msg))


# --- importers of the original LMR-Bench's results ---


def judge_import_labels(ts: TaskSet, files: list[Path], out_path: Path | None, scales: list[str]) -> None:
    """Write our labels JSONL from the original's human-evaluation JSON files."""
    parsed: dict[str, Scale] = {}
    for item in scales:
        who, _, value = item.partition("=")
        if value not in ("0-2", "1-3") or not who:
            err.print(f"[red]error:[/red] --scale {item!r}: give ANNOTATOR=0-2 or ANNOTATOR=1-3")
            raise typer.Exit(2)
        parsed[who] = value  # type: ignore[assignment]
    if not files or out_path is None or any(not f.is_file() for f in files):
        err.print("[red]error:[/red] usage: lmrbench judge import-labels FILE... --out LABELS.jsonl (files must exist)")
        raise typer.Exit(2)
    result = import_labels(files, ts, parsed)
    for problem in result.problems:
        err.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text("".join(lab.model_dump_json() + "\n" for lab in result.labels), encoding="utf-8")
    scales_used = ", ".join(f"{a} {s}" for a, s in result.scales.items())
    out.print(f"{len(result.labels)} label(s) -> {out_path} (scales: {scales_used})", highlight=False)


@predictions_app.command("from-openhands")
def predictions_from_openhands_cmd(
    output_jsonl: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="OpenHands output.jsonl.")],
    model: Annotated[str, typer.Option(help="Name to record for the agent.")],
    output: Annotated[Path, typer.Option("--out", help="predictions.jsonl to append to.")],
    tasks: TasksOpt = None,
) -> None:
    """Replay each trajectory's successful edits onto its task's repository: diff (or error) predictions."""
    ts = _load(tasks, quiet=True)
    result = from_openhands(output_jsonl, ts, model)
    _append_predictions(result.problems, result.predictions, output, "")


def _append_predictions(problems: list[str], predictions: list[Prediction], output: Path, whose: str) -> None:
    """Report what was skipped, append the predictions and say how many (and how many are errors)."""
    for problem in problems:
        err.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    writer = JsonlWriter(output)
    for pred in predictions:
        writer.write(pred)
    errors = sum(p.error is not None for p in predictions)
    out.print(f"{len(predictions)} prediction(s){whose} ({errors} error) appended to {output}", highlight=False)


@predictions_app.command("from-inspect")
def predictions_from_inspect_cmd(
    log: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="An Inspect eval log (.eval or .json).")],
    output: Annotated[Path, typer.Option("--out", help="predictions.jsonl to append to.")],
    tasks: TasksOpt = None,
) -> None:
    """Turn an Inspect eval log of lmrbench/prompt or lmrbench/agent into predictions (model name from the log)."""
    try:
        from lmrbench.integrations.inspect.logs import predictions_from_log
    except ImportError as exc:
        err.print(f"[red]error:[/red] {exc}; install the extra: pip install 'lmrbench[inspect]'", highlight=False)
        raise typer.Exit(2) from exc
    ts = _load(tasks, quiet=True)
    try:
        result = predictions_from_log(log, ts)
    except (OSError, ValueError) as exc:
        err.print(f"[red]error:[/red] {log}: not a readable Inspect log: {exc}", highlight=False)
        raise typer.Exit(2) from exc
    _append_predictions(result.problems, result.predictions, output, f" of {result.model}")


# --- per-task environments (original LMR-Bench layout) ---

env_app = typer.Typer(help="Per-task environments (built with uv, cached).", no_args_is_help=True)
app.add_typer(env_app, name="env")
EnvOpt = Annotated[EnvMode, typer.Option("--env", help="task: original-layout tasks run in their own cached "
                                         "environment (built when missing); shared: in the harness's.")]
CacheOpt = Annotated[Path | None, typer.Option("--cache", help="Cache folder; default $LMRBENCH_CACHE or "
                                               "~/.cache/lmrbench.")]


def _env_config(cache: Path | None, workers: int = 2) -> EnvConfig:
    return EnvConfig(workers=workers) if cache is None else EnvConfig(cache_dir=cache, workers=workers)


def _env_line(rec: EnvRecord) -> str:
    state = "[green]ready[/green]" if rec.status is EnvStatus.READY else "[yellow]partial[/yellow]"
    how = "cached" if rec.reused else f"built in {rec.seconds:.0f} s"
    failed = "; could not install: " + ", ".join(f.requirement for f in rec.failed) if rec.failed else ""
    subs = "; substituted to fit the harness: " + ", ".join(s.line() for s in rec.substituted) \
        if rec.substituted else ""
    return f"{rec.task_id}: {state} ({how}, {len(rec.installed)} installed){failed}{subs}"


def attach_task_envs(ts: TaskSet, select: list[str] | None, mode: EnvMode, cache: Path | None = None) -> None:
    """Attach (building when missing) the environments of the selected tasks (all when None), with a progress bar."""
    ids = {i.task_id for i in ts.select(select)} if select is None or select else set()
    with Progress(TextColumn("environments"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=None)

        def tick(rec: EnvRecord) -> None:
            bar.update(job, advance=1, description=rec.task_id)
            if rec.failed or rec.substituted:
                err.print(_env_line(rec), highlight=False)

        try:
            attach_envs(ts, ids, mode, _env_config(cache), tick)
        except EnvBuildError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc


@env_app.command("build")
def env_build(tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = DEFAULT_SPLIT,
                   since: SinceOpt = None, cache: CacheOpt = None,
              workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Builds in parallel.")] = 2,
              rebuild: Annotated[bool, typer.Option("--rebuild", help="Build again even when cached.")] = False
              ) -> None:
    """Build (or find cached) one environment per selected original-layout task."""
    ts = _select(_load(tasks), select, split, since)
    ids = {i.task_id for i in ts.select(select)}
    chosen = [t for t in ts.tasks if t.task_id in ids and needs_env(t, "task")]
    for t in ts.tasks:
        if t.task_id in ids and t.defect:
            out.print(f"{t.task_id}: [red]skipped[/red] ({t.defect})", highlight=False)
    with Progress(TextColumn("building"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=len(chosen))
        try:
            records = build_envs(chosen, _env_config(cache, workers), rebuild,
                                 tick=lambda r: bar.update(job, advance=1, description=r.task_id))
        except EnvBuildError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
    for rec in records:
        out.print(_env_line(rec), highlight=False, soft_wrap=True)
    built = sum(r.seconds for r in records if not r.reused)
    out.print(f"{len(records)} environment(s); {sum(not r.reused for r in records)} built in {built:.0f} s "
              "(summed over builds)", highlight=False)


def main() -> None:  # pragma: no cover
    app()
