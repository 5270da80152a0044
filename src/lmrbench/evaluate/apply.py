"""Build a fresh workspace from the masked repository and apply a prediction to it."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from lmrbench.records import Prediction
from lmrbench.safefs import UnsafePath, read_beneath, walk_files
from lmrbench.tasks.schema import Layout, Task
from lmrbench.tasks.source import SourceError, TimeLimit, check_deadline, extract, splice, splice_functions

# Files a prediction may never add: they would run code before or around the hidden tests.
FORBIDDEN_NAMES = {"sitecustomize.py", "usercustomize.py"}
FORBIDDEN_SUFFIXES = {".pth"}
# Top-level names the harness and the sandbox make in a workspace (hidden tests, results, HOME, TMPDIR).
RESERVED = ("_hidden_tests", "_lmrbench_out", ".home", ".tmp")
# What a repo_dir prediction may bring in.
REPO_SKIP = frozenset({"__pycache__", ".git"})
PSEUDO_FILESYSTEMS = ("/proc", "/sys", "/dev")
MAX_REPO_FILES = 20_000
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_REPO_BYTES = 1024 * 1024 * 1024
# How long applying one prediction may take by default (splicing, `git apply`, copying a repo_dir).
PREPARE_TIME_LIMIT_S = 60.0
# Errors the source tools raise on hostile code (a 100,000-term expression overflows the parser's recursion).
SOURCE_ERRORS = (SourceError, SyntaxError, ValueError, RecursionError, MemoryError)


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
    try:
        path = (root / rel).resolve()
    except (OSError, ValueError, RuntimeError) as exc:
        raise InvalidPrediction(f"path '{rel[:200]}' is not a usable file name") from exc
    if not path.is_relative_to(root.resolve()):
        raise InvalidPrediction(f"path '{rel}' escapes the repository")
    return path


def _apply_functions(functions: dict[str, dict[str, str]], ws: Path, deadline: float) -> None:
    for rel, defs in functions.items():
        path = _inside(ws, rel)
        if not path.is_file():
            raise InvalidPrediction(f"file '{rel}' is not in the repository")
        try:
            text = path.read_bytes().decode("utf-8")  # bytes, so CRLF files keep their line endings
            text = splice_functions(text, defs, deadline)
        except UnicodeDecodeError as exc:
            raise InvalidPrediction(f"{rel}: {exc}") from exc
        except TimeLimit as exc:
            raise TimeLimit(f"splicing {len(defs):,} entries into {rel}") from exc
        except SOURCE_ERRORS as exc:
            raise InvalidPrediction(f"{rel}: {type(exc).__name__}: {str(exc)[:300]}") from exc
        try:
            path.write_bytes(text.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise InvalidPrediction(f"{rel}: not valid UTF-8 text ({exc.reason})") from exc


def _git_env(ws: Path) -> dict[str, str]:
    """git without the caller's GIT_* settings, and never discovering a repository above the workspace."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    return env | {"GIT_CEILING_DIRECTORIES": str(ws.parent), "GIT_CONFIG_NOSYSTEM": "1"}


