"""External agents: export ready workspaces, and turn revised workspaces back into predictions."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from lmrbench.evaluate.apply import make_workspace
from lmrbench.evaluate.models import Prediction
from lmrbench.papers import paper_text
from lmrbench.safefs import UnsafePath, read_beneath, walk_files
from lmrbench.solvers.agent import instructions_text
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.source import SourceError, extract, is_stub

META = ".lmrbench.json"
EXTRA_FILES = {META, "paper.md", "INSTRUCTIONS.md"}
SKIP = frozenset({"__pycache__", ".git"})
MAX_FILE_BYTES = 16 * 1024 * 1024


def export_workspaces(tasks: TaskSet, out: Path, patterns: list[str] | None = None,
                      papers_dir: Path | None = None) -> list[Path]:
    """One folder per implementation: the masked repository, paper.md and INSTRUCTIONS.md."""
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for impl in tasks.select(patterns):
        task = tasks.task(impl.task_id)
        ws = make_workspace(task, out / impl.instance_id.replace("/", "__"))
        clash = [name for name in EXTRA_FILES if (ws / name).exists()]
        if clash:
            raise ValueError(f"{impl.instance_id}: the repository already has {clash}")
        paper = paper_text(task, papers_dir)
        (ws / "paper.md").write_text(paper.text, encoding="utf-8")
        (ws / "INSTRUCTIONS.md").write_text(instructions_text(task, impl) + "\nDo not edit paper.md, "
                                            "INSTRUCTIONS.md or .lmrbench.json.\n", encoding="utf-8")
        meta = {"instance_id": impl.instance_id, "goal_file": impl.goal_file, "targets": impl.targets,
                "paper_source": paper.source}
        (ws / META).write_text(json.dumps(meta, indent=2), encoding="utf-8")
        made.append(ws)
    return made


def _read(root: Path, rel: str) -> bytes | None:
    """A workspace file (never through a link, at most MAX_FILE_BYTES), or None when it is not there."""
    try:
        return read_beneath(root, rel, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None


def _changed(pristine: Path, revised: Path) -> list[str]:
    """Files that differ; the revised folder is read without following links (UnsafePath on any)."""
    rels = {p.relative_to(pristine).as_posix() for p in pristine.rglob("*") if p.is_file()}
    rels |= set(walk_files(revised, SKIP))
    out = []
    for rel in sorted(rels):
        if rel in EXTRA_FILES or "__pycache__" in rel.split("/"):
            continue
        a = (pristine / rel).read_bytes() if (pristine / rel).is_file() else None
        if a is None or a != _read(revised, rel):
            out.append(rel)
    return out


def _diff(pristine: Path, revised: Path, rels: list[str]) -> str:
    chunks = []
    for rel in rels:
        a = (pristine / rel).read_bytes() if (pristine / rel).is_file() else None
        b = _read(revised, rel)
        old = a.decode("utf-8", errors="replace").splitlines(keepends=True) if a is not None else []
        new = b.decode("utf-8", errors="replace").splitlines(keepends=True) if b is not None else []
        fa = f"a/{rel}" if a is not None else "/dev/null"
        fb = f"b/{rel}" if b is not None else "/dev/null"
        chunks.append("".join(difflib.unified_diff(old, new, fa, fb)))
    return "".join(chunks)


def _from_dir(tasks: TaskSet, ws: Path, model: str, sample: int) -> Prediction:
    if ws.is_symlink():
        raise UnsafePath(f"'{ws.name}' is a symlink")
    meta = json.loads(read_beneath(ws, META, 1024 * 1024))
    task, impl = tasks.resolve(str(meta["instance_id"]))
    changed = _changed(task.repo_dir, ws)
    base: dict[str, Any] = {"instance_id": impl.instance_id, "model": model, "sample": sample,
            "meta": {"solver": "external", "source_dir": str(ws), "changed": changed}}
    if changed == [impl.goal_file] and impl.targets:
        text = (_read(ws, impl.goal_file) or b"").decode("utf-8", errors="replace")
        try:
            if not any(is_stub(text, t) for t in impl.targets):
                return Prediction(**base, functions={impl.goal_file: {t: extract(text, t) for t in impl.targets}})
        except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError):
            pass  # does not parse: the diff carries it as it is
    if not changed:
        return Prediction(**base, functions={})
    return Prediction(**base, diff=_diff(task.repo_dir, ws, changed))


def prediction_from_dir(tasks: TaskSet, ws: Path, model: str, sample: int = 0) -> Prediction:
    """Form (a) when only the goal file changed and every target is implemented; else a diff of the changes.

    The folder is model-written: a link, hard link, special file or over-large file anywhere in it makes the
    prediction an error (recorded as invalid at evaluation), never a read of what it points at."""
    try:
        return _from_dir(tasks, ws, model, sample)
    except (UnsafePath, OSError, ValueError, KeyError, TypeError) as exc:
        meta = {"solver": "external", "source_dir": str(ws)}
        return Prediction(instance_id=_instance_hint(ws), model=model, sample=sample, meta=meta,
                          error=f"workspace {ws.name}: {type(exc).__name__}: {str(exc)[:300]}")


def _instance_hint(ws: Path) -> str:
    """The instance id an exported folder is named after ('dpo__1' -> 'dpo/1')."""
    task_id, _, index = ws.name.rpartition("__")
    return f"{task_id}/{index}" if task_id and index.isdigit() else ws.name


def predictions_from_dirs(tasks: TaskSet, root: Path, model: str) -> list[Prediction]:
    dirs = sorted(p.parent for p in root.glob(f"*/{META}"))
    if not dirs:
        raise FileNotFoundError(f"no exported workspaces (folders with {META}) under {root}")
    return [prediction_from_dir(tasks, d, model) for d in dirs]
