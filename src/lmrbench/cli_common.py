"""What the command line's modules share: the consoles, the option types declared once, option groups (one set
of options for every command that takes it), loading and selecting tasks, and turning the library's errors into
exit codes."""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from lmrbench.budget import BudgetOverride
from lmrbench.envs import EnvBuildError, EnvMode, EnvRecord, EnvStatus
from lmrbench.evaluate.executors import ExecutorConfig, ExecutorKind
from lmrbench.generate import GenOptions, SolverName
from lmrbench.models import ModelSettings
from lmrbench.models.registry import MissingCredentials, check_credentials
from lmrbench.papers import PaperMode
from lmrbench.pipeline import Hooks, attach_environments
from lmrbench.records import Status
from lmrbench.report import strict_json
from lmrbench.sandbox import IsolationError, IsolationLevel, Kernels, SandboxConfig
from lmrbench.sandbox.pool import check_isolation
from lmrbench.solvers.agent import AgentLimits
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.schema import TaskFormatError
from lmrbench.tasks.upstream import UpstreamError, ensure_task

out = Console()
err = Console(stderr=True, soft_wrap=True)
F = TypeVar("F", bound=Callable[..., Any])

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


ExecPath = Literal["template", "cold"]
PathOpt = Annotated[ExecPath, typer.Option(
    "--path", help="template: each evaluation is a child of a pre-warmed template that isolates itself (cold where "
    "the kernel does not allow it); cold: a new sandboxed interpreter per evaluation.")]
IsolationOpt = Annotated[IsolationLevel, typer.Option(
    "--isolation", help="best: run with what this machine allows (recorded); full: refuse unless fully isolated.")]
RepoRootOpt = Annotated[Path | None, typer.Option(
    "--repo-root", file_okay=False, help="repo_dir predictions are read only under this folder "
    "(default: 'workspaces/' beside the predictions file, where the agent solver leaves its workspaces).")]


ModelOpt = Annotated[str, typer.Option(help="reference | stub | fake | any litellm name (e.g. openai/gpt-4o).")]
SolverOpt = Annotated[SolverName, typer.Option(help="prompt: one request per implementation; agent: tool loop.")]


SamplesOpt = Annotated[int, typer.Option(min=1, help="Samples per implementation (for pass@k).")]
ConcOpt = Annotated[int, typer.Option(min=1, help="Requests (or agent episodes) in flight.")]
TempOpt = Annotated[float, typer.Option(min=0.0, max=2.0, help="Sampling temperature.")]
MaxTokOpt = Annotated[int, typer.Option(min=1, help="Most tokens in one answer.")]
SeedOpt = Annotated[int | None, typer.Option(help="Seed, where the provider supports it.")]
ApiBaseOpt = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL (vLLM, Ollama, llama.cpp).")]
FakeOpt = Annotated[Path | None, typer.Option(exists=True, dir_okay=False, help="JSONL script for --model fake.")]
StepsOpt = Annotated[int | None, typer.Option(min=1, help="Agent budget: steps (model calls); default: each "
                                              "task's budget (its split's: lite/main 30, upstream 50).")]
TotalTokOpt = Annotated[int | None, typer.Option(min=1, help="Agent budget: input + output tokens over an episode; "
                                                 "default: each task's budget (lite/main 400k, upstream 1.25M).")]
