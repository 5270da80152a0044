"""Warm batches: many trusted evaluations of one task in one sandbox, one interpreter start.

Validation runs the reference, the stub, every wrong variant and every mutant of an implementation: hundreds of
runs whose cost is dominated by importing torch. Here a fork server (warm_server.py) imports the heavy
libraries once per batch and forks a child per job. Each job is prepared, run and graded by the same core as a
cold evaluation (`runner.prepare`, `runner.command`, `runner.finish`); only the process that runs the command
line differs.

Only for code we wrote (reference, stub, wrong variants, mechanical mutants of the reference): every job of a
batch shares one sandbox, so one job could tamper with another. Model predictions always go through
`evaluate_one`, one sandbox each.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from lmrbench.evaluate.graders import grader_for
from lmrbench.evaluate.grading import load_expected
from lmrbench.evaluate.item import Prepared, RunResult
from lmrbench.evaluate.probes import ProbeData, compare_case, parse_probe_output, read_capped
from lmrbench.evaluate.runner import EvalConfig, command, evaluation_key, finish, prepare, task_hash
from lmrbench.records import Evaluation, Prediction, Status, Verdict
from lmrbench.rundir import eval_item_name
from lmrbench.sandbox import Sandbox
from lmrbench.sandbox.base import Isolation
from lmrbench.sandbox.pool import SandboxPool, warm_preload
from lmrbench.sandbox.scripts import script
from lmrbench.tasks.schema import Implementation, Layout, Task

SERVER = script("warm_server.py")


def preload_for(tasks: list[Task]) -> list[str]:
    """What a warm batch of these tasks imports once: the preloadable libraries their requirements declare (no
    torch for a batch of tasks that do not use it; a torch import is ~2.5 s of CPU)."""
    declared = [m for task in tasks if task.upstream is not None for m in task.upstream.preload]
    return warm_preload((r for task in tasks for r in task.requirements), declared)


def evaluate_warm(
    task: Task,
    items: list[tuple[Implementation, Prediction]],
    work_dir: Path,
    log_dir: Path,
    config: EvalConfig | None = None,
    sandbox: Sandbox | None = None,
    timeouts: list[int | None] | None = None,
    stop_early: list[bool] | None = None,
) -> list[Evaluation]:
    """Evaluate trusted predictions of one task in one warm sandbox; see `evaluate_warm_many`."""
    return evaluate_warm_many([(task, impl, pred) for impl, pred in items], work_dir, log_dir, config, sandbox,
                              timeouts, stop_early)


def evaluate_warm_many(
    items: list[tuple[Task, Implementation, Prediction]],
    work_dir: Path,
    log_dir: Path,
    config: EvalConfig | None = None,
    sandbox: Sandbox | None = None,
    timeouts: list[int | None] | None = None,
    stop_early: list[bool] | None = None,
) -> list[Evaluation]:
    """Evaluate trusted predictions (of one task or several, our layout) in one warm sandbox; results in input
    order.

    A job marked in `stop_early` (one expected to fail: a stub, a wrong variant, a mutant) is stopped at its first
    probe case that differs from the reference's; its verdict is the same (one differing case fails it), it
    just does not run the rest."""
    for task in {id(t): t for t, _, _ in items}.values():
        if task.layout is not Layout.LMRBENCH:
            raise ValueError(f"{task.task_id}: warm batches need the lmrbench task layout")
    envs = {t.env.key if t.env else None for t, _, _ in items}
    if len(envs) > 1:
        raise ValueError(f"a warm batch runs one interpreter: its tasks' environments differ ({sorted(map(str, envs))})"
                         )
    config = config or EvalConfig()
    sandbox = sandbox or SandboxPool(config.sandbox, "cold").cold  # trusted code: one cold sandbox per batch
    digests: dict[str, str] = {}
    first = items[0][0].task_id if items else "empty"
    batch = work_dir.resolve() / f"{first}__warm__{uuid.uuid4().hex[:10]}"
    (batch / "_server").mkdir(parents=True)
    shutil.copyfile(SERVER, batch / "_server" / "warm_server.py")
    start = time.monotonic()
    prepared: list[Prepared] = []
    try:
        for n, (task, impl, pred) in enumerate(items):
            if task.task_id not in digests:  # (setdefault would hash the whole task folder for every job)
                digests[task.task_id] = task_hash(task)
            digest = digests[task.task_id]
            key = evaluation_key(digest, pred, config)
            name = eval_item_name(task.task_id, impl.index, pred.model, pred.sample, key)
            conf = config if not timeouts or timeouts[n] is None else config.model_copy(
                update={"timeout_s": timeouts[n]})
            prepared.append(prepare(task, impl, pred, batch / f"j{n}", log_dir.resolve() / f"{name}.log", key, conf))
        stops = [bool(stop_early and stop_early[n]) for n in range(len(prepared))]
        preload = preload_for([t for t, _, _ in items])
        rows, res_isolation, server_log = _serve(prepared, batch, log_dir.resolve(), sandbox, stops, preload)
        return [_finish(p, rows.get(n), res_isolation, server_log, start) for n, p in enumerate(prepared)]
    finally:
        if not config.keep_workspaces:
            shutil.rmtree(batch, ignore_errors=True)


def _finish(p: Prepared, row: dict[str, Any] | None, isolation: Isolation | None, server_log: Path,
            start: float) -> Evaluation:
    if p.invalid:
        return finish(p, None, start)
    p.log.parent.mkdir(parents=True, exist_ok=True)
    job_log = p.item_dir / "job.log"
    p.log.write_bytes(read_capped(job_log) or b"")
    if row is None:  # the server itself died or ran out of time before this job
        return Evaluation.of(p.item, Verdict(status=Status.ERROR, reason=f"warm server ended early; see {server_log}"),
                             isolation=isolation, run_path="warm")
    result = RunResult(row["exit_code"], row["timed_out"], row["duration_s"], isolation, "warm")
    ev = finish(p, result, time.monotonic() - row["duration_s"])
    if row.get("stopped"):
        ev = ev.model_copy(update={"reason": f"{ev.reason}; stopped at its first failing case (validation)"})
    return ev


class _FirstFailure(threading.Thread):
    """Watches the probe data of expected-failing jobs from outside the sandbox and creates a job's stop file at
    its first case that differs from the reference's (the comparison grading uses), or at an import error."""

    def __init__(self, jobs: list[tuple[Prepared, Path]]) -> None:
        super().__init__(daemon=True)
        self.jobs = jobs
        self.done = threading.Event()

    def _differs(self, outputs: Path, want: ProbeData, offset: int) -> tuple[bool, int]:
        """Whether the lines written since `offset` hold a differing case; the offset of the next unread line."""
        data = read_capped(outputs) or b""
        end = data.rfind(b"\n") + 1  # whole lines only: the last may be unfinished
        if end <= offset:
            return False, offset
        got = parse_probe_output(data[offset:end])
        if got.problem or got.import_errors:
            return True, end
        return any(name not in want.cases or compare_case(case, want.cases[name])
                   for name, case in got.cases.items()), end

    def run(self) -> None:
        # The server runs its jobs one at a time, in order: only the first pending job can be running, and it has
        # ended once a later job's output appears. So each tick looks at two files, whatever the batch size.
        pending = [(p.out / "outputs.jsonl", stop, load_expected(p.task, p.impl.unit_test_file))
                   for p, stop in self.jobs]
        pending = [(out, stop, want) for out, stop, want in pending if not want.problem]
        size, offset = -1, 0
        while pending and not self.done.wait(0.01):
            out, stop, want = pending[0]
            if len(pending) > 1 and _size(pending[1][0]) >= 0:
                pending.pop(0)  # a later job started: this one is over
                size, offset = -1, 0
                continue
            now = _size(out)
            if now == size or now < 0:
                continue
            size = now
            differs, offset = self._differs(out, want, offset)
            if differs:
                _touch(stop)
                pending.pop(0)
                size, offset = -1, 0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _touch(path: Path) -> None:
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))


