"""The `lmrbench` command line: a thin typer layer, option parsing and one library call per command (the
pipeline's generate_run, evaluate_run, report_runs and run; the other commands in cli_tasks and cli_results)."""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from lmrbench.authoring.validate import ValidateConfig, validate
from lmrbench.cli_common import (
    EnvOpt,
    GenChoices,
    JsonOpt,
    LabelsOpt,
    ModelOpt,
    PathOpt,
    RepoRootOpt,
    RunDirOpt,
    Selection,
    WorkersOpt,
    attach_task_envs,
    check_keys,
    emit_json,
    env_line,
    err,
    executor_options,
    fail,
    generation_options,
    load_selected,
    out,
    require_isolation,
    sandbox_options,
    select_tasks,
    selection_options,
    status_style,
    with_options,
)
from lmrbench.cli_results import annotate_cmd, judge_app, predictions_app
from lmrbench.cli_tasks import env_app, export_cmd, papers_app, tasks_app, workspace_app
from lmrbench.envs import EnvBuildError, EnvRecord
from lmrbench.evaluate.batch import load_predictions
from lmrbench.evaluate.executors import ExecutorConfig
from lmrbench.evaluate.runner import EvalConfig
from lmrbench.generate import GenerateProgress, GenOptions, missing_items
from lmrbench.pipeline import Hooks, UnknownModel, evaluate_run, generate_run, regrade, report_runs
from lmrbench.pipeline import run as run_pipeline
from lmrbench.records import Evaluation, Prediction, Status
from lmrbench.report.bundle import ReportData
from lmrbench.rundir import RunDir
from lmrbench.sandbox import SandboxConfig
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import TaskFormatError
from lmrbench.tasks.source import SourceError
from lmrbench.tasks.upstream import UpstreamError

app = typer.Typer(help="lmrbench: can a model reproduce the code of a language-modeling paper?",
                  no_args_is_help=True, pretty_exceptions_enable=False)
app.add_typer(tasks_app, name="tasks")
app.add_typer(judge_app, name="judge")
app.add_typer(papers_app, name="papers")
app.add_typer(workspace_app, name="workspace")
app.add_typer(predictions_app, name="predictions")
app.add_typer(env_app, name="env")
app.command("export")(export_cmd)
app.command("annotate")(annotate_cmd)