WallOpt = Annotated[float | None, typer.Option(min=1.0, help="Agent budget: wall seconds of an episode; default: "
                                               "each task's budget (lite/main 1800, upstream 2700).")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")]
RetriesOpt = Annotated[int, typer.Option("--max-retries", min=0, help="Retries of a failed request (429, timeout, "
                                         "connection, 5xx), with backoff; then the item is model_error.")]
PaperOpt = Annotated[PaperMode, typer.Option(
    help="full: the paper's text; withheld: only its title (an ablation: does the model need the paper?).")]


EnvOpt = Annotated[EnvMode, typer.Option("--env", help="task: original-layout tasks run in their own cached "
                                         "environment (built when missing); shared: in the harness's.")]
CacheOpt = Annotated[Path | None, typer.Option("--cache", help="Cache folder; default $LMRBENCH_CACHE or "
                                               "~/.cache/lmrbench.")]


LabelsOpt = Annotated[Path | None, typer.Option(exists=True, dir_okay=False, help="Human labels (JSONL).")]


FindLinksOpt = Annotated[Path | None, typer.Option("--find-links", exists=True, file_okay=False, help="Take the "
                        "pinned files from this local folder instead of the package index (no network).")]



def fail(message: str, code: int = 2, cause: BaseException | None = None) -> NoReturn:
    """Print an error and exit (2: bad input or an environment that cannot do what was asked)."""
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(code) from cause


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


def fetched(ts: TaskSet) -> TaskSet:
    """The upstream tasks of a selection fetched, verified and masked (cached); a failure is a clear error."""
    try:
        for task in ts.tasks:
            if task.upstream is not None:
                ensure_task(task)
    except (UpstreamError, OSError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc
    return ts


def load_selected(path: Path | None, quiet: bool = False, select: list[str] | None = None, split: str | None = "every",
          since: str | None = None) -> TaskSet:
    """The task folder, restricted to the selection; a bad folder or an empty selection is a clear error."""
    split = _resolve_split(split, select, new_work=True)
    try:
        tasks = load_tasks(path)
        day = dt.date.fromisoformat(since) if since else None
        if _must_restrict(tasks, select, split, day):
            tasks = fetched(tasks.restrict(select, split, day))
    except (TaskFormatError, FileNotFoundError, ValueError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    if tasks.problems and not quiet:
        errors = [p for p in tasks.problems if p.severity == "error"]
        named = "; ".join(f"{p.task}: {p.kind}" for p in errors[:3]) + (", ..." if len(errors) > 3 else "")
        err.print(f"[yellow]{len(tasks.problems)} problem(s) while loading{f' ({named})' if named else ''}; "
                  "see `lmrbench tasks lint`[/yellow]", highlight=False)
    return tasks


def select_tasks(ts: TaskSet, select: list[str] | None, split: str | None, since: str | None,
            new_work: bool = True) -> TaskSet:
    """The implementations a command works on; an empty selection is a clear error."""
    split = _resolve_split(split, select, new_work)
    try:
        day = dt.date.fromisoformat(since) if since else None
        chosen = ts.restrict(select, split, day) if _must_restrict(ts, select, split, day) else ts
    except ValueError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    return fetched(chosen)


def status_style(status: Status) -> str:
    return {Status.PASSED: "green", Status.FAILED: "red", Status.TIMEOUT: "yellow"}.get(status, "magenta")


def emit_json(data: object) -> None:
    sys.stdout.write(strict_json.dumps(data) + "\n")


def env_line(rec: EnvRecord) -> str:
    state = "[green]ready[/green]" if rec.status is EnvStatus.READY else "[yellow]partial[/yellow]"
    how = "cached" if rec.reused else f"built in {rec.seconds:.0f} s"
    failed = "; could not install: " + ", ".join(f.requirement for f in rec.failed) if rec.failed else ""
    subs = "; substituted to fit the harness: " + ", ".join(s.line() for s in rec.substituted) \
        if rec.substituted else ""
    return f"{rec.task_id}: {state} ({how}, {len(rec.installed)} installed){failed}{subs}"



def attach_task_envs(ts: TaskSet, select: list[str] | None, mode: EnvMode, cache: Path | None = None) -> None:
    """Attach (building when missing) the environments of the selected tasks (all when None), with a progress bar."""
    with Progress(TextColumn("environments"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        job = bar.add_task("", total=None)

        def tick(rec: EnvRecord) -> None:
            bar.update(job, advance=1, description=rec.task_id)
            if rec.failed or rec.substituted:
                err.print(env_line(rec), highlight=False)

        try:
            attach_environments(ts, select, mode, Hooks(on_environment=tick, env_cache=cache))
        except EnvBuildError as exc:
            fail(str(exc), cause=exc)


def check_keys(models: list[str], api_base: str | None) -> None:
    """Stop before any work (and any request) when a provider's key is missing, naming the variable."""
    try:
        check_credentials(models, ModelSettings(api_base=api_base))
    except MissingCredentials as exc:
        fail(str(exc), cause=exc)


def require_isolation(config: SandboxConfig) -> None:
    """Stop before any work when --isolation full cannot be had here (evaluation and the agent alike)."""
    try:
        check_isolation(config)
    except (IsolationError, RuntimeError) as exc:
        fail(str(exc), cause=exc)


# --- option groups: each declares its options once; every command that takes the group gets them all ---


def with_options(*groups: Callable[..., object]) -> Callable[[F], F]:
    """A command whose first parameters are the values of option groups: each group is a function whose signature
    declares its options once and whose result the command receives (in order); the command's own options follow."""

    def decorate(fn: F) -> F:
        own = list(inspect.signature(fn, eval_str=True).parameters.values())[len(groups):]
        parts = [(g, list(inspect.signature(g, eval_str=True).parameters.values())) for g in groups]

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            built = [g(**{p.name: kwargs.pop(p.name) for p in params}) for g, params in parts]
            return fn(*built, **kwargs)

        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own + [q for _, ps in parts for q in ps]]
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command  # type: ignore[return-value]

    return decorate


@dataclass
class Selection:
    """Which tasks a command works on: the task folder, -t patterns, --split and --since, as given."""

    tasks: Path | None
    select: list[str] | None
    split: str | None
    since: str | None

    def unpack(self) -> tuple[Path | None, list[str] | None, str | None, str | None]:
        return self.tasks, self.select, self.split, self.since


def selection_options(tasks: TasksOpt = None, select: SelectOpt = None, split: SplitOpt = DEFAULT_SPLIT,
                      since: SinceOpt = None) -> Selection:
    return Selection(tasks, select, split, since)


def sandbox_options(isolation: IsolationOpt = "best", hf_cache: HfCacheOpt = None, gpus: GpusOpt = False,
                    kernels: KernelsOpt = "pinned") -> SandboxConfig:
    """The one SandboxConfig of a command: its evaluations and the agent solver's commands run in it."""
    return SandboxConfig(isolation=isolation, hf_cache=hf_cache, gpus=gpus, kernels=kernels)


def executor_options(executor: ExecutorOpt = "local", ray_address: RayAddressOpt = None) -> ExecutorConfig:
    return ExecutorConfig(kind=executor, ray_address=ray_address)


@dataclass
class GenChoices:
    """How predictions are made, all but the model (whose option is each command's own)."""

    solver: SolverName
    samples: int
    concurrency: int
    settings: ModelSettings
    fake_script: Path | None
    budget: BudgetOverride
    no_cache: bool
    paper: PaperMode

    def options(self, model: str) -> GenOptions:
        return GenOptions(model=model, solver=self.solver, samples=self.samples, concurrency=self.concurrency,
                          settings=self.settings, fake_script=self.fake_script,
                          limits=AgentLimits(**self.budget.model_dump()), no_cache=self.no_cache, paper=self.paper)


def generation_options(solver: SolverOpt = "prompt", samples: SamplesOpt = 1, concurrency: ConcOpt = 4,
                       temperature: TempOpt = 0.0, max_tokens: MaxTokOpt = 4096, seed: SeedOpt = None,
                       api_base: ApiBaseOpt = None, fake_script: FakeOpt = None, max_steps: StepsOpt = None,
                       max_total_tokens: TotalTokOpt = None, max_wall_s: WallOpt = None,
                       no_cache: NoCacheOpt = False, paper: PaperOpt = "full", max_retries: RetriesOpt = 5,
                       ) -> GenChoices:
    settings = ModelSettings(temperature=temperature, max_tokens=max_tokens, seed=seed, api_base=api_base,
                             max_retries=max_retries)
    budget = BudgetOverride(max_steps=max_steps, max_tokens=max_total_tokens, max_wall_s=max_wall_s)
    return GenChoices(solver, samples, concurrency, settings, fake_script, budget, no_cache, paper)