def _apply_diff(diff: str, ws: Path, deadline: float | None = None) -> None:
    if not diff.strip():
        return  # an empty diff changes nothing (the original's reference when its goal file equals the golden)
    patch = ws.parent / f"{ws.name}.patch"
    try:
        patch.write_text(diff if diff.endswith("\n") else diff + "\n", encoding="utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidPrediction(f"diff is not valid UTF-8 text ({exc.reason})") from exc
    first_error = ""
    limit = 120.0 if deadline is None else max(0.1, min(120.0, deadline - time.monotonic()))
    try:
        for strip in ("-p1", "-p0"):
            proc = subprocess.run(["git", "apply", strip, "--whitespace=nowarn", str(patch)], cwd=ws,
                                  capture_output=True, text=True, errors="replace", env=_git_env(ws), timeout=limit)
            if proc.returncode == 0:
                return
            # -p1 is the usual form; its message is the useful one
            first_error = first_error or _git_message(proc.stderr)
        raise InvalidPrediction(f"diff does not apply: {first_error}")
    except subprocess.TimeoutExpired as exc:
        raise TimeLimit(f"git apply took over {limit:.0f} s") from exc
    finally:
        patch.unlink(missing_ok=True)


def _git_message(stderr: str) -> str:
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error:")]
    return "; ".join((errors or lines or ["(no message)"])[:3])[:500]


def _apply_repo_dir(repo_dir: str, ws: Path, repo_root: Path | None, deadline: float | None = None) -> None:
    if repo_root is None:
        raise InvalidPrediction("repo_dir predictions are read only under a folder you name (--repo-root)")
    try:
        root, src = repo_root.resolve(strict=True), Path(repo_dir).resolve(strict=True)
    except (OSError, RuntimeError, ValueError) as exc:
        raise InvalidPrediction(f"repo_dir '{repo_dir[:300]}' does not exist") from exc
    if not src.is_relative_to(root):
        raise InvalidPrediction(f"repo_dir '{repo_dir[:300]}' is not under the repo root {root}")
    if any(src == Path(p) or src.is_relative_to(p) for p in PSEUDO_FILESYSTEMS):
        raise InvalidPrediction(f"repo_dir '{repo_dir[:300]}' is a special folder")
    if not src.is_dir():
        raise InvalidPrediction(f"repo_dir '{repo_dir[:300]}' is not a folder")
    shutil.rmtree(ws)
    ws.mkdir()
    total = 0
    try:
        for rel in walk_files(src, REPO_SKIP, MAX_REPO_FILES):
            check_deadline(deadline)
            if rel.endswith(".pyc"):
                continue
            data = read_beneath(src, rel, MAX_FILE_BYTES)
            total += len(data)
            if total > MAX_REPO_BYTES:
                raise UnsafePath(f"more than {MAX_REPO_BYTES:,} bytes in all")
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_bytes(data)
    except (UnsafePath, OSError) as exc:
        raise InvalidPrediction(f"repo_dir: {exc}") from exc


def check_tree(ws: Path) -> None:
    """After applying: no links, hard links or special files anywhere, and no reserved top-level name."""
    for name in RESERVED:
        if os.path.lexists(ws / name):
            raise InvalidPrediction(f"the prediction made '{name}', a name the harness reserves")
    try:
        for _ in walk_files(ws, frozenset({"__pycache__"})):
            pass
    except UnsafePath as exc:
        raise InvalidPrediction(f"the prediction made {exc}") from exc


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
        try:
            if here.is_symlink() or not here.is_file() or here.read_bytes() != pristine.read_bytes():
                touched.append(str(rel))
                shutil.copyfile(pristine, _fresh_path(ws, rel))
        except OSError as exc:
            raise InvalidPrediction(f"cannot restore protected file '{rel}': {exc.strerror}") from exc
    for path in list(ws.rglob("*")):
        if path.is_file() and (path.name in FORBIDDEN_NAMES or path.suffix in FORBIDDEN_SUFFIXES):
            touched.append(str(path.relative_to(ws)))
            path.unlink()
    for rel in goals:
        shutil.copyfile(task.repo_dir / rel, _fresh_path(ws, rel))
    return touched + _resplice(goals, candidates, task, ws)


def apply_prediction(pred: Prediction, ws: Path, repo_root: Path | None = None,
                     time_limit_s: float = PREPARE_TIME_LIMIT_S) -> None:
    """Apply one prediction in place, then refuse links and special files; raises InvalidPrediction.

    A repo_dir prediction is read only when it lies under `repo_root`. Applying it takes at most `time_limit_s`
    (checked between splice steps and files; `git apply` is stopped): past it, the prediction is invalid."""
    if pred.error is not None:
        raise InvalidPrediction(f"generation failed: {pred.error[:500]}")
    deadline = time.monotonic() + time_limit_s
    try:
        if pred.functions is not None:
            _apply_functions(pred.functions, ws, deadline)
        elif pred.diff is not None:
            _apply_diff(pred.diff, ws, deadline)
        elif pred.repo_dir is not None:
            _apply_repo_dir(pred.repo_dir, ws, repo_root, deadline)
    except TimeLimit as exc:
        raise InvalidPrediction(f"preparation took longer than its time limit of {time_limit_s:g} s ({exc}); "
                                "a prediction must apply within it") from exc
    check_tree(ws)
