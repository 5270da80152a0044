"""What the annotation page shows for each prediction of a run: read once from the run folder, typed.

An item is one prediction (instance, model, sample). Its view holds the instruction, the method description, the
candidate against the reference line by line, and the test log; its verdict (the unit tests' status and each
judge's category and rationale) is kept apart so the server can withhold it until the item is labelled.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.evaluate.batch import latest_evaluations, load_predictions
from lmrbench.evaluate.candidate import candidate_code, kept_candidates
from lmrbench.judge.run import load_judgments, reference_code
from lmrbench.papers import PaperText, paper_text
from lmrbench.records import Evaluation, Judgment, Prediction, read_instance_id
from lmrbench.rundir import RunDir
from lmrbench.safefs import read_tail
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Task

LOG_TAIL_BYTES = 32 * 1024
MAX_DIFF_LINES = 3000
MAX_DESCRIPTION_CHARS = 200_000
Key = tuple[str, str, int]


class RunFolderError(ValueError):
    """RUN_DIR is not a run folder with predictions to label; the message says what is missing."""


class DiffRow(BaseModel):
    """One row of the side-by-side diff: reference line (left) and candidate line (right)."""

    tag: Literal["equal", "replace", "delete", "insert"]
    left_no: int | None = None
    left: str = ""
    right_no: int | None = None
    right: str = ""


class JudgeNote(BaseModel):
    judge: str
    status: str
    category: int | None = None
    rationale: str = ""


class Verdict(BaseModel):
    """What the unit tests and the judges said: hidden on the page until the item is labelled."""

    status: str = Field(description="The evaluation's status, or 'not evaluated'.")
    tests_passed: int = 0
    tests_total: int = 0
    reason: str = ""
    judges: list[JudgeNote] = Field(default_factory=list)


class ItemView(BaseModel):
    """What the annotator reads before labelling."""

    position: int = Field(description="0-based place of the item in the run's order.")
    instance_id: str
    model: str
    sample: int
    paper_name: str
    category: str
    instruction: str
    description: str
    description_source: str
    goal_file: str
    targets: list[str]
    diff: list[DiffRow]
    diff_note: str = Field(default="", description="Why there is no diff, or that it was cut.")
    log: str


class Item(BaseModel):
    view: ItemView
    verdict: Verdict

    @property
    def key(self) -> Key:
        return (self.view.instance_id, self.view.model, self.view.sample)


def side_by_side(reference: str, candidate: str, limit: int = MAX_DIFF_LINES) -> tuple[list[DiffRow], bool]:
    """Rows pairing the reference's lines with the candidate's (difflib's opcodes); True when cut at `limit`."""
    left, right = reference.splitlines(), candidate.splitlines()
    rows: list[DiffRow] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, left, right, autojunk=False).get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            li, rj = i1 + k, j1 + k
            rows.append(DiffRow(tag=tag, left_no=li + 1 if li < i2 else None, left=left[li] if li < i2 else "",
                                right_no=rj + 1 if rj < j2 else None, right=right[rj] if rj < j2 else ""))
    return rows[:limit], len(rows) > limit


def _log(run: RunDir, stored: str) -> str:
    """The end of a test log, only from inside the run folder and never through a link."""
    if not stored:
        return "(no test log)"
    path = run.resolve(stored)
    try:
        if not path.resolve().is_relative_to(run.root.resolve()):
            return "(log outside the run folder: not shown)"
        return read_tail(path, LOG_TAIL_BYTES)
    except (OSError, ValueError, RuntimeError):
        return "(test log missing or unreadable)"


def _verdict(ev: Evaluation | None, judgments: list[Judgment]) -> Verdict:
    notes = [JudgeNote(judge=j.judge, status=j.status.value, category=j.category,
                       rationale=j.rationale or j.detail) for j in judgments]
    if ev is None:
        return Verdict(status="not evaluated", judges=notes)
    return Verdict(status=ev.status.value, tests_passed=ev.tests_passed, tests_total=ev.tests_total,
                   reason=ev.reason, judges=notes)


