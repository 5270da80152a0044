"""Build a fresh workspace from the masked repository and apply a prediction to it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from lmrbench.evaluate.models import Prediction
from lmrbench.tasks.schema import Layout, Task
from lmrbench.tasks.source import IMPORTS_KEY, SourceError, add_imports, definition_in, extract, splice

# Files a prediction may never add: they would run code before or around the hidden tests.
FORBIDDEN_NAMES = {"sitecustomize.py", "usercustomize.py"}
FORBIDDEN_SUFFIXES = {".pth"}


class InvalidPrediction(ValueError):
    """The prediction cannot be applied; the message says why."""


def make_workspace(task: Task, dest: Path) -> Path:
    """A fresh copy of the masked repository (no golden files, no hidden tests).

    A task whose repository is missing or not a folder (the original's 0-byte submodule links) gets an empty
    workspace; evaluating it is refused later with the task's recorded defect.
    """
    if dest.exists():
        shutil.rmtree(dest)
    if not task.repo_dir.is_dir():
        dest.mkdir(parents=True)
        return dest
    shutil.copytree(task.repo_dir, dest, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def _inside(root: Path, rel: str) -> Path:
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()):
        raise InvalidPrediction(f"path '{rel}' escapes the repository")
    return path


def _apply_functions(functions: dict[str, dict[str, str]], ws: Path) -> None:
    for rel, defs in functions.items():
        path = _inside(ws, rel)
        if not path.is_file():
            raise InvalidPrediction(f"file '{rel}' is not in the repository")
        text = path.read_text(encoding="utf-8")
        if IMPORTS_KEY in defs:
            text = add_imports(text, defs[IMPORTS_KEY])
        for qualname, src in defs.items():
            if qualname == IMPORTS_KEY:
                continue
            try:
                text = splice(text, qualname, definition_in(src, qualname))
            except SourceError as exc:
                raise InvalidPrediction(f"{rel}: {qualname}: {exc}") from exc
        path.write_text(text, encoding="utf-8")


def _apply_diff(diff: str, ws: Path) -> None:
    if not diff.strip():
        return  # an empty diff changes nothing (the original's reference when its goal file equals the golden)
    patch = ws.parent / f"{ws.name}.patch"
    patch.write_text(diff if diff.endswith("\n") else diff + "\n", encoding="utf-8")
    try:
        for strip in ("-p1", "-p0"):
            proc = subprocess.run(
                ["git", "apply", strip, "--whitespace=nowarn", str(patch)], cwd=ws, capture_output=True, text=True
            )
            if proc.returncode == 0:
                return
        raise InvalidPrediction(f"diff does not apply: {proc.stderr.strip().splitlines()[-1:]}")
    finally:
        patch.unlink(missing_ok=True)


def _apply_repo_dir(repo_dir: str, ws: Path) -> None:
    src = Path(repo_dir)
    if not src.is_dir():
        raise InvalidPrediction(f"repo_dir '{repo_dir}' is not a folder")
    shutil.rmtree(ws)
    # Symlinks are dropped: they could point at files outside the workspace.
    shutil.copytree(src, ws, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".git"))
    for path in sorted(ws.rglob("*"), reverse=True):
        if path.is_symlink():
            path.unlink()


def protected_files(task: Task) -> list[Path]:
    """Repository files restored to pristine after applying a prediction: data, fixtures, original unit tests."""
    out: list[Path] = []
    if not task.repo_dir.is_dir():
        return out
    for path in task.repo_dir.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(task.repo_dir)
        is_test = task.layout is Layout.ORIGINAL and rel.parts[0] == "unit_test"
        if is_test or path.suffix != ".py":
            out.append(rel)
    return out


def _protected_goals(task: Task, protected: list[Path]) -> dict[Path, list[str]]:
    """Goal files that are also protected (the original's functions masked inside its unit-test files)."""
    goals: dict[Path, list[str]] = {}
    for impl in task.implementations:
        rel = Path(impl.goal_file)
        if rel in protected:
            goals.setdefault(rel, []).extend(impl.targets)
    return goals


def _candidate_goals(goals: dict[Path, list[str]], ws: Path) -> dict[Path, str]:
    out = {}
    for rel in goals:
        path = ws / rel
        if path.is_file() and not path.is_symlink():
            out[rel] = path.read_text(encoding="utf-8", errors="replace")
    return out


def _resplice(goals: dict[Path, list[str]], candidates: dict[Path, str], task: Task, ws: Path) -> list[str]:
    """Put the candidate's target definitions into the restored pristine goal files; the rest stays pristine."""
    notes = []
    for rel, targets in goals.items():
        cand = candidates.get(rel)
        pristine = (task.repo_dir / rel).read_text(encoding="utf-8")
        if cand is None or cand == pristine:
            continue
        if not targets:  # the whole file is the target
            (ws / rel).write_text(cand, encoding="utf-8")
            continue
        text = pristine
        try:
            for t in dict.fromkeys(targets):
                text = splice(text, t, extract(cand, t))
        except SourceError as exc:
            notes.append(f"{rel} (targets not taken: {exc})")
            continue
        (ws / rel).write_text(text, encoding="utf-8")
    return notes


def _fresh_path(ws: Path, rel: Path) -> Path:
    """`ws/rel` with nothing at it and real folders above it: a symlink planted by a prediction is removed, never
    followed (the restore runs outside the sandbox)."""
    here = ws
    for part in rel.parts[:-1]:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            here.unlink()
        here.mkdir(exist_ok=True)
    here = here / rel.parts[-1]
    if here.is_symlink() or here.is_file():
        here.unlink()
    elif here.is_dir():
        shutil.rmtree(here)
    return here


def restore_protected(task: Task, ws: Path) -> list[str]:
    """Put protected files back, remove forbidden ones; returns what had been tampered with.

    A goal file inside a protected folder keeps the candidate's target definitions: only the rest is restored.
    """
    protected = protected_files(task)
    goals = _protected_goals(task, protected)
    candidates = _candidate_goals(goals, ws)
    touched = []
    for rel in protected:
        if rel in goals:
            continue
        pristine, here = task.repo_dir / rel, ws / rel
        if here.is_symlink() or not here.is_file() or here.read_bytes() != pristine.read_bytes():
            touched.append(str(rel))
            shutil.copyfile(pristine, _fresh_path(ws, rel))
    for path in list(ws.rglob("*")):
        if path.is_file() and (path.name in FORBIDDEN_NAMES or path.suffix in FORBIDDEN_SUFFIXES):
            touched.append(str(path.relative_to(ws)))
            path.unlink()
    for rel in goals:
        shutil.copyfile(task.repo_dir / rel, _fresh_path(ws, rel))
    return touched + _resplice(goals, candidates, task, ws)


def apply_prediction(pred: Prediction, ws: Path) -> None:
    """Apply one prediction in place; raises InvalidPrediction."""
    if pred.error is not None:
        raise InvalidPrediction(f"generation failed: {pred.error}")
    if pred.functions is not None:
        _apply_functions(pred.functions, ws)
    elif pred.diff is not None:
        _apply_diff(pred.diff, ws)
    elif pred.repo_dir is not None:
        _apply_repo_dir(pred.repo_dir, ws)
