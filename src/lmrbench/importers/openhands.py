"""Predictions from the original LMR-Bench's OpenHands runs (`output.jsonl`).

Each line is one trajectory of one task: its `history` holds (action, observation) pairs; file edits are `edit`
actions whose arguments (`command`, `path`, `old_str`, `new_str`, `file_text`, `insert_line`) are replayed, in
order, on a fresh copy of the task's repository. An edit whose observation is an error did not happen and is
skipped. The final repository becomes a diff prediction for every implementation of the task (one trajectory
covers them all); a trajectory that ended in an error becomes an `error` prediction.
"""

from __future__ import annotations

import difflib
import json
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, Field

from lmrbench.records import Prediction, PredictionMeta
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Task

WORKSPACE = PurePosixPath("/workspace/benchmark/datasets")


class ReplayStats(BaseModel):
    """What a replay did, kept in each prediction's meta."""

    applied: int = 0
    failed_in_run: int = Field(default=0, description="Edits the trajectory itself records as errors (skipped).")
    not_replayed: list[str] = Field(default_factory=list, description="Edits that succeeded in the run but do not "
                                    "apply here, with why.")
    outside_repo: int = Field(default=0, description="Edits of files outside the task's repository (ignored).")
    shell_commands: int = Field(default=0, description="Shell commands run; file changes they made are not seen.")


class ImportResult(BaseModel):
    predictions: list[Prediction]
    problems: list[str] = Field(default_factory=list, description="Lines or trajectories that were skipped, and why.")


def _events(history: Any) -> list[tuple[dict, dict]]:
    """(action, observation) pairs from either history shape: a list of pairs, or a flat list of events."""
    pairs: list[tuple[dict, dict]] = []
    if not isinstance(history, list):
        return pairs
    flat = [e for e in history if isinstance(e, dict)]
    if len(flat) < len(history):  # list of [action, observation]
        for item in history:
            if isinstance(item, list | tuple) and len(item) == 2 and all(isinstance(x, dict) for x in item):
                pairs.append((item[0], item[1]))
        return pairs
    by_cause = {str(e.get("cause")): e for e in flat if "observation" in e and e.get("cause") is not None}
    return [(e, by_cause.get(str(e.get("id")), {})) for e in flat if "action" in e]


def _task_number(task_id: str) -> int | None:
    m = re.match(r"^(\d+)-", task_id)
    return int(m.group(1)) if m else None


def _task_for(tasks: TaskSet, instance_id: str) -> Task | None:
    if not instance_id.strip().isdigit():
        return None
    wanted = int(instance_id)
    found = [t for t in tasks.tasks if _task_number(t.task_id) == wanted]
    return found[0] if len(found) == 1 else None


def _repo_relative(path: str, task: Task) -> str | None:
    """The edited file relative to the task's repository, from its sandbox path; None when outside it."""
    p = PurePosixPath(path)
    try:
        rest = p.relative_to(WORKSPACE).parts
    except ValueError:
        return None
    if len(rest) < 3 or _task_number(rest[0].lower()) != _task_number(task.task_id):
        return None
    if rest[1] != task.repo_dir.name or any(part in ("..", "") for part in rest[2:]):
        return None
    return str(PurePosixPath(*rest[2:]))


def _failed(obs: dict) -> bool:
    content = str(obs.get("content", ""))
    return obs.get("observation") == "error" or content.lstrip().startswith("ERROR")


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))


def _str_replace(text: str, old: str, new: str) -> str:
    """OpenHands' rule: old_str must occur exactly once. A CRLF file is matched with its line endings."""
    if text.count(old) != 1 and "\r\n" in text:
        old, new = old.replace("\r\n", "\n").replace("\n", "\r\n"), new.replace("\r\n", "\n").replace("\n", "\r\n")
    count = text.count(old)
    if count != 1:
        raise ValueError(f"old_str occurs {count} times")
    return text.replace(old, new)