@dataclass(frozen=True)
class _RunFiles:
    """The run's records, keyed by item."""

    predictions: dict[Key, Prediction]
    evaluations: dict[Key, Evaluation]
    judgments: dict[Key, list[Judgment]]
    kept: dict[Key, str]


def _read_run(run: RunDir, tasks: TaskSet) -> _RunFiles:
    if not run.root.is_dir():
        raise RunFolderError(f"{run.root}: no such folder (give a run folder made by `lmrbench run`)")
    if not run.predictions.is_file():
        raise RunFolderError(f"{run.root} is not a run folder: it has no predictions.jsonl")
    preds = {p.item_key: p for p in load_predictions(run.predictions, tasks)[0]}
    if not preds:
        raise RunFolderError(f"{run.predictions}: no prediction of a task in the task set (wrong --tasks?)")
    judged: dict[Key, list[Judgment]] = {}
    for j in load_judgments(run.judgments):
        judged.setdefault(j.item_key, []).append(j)
    evals = {e.item_key: e for e in latest_evaluations(run.evaluations)}
    return _RunFiles(preds, evals, judged, kept_candidates(run))


def _diff(run: RunDir, tasks: TaskSet, pred: Prediction, kept: str | None) -> tuple[list[DiffRow], str]:
    task, impl = tasks.resolve(pred.instance_id)
    if pred.error is not None:
        return [], f"no candidate code: {pred.error}"
    try:
        cand = kept if kept is not None else candidate_code(task, impl, pred, run.workspaces)
    except (RecursionError, MemoryError, ValueError, OSError):
        cand = None
    if cand is None:
        return [], "the candidate's code could not be read"
    ref = reference_code(impl)
    if ref is None:
        return side_by_side("", cand)[0], "no reference to compare with: the task has no usable golden file"
    rows, cut = side_by_side(ref, cand)
    return rows, f"cut at {MAX_DIFF_LINES} lines" if cut else ""


def _paper(task: Task) -> PaperText:
    try:
        return paper_text(task)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # an unreadable paper.json or PDF: still labellable
        return PaperText(source="description", origin="", text=f"(the method description could not be read: {exc})")


def _view(position: int, run: RunDir, tasks: TaskSet, files: _RunFiles, key: Key,
          papers: dict[str, PaperText]) -> ItemView:
    pred = files.predictions[key]
    task, impl = tasks.resolve(pred.instance_id)
    paper = papers.get(task.task_id) or papers.setdefault(task.task_id, _paper(task))
    ev = files.evaluations.get(key)
    rows, note = _diff(run, tasks, pred, files.kept.get(key))
    return ItemView(position=position, instance_id=pred.instance_id, model=pred.model, sample=pred.sample,
                    paper_name=task.paper_name, category=impl.category.value if impl.category else impl.raw_category,
                    instruction=impl.instruction, description=paper.text[:MAX_DESCRIPTION_CHARS],
                    description_source=paper.source, goal_file=impl.goal_file, targets=impl.targets, diff=rows,
                    diff_note=note, log=_log(run, ev.log_path) if ev else "(not evaluated: no test log)")


def load_items(run_dir: Path, tasks: TaskSet) -> list[Item]:
    """Every prediction of the run as an item, in a fixed order (instance, model, sample); raises RunFolderError
    when RUN_DIR holds nothing to label."""
    run = RunDir(run_dir)
    files = _read_run(run, tasks)
    keys = sorted(files.predictions, key=lambda k: (*read_instance_id(k[0]), *k[1:]))
    papers: dict[str, PaperText] = {}  # one paper text per task (an original task's PDF is parsed once)
    return [Item(view=_view(n, run, tasks, files, key, papers),
                 verdict=_verdict(files.evaluations.get(key), files.judgments.get(key, [])))
            for n, key in enumerate(keys)]
