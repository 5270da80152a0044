"""Warm batches: many trusted evaluations of one task in one sandbox, one interpreter start.

Validation runs the reference, the stub, every wrong variant and every mutant of an implementation: hundreds of
pytest runs whose cost is dominated by importing torch. Here a fork server (warm_server.py) imports the heavy
libraries once per batch and forks a child per job; each child gets its own fresh workspace, hidden tests,
nonce and log, and is graded exactly like a cold evaluation.

Only for code we wrote (reference, stub, wrong variants, mechanical mutants of the reference): every job of a
batch shares one sandbox, so one job could tamper with another. Model predictions always go through
`evaluate_one`, one sandbox each.
"""

from __future__ import annotations

import json
import secrets
import shutil
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from lmrbench.evaluate.apply import InvalidPrediction
from lmrbench.evaluate.models import Evaluation, Prediction, Status
from lmrbench.evaluate.runner import (
    HIDDEN,
    EvalConfig,
    evaluation_key,
    grade_workspace,
    hidden_test_path,
    install_hidden_tests,
    note_tampered,
    prepare_workspace,
    result_env,
    task_hash,
    workspace_name,
)
from lmrbench.sandbox import LocalSandbox, Sandbox
from lmrbench.tasks.schema import Implementation, Layout, Task

SERVER = Path(__file__).with_name("warm_server.py")
PLUGIN = Path(__file__).with_name("pytest_results_plugin.py")
PRELOAD = ("numpy", "scipy", "torch", "pandas")


def _job(task: Task, impl: Implementation, ws: Path, log: Path, timeout: int, job_id: int) -> dict:
    hidden = ws / HIDDEN
    return {
        "id": job_id, "cwd": str(ws), "log": str(log), "timeout": timeout,
        "ini": str(hidden / "pytest.ini"), "confcutdir": str(hidden), "test": str(hidden_test_path(task, impl)),
        "env": {"HOME": str(ws / ".home"), "TMPDIR": str(ws / ".tmp"), **result_env(ws)},
    }


def evaluate_warm(
    task: Task,
    items: list[tuple[Implementation, Prediction]],
    work_dir: Path,
    log_dir: Path,
    config: EvalConfig | None = None,
    sandbox: Sandbox | None = None,
    timeouts: list[int | None] | None = None,
) -> list[Evaluation]:
    """Evaluate trusted predictions of one task (our layout) in one warm sandbox; results in input order."""
    if task.layout is not Layout.LMRBENCH:
        raise ValueError(f"{task.task_id}: warm batches need the lmrbench task layout")
    config = config or EvalConfig()
    sandbox = sandbox or LocalSandbox(config.sandbox)
    work_dir, log_dir = work_dir.resolve(), log_dir.resolve()
    digest = task_hash(task)
    batch = work_dir / f"{task.task_id}__warm__{uuid.uuid4().hex[:10]}"
    server_dir = batch / "_server"
    server_dir.mkdir(parents=True)
    shutil.copyfile(SERVER, server_dir / "warm_server.py")
    shutil.copyfile(PLUGIN, server_dir / "pytest_results_plugin.py")
    out: list[Evaluation | None] = [None] * len(items)
    jobs, meta = [], {}
    try:
        for n, (impl, pred) in enumerate(items):
            key = evaluation_key(digest, pred)
            name = workspace_name(task, impl, pred, key)
            base: dict[str, Any] = dict(
                instance_id=impl.instance_id, task_id=task.task_id, index=impl.index, model=pred.model,
                sample=pred.sample, key=key, log_path=str(log_dir / f"{name}.log"))
            ws = batch / f"j{n}" / "repo"
            try:
                tampered = prepare_workspace(task, pred, ws)
            except InvalidPrediction as exc:
                out[n] = Evaluation(**base, status=Status.INVALID, reason=str(exc))
                continue
            nonce = secrets.token_hex(16)
            install_hidden_tests(task, ws, nonce)
            for sub in (".home", ".tmp"):
                (ws / sub).mkdir(exist_ok=True)
            timeout = (timeouts[n] if timeouts else None) or config.timeout_s or task.timeout_s
            jobs.append(_job(task, impl, ws, batch / f"j{n}" / "log.txt", timeout, n))
            meta[n] = (base, ws, nonce, tampered)
        if jobs:
            _serve(task, jobs, meta, out, batch, server_dir, log_dir, work_dir, config, sandbox)
    finally:
        if not config.keep_workspaces:
            shutil.rmtree(batch, ignore_errors=True)
    assert all(e is not None for e in out)  # every item ends as invalid, graded or "server ended early"
    return [e for e in out if e is not None]


def _serve(task: Task, jobs: list[dict], meta: dict, out: list[Evaluation | None], batch: Path, server_dir: Path,
           log_dir: Path, work_dir: Path, config: EvalConfig, sandbox: Sandbox) -> None:
    (batch / "jobs.json").write_text(json.dumps(jobs))
    results_file = batch / "results.jsonl"
    readonly = [server_dir] + [Path(j["confcutdir"]) for j in jobs]
    total = sum(j["timeout"] for j in jobs) + 60
    start = time.monotonic()
    res = sandbox.exec([sys.executable, "-P", str(server_dir / "warm_server.py"), str(batch / "jobs.json"),
                        str(results_file), ",".join(PRELOAD)], batch, total, log_dir / f"{batch.name}.log",
                       readonly=readonly)
    done = {}
    if results_file.is_file():
        for line in results_file.read_text().splitlines():
            row = json.loads(line)
            done[row["id"]] = row
    for job in jobs:
        base, ws, nonce, tampered = meta[job["id"]]
        log = Path(base["log_path"])
        log.parent.mkdir(parents=True, exist_ok=True)
        src = Path(job["log"])
        log.write_bytes(src.read_bytes() if src.is_file() else b"")
        row = done.get(job["id"])
        if row is None:  # the server itself died or ran out of time before this job
            out[job["id"]] = Evaluation(**base, status=Status.ERROR, isolation=res.isolation,
                                        reason=f"warm server ended early (exit {res.exit_code}); see "
                                               f"{log_dir / (batch.name + '.log')}",
                                        duration_s=round(time.monotonic() - start, 3))
            continue
        fields = note_tampered(grade_workspace(ws, nonce, row["exit_code"], row["timed_out"]), tampered)
        out[job["id"]] = Evaluation(**base, **fields, isolation=res.isolation, duration_s=row["duration_s"])
