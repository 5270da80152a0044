"""Build a fresh workspace from the masked repository and apply a prediction to it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from lmrbench.evaluate.models import Prediction
from lmrbench.tasks.schema import Layout, Task
from lmrbench.tasks.source import SourceError, splice_functions

# Files a prediction may never add: they would run code before or around the hidden tests.
FORBIDDEN_NAMES = {"sitecustomize.py", "usercustomize.py"}
FORBIDDEN_SUFFIXES = {".pth"}


class InvalidPrediction(ValueError):
    """The prediction cannot be applied; the message says why."""


def make_workspace(task: Task, dest: Path) -> Path:
    """A fresh copy of the masked repository (no golden files, no hidden tests)."""
    if dest.exists():
        shutil.rmtree(dest)
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
        try:
            text = path.read_bytes().decode("utf-8")  # bytes, so CRLF files keep their line endings
            text = splice_functions(text, defs)
        except (SourceError, UnicodeDecodeError) as exc:
            raise InvalidPrediction(f"{rel}: {exc}") from exc
        path.write_bytes(text.encode("utf-8"))


def _apply_diff(diff: str, ws: Path) -> None:
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
    out = []
    for path in task.repo_dir.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(task.repo_dir)
        is_test = task.layout is Layout.ORIGINAL and rel.parts[0] == "unit_test"
        if is_test or path.suffix != ".py":
            out.append(rel)
    return out


def restore_protected(task: Task, ws: Path) -> list[str]:
    """Put protected files back, remove forbidden ones; returns what had been tampered with."""
    touched = []
    for rel in protected_files(task):
        pristine, here = task.repo_dir / rel, ws / rel
        if not here.is_file() or here.read_bytes() != pristine.read_bytes():
            touched.append(str(rel))
            here.parent.mkdir(parents=True, exist_ok=True)
            if here.is_dir():
                shutil.rmtree(here)
            shutil.copyfile(pristine, here)
    for path in list(ws.rglob("*")):
        if path.is_file() and (path.name in FORBIDDEN_NAMES or path.suffix in FORBIDDEN_SUFFIXES):
            touched.append(str(path.relative_to(ws)))
            path.unlink()
    return touched


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
