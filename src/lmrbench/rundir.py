"""The one place that knows a run folder's layout.

    RUN_DIR/
      run.json            how the predictions were made (model, solver, settings), written by the library
      predictions.jsonl   one Prediction a line        (generate, or copied in by evaluate)
      evaluations.jsonl   one Evaluation a line        (evaluate)
      judgments.jsonl     one Judgment a line          (judge)
      logs/               each evaluation's log, kept probe data and run facts
      work/               scratch workspaces while evaluating (removed afterwards)
      trajectories/       the agent solver's trajectories
      workspaces/         the agent solver's final workspaces (its repo_dir predictions point here)
      report.*            the report

Paths stored in records are relative to the run folder, so a run folder can be moved or shared; `resolve`
turns them back into paths (absolute paths from older runs are kept as they are).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from lmrbench.jsonl import read_records

R = TypeVar("R", bound=BaseModel)


class UnreadableRecord(UserWarning):
    """A line of a stage's JSONL file that is not a record of that stage (named by file and line)."""


def latest_records(path: Path, cls: type[R], key: Callable[[R], Hashable],
                   problems: list[str] | None = None) -> list[R]:
    """The records of a stage's JSONL file, the last one per key winning (a re-run appends, never rewrites).

    A line that is not such a record is never dropped silently: it is reported as an UnreadableRecord warning,
    and appended to `problems` when given, as 'FILE:LINE: why'."""
    latest: dict[Hashable, R] = {}
    for rec in read_records(path):
        why = rec.error or "not a JSON object"
        if rec.obj is not None:
            try:
                parsed = cls.model_validate(rec.obj)
            except ValidationError as exc:
                first = exc.errors()[0]
                why = f"not a {cls.__name__}: field '{'.'.join(str(p) for p in first['loc'])}': {first['msg']}"
            else:
                latest[key(parsed)] = parsed
                continue
        problem = f"{path}:{rec.line_no}: skipped: {why}"
        warnings.warn(problem, UnreadableRecord, stacklevel=2)
        if problems is not None:
            problems.append(problem)
    return list(latest.values())


@dataclass(frozen=True)
class RunDir:
    """A run folder and the files of each stage."""

    root: Path

    @property
    def predictions(self) -> Path:
        return self.root / "predictions.jsonl"

    @property
    def evaluations(self) -> Path:
        return self.root / "evaluations.jsonl"

    @property
    def judgments(self) -> Path:
        return self.root / "judgments.jsonl"

    @property
    def run_json(self) -> Path:
        return self.root / "run.json"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def trajectories(self) -> Path:
        return self.root / "trajectories"

    @property
    def workspaces(self) -> Path:
        return self.root / "workspaces"

    def relative(self, path: str | Path) -> str:
        """A path inside the run folder as stored in a record (relative); others unchanged."""
        if not path:
            return ""
        p = Path(path)
        try:
            return str(p.resolve().relative_to(self.root.resolve()))
        except ValueError:
            return str(p)

    def resolve(self, stored: str) -> Path:
        """A path as stored in a record, as a path to open."""
        p = Path(stored)
        return p if p.is_absolute() else self.root / p

    def write_info(self, info: BaseModel) -> None:
        """run.json: how this run's predictions were made."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.run_json.write_text(info.model_dump_json(indent=2), encoding="utf-8")
