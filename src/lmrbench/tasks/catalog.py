"""One row per implementation for listings: split, category, date, paper and the reference's size."""

from __future__ import annotations

from pydantic import BaseModel, Field

from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import SourceError, extract


class TaskRow(BaseModel):
    """What `lmrbench tasks list` shows of one implementation."""

    instance_id: str
    split: str | None = Field(description="'lite' or 'main' (our layout); None for the original layout.")
    category: str | None
    publication_date: str | None
    paper: str = Field(description="The paper's title: implementations of one paper share it.")
    reference_lines: int = Field(description="Lines of the reference's target definitions (0 when unknown).")
    goal: str = Field(description="goal file :: targets")


def reference_lines(impl: Implementation) -> int:
    """Non-blank lines of the reference's target definitions, docstrings included."""
    if impl.golden_file is None or not impl.golden_file.is_file():
        return 0
    golden = impl.golden_file.read_text(encoding="utf-8", errors="replace")
    total = 0
    for target in impl.targets:
        try:
            total += sum(1 for line in extract(golden, target).splitlines() if line.strip())
        except (SourceError, SyntaxError, ValueError):
            continue
    return total


def _row(task: Task, impl: Implementation) -> TaskRow:
    return TaskRow(instance_id=impl.instance_id, split=task.split,
                   category=impl.category.value if impl.category else None,
                   publication_date=task.publication_date.isoformat() if task.publication_date else None,
                   paper=task.paper_name or task.task_id, reference_lines=reference_lines(impl),
                   goal=f"{impl.goal_file}::{','.join(impl.targets) or '<whole file>'}")


def task_rows(tasks: TaskSet) -> list[TaskRow]:
    return [_row(task, impl) for task in tasks.tasks for impl in task.implementations]
