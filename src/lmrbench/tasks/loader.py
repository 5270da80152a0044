"""Load tasks from a folder, auto-detecting our layout or the original LMR-Bench layout."""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from lmrbench.tasks.original import load_original_task
from lmrbench.records import parse_instance_id
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import FORMAT_TAG, Implementation, Layout, Task, TaskFormatError, TaskInfo
from lmrbench.tasks.schema import format_validation_error as _fmt
from lmrbench.tasks.upstream import golden_root, masked_root

BUILTIN_TASKS = Path(__file__).resolve().parents[1] / "builtin_tasks"


def builtin_tasks_dir() -> Path:
    """The packaged suite: `lmrbench/builtin_tasks` when installed, else the repository's `tasks/`."""
    if BUILTIN_TASKS.is_dir():
        return BUILTIN_TASKS
    return Path(__file__).resolve().parents[3] / "tasks"


SPLIT_CHOICES = ("main", "lite", "upstream", "all", "every")


def in_split(task: Task, split: str) -> bool:
    """'all': lite and main (the built-in suite that `make demo` runs; no download); 'every': every split,
    upstream included; else that split. Tasks without a split (the original layout) are in every selection."""
    if task.split is None or split == "every":
        return True
    if split == "all":
        return task.split != "upstream"
    return task.split == split


def task_date(task: Task) -> dt.date | None:
    """The date `--since` compares: an upstream task's first release of its targets, else the paper's date
    (the code's first public appearance is what a model's training data could hold)."""
    if task.upstream is not None:
        return task.upstream.first_released.date
    return task.publication_date


