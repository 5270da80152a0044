"""Pydantic models of a task: our info.json schema, and the layout-neutral loaded form used by every stage."""

from __future__ import annotations

import datetime as dt
import re
from enum import Enum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from lmrbench.budget import BudgetOverride
from lmrbench.records import Grading
from lmrbench.tasks.categories import Category

FORMAT_TAG = "lmrbench/1"


class Layout(str, Enum):
    """Which on-disk layout a task was loaded from."""

    LMRBENCH = "lmrbench"
    ORIGINAL = "original"


class ImplementationInfo(BaseModel):
    """One masked implementation in our info.json (a superset of the original's fields)."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=1, description="1-based index; the instance id is '<task_id>/<index>'.")
    instruction: str = Field(min_length=1, description="What to implement and where.")
    category: Category = Field(description="One of the nine canonical category names.")
    goal_file: str = Field(description="File holding the masked target(s), relative to the repository folder.")
    goal_function: str = Field(description="Name of the masked function, method or class.")
    class_name: str = Field(default="", description="Class holding goal_function, if it is a method.")
    targets: list[str] = Field(
        default_factory=list,
        description="Qualified names of every masked definition (ext). Defaults to class_name.goal_function. "
        "Upstream split: '<file>::<qualified name>' entries, over one or several files of the repository.",
    )
    golden_file: str = Field(default="", description="Reference goal file, relative to the task folder; absent "
                             "for the upstream split (the golden is the unmasked release in the cache).")
    retrieval_context: list[str] = Field(
        default_factory=list, description="Other repository files worth showing a solver, relative to the repo."
    )
    unit_test_file: str = Field(description="Hidden pytest file, relative to the task folder (differs from original).")

    def qualified_targets(self) -> list[str]:
        """The targets, defaulting to `class_name.goal_function`."""
        if self.targets:
            return list(self.targets)
        return [f"{self.class_name}.{self.goal_function}" if self.class_name else self.goal_function]

    def target_map(self) -> dict[str, list[str]]:
        """Goal files and their qualified targets: `file::name` entries grouped by file, in order; plain names
        belong to goal_file. The goal file comes first."""
        out: dict[str, list[str]] = {self.goal_file: []}
        for t in self.qualified_targets():
            file, sep, name = t.rpartition("::")
            out.setdefault(file if sep else self.goal_file, []).append(name)
        return {f: names for f, names in out.items() if names or f == self.goal_file}


Split = Literal["lite", "main", "upstream"]
Tier = Literal["feature", "system"]


class FirstRelease(BaseModel):
    """The first release of the package that shipped the targets (found by comparing releases)."""

    model_config = ConfigDict(extra="forbid")

    version: str = Field(min_length=1, description="The first version whose files hold the targets.")
    date: dt.date = Field(description="That version's upload date on the package index; `--since` uses it.")


class UpstreamInfo(BaseModel):
    """Upstream split: the pinned release a task masks (a recipe; no upstream code is committed)."""

    model_config = ConfigDict(extra="forbid")

    package: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$", description="Distribution name on PyPI.")
    version: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9.+!_-]*$", description="The pinned version.")
    filename: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+!-]*\.(whl|tar\.gz|zip)$",
                          description="The exact file (wheel or sdist) as the index lists it.")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of that file, as the index lists it.")
    import_root: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", description="The package folder placed at the "
                             "workspace root (`import <import_root>` imports the workspace copy).")
    tier: Tier = Field(description="'feature': the method's own code, >= 150 masked code lines; 'system': the "
                       "method with its integration, >= 500.")
    first_released: FirstRelease = Field(description="When the targets were first released.")
    remove: list[str] = Field(default_factory=list, description="Files deleted from the workspace (relative to its "
                              "root): siblings that compute a target's result by another route, reference copies.")
    preload: list[str] = Field(default_factory=list, description="Third-party modules a warm validation batch "
                               "imports once before it forks a child per job (e.g. 'torch', 'transformers'); never "
                               "the package itself. Speed only: verdicts do not depend on it.")

    @field_validator("preload")
    @classmethod
    def _not_the_package(cls, names: list[str], info: ValidationInfo) -> list[str]:
        root = info.data.get("import_root")
        for name in names:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*", name):
                raise ValueError(f"'{name}' is not a module name")
            if root and name.split(".")[0] == root:
                raise ValueError(f"'{name}' is the package itself: the workspace copy must be imported fresh")
        return names

    @property
    def is_wheel(self) -> bool:
        return self.filename.endswith(".whl")


class TaskInfo(BaseModel):
    """Our info.json. Unknown fields are rejected so that typos surface as errors."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["lmrbench/1"] = Field(description="Layout tag; tells the loader this is our layout.")
    task_id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", description="Equal to the task folder's name.")
    paper_name: str = Field(min_length=1, description="Title of the paper.")
    folder_name: str = Field(default="", description="Kept for compatibility with the original schema.")
    paper_url: str = Field(pattern=r"^https?://", description="Where the paper can be read.")
    year: int = Field(ge=1990, le=2100, description="Publication year.")
    publication_date: dt.date = Field(description="ISO date of the paper's first public version (ext).")
    repo_url: str = Field(default="", description="Authors' repository, informational only; never used.")
    repo_folder_name: str = Field(default="", description="The masked repository folder inside the task (absent "
                                  "for the upstream split: the masked release in the cache).")
    paper_file: str = Field(default="paper.md", description="Method description, relative to the task (ext).")
    tests_dir: str = Field(default="tests", description="Hidden tests folder, relative to the task (ext).")
    timeout_s: int = Field(default=120, ge=1, le=3600, description="Wall-clock limit of one evaluation (ext).")
    requirements: list[str] = Field(default_factory=list, description="Python packages the task imports (ext).")
    split: Split = Field(
        default="lite", description="'lite': the guided sanity split; 'main': written at the original's difficulty; "
        "'upstream': a method masked inside the pinned release of the library that shipped it (docs/upstream.md)."
    )
    upstream: UpstreamInfo | None = Field(default=None, description="The pinned release (upstream split only).")
    budget: BudgetOverride | None = Field(default=None, description="The agent budget of this task, where it "
                                          "differs from its split's default (src/lmrbench/budget.py).")
    implementations: list[ImplementationInfo] = Field(min_length=1, description="The masked implementations.")

    @model_validator(mode="after")
    def _split_fields(self) -> TaskInfo:
        if self.split == "upstream":
            if self.upstream is None:
                raise ValueError("an upstream task needs an 'upstream' block")
            if self.repo_folder_name:
                raise ValueError("an upstream task has no repo_folder_name (its repository is the masked release)")
            for impl in self.implementations:
                if impl.golden_file:
                    raise ValueError(f"implementation {impl.index}: an upstream task has no golden_file")
                if not impl.targets or any("::" not in t for t in impl.targets):
                    raise ValueError(f"implementation {impl.index}: upstream targets are '<file>::<name>' entries")
            return self
        if self.upstream is not None:
            raise ValueError(f"only the upstream split has an 'upstream' block (split is '{self.split}')")
        if not self.repo_folder_name:
            raise ValueError("repo_folder_name: the masked repository folder inside the task is required")
        missing = [i.index for i in self.implementations if not i.golden_file]
        if missing:
            raise ValueError(f"implementations {missing}: golden_file is required")
        return self

    @field_validator("implementations")
    @classmethod
    def _unique_indices(cls, impls: list[ImplementationInfo]) -> list[ImplementationInfo]:
        seen = [i.index for i in impls]
        if len(seen) != len(set(seen)):
            raise ValueError(f"implementation indices must be unique, got {seen}")
        return impls


