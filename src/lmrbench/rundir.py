"""The one place that knows a run folder's layout.

    RUN_DIR/
      run.json            how the predictions were made (model, solver, settings), written by the library
      predictions.jsonl   one Prediction a line        (generate, or copied in by evaluate)
      evaluations.jsonl   one Evaluation a line        (evaluate)
      judgments.jsonl     one Judgment a line          (judge)
      logs/               each evaluation's log, kept probe data and run facts:
                            ITEM.log, ITEM.candidate.py, ITEM.outputs.jsonl, ITEM.outputs.run.json
      work/               scratch workspaces while evaluating (removed afterwards)
      agent_work/         the agent solver's workspaces while it works
      trajectories/       the agent solver's trajectories
      workspaces/         the agent solver's final workspaces (its repo_dir predictions point here)

Every name of an item's file or folder is made here (`eval_item_name`, `agent_item_name`, `export_name`).
      report.*            the report

Paths stored in records are relative to the run folder, so a run folder can be moved or shared; `resolve`
turns them back into paths (absolute paths from older runs are kept as they are).
"""

from __future__ import annotations

import hashlib
import shutil
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


def _safe_name(text: str) -> str:
    """ASCII letters, digits, '-', '.', '_' only; a long or altered name gets its hash (so names never collide)."""
    clean = "".join(c if c.isascii() and (c.isalnum() or c in "-._") else "_" for c in text).lstrip(".")
    if len(clean) <= 60 and clean == text:
        return clean
    return f"{clean[:40]}-{hashlib.sha256(text.encode(errors='surrogatepass')).hexdigest()[:12]}"


def eval_item_name(task_id: str, index: int, model: str, sample: int, key: str) -> str:
    """A file-system-safe, bounded name for one evaluated item (a model name may be long or odd)."""
    return f"{task_id}__{index}__{_safe_name(model)}__{sample}__{key[:10]}"


def agent_item_name(instance_id: str, model: str, sample: int) -> str:
    """The agent solver's name for one item: its work folder, trajectory and final workspace."""
    return f"{export_name(instance_id)}__{model.replace('/', '_')}__{sample}"


def export_name(instance_id: str) -> str:
    """The folder of one implementation's exported workspace (`workspace export`)."""
    return instance_id.replace("/", "__")


CANDIDATE_SUFFIX = ".candidate.py"
OUTPUTS_SUFFIX = ".outputs.jsonl"
FACTS_SUFFIX = ".run.json"


def kept_candidate(log: Path) -> Path:
    """Where an evaluation keeps the candidate's code as applied: beside its log."""
    return log.with_suffix(CANDIDATE_SUFFIX)


def kept_outputs(log: Path) -> Path:
    """Where an evaluation keeps its probe data for re-grading: beside its log."""
    return log.with_suffix(OUTPUTS_SUFFIX)


def run_facts(outputs: Path) -> Path:
    """Where the facts grading used (exit code, timeout, ...) are kept: beside the kept probe data."""
    return outputs.with_suffix(FACTS_SUFFIX)


@dataclass(frozen=True)
class RunDir:
    """A run folder and the files of each stage. `evaluations_at`, `work_at` and `logs_at` place those files
    elsewhere than the run folder's own layout (a library caller's choice); by default they are inside it."""

    root: Path
    evaluations_at: Path | None = None
    work_at: Path | None = None
    logs_at: Path | None = None

    @classmethod
    def for_model(cls, model: str, base: Path = Path("runs")) -> RunDir:
        """The default run folder of a model: runs/<model> ('/' in the name replaced)."""
        return cls(base / model.replace("/", "_"))

    @classmethod
    def of(cls, folder: RunDir | Path) -> RunDir:
        """A run folder given as a RunDir (passed on as it is) or as its path."""
        return folder if isinstance(folder, RunDir) else cls(folder)

    @classmethod
    def for_evaluations(cls, evaluations: Path, work: Path | None = None, logs: Path | None = None) -> RunDir:
        """The run folder holding an evaluations file (its parent), with work and log folders placed as given."""
        return cls(evaluations.parent, evaluations, work, logs)

    @property
    def predictions(self) -> Path:
        return self.root / "predictions.jsonl"

    @property
    def evaluations(self) -> Path:
        return self.evaluations_at or self.root / "evaluations.jsonl"

    @property
    def judgments(self) -> Path:
        return self.root / "judgments.jsonl"

    @property
    def run_json(self) -> Path:
        return self.root / "run.json"

    @property
    def logs(self) -> Path:
        return self.logs_at or self.root / "logs"

    @property
    def work(self) -> Path:
        return self.work_at or self.root / "work"

    @property
    def agent_work(self) -> Path:
        return self.root / "agent_work"

    def trajectory(self, name: str) -> Path:
        return self.trajectories / f"{name}.json"

    def eval_log(self, name: str) -> Path:
        return self.logs.resolve() / f"{name}.log"

    def adopt_predictions(self, source: Path) -> Path:
        """Copy a predictions file into the run folder (unless it is that file): the folder holds what it
        evaluated, for the judge and the report."""
        self.root.mkdir(parents=True, exist_ok=True)
        if not self.predictions.exists() or not self.predictions.samefile(source):
            shutil.copyfile(source, self.predictions)
        return self.predictions

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
