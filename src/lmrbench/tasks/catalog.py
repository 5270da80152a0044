"""One row per implementation for listings: split, category, date, paper and the reference's size."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import SourceError, extract
from lmrbench.tasks.upstream import golden_root, masked_code_lines


class TaskRow(BaseModel):
    """What `lmrbench tasks list` shows of one implementation."""

    instance_id: str
    split: str | None = Field(description="'lite' or 'main' (our layout); None for the original layout.")
    category: str | None
    publication_date: str | None
    paper: str = Field(description="The paper's title: implementations of one paper share it.")
    reference_lines: int = Field(description="Lines of the reference's target definitions (0 when unknown).")
    goal: str = Field(description="goal file :: targets (upstream: every goal file, '; '-separated)")
    package: str | None = Field(default=None, description="Upstream split: the release's distribution name.")
    version: str | None = Field(default=None, description="Upstream split: its pinned version.")
    sha256: str | None = Field(default=None, description="Upstream split: sha256 of the pinned file.")
    first_released: str | None = Field(default=None, description="Upstream split: ISO date the targets were "
                                       "first released (what `--since` compares).")
    tier: str | None = Field(default=None, description="Upstream split: 'feature' or 'system'.")
    masked_lines: int | None = Field(default=None, description="Upstream split: code lines the masking removes "
                                     "(non-blank, non-comment, non-docstring), over the whole task.")


def reference_lines(impl: Implementation) -> int:
    """Non-blank lines of the reference's target definitions, docstrings included."""
    total = 0
    for rel, names in impl.target_map().items():
        path = impl.golden_path(rel)
        if path is None or not path.is_file():
            continue
        golden = path.read_text(encoding="utf-8", errors="replace")
        for target in names:
            try:
                total += sum(1 for line in extract(golden, target).splitlines() if line.strip())
            except (SourceError, SyntaxError, ValueError):
                continue
    return total


def _upstream_fields(task: Task) -> dict[str, object]:
    up = task.upstream
    if up is None:
        return {}
    golden = golden_root(up)
    try:
        lines: int | None = masked_code_lines(task, golden) if golden.is_dir() else None
    except (OSError, SourceError, SyntaxError, ValueError):
        lines = None
    return {"package": up.package, "version": up.version, "sha256": up.sha256,
            "first_released": up.first_released.date.isoformat(), "tier": up.tier, "masked_lines": lines}


def _row(task: Task, impl: Implementation) -> TaskRow:
    goal = "; ".join(f"{f}::{','.join(n) or '<whole file>'}" for f, n in impl.target_map().items())
    return TaskRow(instance_id=impl.instance_id, split=task.split,
                   category=impl.category.value if impl.category else None,
                   publication_date=task.publication_date.isoformat() if task.publication_date else None,
                   paper=task.paper_name or task.task_id, reference_lines=reference_lines(impl),
                   goal=goal, **_upstream_fields(task))  # type: ignore[arg-type]


def task_rows(tasks: TaskSet) -> list[TaskRow]:
    return [_row(task, impl) for task in tasks.tasks for impl in task.implementations]
