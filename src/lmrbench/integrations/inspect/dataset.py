"""Which implementations an Inspect task covers, and one Inspect sample per implementation."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser
from pydantic import BaseModel, Field

from lmrbench.envs import EnvConfig, attach_envs
from lmrbench.papers import PaperMode, paper_text
from lmrbench.solvers.agent import instructions_text
from lmrbench.solvers.prompt import PROMPT_VERSION, build_prompt
from lmrbench.tasks.loader import TaskSet, load_tasks
from lmrbench.tasks.schema import Implementation, Task

Setting = Literal["prompt", "agent"]
SplitName = Literal["main", "lite", "all"]


class Selection(BaseModel):
    """What `-T split=... -T task=... -T paper=... -T tasks=...` select; the same rules as lmrbench's commands."""

    tasks: Path | None = Field(default=None, description="Task folder (either layout); None: the built-in suite.")
    split: SplitName | None = Field(
        default=None, description="main | lite | all; None: main, or all when `task` names what to take.")
    task: list[str] = Field(default_factory=list, description="Only these tasks/instances (globs).")
    paper: PaperMode = Field(default="full", description="full: the paper text; withheld: a note instead.")
    papers_dir: Path | None = Field(default=None, description="Cached paper texts (`lmrbench papers fetch`).")

    @property
    def split_used(self) -> str:
        if self.split is not None:
            return self.split
        return "all" if self.task else "main"


def patterns(value: str | list[str] | None) -> list[str]:
    """`-T task=a,b` arrives as one string, `-T task=[a,b]` as a list."""
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    return [p.strip() for p in items if p.strip()]


@functools.cache
def full_taskset(tasks: Path | None) -> TaskSet:
    """Every task of the folder, loaded once per process (the dataset, the sandbox and the scorer share it)."""
    return load_tasks(tasks)


def selected(sel: Selection) -> TaskSet:
    """The selection; an empty one raises ValueError naming it. Its tasks of the original layout get their
    environments as `lmrbench evaluate` gives them (built when missing)."""
    ts = full_taskset(sel.tasks)
    split = sel.split_used
    picked = ts.restrict(sel.task or None, split) if sel.task or split != "all" else ts
    attach_envs(ts, {t.task_id for t in picked.tasks}, "task", EnvConfig())
    return ts.restrict(sel.task or None, split) if sel.task or split != "all" else ts


def _metadata(task: Task, impl: Implementation, setting: Setting, paper_source: str) -> dict[str, object]:
    return {"instance_id": impl.instance_id, "task_id": task.task_id, "index": impl.index, "split": task.split,
            "setting": setting, "prompt_version": PROMPT_VERSION if setting == "prompt" else "",
            "paper_source": paper_source, "goal_file": impl.goal_file, "targets": list(impl.targets)}


def sample_id(instance_id: str) -> str:
    """Inspect keeps each sample under its id in the log's zip file: no '/' in it."""
    return instance_id.replace("/", "__")


def prompt_sample(task: Task, impl: Implementation, sel: Selection) -> Sample:
    """The exact prompt-v1 messages of the `prompt` solver (`lmrbench tasks prompt ID`)."""
    paper = paper_text(task, sel.papers_dir, sel.paper)
    messages: list[ChatMessage] = []
    for m in build_prompt(task, impl, paper):
        cls = ChatMessageSystem if m.role == "system" else ChatMessageUser
        messages.append(cls(content=m.content))
    return Sample(input=messages, id=sample_id(impl.instance_id),
                  metadata=_metadata(task, impl, "prompt", paper.source))


AGENT_NOTE = ("You are in the repository (your working directory). The method description is in paper.md and "
              "this task in INSTRUCTIONS.md. Implement the masked code (it raises NotImplementedError) exactly as "
              "described, keeping the signatures; do not edit or create tests, do not change other behaviour. There "
              "is no network and no package installation. Do not edit paper.md, INSTRUCTIONS.md or .lmrbench.json. "
              "When you are done, submit: your edits in the repository are the answer.\n\n")


def agent_sample(task: Task, impl: Implementation, sel: Selection) -> Sample:
    """The task's instructions; the paper and the masked repository are in the sandbox's workspace."""
    source = paper_text(task, sel.papers_dir, sel.paper).source if sel.paper == "full" else "withheld"
    return Sample(input=AGENT_NOTE + instructions_text(task, impl), id=sample_id(impl.instance_id),
                  metadata=_metadata(task, impl, "agent", source))


def dataset(sel: Selection, setting: Setting) -> MemoryDataset:
    """One sample per selected implementation, in the suite's order."""
    ts = selected(sel)
    make = prompt_sample if setting == "prompt" else agent_sample
    samples = [make(ts.task(i.task_id), i, sel) for i in ts.instances()]
    return MemoryDataset(samples, name=f"lmrbench-{setting}")
