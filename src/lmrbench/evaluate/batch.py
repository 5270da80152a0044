"""Evaluate a predictions file into evaluations.jsonl: parallel, resumable, robust to bad lines."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from pydantic import ValidationError

from lmrbench.evaluate.models import Evaluation, Prediction, Status
from lmrbench.evaluate.runner import EvalConfig, evaluate_one, evaluation_key, task_hash
from lmrbench.jsonl import JsonlWriter, read_lines
from lmrbench.sandbox import LocalSandbox
from lmrbench.tasks.loader import TaskSet

Progress = Callable[[Evaluation], None]


def _invalid(line_no: int, reason: str, raw: dict | None) -> Evaluation:
    raw = raw or {}
    iid = str(raw.get("instance_id", f"<line {line_no}>"))
    task_id, _, idx = iid.rpartition("/")
    key = hashlib.sha256(f"invalid|{line_no}|{reason}|{raw}".encode()).hexdigest()
    return Evaluation(
        instance_id=iid, task_id=task_id or iid, index=int(idx) if idx.isdigit() else 0,
        model=str(raw.get("model", "?")), sample=int(raw.get("sample", 0)) if str(raw.get("sample", 0)).isdigit()
        else 0, key=key, status=Status.INVALID, reason=f"predictions line {line_no}: {reason}",
    )


def load_predictions(path: Path, tasks: TaskSet) -> tuple[list[Prediction], list[Evaluation]]:
    """Valid predictions, and an INVALID evaluation for each line that doesn't parse or names no task."""
    preds: dict[tuple[str, str, int], Prediction] = {}
    invalid = []
    for n, obj, _ in read_lines(path):
        if obj is None:
            invalid.append(_invalid(n, "not a JSON object", None))
            continue
        try:
            pred = Prediction.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "<line>"
            invalid.append(_invalid(n, f"field '{loc}': {first['msg']}", obj))
            continue
        try:
            tasks.resolve(pred.instance_id)
        except KeyError as exc:
            invalid.append(_invalid(n, f"unknown instance: {exc.args[0]}", obj))
            continue
        preds[(pred.instance_id, pred.model, pred.sample)] = pred  # a later line for the same item wins
    return list(preds.values()), invalid


def done_keys(path: Path) -> set[str]:
    return {obj["key"] for _, obj, _ in read_lines(path) if obj and "key" in obj and "status" in obj}


def evaluate_predictions(
    preds: list[Prediction],
    tasks: TaskSet,
    out: Path,
    work_dir: Path,
    log_dir: Path,
    config: EvalConfig | None = None,
    workers: int = 1,
    on_result: Progress | None = None,
    extra: list[Evaluation] | None = None,
) -> list[Evaluation]:
    """Evaluate what is not yet in `out` (keyed by content hash) and append the results."""
    config = config or EvalConfig()
    sandbox = LocalSandbox(config.sandbox)
    writer = JsonlWriter(out)
    finished = done_keys(out)
    results: list[Evaluation] = []
    for ev in extra or []:
        if ev.key not in finished:
            writer.write(ev)
            finished.add(ev.key)
            results.append(ev)
    # a task's own environment is part of what decides a verdict: a rebuilt environment re-evaluates
    digests = {t.task_id: task_hash(t) + (t.env.key if t.env else "") for t in tasks.tasks}
    todo = []
    for pred in preds:
        task, impl = tasks.resolve(pred.instance_id)
        key = evaluation_key(digests[task.task_id], pred)
        if key not in finished:
            finished.add(key)
            todo.append((task, impl, pred, key))

    def one(item: tuple) -> Evaluation:
        task, impl, pred, key = item
        return evaluate_one(task, impl, pred, work_dir, log_dir, config, sandbox, key)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(one, item) for item in todo]
        for fut in as_completed(futures):
            ev = fut.result()
            writer.write(ev)
            results.append(ev)
            if on_result:
                on_result(ev)
    return results


def latest_evaluations(path: Path) -> list[Evaluation]:
    """Every evaluation in a file; for a repeated (instance, model, sample) the last one wins."""
    by_item: dict[tuple[str, str, int], Evaluation] = {}
    for _, obj, _ in read_lines(path):
        if obj is None:
            continue
        try:
            ev = Evaluation.model_validate(obj)
        except ValidationError:
            continue
        by_item[(ev.instance_id, ev.model, ev.sample)] = ev
    return list(by_item.values())
