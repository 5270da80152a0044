"""The `lmrbench` command line: a thin typer layer, one library call per command."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lmrbench.envs import EnvBuildError, EnvConfig, EnvMode, EnvRecord, EnvStatus, attach_envs, build_envs
from lmrbench.envs.build import needs_env
from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.evaluate.models import Evaluation, Prediction, Status
from lmrbench.evaluate.runner import EvalConfig
from lmrbench.external import export_workspaces, predictions_from_dirs
from lmrbench.generate import BUILTIN_MODELS, GenerateProgress, SolverName, generate_builtin, generate_with_model
from lmrbench.importers.human_eval import Scale, import_labels
from lmrbench.importers.openhands import from_openhands
from lmrbench.jsonl import JsonlWriter
from lmrbench.judge.agreement import agreement_table, load_labels
from lmrbench.judge.run import judge_run, load_judgments
from lmrbench.models import ModelSettings, get_model
from lmrbench.papers import fetch_paper
from lmrbench.report.bundle import collect, write_all
from lmrbench.sandbox import SandboxConfig
from lmrbench.solvers.agent import AgentLimits
from lmrbench.tasks.fixtures import build_fixtures
from lmrbench.tasks.lint import lint
from lmrbench.tasks.lint_run import run_checks
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import TaskFormatError
from lmrbench.validate import ValidateConfig, validate

app = typer.Typer(help="lmrbench: can a model reproduce the code of a language-modeling paper?",
                  no_args_is_help=True, pretty_exceptions_enable=False)
tasks_app = typer.Typer(help="List, show, lint the tasks and rebuild their fixtures.", no_args_is_help=True)
app.add_typer(tasks_app, name="tasks")
out = Console()
err = Console(stderr=True, soft_wrap=True)

TasksOpt = Annotated[Path | None, typer.Option("--tasks", help="Task folder (either layout); default: built-in.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output on stdout.")]
SelectOpt = Annotated[list[str] | None, typer.Option("--task", "-t", help="Only these tasks/instances (glob).")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-w", min=1, help="Evaluations in parallel.")]
RunDirOpt = Annotated[Path | None, typer.Option("--run-dir", help="Run directory; default runs/<model>.")]
HfCacheOpt = Annotated[Path | None, typer.Option("--hf-cache", exists=True, file_okay=False, help="A pre-downloaded "
                       "Hugging Face cache, read-only in the sandbox, offline mode set.")]
GpusOpt = Annotated[bool, typer.Option("--gpus", help="Expose the NVIDIA devices; no address-space limit.")]


def _load(path: Path | None, quiet: bool = False) -> TaskSet:
    try:
        tasks = load_tasks(path)
    except (TaskFormatError, FileNotFoundError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if tasks.problems and not quiet:
        err.print(f"[yellow]{len(tasks.problems)} problem(s) while loading; see `lmrbench tasks lint`[/yellow]")
    return tasks


def status_style(status: Status) -> str:
    return {Status.PASSED: "green", Status.FAILED: "red", Status.TIMEOUT: "yellow"}.get(status, "magenta")


def _emit_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@tasks_app.command("list")
def tasks_list(tasks: TasksOpt = None, as_json: JsonOpt = False) -> None:
    """List every implementation with its category."""
    ts = _load(tasks)
    rows = [{"instance_id": i.instance_id, "category": i.category.value if i.category else None,
             "goal": f"{i.goal_file}::{','.join(i.targets) or '<whole file>'}"} for i in ts.instances()]
    if as_json:
        _emit_json(rows)
        return
    table = Table(title=f"{len(rows)} implementations in {len(ts.tasks)} tasks ({ts.root})")
    for col in ("instance", "category", "masked target"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["instance_id"], r["category"] or "[red]unmapped[/red]", r["goal"])
    out.print(table)


@tasks_app.command("show")
def tasks_show(instance: str, tasks: TasksOpt = None, as_json: JsonOpt = False) -> None:
    """Show one task or implementation (`dpo` or `dpo/1`)."""
    ts = _load(tasks, quiet=True)
    try:
        task = ts.task(instance.split("/")[0])
    except KeyError as exc:
        err.print(f"[red]error:[/red] {exc.args[0]}")
        raise typer.Exit(2) from exc
    if as_json:
        _emit_json(task.model_dump(mode="json"))
        return
    out.print(f"[bold]{task.task_id}[/bold] ({task.layout.value}): {task.paper_name}\n{task.paper_url}")
    for impl in task.implementations:
        if "/" in instance and impl.instance_id != instance:
            continue
        cat = impl.category.value if impl.category else impl.raw_category
        out.print(f"\n[bold]{impl.instance_id}[/bold] [{cat}] {impl.goal_file}::{', '.join(impl.targets)}")
        out.print(impl.instruction)


@tasks_app.command("lint")
def tasks_lint(path: Annotated[Path | None, typer.Argument(help="Task folder; default: built-in.")] = None,
               tasks: TasksOpt = None, as_json: JsonOpt = False,
               run: Annotated[bool, typer.Option("--run", help="Also run each reference and stub (validate): "
                                                 "tests the stub passes, references that fail.")] = False,
               select: SelectOpt = None, env: EnvOpt = "task") -> None:
    """Report each defect of a task folder, one line each: task or task/index, severity, kind, detail."""
    ts = _load(path or tasks, quiet=True)
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
                   check: Annotated[bool, typer.Option("--check", help="Compare instead of writing.")] = False
                   ) -> None:
    """Regenerate tests/fixtures of each task from its reference (or check they are up to date)."""
    ts = _load(tasks)
    ids = {i.task_id for i in ts.select(select)}
    bad = 0
    for task in (t for t in ts.tasks if t.task_id in ids):
        res = build_fixtures(task, check)
        bad += not res.ok
        colour = "green" if res.ok else "red"
        out.print(f"[{colour}]{task.task_id}[/{colour}]: {res.detail}", highlight=False)
    if bad:
        raise typer.Exit(1)


@app.command("validate")
def validate_cmd(
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    repeat: Annotated[int, typer.Option(min=1, help="Reference runs; each must pass.")] = 3,
    mutants: Annotated[bool, typer.Option("--mutants", help="Also run mechanical mutants.")] = False,
    max_mutants: Annotated[int | None, typer.Option(help="Sample at most this many mutants per impl.")] = None,
    no_wrong: Annotated[bool, typer.Option("--no-wrong", help="Skip the hand-written wrong variants.")] = False,
    min_kill: Annotated[float, typer.Option(help="Fail when a kill rate is below this (0-1).")] = 0.0,
    workers: WorkersOpt = 2,
    cold: Annotated[bool, typer.Option("--cold", help="One cold sandbox per job instead of warm batches.")] = False,
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
) -> None:
    """Prove tasks discriminate: reference N/N, stub fails, wrong variants fail, mutants killed."""
    ts = _load(tasks)
    attach_task_envs(ts, select, env)
    impls = [(ts.task(i.task_id), i) for i in ts.select(select)]
    cfg = ValidateConfig(repeat=repeat, wrong=not no_wrong, mutants=mutants, max_mutants=max_mutants,
                         workers=workers, warm=not cold)
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("validating")
        results = validate(impls, cfg, EvalConfig(sandbox=SandboxConfig(hf_cache=hf_cache, gpus=gpus)),
                           tick=lambda msg: bar.update(job, description=msg))
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
            for s in r.mutant_survivors:
                out.print(f"{r.instance_id} surviving mutant {s.mutant_id}: {s.description}", highlight=False)
    low = [r for r in results if r.kill_rate is not None and r.kill_rate < min_kill]
    if not all(r.ok for r in results) or low:
        raise typer.Exit(1)


def _run_dir(run_dir: Path | None, model: str) -> Path:
    return run_dir or Path("runs") / model.replace("/", "_")


def _evaluate(ts: TaskSet, predictions: Path, run_dir: Path, workers: int, timeout: int | None,
              sandbox: SandboxConfig | None = None) -> list[Evaluation]:
    preds, invalid = load_predictions(predictions, ts)
    config = EvalConfig(timeout_s=timeout, sandbox=sandbox or SandboxConfig())
    with Progress(TextColumn("evaluating"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=len(preds))
        failures = 0

        def tick(ev: Evaluation) -> None:
            nonlocal failures
            failures += not ev.passed
            bar.update(job, advance=1, description=f"{ev.instance_id} {ev.status.value} · not passed: {failures}")

        evaluate_predictions(preds, ts, run_dir / "evaluations.jsonl", run_dir / "work", run_dir / "logs",
                             config, workers, tick, extra=invalid)
    return latest_evaluations(run_dir / "evaluations.jsonl")


def _report(ts: TaskSet, run_dirs: list[Path], as_json: bool, out_dir: Path | None = None,
            labels: Path | None = None) -> None:
    try:
        human = load_labels(labels) if labels else None
        data = collect(run_dirs, ts, human)
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
        style = status_style(Status(d.status))
        table.add_row(d.instance_id, d.model, str(d.sample), f"[{style}]{d.status}[/{style}]",
                      f"{d.tests_passed}/{d.tests_total}", d.reason[:70])
    out.print(table)
    for s in data.scores:
        n = sum(s.status_counts.values())
        counts = ", ".join(f"{k}={v}" for k, v in s.status_counts.items() if v)
        out.print(f"[bold]{s.model}[/bold]: {s.status_counts['passed']}/{n} passed ({s.pass_rate.value:.1%}, 95% CI "
                  f"{s.pass_rate.ci_low:.1%}-{s.pass_rate.ci_high:.1%}); mean test share {s.test_share.value:.1%}; "
                  f"{counts}; tokens {s.usage.input_tokens + s.usage.output_tokens:,}, cost ${s.usage.cost_usd:.4f}",
                  highlight=False)
    out.print(f"report: {', '.join(str(f) for f in files)}", highlight=False)


ModelOpt = Annotated[str, typer.Option(help="reference | stub | fake | any litellm name (e.g. openai/gpt-4o).")]
SolverOpt = Annotated[SolverName, typer.Option(help="prompt: one request per implementation; agent: tool loop.")]


class GenOptions(BaseModel):
    """Options shared by generate and run."""

    model: str
    solver: SolverName = "prompt"
    samples: int = 1
    concurrency: int = 4
    settings: ModelSettings = ModelSettings()
    fake_script: Path | None = None
    limits: AgentLimits = AgentLimits()
    no_cache: bool = False


def _generate(ts: TaskSet, opts: GenOptions, rd: Path, select: list[str] | None) -> None:
    rd.mkdir(parents=True, exist_ok=True)
    (rd / "run.json").write_text(opts.model_dump_json(indent=2))
    if opts.model in BUILTIN_MODELS:
        new = generate_builtin(ts, opts.model, rd / "predictions.jsonl", opts.samples, select)
        err.print(f"{new} new prediction(s) in {rd / 'predictions.jsonl'}", highlight=False)
        return
    try:
        model = get_model(opts.model, opts.settings, opts.fake_script, use_cache=not opts.no_cache)
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    with Progress(TextColumn("generating"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=None)

        def tick(p: GenerateProgress, pred: Prediction) -> None:
            u = p.usage
            bar.update(job, completed=p.done, total=p.total, description=(
                f"failures {p.failures} · tokens {u.input_tokens + u.output_tokens:,} · ${u.cost_usd:.4f} "
                f"· cached {u.cached_calls}"))

        prog = generate_with_model(ts, model, opts.solver, rd, opts.samples, opts.concurrency, select,
                                   limits=opts.limits, on_progress=tick)
    u = prog.usage
    err.print(f"{prog.done} new prediction(s), {prog.failures} failed; tokens in {u.input_tokens:,} out "
              f"{u.output_tokens:,}; cost ${u.cost_usd:.4f}; {u.calls} calls ({u.cached_calls} cached)",
              highlight=False)


def _gen_options(model: str, solver: SolverName, samples: int, concurrency: int, temperature: float,
                 max_tokens: int, seed: int | None, api_base: str | None, fake_script: Path | None,
                 max_steps: int, no_cache: bool) -> GenOptions:
    return GenOptions(model=model, solver=solver, samples=samples, concurrency=concurrency,
                      settings=ModelSettings(temperature=temperature, max_tokens=max_tokens, seed=seed,
                                             api_base=api_base),
                      fake_script=fake_script, limits=AgentLimits(max_steps=max_steps), no_cache=no_cache)


SamplesOpt = Annotated[int, typer.Option(min=1, help="Samples per implementation (for pass@k).")]
ConcOpt = Annotated[int, typer.Option(min=1, help="Requests (or agent episodes) in flight.")]
TempOpt = Annotated[float, typer.Option(min=0.0, max=2.0, help="Sampling temperature.")]
MaxTokOpt = Annotated[int, typer.Option(min=1, help="Most tokens in one answer.")]
SeedOpt = Annotated[int | None, typer.Option(help="Seed, where the provider supports it.")]
ApiBaseOpt = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp).")]
FakeOpt = Annotated[Path | None, typer.Option(exists=True, dir_okay=False, help="JSONL script for --model fake.")]
StepsOpt = Annotated[int, typer.Option(min=1, help="Agent step limit.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")]


@app.command("generate")
def generate_cmd(
    model: ModelOpt,
    solver: SolverOpt = "prompt",
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    samples: SamplesOpt = 1,
    concurrency: ConcOpt = 4,
    temperature: TempOpt = 0.0,
    max_tokens: MaxTokOpt = 4096,
    seed: SeedOpt = None,
    api_base: ApiBaseOpt = None,
    fake_script: FakeOpt = None,
    max_steps: StepsOpt = 30,
    no_cache: NoCacheOpt = False,
    run_dir: RunDirOpt = None,
) -> None:
    """Write predictions.jsonl for a model (resumable: finished items are skipped)."""
    opts = _gen_options(model, solver, samples, concurrency, temperature, max_tokens, seed, api_base, fake_script,
                        max_steps, no_cache)
    _generate(_load(tasks), opts, _run_dir(run_dir, model), select)


@app.command("evaluate")
def evaluate_cmd(
    predictions: Annotated[Path, typer.Option(exists=True, dir_okay=False, help="A predictions.jsonl file.")],
    tasks: TasksOpt = None,
    run_dir: RunDirOpt = None,
    workers: WorkersOpt = 1,
    timeout: Annotated[int | None, typer.Option(min=1, help="Override each task's timeout (s).")] = None,
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
) -> None:
    """Evaluate predictions in the sandbox into evaluations.jsonl (resumable), then report."""
    ts = _load(tasks)
    attach_task_envs(ts, sorted({p.instance_id for p in load_predictions(predictions, ts)[0]}), env)
    rd = run_dir or predictions.parent
    _evaluate(ts, predictions, rd, workers, timeout, SandboxConfig(hf_cache=hf_cache, gpus=gpus))
    _report(ts, [rd], as_json)


LabelsOpt = Annotated[Path | None, typer.Option(exists=True, dir_okay=False, help="Human labels (JSONL).")]


@app.command("report")
def report_cmd(
    run_dirs: Annotated[list[Path], typer.Argument(exists=True, file_okay=False, help="One or more run dirs.")],
    tasks: TasksOpt = None,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Where to write; default the first run dir.")] = None,
    labels: LabelsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Leaderboard of one or several runs: report.md, .csv, .json and a self-contained report.html."""
    _report(_load(tasks, quiet=True), run_dirs, as_json, out_dir, labels)


