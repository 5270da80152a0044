"""External agents: export ready workspaces, and turn revised workspaces back into predictions."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lmrbench.diffs import unified_diff
from lmrbench.evaluate.apply import make_workspace
from lmrbench.papers import PaperMode, paper_text
from lmrbench.records import Prediction
from lmrbench.rundir import export_name
from lmrbench.safefs import read_beneath
from lmrbench.solvers.agent import instructions_text, task_budget
from lmrbench.solvers.extract import ExtractionError, extract_from_code
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.schema import Implementation
from lmrbench.tasks.source import SourceError, is_stub, splice_functions

META = ".lmrbench.json"
EXTRA_FILES = {META, "paper.md", "INSTRUCTIONS.md"}


def export_workspaces(tasks: TaskSet, out: Path, patterns: list[str] | None = None,
                      papers_dir: Path | None = None, paper: PaperMode = "full") -> list[Path]:
    """One folder per implementation: the masked repository, paper.md and INSTRUCTIONS.md (which states the task's
    budget, the same one `lmrbench run --solver agent` runs under)."""
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for impl in tasks.select(patterns):
        task = tasks.task(impl.task_id)
        ws = make_workspace(task, out / export_name(impl.instance_id))
        clash = [name for name in EXTRA_FILES if (ws / name).exists()]
        if clash:
            raise ValueError(f"{impl.instance_id}: the repository already has {clash}")
        text = paper_text(task, papers_dir, paper)
        (ws / "paper.md").write_text(text.text, encoding="utf-8")
        (ws / "INSTRUCTIONS.md").write_text(instructions_text(task, impl) + "\nDo not edit paper.md, "
                                            "INSTRUCTIONS.md or .lmrbench.json.\n", encoding="utf-8")
        meta = {"instance_id": impl.instance_id, "goal_file": impl.goal_file, "targets": impl.targets,
                "paper_source": text.source} | ({"files": impl.target_map()} if impl.files else {})
        (ws / META).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        made.append(ws)
    return made


SKIPPED_PARTS = {"__pycache__", ".git"}


def _files(root: Path) -> tuple[set[str], list[str]]:
    """Regular files under root (relative), and the symlinks found there, which are never followed or read."""
    files, links = set(), []
    for folder, dirs, names in os.walk(root, followlinks=False):
        here = Path(folder)
        for name in sorted(dirs):
            if (here / name).is_symlink():
                links.append(str((here / name).relative_to(root)))
        dirs[:] = [d for d in dirs if d not in SKIPPED_PARTS and not (here / d).is_symlink()]
        for name in names:
            path = here / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                links.append(rel)
            elif path.is_file() and not name.endswith(".pyc"):
                files.add(rel)
    return files, sorted(links)


MAX_FILE_BYTES = 16 * 1024 * 1024


def _read(root: Path, rel: str) -> bytes:
    """A workspace file, opened below `root` without following any link, at most MAX_FILE_BYTES (else UnsafePath:
    a link swapped in after the walk, a hard link, a special or oversized file)."""
    return read_beneath(root, rel, MAX_FILE_BYTES)


def _under(rel: str, links: list[str]) -> bool:
    return any(rel == link or rel.startswith(link + "/") for link in links)


def _changed(pristine: Path, revised: Path) -> tuple[list[str], list[str]]:
    """Files that differ (added, removed or edited), and the workspace's symlinks, which are skipped."""
    before, _ = _files(pristine)
    after, links = _files(revised)
    out = []
    for rel in sorted((before | after) - EXTRA_FILES):
        if _under(rel, links):
            continue
        if rel not in before or rel not in after or (pristine / rel).read_bytes() != _read(revised, rel):
            out.append(rel)
    return out, links


def _lines(root: Path, rel: str, present: bool) -> list[str]:
    return _read(root, rel).decode("utf-8", errors="replace").splitlines(keepends=True) if present else []


def _diff(pristine: Path, revised: Path, rels: list[str]) -> str:
    """A unified diff of the given files; only regular files are read (`_files` lists them)."""
    before, after = _files(pristine)[0], _files(revised)[0]
    chunks = []
    for rel in rels:
        in_a, in_b = rel in before, rel in after
        fa, fb = (f"a/{rel}" if in_a else "/dev/null"), (f"b/{rel}" if in_b else "/dev/null")
        chunks.append(unified_diff(_lines(pristine, rel, in_a), _lines(revised, rel, in_b), fa, fb))
    return "".join(chunks)


def goal_functions(impl: Implementation, pristine: str, revised: str) -> dict[str, str] | None:
    """Targets plus module additions for a revised goal file, when splicing them gives back exactly that file."""
    try:
        if any(is_stub(revised, t) for t in impl.targets):
            return None
        code = revised.replace("\r\n", "\n")  # entries are LF; splicing writes the file's own line endings
        found = extract_from_code([code], [code], impl.targets, pristine)
        entry = found.entry()
        return entry if splice_functions(pristine, entry) == revised else None
    except (SourceError, ExtractionError):
        return None  # does not parse, or a target is missing: the diff carries it as it is


def prediction_from_dir(tasks: TaskSet, ws: Path, model: str, sample: int = 0) -> Prediction:
    """Exactly what changed: the targets and module additions when only the goal file changed and they
    reproduce it byte for byte, else a diff of every changed file. Symlinks are skipped, never followed."""
    if ws.is_symlink() or (ws / META).is_symlink():
        raise ValueError(f"{ws}: a symlinked workspace or {META} is not read")
    meta = json.loads(_read(ws, META))
    task, impl = tasks.resolve(meta["instance_id"])
    changed, links = _changed(task.repo_dir, ws)
    # the budget INSTRUCTIONS.md stated; what the outside agent used of it is not measured here (None)
    base: dict[str, Any] = {"instance_id": impl.instance_id, "model": model, "sample": sample,
                            "meta": {"solver": "external", "source_dir": str(ws), "changed": changed,
                                     "skipped_symlinks": links, "budget": task_budget(task)}}
    if not changed:
        return Prediction(**base, functions={})
    if changed == [impl.goal_file] and impl.targets:
        goal = impl.goal_file
        revised = _read(ws, goal).decode("utf-8", errors="replace")
        entry = goal_functions(impl, (task.repo_dir / goal).read_bytes().decode("utf-8"), revised)
        if entry is not None:
            return Prediction(**base, functions={goal: entry})
    return Prediction(**base, diff=_diff(task.repo_dir, ws, changed))


def predictions_from_dirs(tasks: TaskSet, root: Path, model: str) -> list[Prediction]:
    """A prediction per exported workspace under root; symlinked workspaces are skipped, never followed."""
    dirs = sorted(p.parent for p in root.glob(f"*/{META}") if not p.is_symlink() and not p.parent.is_symlink())
    if not dirs:
        raise FileNotFoundError(f"no exported workspaces (folders with {META}) under {root}")
    return [prediction_from_dir(tasks, d, model) for d in dirs]