def _serve(prepared: list[Prepared], batch: Path, log_dir: Path, sandbox: Sandbox,
           stops: list[bool], preload: list[str]) -> tuple[dict[int, dict[str, Any]], Isolation | None, Path]:
    jobs: list[dict[str, Any]] = []
    watched: list[tuple[Prepared, Path]] = []
    (batch / "_stop").mkdir()
    for n, p in enumerate(prepared):
        if p.invalid:
            continue
        cmd = command(p)
        job = {"id": n, "cwd": str(p.ws), "log": str(p.item_dir / "job.log"), "timeout": p.timeout,
               "argv": cmd.argv, "env": cmd.env}
        if stops[n] and grader_for(p.grading).watchable:
            job["stop_file"] = str(batch / "_stop" / f"j{n}")
            watched.append((p, batch / "_stop" / f"j{n}"))
        jobs.append(job)
    server_log = log_dir / f"{batch.name}.log"
    if not jobs:
        return {}, None, server_log
    (batch / "jobs.json").write_text(json.dumps(jobs))
    results_file = batch / "results.jsonl"
    total = sum(int(j["timeout"]) for j in jobs) + 60
    watcher = _FirstFailure(watched)
    watcher.start()
    try:
        env = prepared[0].task.env  # one per batch (evaluate_warm_many); the upstream split's tasks may have one
        python, readonly = (str(env.python), [env.root]) if env is not None else (sys.executable, [])
        res = sandbox.exec([python, "-P", str(batch / "_server" / "warm_server.py"), str(batch / "jobs.json"),
                            str(results_file), ",".join(preload)], batch, total, server_log, readonly=readonly)
    finally:
        watcher.done.set()
        watcher.join()
    rows: dict[int, dict[str, Any]] = {}
    for line in (read_capped(results_file) or b"").decode(errors="replace").splitlines():
        try:
            row = json.loads(line)
            rows[int(row["id"])] = row
        except (ValueError, KeyError, TypeError):
            break
    return rows, res.isolation, server_log