@app.command("judge")
def judge_cmd(
    target: Annotated[str, typer.Argument(help="RUN_DIR, 'agreement' followed by RUN_DIR, or 'import-labels' "
                                          "followed by the original's human-evaluation files.")],
    rest: Annotated[list[Path] | None, typer.Argument(help="RUN_DIR after 'agreement'; FILE... after "
                                                      "'import-labels'.")] = None,
    judge: Annotated[list[str] | None, typer.Option("--judge", help="Judge model(s); several = majority vote.")]
    = None,
    labels: LabelsOpt = None,
    tasks: TasksOpt = None,
    fake_script: FakeOpt = None,
    concurrency: ConcOpt = 4,
    api_base: ApiBaseOpt = None,
    as_json: JsonOpt = False,
    labels_out: Annotated[Path | None, typer.Option("--out", help="import-labels: the labels JSONL to write.")] = None,
    scale: Annotated[list[str] | None, typer.Option("--scale", help="import-labels: ANNOTATOR=0-2 or =1-3 "
                                                    "(default: 0-2 when the annotator used a 0).")] = None,
) -> None:
    """`judge RUN_DIR --judge M`: LLM-as-judge categories 1/2/3. `judge agreement RUN_DIR --labels F`.
    `judge import-labels FILE... --out LABELS.jsonl`: the original's human evaluations as labels."""
    ts = _load(tasks, quiet=True)
    run_dir_arg = rest[0] if rest else None
    if target == "import-labels":
        judge_import_labels(ts, rest or [], labels_out, scale or [])
        return
    if target == "agreement":
        if run_dir_arg is None or labels is None:
            err.print("[red]error:[/red] usage: lmrbench judge agreement RUN_DIR --labels FILE")
            raise typer.Exit(2)
        try:
            rows = agreement_table(load_judgments(run_dir_arg / "judgments.jsonl"), load_labels(labels))
        except ValueError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
        if as_json:
            _emit_json([r.model_dump() for r in rows])
            return
        table = Table(title="judge agreement")
        for col in ("rater", "vs", "n", "accuracy", "macro-F1", "kappa", "confusion"):
            table.add_column(col)
        for r in rows:
            table.add_row(r.a, r.b, str(r.n), f"{r.accuracy:.1%}", f"{r.macro_f1:.3f}", f"{r.kappa:.3f}",
                          str(r.confusion))
        out.print(table)
        return
    run_dir = Path(target)
    if not (run_dir / "predictions.jsonl").is_file():
        err.print(f"[red]error:[/red] {run_dir / 'predictions.jsonl'} does not exist")
        raise typer.Exit(2)
    names = judge or []
    if not names:
        err.print("[red]error:[/red] give at least one --judge MODEL")
        raise typer.Exit(2)
    settings = ModelSettings(api_base=api_base)
    models = [get_model(n, settings, fake_script) for n in names]
    results = judge_run(run_dir, ts, models, concurrency)
    counts = Counter(f"{j.judge}:{j.status.value}" for j in results)
    out.print(f"{len(results)} new judgment(s): {dict(counts)} -> {run_dir / 'judgments.jsonl'}", highlight=False)