@dataclass
class TaskSet:
    """Tasks loaded from one folder, and every problem met on the way (the rest still loads)."""

    root: Path
    tasks: list[Task] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def instances(self) -> list[Implementation]:
        return [impl for task in self.tasks for impl in task.implementations]

    def task(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.task_id == task_id:
                return t
        raise KeyError(f"unknown task '{task_id}'")

    def resolve(self, instance_id: str) -> tuple[Task, Implementation]:
        """Find `<task>/<index>`; raises KeyError with a readable message."""
        try:
            task_id, index = parse_instance_id(instance_id)
        except ValueError as exc:
            raise KeyError(str(exc)) from exc
        task = self.task(task_id)
        return task, task.implementation(index)

    def restrict(self, patterns: list[str] | None = None, split: str = "all",
                 since: dt.date | None = None) -> TaskSet:
        """Only the implementations matching `patterns` (fnmatch on instance or task id), in `split` (see
        `in_split`), published on or after `since` (`task_date`; tasks without a date are left out then).
        Raises ValueError naming what selected nothing."""
        keep = {i.instance_id for i in self.select(patterns)}
        if patterns and not keep:
            unloaded = [f"{p.task} could not be loaded ({p.kind}: {p.detail[:300]})" for p in self.problems
                        if p.severity == "error" and any(fnmatch.fnmatch(p.task, pat.split("/")[0])
                                                         for pat in patterns)]
            why = "; ".join(unloaded) if unloaded else "see `lmrbench tasks list --split all`"
            raise ValueError(f"no implementation matches {patterns}; {why}")
        tasks = []
        for task in self.tasks:
            if not in_split(task, split):
                continue
            day = task_date(task)
            if since is not None and (day is None or day < since):
                continue
            impls = [i for i in task.implementations if i.instance_id in keep]
            if impls:
                tasks.append(task.model_copy(update={"implementations": impls}))
        if not tasks:
            raise ValueError(f"nothing selected (patterns {patterns or 'all'}, split '{split}', since {since})")
        return TaskSet(self.root, tasks, list(self.problems))

    def select(self, patterns: list[str] | None) -> list[Implementation]:
        """Instances whose id or task id matches one of the patterns (fnmatch); all when None."""
        items = self.instances()
        if not patterns:
            return items
        return [
            i
            for i in items
            if any(fnmatch.fnmatch(i.instance_id, p) or fnmatch.fnmatch(i.task_id, p) for p in patterns)
        ]


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TaskFormatError(path, "<root>", f"valid JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict):
        raise TaskFormatError(path, "<root>", f"a JSON object, got {type(data).__name__}")
    return data


def _task_files(root: Path, info: TaskInfo) -> tuple[Path, Path]:
    """The description file and the tests folder, which must exist."""
    info_path = root / "info.json"
    desc = root / info.paper_file
    if not desc.is_file():
        raise TaskFormatError(info_path, "paper_file", f"an existing file, '{desc}' is missing")
    tests = root / info.tests_dir
    if not tests.is_dir():
        raise TaskFormatError(info_path, "tests_dir", f"an existing folder, '{tests}' is missing")
    return desc, tests


def load_upstream_task(root: Path, info: TaskInfo) -> Task:
    """An upstream recipe as a Task whose repository is the masked release in the cache (not fetched here: see
    tasks/upstream.py `ensure_task`; until then repo_dir may not exist)."""
    assert info.upstream is not None
    info_path = root / "info.json"
    desc, tests = _task_files(root, info)
    golden = golden_root(info.upstream)
    impls = []
    for n, spec in enumerate(info.implementations):
        if not (root / spec.unit_test_file).is_file():
            raise TaskFormatError(info_path, f"implementations.{n}.unit_test_file",
                                  f"an existing file, '{root / spec.unit_test_file}' is missing")
        files = spec.target_map()
        impls.append(Implementation(
            task_id=info.task_id, index=spec.index, instruction=spec.instruction, category=spec.category,
            raw_category=spec.category.value, goal_file=spec.goal_file, targets=files[spec.goal_file],
            golden_file=golden / spec.goal_file, retrieval_context=spec.retrieval_context,
            unit_test_file=spec.unit_test_file, files=files, golden_dir=golden))
    return Task(task_id=info.task_id, layout=Layout.LMRBENCH, root=root,
                repo_dir=masked_root(info.upstream, info.task_id), paper_name=info.paper_name,
                paper_url=info.paper_url, year=info.year, publication_date=info.publication_date,
                description_file=desc, tests_dir=tests, timeout_s=info.timeout_s, requirements=info.requirements,
                split=info.split, upstream=info.upstream, budget=info.budget,
                implementations=sorted(impls, key=lambda i: i.index))


def load_our_task(root: Path, data: dict) -> Task:
    """Validate our info.json and check the files it names exist."""
    info_path = root / "info.json"
    try:
        info = TaskInfo.model_validate(data)
    except ValidationError as exc:
        raise _fmt(info_path, exc) from exc
    if info.task_id != root.name:
        raise TaskFormatError(info_path, "task_id", f"equal to the folder name '{root.name}', got '{info.task_id}'")
    if info.split == "upstream":
        return load_upstream_task(root, info)
    repo = root / info.repo_folder_name
    if not repo.is_dir():
        raise TaskFormatError(info_path, "repo_folder_name", f"an existing folder, '{repo}' is missing")
    impls = []
    for n, spec in enumerate(info.implementations):
        where = f"implementations.{n}"
        for fld, path in (
            ("goal_file", repo / spec.goal_file),
            ("golden_file", root / spec.golden_file),
            ("unit_test_file", root / spec.unit_test_file),
        ):
            if not path.is_file():
                raise TaskFormatError(info_path, f"{where}.{fld}", f"an existing file, '{path}' is missing")
        for ctx in spec.retrieval_context:
            if not (repo / ctx).is_file():
                raise TaskFormatError(info_path, f"{where}.retrieval_context", f"existing files, '{ctx}' is missing")
        impls.append(
            Implementation(
                task_id=info.task_id,
                index=spec.index,
                instruction=spec.instruction,
                category=spec.category,
                raw_category=spec.category.value,
                goal_file=spec.goal_file,
                targets=spec.qualified_targets(),
                golden_file=root / spec.golden_file,
                retrieval_context=spec.retrieval_context,
                unit_test_file=spec.unit_test_file,
            )
        )
    desc, tests = _task_files(root, info)
    return Task(
        task_id=info.task_id,
        layout=Layout.LMRBENCH,
        root=root,
        repo_dir=repo,
        paper_name=info.paper_name,
        paper_url=info.paper_url,
        year=info.year,
        publication_date=info.publication_date,
        description_file=desc,
        tests_dir=tests,
        timeout_s=info.timeout_s,
        requirements=info.requirements,
        split=info.split,
        budget=info.budget,
        implementations=sorted(impls, key=lambda i: i.index),
    )


def load_task(root: Path, problems: list[Problem]) -> Task | None:
    """Load one task folder of either layout. Our layout raises on errors; the original's are absorbed."""
    data = _read_json(root / "info.json")
    if data.get("format") == FORMAT_TAG:
        return load_our_task(root, data)
    return load_original_task(root, data, problems)


def task_folders(path: Path) -> list[Path]:
    """`path` itself when it is a task folder, else its sub-folders holding an info.json."""
    if (path / "info.json").is_file():
        return [path]
    return sorted(p for p in path.iterdir() if p.is_dir() and (p / "info.json").is_file())


def load_tasks(path: Path | None = None, strict: bool = False) -> TaskSet:
    """Load every task under `path` (default: the built-in suite).

    Errors in one task are recorded as problems and the rest still load; with `strict`, the first
    TaskFormatError is raised instead.
    """
    root = (path or builtin_tasks_dir()).resolve()
    if not root.is_dir():
        raise FileNotFoundError(f"tasks folder '{root}' does not exist")
    result = TaskSet(root=root)
    for folder in task_folders(root):
        try:
            task = load_task(folder, result.problems)
        except TaskFormatError as exc:
            if strict:
                raise
            result.problems.append(Problem(folder.name, None, "malformed-task", str(exc)))
            continue
        if task is not None:
            result.tasks.append(task)
    ids = [t.task_id for t in result.tasks]
    for dup in sorted({i for i in ids if ids.count(i) > 1}):
        result.problems.append(Problem(dup, None, "duplicate-task-id", "two task folders share this id"))
    return result
