"""One dataset row per implementation: what a solver is given (ids, paper, instruction, the masked repository,
the method description, the exact prompt-v1 messages), and, only when asked, what grades it (golden file,
reference definitions, hidden tests and expected outputs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lmrbench.judge.run import reference_code
from lmrbench.papers import paper_text
from lmrbench.solvers.prompt import PROMPT_VERSION, build_prompt
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.original import TEST_DIR
from lmrbench.tasks.schema import Implementation, Layout, Task

SKIPPED_DIRS = frozenset({"__pycache__", ".git"})
EXPECTED_DIR = "expected"
ORIGINAL_SPLIT = "original"


class FileEntry(BaseModel):
    """One file of a file map: text as it is, anything that is not UTF-8 as base64."""

    path: str = Field(description="Relative to the folder the map describes, '/'-separated.")
    content: str
    encoding: Literal["utf-8", "base64"] = "utf-8"


class PromptMessage(BaseModel):
    role: str
    content: str


class Solutions(BaseModel):
    """What grades an implementation: never in a row unless the export asks for it."""

    golden_file: list[FileEntry] = Field(description="The reference goal file (one entry; none if missing).")
    reference: str = Field(description="The reference's target definitions, as the judge sees them.")
    tests: list[FileEntry] = Field(description="The task's hidden tests (its tests folder; the original "
                                   "layout's unit_test folder, which holds its expected outputs too).")
    expected_outputs: list[FileEntry] = Field(description="The expected probe outputs (tests/expected).")


class DatasetRow(BaseModel):
    """One implementation, as exported."""

    instance_id: str
    task_id: str
    index: int
    split: str = Field(description="'lite' or 'main'; 'original' for a task of the original layout.")
    category: str
    paper_title: str
    paper_url: str
    publication_date: str = Field(description="ISO date; empty when unknown.")
    year: int | None
    instruction: str
    goal_file: str
    targets: list[str]
    repository: list[FileEntry] = Field(description="The masked repository as a solver gets it.")
    method_description: str
    description_source: str = Field(description="paper_text, description or withheld (as in predictions).")
    prompt_version: str
    prompt: list[PromptMessage] = Field(description="The exact messages the prompt solver sends.")
    solutions: Solutions | None = None


def _entry(root: Path, rel: str) -> FileEntry:
    data = (root / rel).read_bytes()
    try:
        return FileEntry(path=rel, content=data.decode("utf-8"))
    except UnicodeDecodeError:
        import base64

        return FileEntry(path=rel, content=base64.b64encode(data).decode("ascii"), encoding="base64")


def file_map(root: Path, skip_dirs: frozenset[str] = SKIPPED_DIRS) -> list[FileEntry]:
    """The regular files under `root`, sorted by path; links are not followed and not listed, nor compiled
    Python or the folders in `skip_dirs` (names, or paths relative to `root`)."""
    if not root.is_dir():
        return []
    rels = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        here = Path(folder)
        base = here.relative_to(root)
        dirs[:] = [d for d in dirs if d not in skip_dirs and (base / d).as_posix() not in skip_dirs
                   and not (here / d).is_symlink()]
        rels += [(base / n).as_posix() for n in names
                 if not n.endswith(".pyc") and (here / n).is_file() and not (here / n).is_symlink()]
    return [_entry(root, rel) for rel in sorted(rels)]


def _solutions(task: Task, impl: Implementation) -> Solutions:
    golden = []
    if impl.golden_file is not None and impl.golden_file.is_file():
        golden = [_entry(task.root, impl.golden_file.relative_to(task.root).as_posix())]
    if task.layout is Layout.ORIGINAL:
        tests, expected = file_map(task.repo_dir / TEST_DIR), []
    else:
        tests_dir = task.tests_dir or task.root / "tests"
        tests = file_map(tests_dir, SKIPPED_DIRS | {EXPECTED_DIR})
        expected = file_map(tests_dir / EXPECTED_DIR)
    return Solutions(golden_file=golden, reference=reference_code(impl) or "", tests=tests,
                     expected_outputs=expected)


def dataset_row(task: Task, impl: Implementation, with_solutions: bool = False) -> DatasetRow:
    """The row of one implementation; the original layout's unit_test folder is left out of its repository
    (it is a hidden test) and given with the solutions."""
    paper = paper_text(task)
    hidden = SKIPPED_DIRS | ({TEST_DIR} if task.layout is Layout.ORIGINAL else frozenset())
    messages = build_prompt(task, impl, paper)
    return DatasetRow(
        instance_id=impl.instance_id, task_id=task.task_id, index=impl.index,
        split=task.split or ORIGINAL_SPLIT, category=impl.category.value if impl.category else impl.raw_category,
        paper_title=task.paper_name, paper_url=task.paper_url,
        publication_date=task.publication_date.isoformat() if task.publication_date else "", year=task.year,
        instruction=impl.instruction, goal_file=impl.goal_file, targets=impl.targets,
        repository=file_map(task.repo_dir, hidden), method_description=paper.text, description_source=paper.source,
        prompt_version=PROMPT_VERSION, prompt=[PromptMessage(role=m.role, content=m.content) for m in messages],
        solutions=_solutions(task, impl) if with_solutions else None)


def dataset_rows(tasks: TaskSet, with_solutions: bool = False) -> list[DatasetRow]:
    """A row per implementation of the task set, in the task set's order."""
    return [dataset_row(task, impl, with_solutions) for task in tasks.tasks for impl in task.implementations]
