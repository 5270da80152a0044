"""Prove that tasks discriminate: reference passes N/N, stub fails, wrong variants fail, mutants are killed."""

from __future__ import annotations

import contextlib
import os
import random
import statistics
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from lmrbench.authoring.mutants import mutants
from lmrbench.evaluate.runner import EvalConfig, evaluate_one
from lmrbench.evaluate.warm import evaluate_warm_many
from lmrbench.records import Evaluation, Prediction, Status
from lmrbench.sandbox.base import SandboxConfig
from lmrbench.sandbox.pool import SandboxPool
from lmrbench.solvers.builtin import code_prediction, edited_prediction, reference_prediction, stub_prediction
from lmrbench.tasks.schema import Implementation, Layout, Task, TaskFormatError
from lmrbench.tasks.source import SourceError, extract
from lmrbench.tasks.upstream import apply_edits, load_variant


class ValidateConfig(BaseModel):
    """What `lmrbench validate` runs."""

    repeat: int = Field(default=3, ge=1, description="How many times the reference runs; every run must pass.")
    wrong: bool = Field(default=True, description="Run the hand-written wrong variants (each must fail).")
    mutants: bool = Field(default=False, description="Run mechanical mutants of the reference.")
    max_mutants: int | None = Field(default=None, ge=1, description="Sample at most this many per implementation.")
    workers: int = Field(default=1, ge=1, description="Evaluations (or warm batches) in parallel.")
    warm: bool = Field(
        default=True,
        description="Run the jobs of a task in warm batches: one sandbox and one interpreter per batch, a forked "
        "child per job (evaluate/warm.py). Only our own code runs here, so sharing a sandbox is safe; 'False' "
        "gives every job its own cold sandbox, as model predictions get.",
    )
    batch_size: int = Field(default=512, ge=1, description="At most this many jobs per warm batch (jobs of "
                            "several tasks share a batch: one interpreter start and one torch import per batch).")
    stop_early: bool = Field(
        default=True,
        description="In warm batches, stop a stub, wrong variant or mutant at its first probe case that differs "
        "from the reference's (it has failed then); the reference always runs every case.",
    )


class Survivor(BaseModel):
    mutant_id: str
    description: str


class ImplementationValidation(BaseModel):
    """Validation of one implementation."""

    instance_id: str
    reference_passed: int
    reference_runs: int
    reference_reasons: list[str] = Field(default_factory=list)
    stub_status: Status
    wrong_caught: int = 0
    wrong_total: int = 0
    wrong_survivors: list[str] = Field(default_factory=list)
    wrong_reasons: dict[str, str] = Field(
        default_factory=dict, description="Why each caught wrong variant failed (its first failing case, or its "
        "status): a variant must fail on the cases aimed at its mistake, not through a crash.")
    mutants_killed: int = 0
    mutants_total: int = 0
    mutant_survivors: list[Survivor] = Field(default_factory=list)
    mutants_equivalent: list[str] = Field(
        default_factory=list, description="Surviving mutants the author declared equivalent, with a reason "
        "(Task.equivalent_mutants_file): left out of the kill rate's denominator, counted apart.")
    equivalent_killed: list[str] = Field(
        default_factory=list, description="Mutants declared equivalent that a test told apart: the declaration is "
        "wrong, and the validation fails until it is removed.")
    harness_errors: dict[str, str] = Field(
        default_factory=dict, description="Expected-failing jobs (stub, wrong variants, mutants) whose evaluation "
        "itself failed (status 'error': the sandbox or server ended, the environment lacks a module, the task's "
        "expected outputs are unusable), label -> reason. Such a job proves nothing: it is neither caught nor "
        "killed, and the validation fails until a re-run gives it a verdict.")
    tests: int = 0
    seconds: float = Field(default=0.0, description="Median wall time of one reference evaluation (in a warm "
                           "batch: the forked pytest run only, without interpreter start and library imports).")

    @property
    def ok(self) -> bool:
        return (
            self.reference_passed == self.reference_runs
            and self.stub_status not in (Status.PASSED, Status.ERROR)
            and self.wrong_caught == self.wrong_total
            and not self.equivalent_killed
            and not self.harness_errors
        )

    @property
    def mutants_errored(self) -> int:
        return sum(1 for label in self.harness_errors if label.startswith("mutant "))

    @property
    def kill_rate(self) -> float | None:
        """Killed over the mutants run, less those declared (and still surviving as) equivalent and those without a
        verdict (harness errors)."""
        counted = self.mutants_total - len(self.mutants_equivalent) - self.mutants_errored
        return self.mutants_killed / counted if counted > 0 else None