@app.command("run")
def run_cmd(
    model: ModelOpt = "reference",
    solver: SolverOpt = "prompt",
    tasks: TasksOpt = None,
    select: SelectOpt = None,
    samples: SamplesOpt = 1,
    concurrency: ConcOpt = 4,
    temperature: TempOpt = 0.0,
    max_tokens: MaxTokOpt = 4096,
    seed: SeedOpt = None,
    api_base: ApiBaseOpt = None,
    fake_script: FakeOpt = None,
    max_steps: StepsOpt = 30,
    no_cache: NoCacheOpt = False,
    run_dir: RunDirOpt = None,
    workers: WorkersOpt = 2,
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
    hf_cache: HfCacheOpt = None,
    gpus: GpusOpt = False,
) -> None:
    """Generate, evaluate and report in one go (resumable)."""
    ts = _load(tasks)
    attach_task_envs(ts, select, env)
    rd = _run_dir(run_dir, model)
    opts = _gen_options(model, solver, samples, concurrency, temperature, max_tokens, seed, api_base, fake_script,
                        max_steps, no_cache)
    _generate(ts, opts, rd, select)
    _evaluate(ts, rd / "predictions.jsonl", rd, workers, None, SandboxConfig(hf_cache=hf_cache, gpus=gpus))
    _report(ts, [rd], as_json)


