"""A problem found while loading or linting a task: one line each, with task, implementation, kind, detail."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Severity = Literal["error", "warning"]


class Problem(BaseModel):
    """One defect or quirk of a task."""

    task: str
    index: int | None
    kind: str
    detail: str
    severity: Severity = "error"

    def __init__(self, task: str, index: int | None, kind: str, detail: str, severity: Severity = "error") -> None:
        super().__init__(task=task, index=index, kind=kind, detail=detail, severity=severity)

    def line(self) -> str:
        where = f"{self.task}/{self.index}" if self.index is not None else self.task
        return f"{where}\t{self.severity}\t{self.kind}\t{self.detail}"