@dataclass
class _Job:
    impl: Implementation
    task: Task
    kind: str  # reference | stub | wrong | mutant
    pred: Prediction
    label: str
    timeout: int | None = None
    result: Evaluation | None = field(default=None)


def _mutant_predictions(task: Task, impl: Implementation, limit: int | None) -> list[tuple[Prediction, str, str]]:
    goldens = {}
    for rel, names in impl.target_map().items():
        path = impl.golden_path(rel)
        assert path is not None
        text = path.read_text(encoding="utf-8")
        goldens[rel] = {t: extract(text, t) for t in names}
    several = len(goldens) > 1
    out = []
    for rel, defs in goldens.items():
        for target, definition in defs.items():
            prefix = f"{rel}::{target}:" if several else f"{target}:"
            for m in mutants(definition, prefix=prefix):
                functions = {f: dict(d) for f, d in goldens.items()}
                functions[rel][target] = m.source
                pred = Prediction(instance_id=impl.instance_id, model=f"mutant:{m.mutant_id}", functions=functions)
                out.append((pred, m.mutant_id, m.description))
    if limit is not None and len(out) > limit:
        out = sorted(random.Random(impl.instance_id).sample(out, limit), key=lambda x: x[1])
    return out


def _wrong_jobs(task: Task, impl: Implementation) -> list[_Job]:
    """The hand-written wrong variants: code snippets (`*.py`), or declared edits of the release (`*.json`,
    upstream split), applied to the golden after the fetch."""
    jobs = []
    if task.upstream is not None:
        assert impl.golden_dir is not None
        for path in sorted(task.wrong_dir(impl.index).glob("*.json")):
            try:
                edited = apply_edits(load_variant(path), impl.golden_dir, str(path))
                pred = edited_prediction(impl, f"wrong:{path.stem}", edited)
            except SourceError as exc:
                raise SourceError(f"{path}: {exc}") from exc
            jobs.append(_Job(impl, task, "wrong", pred, path.stem))
        return jobs
    assert impl.golden_file is not None
    golden = impl.golden_file.read_text(encoding="utf-8")
    for path in sorted(task.wrong_dir(impl.index).glob("*.py")):
        try:
            pred = code_prediction(impl, f"wrong:{path.stem}", path.read_text(encoding="utf-8"), fallback=golden)
        except SourceError as exc:
            raise SourceError(f"{path}: {exc}") from exc
        jobs.append(_Job(impl, task, "wrong", pred, path.stem))
    return jobs


def _jobs_first_phase(task: Task, impl: Implementation, cfg: ValidateConfig) -> list[_Job]:
    jobs = [_Job(impl, task, "reference", reference_prediction(task, impl, sample=r), f"reference#{r + 1}")
            for r in range(cfg.repeat)]
    jobs.append(_Job(impl, task, "stub", stub_prediction(task, impl), "stub"))
    if cfg.wrong:
        jobs += _wrong_jobs(task, impl)
    return jobs


def _warm(job: _Job, cfg: ValidateConfig) -> bool:
    return cfg.warm and job.task.layout is Layout.LMRBENCH


def _footprint(task: Task) -> tuple[int, int]:
    """Files (folders and links included) and bytes of one job's workspace: a copy of the task's masked
    repository (evaluate/apply.py `make_workspace`)."""
    files, size = 1, 0
    for root, dirs, names in os.walk(task.repo_dir):
        files += len(dirs) + len(names)
        for name in names:
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(root, name)).st_size
    return files, size