def _insert(text: str, line: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    if not 0 <= line <= len(lines):
        raise ValueError(f"insert_line {line} is outside the file")
    nl = "\r\n" if "\r\n" in text else "\n"
    block = new.replace("\r\n", "\n").replace("\n", nl)
    return "".join(lines[:line]) + block + ("" if block.endswith(nl) else nl) + "".join(lines[line:])


def _apply_edit(args: dict, file: Path, undo: dict[Path, list[str]]) -> None:
    command = args.get("command")
    before = _read(file) if file.is_file() else None
    if command == "create":
        after = str(args.get("file_text") or "")
    elif command == "undo_edit":
        if not undo.get(file):
            raise ValueError("nothing to undo")
        _write(file, undo[file].pop())
        return
    elif before is None:
        raise ValueError("the file does not exist")
    elif command == "str_replace":
        after = _str_replace(before, str(args.get("old_str") or ""), str(args.get("new_str") or ""))
    elif command == "insert":
        after = _insert(before, int(args.get("insert_line") or 0), str(args.get("new_str") or ""))
    else:
        raise ValueError(f"command {command!r} is not a file edit")
    undo.setdefault(file, []).append(before or "")
    _write(file, after)


def _replay(task: Task, pairs: list[tuple[dict, dict]], ws: Path) -> ReplayStats:
    stats = ReplayStats()
    undo: dict[Path, list[str]] = {}
    for action, obs in pairs:
        kind = action.get("action")
        if kind == "run":
            stats.shell_commands += 1
        if kind not in ("edit", "write"):
            continue
        found = action.get("args")
        args: dict[str, Any] = found if isinstance(found, dict) else {}
        if _failed(obs):
            stats.failed_in_run += 1
            continue
        rel = _repo_relative(str(args.get("path", "")), task)
        if rel is None:
            stats.outside_repo += 1
            continue
        edit: dict[str, Any] = {"command": "create", "file_text": args.get("content")} if kind == "write" else args
        target = ws / rel
        if not target.resolve().is_relative_to(ws.resolve()):  # a symlink in the repository: never followed
            stats.outside_repo += 1
            continue
        try:
            _apply_edit(edit, target, undo)
            stats.applied += 1
        except (ValueError, OSError) as exc:
            stats.not_replayed.append(f"{rel}: {exc}")
    return stats


def _diff(pristine: Path, revised: Path) -> str:
    chunks = []
    for path in sorted(p for p in revised.rglob("*") if p.is_file()):
        rel = path.relative_to(revised)
        old_path = pristine / rel
        old = _read(old_path) if old_path.is_file() else None
        new = _read(path)
        if old == new:
            continue
        a = f"a/{rel}" if old is not None else "/dev/null"
        chunks.append("".join(difflib.unified_diff((old or "").splitlines(keepends=True),
                                                   new.splitlines(keepends=True), a, f"b/{rel}")))
    return "".join(chunks)


def _predictions(task: Task, line: dict, model: str) -> list[Prediction]:
    error = line.get("error")
    meta = PredictionMeta(solver="openhands", trajectory=str(line.get("instance_id")))
    if error not in (None, "", "None"):
        why = f"the agent's run ended in an error: {str(error)[:300]}"
        return [Prediction(instance_id=i.instance_id, model=model, error=why, meta=meta)
                for i in task.implementations]
    with tempfile.TemporaryDirectory(prefix="lmrbench-openhands-") as tmp:
        ws = Path(tmp) / "repo"
        shutil.copytree(task.repo_dir, ws, symlinks=True)
        stats = _replay(task, _events(line.get("history")), ws)
        diff = _diff(task.repo_dir, ws)
    meta = meta.model_copy(update={"replay": stats.model_dump()})
    return [Prediction(instance_id=i.instance_id, model=model, diff=diff, meta=meta) for i in task.implementations]


def from_openhands(path: Path, tasks: TaskSet, model: str) -> ImportResult:
    """Diff predictions (or error predictions) for every implementation of every task the file covers."""
    preds: list[Prediction] = []
    problems: list[str] = []
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                line = json.loads(raw)
            except json.JSONDecodeError:
                problems.append(f"line {n}: not JSON")
                continue
            if not isinstance(line, dict):
                problems.append(f"line {n}: not a JSON object")
                continue
            task = _task_for(tasks, str(line.get("instance_id", "")))
            if task is None:
                problems.append(f"line {n}: instance_id {line.get('instance_id')!r} names no task")
            elif task.defect:
                problems.append(f"line {n}: {task.task_id} has no repository to replay on ({task.defect})")
                preds += [Prediction(instance_id=i.instance_id, model=model, error=f"not replayed: {task.defect}",
                                     meta=PredictionMeta(solver="openhands")) for i in task.implementations]
            else:
                preds += _predictions(task, line, model)
    return ImportResult(predictions=preds, problems=problems)
