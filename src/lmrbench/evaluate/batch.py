"""Evaluate a predictions file into evaluations.jsonl: parallel, resumable, robust to bad lines."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from lmrbench.evaluate.executors import EvalItem, ExecutorConfig, make_executor
from lmrbench.evaluate.runner import EvalConfig, evaluation_key, task_hash
from lmrbench.jsonl import JsonlWriter, Record, read_lines, read_records
from lmrbench.records import Evaluation, EvaluationLine, ItemKey, Prediction, Status, read_instance_id
from lmrbench.rundir import RunDir, latest_records
from lmrbench.sandbox.pool import check_isolation
from lmrbench.tasks.loader import TaskSet

Progress = Callable[[Evaluation], None]


def _short(value: object, n: int = 200) -> str:
    """A field of a bad line, safe to record: valid UTF-8, at most `n` characters."""
    return str(value)[:n].encode("utf-8", errors="replace").decode("utf-8")


def _invalid(line_no: int, reason: str, raw: dict | None) -> Evaluation:
    raw = raw or {}
    iid = _short(raw.get("instance_id", f"<line {line_no}>"))
    task_id, index = read_instance_id(iid)
    sample = _short(raw.get("sample", 0), 12)
    key = hashlib.sha256(f"invalid|{line_no}|{_short(reason, 2000)}|{_short(raw, 10_000)}".encode()).hexdigest()
    return Evaluation(
        instance_id=iid, task_id=task_id, index=index,
        model=_short(raw.get("model", "?")), sample=int(sample) if sample.isdigit() else 0,
        key=key, status=Status.INVALID, reason=f"predictions line {line_no}: {_short(reason, 2000)}",
    )


def _parse(rec: Record, tasks: TaskSet) -> Prediction | Evaluation:
    """One line: a prediction, or the INVALID evaluation that says why not."""
    if rec.obj is None:
        return _invalid(rec.line_no, rec.error or "not a JSON object", None)
    try:
        pred = Prediction.model_validate(rec.obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "<line>"
        return _invalid(rec.line_no, f"field '{loc}': {first['msg']}", rec.obj)
    try:
        tasks.resolve(pred.instance_id)
    except KeyError as exc:
        return _invalid(rec.line_no, f"unknown instance: {exc.args[0]}", rec.obj)
    return pred


def load_predictions(path: Path, tasks: TaskSet) -> tuple[list[Prediction], list[Evaluation]]:
    """Valid predictions, and an INVALID evaluation for each line that doesn't parse or names no task."""
    preds: dict[ItemKey, Prediction] = {}
    invalid = []
    for rec in read_records(path):
        try:
            item = _parse(rec, tasks)
        except Exception as exc:
            item = _invalid(rec.line_no, f"cannot read this line: {type(exc).__name__}: {exc}", None)
        if isinstance(item, Evaluation):
            invalid.append(item)
        else:
            preds[item.item_key] = item  # a later line for the same item wins
    return list(preds.values()), invalid


def done_keys(path: Path) -> set[str]:
    """The keys of the finished records in an evaluations file (a line that is not one is not finished)."""
    done = set()
    for _, obj, _ in read_lines(path):
        try:
            done.add(EvaluationLine.model_validate(obj).key)
        except ValidationError:
            continue
    return done


def evaluate_predictions(
    preds: list[Prediction],
    tasks: TaskSet,
    run: RunDir | Path,
    work_dir: Path | None = None,
    log_dir: Path | None = None,
    config: EvalConfig | None = None,
    workers: int = 1,
    on_result: Progress | None = None,
    extra: list[Evaluation] | None = None,
    executor_config: ExecutorConfig | None = None,
) -> list[Evaluation]:
    """Evaluate what is not yet in the run's evaluations file (keyed by content hash) and append the results.
    `run` is the run folder; given as the path of an evaluations file instead, the run folder is that file's
    folder, and `work_dir` and `log_dir` place the scratch and log folders. `workers` is used when no
    `executor_config` is given (local threads)."""
    if not isinstance(run, RunDir):
        run = RunDir.for_evaluations(run, work_dir, log_dir)
    out = run.evaluations
    config = config or EvalConfig()
    check_isolation(config.sandbox)  # raises IsolationError before any work when 'full' cannot be had
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
    todo: list[EvalItem] = []
    for pred in preds:
        try:
            task, impl = tasks.resolve(pred.instance_id)
        except KeyError as exc:
            ev = _invalid(0, f"unknown instance: {exc.args[0]}", pred.model_dump(include={"instance_id", "model"}))
            if ev.key not in finished:
                finished.add(ev.key)
                writer.write(ev)
                results.append(ev)
            continue
        key = evaluation_key(digests[task.task_id], pred, config)
        if key not in finished:
            finished.add(key)
            todo.append(EvalItem(task, impl, pred, key))

    executor = make_executor(executor_config or ExecutorConfig(workers=workers), config, run.work, run.logs)
    budgets = {item.key: item.pred.meta.budget for item in todo}  # carried on from the prediction
    for ev in executor.run(todo):  # paths inside the run folder are stored relative: the folder can be moved
        ev = ev.model_copy(update={"log_path": run.relative(ev.log_path),
                                   "outputs_path": run.relative(ev.outputs_path),
                                   "candidate_path": run.relative(ev.candidate_path),
                                   "budget": budgets.get(ev.key)})
        writer.write(ev)
        results.append(ev)
        if on_result:
            on_result(ev)
    return results


def latest_evaluations(path: Path) -> list[Evaluation]:
    """Every evaluation in a file; for a repeated (instance, model, sample) the last one wins."""
    return latest_records(path, Evaluation, lambda ev: ev.item_key)