def jobs_per_batch(tasks: list[Task], limits: SandboxConfig) -> int:
    """How many jobs of these tasks one warm batch may hold: every job's workspace copy lives in the batch's one
    sandbox, whose workspace caps (files and bytes) stop the whole batch when exceeded, so the copies may take at
    most half of each cap; the rest is for what the jobs write. A release as large as transformers (about 3,500
    files) gets 14 jobs a batch; a small task, hundreds."""
    footprints = [_footprint(t) for t in tasks]  # one walk of each repository
    files = max(f for f, _ in footprints)
    size = max(b for _, b in footprints)
    by_files = limits.workspace_inodes // 2 // max(files, 1)
    by_bytes = limits.workspace_mb * 1024 * 1024 // 2 // max(size, 1)
    return max(1, min(by_files, by_bytes))


def _batches(jobs: list[_Job], cfg: ValidateConfig, limits: SandboxConfig) -> list[list[_Job]]:
    """Warm batches (our layout; tasks mixed, at most `batch_size` jobs and what the sandbox's workspace caps
    allow, at least one batch per worker); original-layout jobs, or all with warm=False, run alone."""
    singles = [[job] for job in jobs if not _warm(job, cfg)]
    groups: dict[str | None, list[_Job]] = {}  # one interpreter per batch: tasks with their own environment apart
    for job in (j for j in jobs if _warm(j, cfg)):
        groups.setdefault(job.task.env.key if job.task.env else None, []).append(job)
    out = []
    for warm in groups.values():
        size = min(cfg.batch_size, jobs_per_batch(list({id(j.task): j.task for j in warm}.values()), limits))
        count = max(min(cfg.workers, len(warm)), -(-len(warm) // size))
        out += [warm[i::count] for i in range(count)]
    return out + singles


def _run(jobs: list[_Job], cfg: ValidateConfig, ecfg: EvalConfig, tick: Callable[[str], None] | None) -> None:
    sandbox = SandboxPool(ecfg.sandbox, "cold").cold
    with tempfile.TemporaryDirectory(prefix="lmrbench-validate-") as tmp:
        work, logs = Path(tmp) / "work", Path(tmp) / "logs"

        def one(batch: list[_Job]) -> list[_Job]:
            if not _warm(batch[0], cfg):
                job = batch[0]
                conf = ecfg if job.timeout is None else ecfg.model_copy(update={"timeout_s": job.timeout})
                job.result = evaluate_one(job.task, job.impl, job.pred, work, logs, conf, sandbox)
                return batch
            results = evaluate_warm_many([(j.task, j.impl, j.pred) for j in batch], work, logs, ecfg, sandbox,
                                         timeouts=[j.timeout for j in batch],
                                         stop_early=[cfg.stop_early and j.kind != "reference" for j in batch])
            for job, result in zip(batch, results, strict=True):
                job.result = result
            return batch

        with ThreadPoolExecutor(max_workers=cfg.workers) as pool:
            for fut in as_completed([pool.submit(one, b) for b in _batches(jobs, cfg, ecfg.sandbox)]):
                for job in fut.result():
                    if tick:
                        tick(f"{job.impl.instance_id} {job.label}: {job.result.status.value if job.result else '?'}")


def declared_equivalents(task: Task, impl: Implementation) -> dict[str, str]:
    """The mutants the author showed equivalent, id -> why (`wrong/<index>/equivalent_mutants.txt`, one
    `<mutant id> <reason>` per line; blank lines and `#` comments skipped). A line without a reason is an error."""
    path = task.equivalent_mutants_file(impl.index)
    if not path.is_file():
        return {}
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        mid, _, why = line.strip().partition(" ")
        if not why.strip():
            raise TaskFormatError(path, f"line {n}", "a mutant id, a space, and why that mutant is equivalent")
        out[mid] = why.strip()
    return out


def _summarise(impl: Implementation, jobs: list[_Job], equivalent: dict[str, str]) -> ImplementationValidation:
    mine = [j for j in jobs if j.impl is impl and j.result is not None]
    refs = [j for j in mine if j.kind == "reference"]
    stub = next(j for j in mine if j.kind == "stub")
    wrong = [j for j in mine if j.kind == "wrong"]
    muts = [j for j in mine if j.kind == "mutant"]
    passed = [j for j in refs if j.result and j.result.passed]
    errored = {_error_label(j): j.result.reason for j in [stub, *wrong, *muts]
               if j.result and j.result.status is Status.ERROR}  # (the stub's also shows as its status)

    def caught(j: _Job) -> bool:  # a verdict, and not a pass
        return j.result is not None and not j.result.passed and j.result.status is not Status.ERROR

    return ImplementationValidation(
        instance_id=impl.instance_id,
        reference_passed=len(passed),
        reference_runs=len(refs),
        reference_reasons=sorted({j.result.reason for j in refs if j.result and not j.result.passed}),
        stub_status=stub.result.status if stub.result else Status.ERROR,
        wrong_caught=sum(1 for j in wrong if caught(j)),
        wrong_total=len(wrong),
        wrong_survivors=[j.label for j in wrong if j.result and j.result.passed],
        wrong_reasons={j.label: j.result.reason or j.result.status.value for j in wrong
                       if j.result and caught(j)},
        mutants_killed=sum(1 for j in muts if caught(j)),
        mutants_total=len(muts),
        mutant_survivors=[Survivor(mutant_id=j.label, description=j.pred.meta.description)
                          for j in muts if j.result and j.result.passed and j.label not in equivalent],
        mutants_equivalent=[j.label for j in muts if j.result and j.result.passed and j.label in equivalent],
        equivalent_killed=[j.label for j in muts if caught(j) and j.label in equivalent],
        harness_errors=errored,
        tests=max((j.result.tests_total for j in refs if j.result), default=0),
        seconds=round(statistics.median([j.result.duration_s for j in refs if j.result]), 2) if refs else 0.0,
    )


def _error_label(job: _Job) -> str:
    return "stub" if job.kind == "stub" else f"{job.kind} {job.label}"


def _failing_limit(jobs: list[_Job], impl: Implementation, task: Task) -> int:
    """Time limit of an expected-failing job (stub, wrong variant, mutant): a few times the reference's own
    duration, at least `_MIN_FAILING_LIMIT_S`, at most the task's limit. Such a job fails by definition, so a
    shorter limit changes at most the reason it fails ("timeout" for one that never finishes), never whether."""
    ref_times = [j.result.duration_s for j in jobs if j.impl is impl and j.kind == "reference" and j.result]
    limit = int(max(_MIN_FAILING_LIMIT_S, 5 * max(ref_times, default=task.timeout_s)))
    return min(limit, task.timeout_s)


_MIN_FAILING_LIMIT_S = 4


def validate(
    impls: list[tuple[Task, Implementation]],
    cfg: ValidateConfig,
    ecfg: EvalConfig | None = None,
    tick: Callable[[str], None] | None = None,
) -> list[ImplementationValidation]:
    """Validate implementations. The references run first, then every expected-failing job (stub, wrong
    variants, mutants) with a time limit that follows the reference's duration (`_failing_limit`): a wrong
    variant that loops forever costs seconds, not the task's whole limit."""
    ecfg = ecfg or EvalConfig()
    # read once, before anything runs (a malformed declaration is named at once)
    equivalents = {id(impl): declared_equivalents(task, impl) if cfg.mutants else {} for task, impl in impls}
    jobs = [j for task, impl in impls for j in _jobs_first_phase(task, impl, cfg)]
    refs = [j for j in jobs if j.kind == "reference"]
    _run(refs, cfg, ecfg, tick)
    failing = [j for j in jobs if j.kind != "reference"]
    if cfg.mutants:
        for task, impl in impls:
            for pred, mid, desc in _mutant_predictions(task, impl, cfg.max_mutants):
                pred.meta.description = desc
                failing.append(_Job(impl, task, "mutant", pred, mid))
    limits = {id(impl): _failing_limit(refs, impl, task) for task, impl in impls}
    for job in failing:
        job.timeout = limits[id(job.impl)]
    _run(failing, cfg, ecfg, tick)
    return [_summarise(impl, refs + failing, equivalents[id(impl)]) for _, impl in impls]
