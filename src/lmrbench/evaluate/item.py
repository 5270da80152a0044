"""One evaluation item as the core and its graders see it: its folders (`Prepared`), the command line that runs it
(`Command`), what running it gave (`RunResult`) and what a probe run keeps for re-grading (`RunFacts`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from lmrbench.evaluate.causes import Cause
from lmrbench.records import Grading, ItemFields, Prediction, RunPath
from lmrbench.sandbox.base import Isolation
from lmrbench.tasks.schema import Implementation, Task


@dataclass
class Prepared:
    """One item ready to run: its folders, its command's inputs, or why it cannot run."""

    task: Task
    impl: Implementation
    pred: Prediction
    key: str
    name: str
    item_dir: Path
    log: Path
    timeout: int
    grading: Grading
    invalid: str = ""
    refused: Cause | None = None
    candidate: str | None = None
    tampered: list[str] = field(default_factory=list)
    nonce: str = ""

    @property
    def ws(self) -> Path:
        return self.item_dir / "repo"

    @property
    def hidden(self) -> Path:
        """Probe files or tests plus the runner: read-only in the sandbox, outside the workspace."""
        return self.item_dir / "hidden"

    @property
    def out(self) -> Path:
        """Where the run writes its data (probe outputs, pytest results): writable, outside the workspace."""
        return self.item_dir / "out"

    @property
    def item(self) -> ItemFields:
        """The record's fields about the item itself."""
        return ItemFields(instance_id=self.impl.instance_id, task_id=self.task.task_id, index=self.impl.index,
                          model=self.pred.model, sample=self.pred.sample, key=self.key, log_path=str(self.log),
                          grading=self.grading,
                          env_substitutions=list(self.task.env.substituted) if self.task.env else [])


@dataclass
class Command:
    """A sandboxed command: argv, extra environment, and the paths it may see beyond its workspace."""

    argv: list[str]
    env: dict[str, str]
    readonly: list[Path]
    writable: list[Path]


@dataclass
class RunResult:
    """What running an item's command gave, however it was run."""

    exit_code: int | None
    timed_out: bool
    duration_s: float
    isolation: Isolation | None
    path: RunPath = "cold"
    limits_hit: list[str] = field(default_factory=list)


class RunFacts(BaseModel):
    """What grading a probe run needs besides its data; kept beside the data for re-grading."""

    exit_code: int | None
    timed_out: bool
    workspace_modules: list[str]
    limits_hit: list[str] = Field(default_factory=list)
    tampered: int = 0
    lacking: list[str] = Field(default_factory=list, description="Modules the reference's run needs that the "
                               "environment lacked (trusted evidence for a missing-module error), when grading "
                               "looked.")


def with_notes(reason: str, limits_hit: list[str], tampered: int) -> str:
    """A graded reason plus what else happened: sandbox limits hit, protected files restored."""
    if limits_hit:
        reason = (reason + f"; sandbox limit hit: {', '.join(limits_hit)}").lstrip("; ")
    if tampered:
        reason = (reason + f"; restored {tampered} protected file(s)").lstrip("; ")
    return reason