class Implementation(BaseModel):
    """A scored instance, in layout-neutral form. Paths are absolute."""

    task_id: str
    index: int
    instruction: str
    category: Category | None = Field(description="None when the original's category string cannot be mapped.")
    raw_category: str = Field(default="", description="The category string as written in info.json.")
    goal_file: str = Field(description="Relative to the repository folder.")
    targets: list[str] = Field(description="Qualified names of the masked definitions; empty = whole file.")
    golden_file: Path | None
    retrieval_context: list[str] = Field(default_factory=list)
    unit_test_file: str = Field(description="Ours: relative to the task folder. Original: relative to the repo.")
    files: dict[str, list[str]] = Field(default_factory=dict, description="Upstream split: every goal file "
                                        "(relative to the repository) and its targets; empty = goal_file only.")
    golden_dir: Path | None = Field(default=None, description="Upstream split: the unmasked repository.")

    @property
    def instance_id(self) -> str:
        return f"{self.task_id}/{self.index}"

    @property
    def is_probe(self) -> bool:
        """Its hidden test is a probe file (`probe_*.py`): data out of the sandbox, compared outside it."""
        return Path(self.unit_test_file).name.startswith("probe_")

    def target_map(self) -> dict[str, list[str]]:
        """Every goal file and its targets (the goal file first)."""
        return dict(self.files) if self.files else {self.goal_file: list(self.targets)}

    def golden_path(self, rel: str) -> Path | None:
        """The golden (reference) version of a goal file, or None."""
        if self.golden_dir is not None:
            return self.golden_dir / rel
        return self.golden_file if rel == self.goal_file else None


