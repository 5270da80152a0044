"""Human labels from the original LMR-Bench's human-evaluation files.

Each file is a JSON list of objects with `annotator`, `agent_type`, `model_name`, `paper_index` (the task's
number), a 0-based `function_index` (the implementation's position in the task) and `human_judge_result`, on
the 1-3 scale (1 incorrect logic, 2 subtle errors, 3 correct) except for annotators who used 0-2; those are
shifted up by one. A scale is found per annotator (a 0 among their labels means 0-2) unless given.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.records import HumanLabel
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation

Scale = Literal["0-2", "1-3"]
MODEL_TEMPLATE = "{agent_type}/{model_name}"


class RawLabel(BaseModel):
    """One object of an original human-evaluation file (extra fields, e.g. `comment`, are ignored)."""

    annotator: str = Field(min_length=1)
    agent_type: str = ""
    model_name: str = ""
    paper_index: int
    function_index: int = Field(ge=0)
    human_judge_result: int


class LabelImport(BaseModel):
    labels: list[HumanLabel]
    scales: dict[str, Scale] = Field(description="The scale used for each annotator.")
    problems: list[str] = Field(default_factory=list)


def _impl(tasks: TaskSet, paper: int, function: int) -> Implementation | None:
    found = [t for t in tasks.tasks if (m := re.match(r"^(\d+)-", t.task_id)) and int(m.group(1)) == paper]
    if len(found) != 1 or function >= len(found[0].implementations):
        return None
    return found[0].implementations[function]


def _read(path: Path, problems: list[str]) -> list[RawLabel]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        problems.append(f"{path}: not readable JSON ({exc})")
        return []
    if not isinstance(data, list):
        problems.append(f"{path}: expected a list of objects")
        return []
    out = []
    for n, obj in enumerate(data):
        try:
            out.append(RawLabel.model_validate(obj))
        except ValueError as exc:
            problems.append(f"{path}: item {n}: {str(exc).splitlines()[0]}")
    return out


def detect_scale(values: list[int]) -> Scale:
    """0-2 when a 0 occurs, else 1-3."""
    return "0-2" if 0 in values else "1-3"


def import_labels(paths: list[Path], tasks: TaskSet, scales: dict[str, Scale] | None = None,
                  model_template: str = MODEL_TEMPLATE) -> LabelImport:
    """Our label format from the original's files; unknown tasks and out-of-scale values are named, not kept."""
    problems: list[str] = []
    raw = [(p, r) for p in paths for r in _read(p, problems)]
    by_annotator: dict[str, list[int]] = {}
    for _, r in raw:
        by_annotator.setdefault(r.annotator, []).append(r.human_judge_result)
    used: dict[str, Scale] = {a: (scales or {}).get(a) or detect_scale(v) for a, v in sorted(by_annotator.items())}
    labels = []
    for path, r in raw:
        category = r.human_judge_result + (1 if used[r.annotator] == "0-2" else 0)
        impl = _impl(tasks, r.paper_index, r.function_index)
        where = f"{path}: {r.annotator} paper {r.paper_index} function {r.function_index}"
        if impl is None:
            problems.append(f"{where}: no such task or implementation")
        elif category not in (1, 2, 3):
            problems.append(f"{where}: {r.human_judge_result} is outside the {used[r.annotator]} scale")
        else:
            model = model_template.format(agent_type=r.agent_type, model_name=r.model_name)
            labels.append(HumanLabel(annotator=r.annotator, instance_id=impl.instance_id, model=model,
                                     category=category))  # type: ignore[arg-type]
    return LabelImport(labels=labels, scales=used, problems=problems)