papers_app = typer.Typer(help="Paper text for prompts.", no_args_is_help=True)
app.add_typer(papers_app, name="papers")
workspace_app = typer.Typer(help="Workspaces for external agents.", no_args_is_help=True)
app.add_typer(workspace_app, name="workspace")
predictions_app = typer.Typer(help="Predictions from external agents.", no_args_is_help=True)
app.add_typer(predictions_app, name="predictions")


@papers_app.command("fetch")
def papers_fetch(tasks: TasksOpt = None, select: SelectOpt = None,
                 cache: Annotated[Path | None, typer.Option(help="Papers cache folder.")] = None) -> None:
    """Download each task's paper PDF from its paper_url and convert it to per-page text."""
    ts = _load(tasks)
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
                     tasks: TasksOpt = None, select: SelectOpt = None) -> None:
    """Write one ready workspace per implementation (repository, paper.md, INSTRUCTIONS.md)."""
    made = export_workspaces(_load(tasks), out_dir, select)
    out.print(f"{len(made)} workspace(s) in {out_dir}", highlight=False)


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
    for problem in result.problems:
        err.print(f"[yellow]skipped:[/yellow] {problem}", highlight=False)
    writer = JsonlWriter(output)
    for pred in result.predictions:
        writer.write(pred)
    errors = sum(p.error is not None for p in result.predictions)
    out.print(f"{len(result.predictions)} prediction(s) ({errors} error) appended to {output}", highlight=False)


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
    return f"{rec.task_id}: {state} ({how}, {len(rec.installed)} installed){failed}"


