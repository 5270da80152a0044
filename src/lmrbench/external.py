"""External agents: export ready workspaces, and turn revised workspaces back into predictions."""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

from lmrbench.evaluate.apply import make_workspace
from lmrbench.evaluate.models import Prediction
from lmrbench.papers import paper_text
from lmrbench.solvers.agent import instructions_text
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.source import SourceError, extract, is_stub

META = ".lmrbench.json"
EXTRA_FILES = {META, "paper.md", "INSTRUCTIONS.md"}


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


def _changed(pristine: Path, revised: Path) -> list[str]:
    rels = {p.relative_to(pristine) for p in pristine.rglob("*") if p.is_file()}
    rels |= {p.relative_to(revised) for p in revised.rglob("*") if p.is_file()}
    out = []
    for rel in sorted(rels):
        if str(rel) in EXTRA_FILES or "__pycache__" in rel.parts:
            continue
        a, b = pristine / rel, revised / rel
        if not a.is_file() or not b.is_file() or a.read_bytes() != b.read_bytes():
            out.append(str(rel))
    return out


def _diff(pristine: Path, revised: Path, rels: list[str]) -> str:
    chunks = []
    for rel in rels:
        a, b = pristine / rel, revised / rel
        old = a.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True) if a.is_file() else []
        new = b.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True) if b.is_file() else []
        fa = f"a/{rel}" if a.is_file() else "/dev/null"
        fb = f"b/{rel}" if b.is_file() else "/dev/null"
        chunks.append("".join(difflib.unified_diff(old, new, fa, fb)))
    return "".join(chunks)


def prediction_from_dir(tasks: TaskSet, ws: Path, model: str, sample: int = 0) -> Prediction:
    """Form (a) when only the goal file changed and every target is implemented; else a diff of the changes."""
    meta = json.loads((ws / META).read_text(encoding="utf-8"))
    task, impl = tasks.resolve(meta["instance_id"])
    changed = _changed(task.repo_dir, ws)
    base: dict[str, Any] = {"instance_id": impl.instance_id, "model": model, "sample": sample,
            "meta": {"solver": "external", "source_dir": str(ws), "changed": changed}}
    if changed == [impl.goal_file] and impl.targets:
        text = (ws / impl.goal_file).read_text(encoding="utf-8")
        try:
            if not any(is_stub(text, t) for t in impl.targets):
                return Prediction(**base, functions={impl.goal_file: {t: extract(text, t) for t in impl.targets}})
        except SourceError:
            pass  # does not parse: the diff carries it as it is
    if not changed:
        return Prediction(**base, functions={})
    return Prediction(**base, diff=_diff(task.repo_dir, ws, changed))


def predictions_from_dirs(tasks: TaskSet, root: Path, model: str) -> list[Prediction]:
    dirs = sorted(p.parent for p in root.glob(f"*/{META}"))
    if not dirs:
        raise FileNotFoundError(f"no exported workspaces (folders with {META}) under {root}")
    return [prediction_from_dir(tasks, d, model) for d in dirs]