class TaskEnv(BaseModel):
    """A task's own environment (`lmrbench env build`): its interpreter replaces the harness's for its tests."""

    python: Path = Field(description="The environment's interpreter.")
    root: Path = Field(description="The environment's folder; the sandbox shows it read-only.")
    key: str = Field(description="Hash of the requirement inputs and the Python version; names the folder.")
    paths: list[str] = Field(default_factory=list, description="Folders of the repository (relative to it) put "
                             "before it on sys.path: local packages the task's Dockerfile installs with pip.")
    failed: list[str] = Field(default_factory=list, description="Requirements that could not be installed.")
    substituted: list[str] = Field(default_factory=list, description="'asked -> installed': requirements replaced "
                                   "by a release that fits the harness's torch and numpy (envs/compat.py).")


class Task(BaseModel):
    """A loaded task: what every stage needs, whatever layout it came from."""

    task_id: str
    layout: Layout
    root: Path
    repo_dir: Path
    paper_name: str = ""
    paper_url: str = ""
    year: int | None = None
    publication_date: dt.date | None = None
    description_file: Path | None = Field(default=None, description="Our paper.md, when present.")
    paper_json: Path | None = Field(default=None, description="Original layout: per-page paper text.")
    paper_pdf: Path | None = Field(default=None, description="Original layout: the paper PDF.")
    tests_dir: Path | None = Field(default=None, description="Ours: hidden tests folder.")
    timeout_s: int = 120
    requirements: list[str] = Field(default_factory=list)
    split: Split | None = Field(default=None, description="Our layout's split; None for the original layout.")
    upstream: UpstreamInfo | None = Field(default=None, description="Upstream split: the pinned release.")
    budget: BudgetOverride | None = Field(default=None, description="info.json's own agent budget, if any.")
    implementations: list[Implementation]
    defect: str = Field(default="", description="Why no implementation of this task can be evaluated (original "
                        "layout: its repository is missing or an empty file); empty when it can.")
    env: TaskEnv | None = Field(default=None, description="Its own environment, once attached; None = the "
                                "harness's interpreter.")

    def implementation(self, index: int) -> Implementation:
        for impl in self.implementations:
            if impl.index == index:
                return impl
        raise KeyError(f"{self.task_id} has no implementation {index}")

    def equivalent_mutants_file(self, index: int) -> Path:
        """Mutants of implementation `index` the author showed equivalent (`wrong/<index>/equivalent_mutants.txt`:
        one `<mutant id>  <why it cannot be told apart>` per line); validation counts them apart."""
        return self.wrong_dir(index) / "equivalent_mutants.txt"

    def wrong_dir(self, index: int) -> Path:
        """Folder of the hand-written wrong variants of one implementation (ours only)."""
        return self.root / "wrong" / str(index)

    def grading(self, impl: Implementation) -> Grading:
        """Probe files are graded outside the sandbox; pytest files and the original layout inside."""
        if self.layout is Layout.ORIGINAL:
            return Grading.LEGACY
        return Grading.PROBE if impl.is_probe else Grading.PYTEST

    def test_rel(self, unit_test_file: str) -> Path:
        """A hidden test file (as an implementation names it, relative to the task) relative to the tests folder."""
        assert self.tests_dir is not None
        return Path(unit_test_file).relative_to(self.tests_dir.relative_to(self.root))

    def sandbox_files(self) -> list[Path]:
        """Files of the tests folder (relative to it) that may enter the sandbox: not the expected outputs, not
        the trusted checks (`check_*.py`)."""
        assert self.tests_dir is not None
        keep = []
        for path in sorted(self.tests_dir.rglob("*")):
            rel = path.relative_to(self.tests_dir)
            if not path.is_file() or "__pycache__" in rel.parts or rel.parts[0] == "expected":
                continue
            if path.name.startswith("check_") and path.suffix == ".py":
                continue
            keep.append(rel)
        return keep


class TaskFormatError(ValueError):
    """A malformed task file: names the file, the field and what was expected."""

    def __init__(self, file: Path, field: str, expected: str) -> None:
        self.file, self.field, self.expected = file, field, expected
        super().__init__(f"{file}: field '{field}': {expected}")


def format_validation_error(file: Path, err: ValidationError) -> TaskFormatError:
    """Turn pydantic's first error into a TaskFormatError that names file and field."""
    first = err.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or "<root>"
    got = first.get("input")
    detail = first["msg"]
    if got is not None and not isinstance(got, dict | list):
        detail += f" (got {got!r})"
    if len(err.errors()) > 1:
        detail += f"; and {len(err.errors()) - 1} more error(s)"
    return TaskFormatError(file, field, detail)