def attach_task_envs(ts: TaskSet, select: list[str] | None, mode: EnvMode, cache: Path | None = None) -> None:
    """Attach (building when missing) the environments of the selected tasks (all when None), with a progress bar."""
    ids = {i.task_id for i in ts.select(select)} if select is None or select else set()
    with Progress(TextColumn("environments"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=None)

        def tick(rec: EnvRecord) -> None:
            bar.update(job, advance=1, description=rec.task_id)
            if rec.failed:
                err.print(_env_line(rec), highlight=False)

        try:
            attach_envs(ts, ids, mode, _env_config(cache), tick)
        except EnvBuildError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc


@env_app.command("build")
def env_build(tasks: TasksOpt = None, select: SelectOpt = None, cache: CacheOpt = None,
              workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Builds in parallel.")] = 2,
              rebuild: Annotated[bool, typer.Option("--rebuild", help="Build again even when cached.")] = False
              ) -> None:
    """Build (or find cached) one environment per selected original-layout task."""
    ts = _load(tasks)
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
        out.print(_env_line(rec), highlight=False)
    built = sum(r.seconds for r in records if not r.reused)
    out.print(f"{len(records)} environment(s); {sum(not r.reused for r in records)} built in {built:.0f} s "
              "(summed over builds)", highlight=False)


def main() -> None:  # pragma: no cover
    app()
