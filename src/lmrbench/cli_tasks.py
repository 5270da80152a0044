"""The command line's task commands: tasks (list, show, prompt, lint, fixtures, fetch), env build, papers fetch,
workspace export and export: option parsing and one library call each."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lmrbench.authoring.fixtures import build_fixtures
from lmrbench.authoring.lint import lint
from lmrbench.authoring.lint_run import run_checks
from lmrbench.cli_common import (
    CacheOpt,
    EnvOpt,
    FindLinksOpt,
    JsonOpt,
    KernelsOpt,
    PaperOpt,
    Selection,
    SelectOpt,
    SinceOpt,
    SplitOpt,
    TasksOpt,
    attach_task_envs,
    emit_json,
    env_line,
    err,
    fetched,
    load_selected,
    out,
    select_tasks,
    selection_options,
    with_options,
)
from lmrbench.envs import EnvBuildError, EnvMode, build_envs
from lmrbench.envs.build import needs_env
from lmrbench.export import dataset_rows, write_dataset
from lmrbench.external import export_workspaces
from lmrbench.papers import fetch_paper, paper_text
from lmrbench.pipeline import env_config
from lmrbench.sandbox import SandboxConfig
from lmrbench.solvers.prompt import PROMPT_VERSION, build_prompt
from lmrbench.tasks.catalog import task_rows
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import TaskFormatError
from lmrbench.tasks.upstream import FetchConfig, UpstreamError, ensure_task

tasks_app = typer.Typer(help="List, show, lint the tasks and rebuild their fixtures.", no_args_is_help=True)
env_app = typer.Typer(help="Per-task environments (built with uv, cached).", no_args_is_help=True)
papers_app = typer.Typer(help="Paper text for prompts.", no_args_is_help=True)
workspace_app = typer.Typer(help="Workspaces for external agents.", no_args_is_help=True)


@tasks_app.command("list")
@with_options(selection_options)
def tasks_list(sel: Selection, as_json: JsonOpt = False) -> None:
    """List every implementation with its split, category, publication date and reference size."""
    tasks, select, split, since = sel.unpack()
    ts = load_selected(tasks, select=select, split=split, since=since)
    rows = [row.model_dump(mode="json") for row in task_rows(ts)]
    if as_json:
        emit_json(rows)
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
    ts = load_selected(tasks, quiet=True)
    try:
        task, impl = ts.resolve(instance)
    except KeyError as exc:
        err.print(f"[red]error:[/red] {exc.args[0]}")
        raise typer.Exit(2) from exc
    fetched(TaskSet(ts.root, [task]))
    messages = build_prompt(task, impl, paper_text(task, papers_dir, paper))
    if as_json:
        emit_json({"prompt_version": PROMPT_VERSION, "messages": [m.model_dump(mode="json") for m in messages]})
        return
    for m in messages:
        sys.stdout.write(f"===== {m.role} =====\n{m.content}\n")


@tasks_app.command("show")
def tasks_show(instance: str, tasks: TasksOpt = None, as_json: JsonOpt = False) -> None:
    """Show one task or implementation (`dpo` or `dpo/1`)."""
    ts = load_selected(tasks, quiet=True)
    try:
        task = ts.task(instance.split("/")[0])
    except KeyError as exc:
        err.print(f"[red]error:[/red] {exc.args[0]}")
        raise typer.Exit(2) from exc
    fetched(TaskSet(ts.root, [task]))
    if as_json:
        emit_json(task.model_dump(mode="json"))
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
@with_options(selection_options)
def tasks_lint(sel: Selection,
               path: Annotated[Path | None, typer.Argument(help="Task folder; default: built-in.")] = None,
               as_json: JsonOpt = False,
               run: Annotated[bool, typer.Option("--run", help="Also run each reference and stub (validate): "
                                                 "tests the stub passes, references that fail.")] = False,
               env: EnvOpt = "task") -> None:
    """Report each defect of a task folder, one line each: task or task/index, severity, kind, detail."""
    tasks, select, split, since = sel.unpack()
    ts = select_tasks(load_selected(path or tasks, quiet=True), select, split, since, new_work=False)
    problems = lint(ts)
    if run:
        problems += lint_by_running(ts, select, env)
    if as_json:
        emit_json([p.model_dump() for p in problems])
    else:
        for p in problems:
            out.print(p.line(), markup=False, highlight=False, soft_wrap=True)
        out.print(f"{len(ts.tasks)} task(s), {len(problems)} problem(s)", highlight=False)
    if any(p.severity == "error" for p in problems):
        raise typer.Exit(1)


@tasks_app.command("fixtures")
@with_options(selection_options)
def tasks_fixtures(sel: Selection,
                   check: Annotated[bool, typer.Option("--check", help="Compare instead of writing.")] = False,
                   kernels: KernelsOpt = "pinned",
                   ) -> None:
    """Regenerate tests/fixtures of each task from its reference (or check they are up to date)."""
    tasks, select, split, since = sel.unpack()
    ts = select_tasks(load_selected(tasks), select, split, since, new_work=False)
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


def lint_by_running(ts: TaskSet, select: list[str] | None, env: EnvMode) -> list[Problem]:
    """`tasks lint --run`: the reference and the stub of each selected implementation, run."""
    attach_task_envs(ts, select, env)
    impls = [(ts.task(i.task_id), i) for i in ts.select(select)]
    with Progress(TextColumn("{task.description}"), TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("running")
        return run_checks(impls, tick=lambda msg: bar.update(job, description=msg))


@env_app.command("build")
@with_options(selection_options)
def env_build(sel: Selection, cache: CacheOpt = None,
              workers: Annotated[int, typer.Option("--workers", "-w", min=1, help="Builds in parallel.")] = 2,
              rebuild: Annotated[bool, typer.Option("--rebuild", help="Build again even when cached.")] = False
              ) -> None:
    """Build (or find cached) one environment per selected original-layout task."""
    tasks, select, split, since = sel.unpack()
    ts = select_tasks(load_selected(tasks), select, split, since)
    ids = {i.task_id for i in ts.select(select)}
    chosen = [t for t in ts.tasks if t.task_id in ids and needs_env(t, "task")]
    for t in ts.tasks:
        if t.task_id in ids and t.defect:
            out.print(f"{t.task_id}: [red]skipped[/red] ({t.defect})", highlight=False)
    with Progress(TextColumn("building"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=len(chosen))
        try:
            records = build_envs(chosen, env_config(cache, workers), rebuild,
                                 tick=lambda r: bar.update(job, advance=1, description=r.task_id))
        except EnvBuildError as exc:
            err.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(2) from exc
    for rec in records:
        out.print(env_line(rec), highlight=False, soft_wrap=True)
    built = sum(r.seconds for r in records if not r.reused)
    out.print(f"{len(records)} environment(s); {sum(not r.reused for r in records)} built in {built:.0f} s "
              "(summed over builds)", highlight=False)


@papers_app.command("fetch")
@with_options(selection_options)
def papers_fetch(sel: Selection,
                 cache: Annotated[Path | None, typer.Option(help="Papers cache folder.")] = None) -> None:
    """Download each task's paper PDF from its paper_url and convert it to per-page text."""
    tasks, select, split, since = sel.unpack()
    ts = select_tasks(load_selected(tasks), select, split, since)
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
@with_options(selection_options)
def workspace_export(sel: Selection,
                     out_dir: Annotated[Path, typer.Option("--out", help="Folder to write workspaces into.")],
                     paper: PaperOpt = "full") -> None:
    """Write one ready workspace per implementation (repository, paper.md, INSTRUCTIONS.md)."""
    tasks, select, split, since = sel.unpack()
    made = export_workspaces(select_tasks(load_selected(tasks), select, split, since), out_dir, select, paper=paper)
    out.print(f"{len(made)} workspace(s) in {out_dir}", highlight=False)


@with_options(selection_options)
def export_cmd(  # registered as the top-level `export` by cli.py
    sel: Selection,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the dataset into (README.md, data/).")],
    fmt: Annotated[Literal["parquet"], typer.Option("--format", help="parquet: a Hugging Face style dataset "
                                                    "(parquet files and a dataset card).")] = "parquet",
    with_solutions: Annotated[bool, typer.Option("--with-solutions", help="Add the golden files, hidden tests and "
                                                 "expected outputs (never show these to a model).")] = False,
) -> None:
    """Write the tasks as a dataset: one row per implementation (ids, paper, instruction, masked repository,
    method description, the exact prompt-v1 messages)."""
    tasks, select, split, since = sel.unpack()
    ts = select_tasks(load_selected(tasks), select, split, since)
    try:
        res = write_dataset(dataset_rows(ts, with_solutions), out_dir, with_solutions)
    except (ValueError, OSError) as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    rows = ", ".join(f"{n} {s}" for s, n in res.rows.items())
    out.print(f"{fmt}: {sum(res.rows.values())} row(s) ({rows}){' with solutions' if with_solutions else ''} "
              f"-> {out_dir}", highlight=False)