@contextlib.contextmanager
def _progress() -> Iterator[Hooks]:
    """Transient progress bars on stderr for whatever stages a pipeline call runs."""
    with Progress(TextColumn("{task.fields[stage]}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        jobs: dict[str, TaskID] = {}
        failures = 0

        def job(stage: str) -> TaskID:
            if stage not in jobs:
                jobs[stage] = bar.add_task("", total=None, stage=stage)
            return jobs[stage]

        def on_prediction(p: GenerateProgress, pred: Prediction) -> None:
            u = p.usage
            bar.update(job("generating"), completed=p.done, total=p.total, description=(
                f"failures {p.failures} · tokens {u.input_tokens + u.output_tokens:,} · ${u.cost_usd:.4f} "
                f"· cached {u.cached_calls}"))

        def on_evaluation(ev: Evaluation) -> None:
            nonlocal failures
            failures += not ev.passed
            bar.update(job("evaluating"), advance=1,
                       description=f"{ev.instance_id} {ev.status.value} · not passed: {failures}")

        def on_environment(rec: EnvRecord) -> None:
            bar.update(job("environments"), advance=1, description=rec.task_id)
            if rec.failed or rec.substituted:
                err.print(env_line(rec), highlight=False)

        yield Hooks(on_prediction=on_prediction, on_evaluation=on_evaluation, on_environment=on_environment)


@contextlib.contextmanager
def _library_errors() -> Iterator[None]:
    """The pipeline's refusals as clear errors and exit code 2."""
    try:
        yield
    except (UnknownModel, EnvBuildError) as exc:
        fail(str(exc), cause=exc)


def _generated(prog: GenerateProgress, run: RunDir) -> None:
    u = prog.usage
    err.print(f"{prog.done} new prediction(s) in {run.predictions}, {prog.failures} failed; tokens in "
              f"{u.input_tokens:,} out {u.output_tokens:,}; cost ${u.cost_usd:.4f}; {u.calls} calls "
              f"({u.cached_calls} cached)", highlight=False)


def _exit_if_missing(missing: list[str]) -> None:
    """Exit 1 while items have no prediction (the provider failed them: model_error); a re-run retries them."""
    if missing:
        shown = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
        err.print(f"[yellow]{len(missing)} item(s) have no answer from the provider (model_error: {shown}); they are "
                  "outside the pass rate. Re-run the same command to retry exactly these.[/yellow]", highlight=False)
        raise typer.Exit(1)


def _show_report(data: ReportData, files: list[Path], runs: list[RunDir], as_json: bool) -> None:
    if as_json:
        emit_json(data.model_dump(mode="json"))
        return
    table = Table(title=f"results: {', '.join(str(r.root) for r in runs)}")
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


def _report(ts: TaskSet, runs: list[RunDir], as_json: bool, out_dir: Path | None = None,
            labels: Path | None = None, since: dt.date | None = None) -> None:
    try:
        data, files = report_runs(ts, runs, out_dir, labels, since)
    except (FileNotFoundError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    _show_report(data, files, runs, as_json)


@app.command("generate")
@with_options(selection_options, generation_options, sandbox_options, executor_options)
def generate_cmd(sel: Selection, gen: GenChoices, sandbox: SandboxConfig, where: ExecutorConfig, model: ModelOpt,
                 run_dir: RunDirOpt = None) -> None:
    """Write predictions.jsonl for a model (resumable: finished items and only those are skipped)."""
    tasks, select, split, since = sel.unpack()
    check_keys([model], gen.settings.api_base)
    if gen.solver == "agent":  # the agent solver's commands run in the sandbox
        require_isolation(sandbox)
    opts = gen.options(model)
    ts = select_tasks(load_selected(tasks), select, split, since)
    run = RunDir(run_dir) if run_dir else RunDir.for_model(model)
    with _library_errors(), _progress() as hooks:
        prog = generate_run(ts, run, opts, select, where, sandbox, hooks)
    _generated(prog, run)
    _exit_if_missing(missing_items(ts, opts.model, run, opts.samples, select))


@app.command("evaluate")
@with_options(selection_options, sandbox_options, executor_options)
def evaluate_cmd(
    sel: Selection,
    sandbox: SandboxConfig,
    where: ExecutorConfig,
    predictions: Annotated[Path | None, typer.Option(exists=True, dir_okay=False,
                                                     help="A predictions.jsonl file.")] = None,
    run_dir: RunDirOpt = None,
    workers: WorkersOpt = 1,
    timeout: Annotated[int | None, typer.Option(min=1, help="Override each task's timeout (s).")] = None,
    regrade: Annotated[Path | None, typer.Option(exists=True, file_okay=False, help="Re-grade this finished run "
                                                 "from its kept data, without a sandbox.")] = None,
    write: Annotated[bool, typer.Option(help="With --regrade: append the re-graded records.")] = False,
    repo_root: RepoRootOpt = None,
    path: PathOpt = "template",
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
) -> None:
    """Evaluate predictions in the sandbox into evaluations.jsonl (resumable), then report; or re-grade a run."""
    tasks, select, split, since = sel.unpack()
    full = load_selected(tasks)
    ts = select_tasks(full, select, split, since, new_work=False)
    if regrade is not None:
        _regrade(ts, RunDir(regrade), write, as_json)
        return
    if predictions is None:
        raise typer.BadParameter("give --predictions FILE (or --regrade RUN_DIR)")
    preds = load_predictions(predictions, full)[0]
    run = RunDir(run_dir) if run_dir else RunDir.for_model(preds[0].model if preds else "unknown")
    config = EvalConfig(timeout_s=timeout, path=path, sandbox=sandbox,
                        repo_root=repo_root or RunDir(predictions.parent).workspaces)
    require_isolation(sandbox)
    with _library_errors(), _progress() as hooks:
        evaluate_run(ts, run, config, predictions, where.model_copy(update={"workers": workers}), env,
                     only={i.instance_id for i in ts.instances()}, hooks=hooks)
    _report(ts, [run], as_json)


def _regrade(ts: TaskSet, run: RunDir, write: bool, as_json: bool) -> None:
    rows = regrade(ts, run, write)
    changed = [r for r in rows if not r.same]
    if as_json:
        emit_json({"evaluations": len(rows), "same": len(rows) - len(changed),
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


@app.command("report")
@with_options(selection_options)
def report_cmd(
    sel: Selection,
    run_dirs: Annotated[list[Path], typer.Argument(exists=True, file_okay=False, help="One or more run dirs.")],
    out_dir: Annotated[Path | None, typer.Option("--out", help="Where to write; default the first run dir.")] = None,
    labels: LabelsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Leaderboard of one or several runs: report.md, .csv, .json and a self-contained report.html."""
    tasks, select, split, since = sel.unpack()
    # --since adds a row for the implementations published on or after it (it does not drop the others)
    ts = select_tasks(load_selected(tasks, quiet=True), select, split, None, new_work=False)
    _report(ts, [RunDir(d) for d in run_dirs], as_json, out_dir, labels,
            since=dt.date.fromisoformat(since) if since else None)


@app.command("run")
@with_options(selection_options, generation_options, sandbox_options, executor_options)
def run_cmd(sel: Selection, gen: GenChoices, sandbox: SandboxConfig, where: ExecutorConfig,
            model: ModelOpt = "reference", run_dir: RunDirOpt = None, workers: WorkersOpt = 2,
            path: PathOpt = "template", as_json: JsonOpt = False, env: EnvOpt = "task") -> None:
    """Generate, evaluate and report in one go (resumable: a re-run retries the items the provider failed)."""
    tasks, select, split, since = sel.unpack()
    check_keys([model], gen.settings.api_base)
    require_isolation(sandbox)  # one config: the agent's commands and the evaluations
    ts = select_tasks(load_selected(tasks), select, split, since)
    run = RunDir(run_dir) if run_dir else RunDir.for_model(model)
    opts: GenOptions = gen.options(model)
    config = EvalConfig(path=path, sandbox=sandbox, repo_root=run.workspaces)
    with _library_errors(), _progress() as hooks:
        result = run_pipeline(ts, run, opts, config, where.model_copy(update={"workers": workers}), env, select,
                              hooks)
    _generated(result.generated, run)
    _show_report(result.report, result.files, [run], as_json)
    _exit_if_missing(result.missing)


@app.command("validate")
@with_options(selection_options, sandbox_options)
def validate_cmd(
    sel: Selection,
    sandbox: SandboxConfig,
    repeat: Annotated[int, typer.Option(min=1, help="Reference runs; each must pass.")] = 3,
    mutants: Annotated[bool, typer.Option("--mutants", help="Also run mechanical mutants.")] = False,
    max_mutants: Annotated[int | None, typer.Option(help="Sample at most this many mutants per impl.")] = None,
    no_wrong: Annotated[bool, typer.Option("--no-wrong", help="Skip the hand-written wrong variants.")] = False,
    min_kill: Annotated[float, typer.Option(help="Fail when a kill rate is below this (0-1).")] = 0.0,
    workers: WorkersOpt = 2,
    cold: Annotated[bool, typer.Option("--cold", help="One cold sandbox per job instead of warm batches.")] = False,
    reasons: Annotated[bool, typer.Option("--reasons", help="Also print why each wrong variant failed.")] = False,
    as_json: JsonOpt = False,
    env: EnvOpt = "task",
) -> None:
    """Prove tasks discriminate: reference N/N, stub fails, wrong variants fail, mutants killed."""
    tasks, select, split, since = sel.unpack()
    require_isolation(sandbox)
    ts = select_tasks(load_selected(tasks), select, split, since)
    attach_task_envs(ts, select, env)
    impls = [(ts.task(i.task_id), i) for i in ts.select(select)]
    cfg = ValidateConfig(repeat=repeat, wrong=not no_wrong, mutants=mutants, max_mutants=max_mutants,
                         workers=workers, warm=not cold)
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("validating")
        try:
            results = validate(impls, cfg, EvalConfig(sandbox=sandbox),
                               tick=lambda msg: bar.update(job, description=msg))
        except (UpstreamError, SourceError, TaskFormatError) as exc:  # a declared wrong variant that does not apply
            fail(str(exc), cause=exc)
    if as_json:
        emit_json([r.model_dump(mode="json") | {"ok": r.ok, "kill_rate": r.kill_rate} for r in results])
    else:
        table = Table(title="validation")
        for col in ("instance", "tests", "reference", "stub", "wrong caught", "mutants killed", "s/run", "ok"):
            table.add_column(col)
        for r in results:
            counted = r.mutants_total - len(r.mutants_equivalent) - r.mutants_errored
            kill = f"{r.mutants_killed}/{counted} ({r.kill_rate:.0%})" if r.kill_rate is not None else "-"
            kill += f" +{len(r.mutants_equivalent)} equivalent" if r.mutants_equivalent else ""
            kill += f" +{r.mutants_errored} no verdict" if r.mutants_errored else ""
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
            for label, why in r.harness_errors.items():
                out.print(f"[red]{r.instance_id} {label} got no verdict (harness error, re-run it):[/red] {why}",
                          highlight=False)
            for m in r.equivalent_killed:
                out.print(f"[red]{r.instance_id} mutant declared equivalent was killed:[/red] {m} (remove it from "
                          "equivalent_mutants.txt)", highlight=False)
    low = [r for r in results if r.kill_rate is not None and r.kill_rate < min_kill]
    if not all(r.ok for r in results) or low:
        raise typer.Exit(1)



def main() -> None:  # pragma: no cover
    app()
