"""Trusted evidence for environment errors: which modules the task's own code needs that its environment lacks.

A run's output is the candidate's to write: it can raise `ModuleNotFoundError("No module named 'flash_attn'")`
itself. So a missing module makes a result an `error` (not measured) only when evidence the candidate cannot fake
says the reference would fail the same way here: the module is imported by the task's own code (the pristine
masked repository, the reference's golden files, the hidden tests or probes) and the harness itself, outside any
sandbox, finds it absent from the interpreter the tests run with. Anything else is the candidate's `failed`.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from lmrbench.tasks.schema import Task

FIND_SPEC = (
    "import importlib.util, json, sys\n"
    "def absent(name):\n"
    "    try:\n"
    "        return importlib.util.find_spec(name) is None\n"
    "    except Exception:\n"
    "        return False\n"
    "print(json.dumps([n for n in sys.argv[1:] if absent(n)]))\n"
)
MAX_SOURCE_BYTES = 4 * 1024 * 1024
HARNESS_MODULES = {"lmrbench_probe", "pytest_results_plugin"}  # placed beside the probes and tests at run time
_CACHE: dict[tuple[str, str], frozenset[str]] = {}
_LOCK = threading.Lock()


def _imports(path: Path) -> set[str]:
    """Top-level names of a file's absolute imports (nothing when it does not parse)."""
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return set()
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _top_level(folder: Path) -> set[str]:
    if not folder.is_dir():
        return set()
    return {p.stem if p.is_file() else p.name for p in folder.iterdir() if p.suffix == ".py" or p.is_dir()}


def _task_files(task: Task) -> tuple[list[Path], set[str]]:
    """(the task's own Python files, the module names they find locally: the repository's, the tests')."""
    files: list[Path] = []
    local = _top_level(task.repo_dir) | _top_level(task.root / "golden_files")
    if task.repo_dir.is_dir():
        files += [p for p in task.repo_dir.rglob("*.py") if p.is_file() and not p.is_symlink()]
    for folder in ([task.tests_dir] if task.tests_dir is not None else []):
        # what enters the sandbox: not the trusted checks (run by the harness), not the expected outputs
        files += [p for p in folder.rglob("*.py") if p.is_file() and not p.name.startswith("check_")
                  and p.relative_to(folder).parts[0] != "expected"]
        local |= _top_level(folder)
    for impl in task.implementations:
        if impl.golden_file is not None and impl.golden_file.is_file():
            files.append(impl.golden_file)
    if task.env is not None:
        for sub in task.env.paths:
            local |= _top_level(task.repo_dir / sub)
    return files, local


def needed_modules(task: Task) -> set[str]:
    """Third-party top-level modules the task's own code imports (standard library and local modules left out)."""
    files, local = _task_files(task)
    names: set[str] = set().union(*(_imports(f) for f in files)) if files else set()
    return {n for n in names - local - HARNESS_MODULES if n not in sys.stdlib_module_names and n.isidentifier()}


def absent_modules(python: str, names: set[str]) -> set[str]:
    """The names that `python` cannot find (checked in a process of its own, no candidate code involved)."""
    if not names:
        return set()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    try:
        # -I: no PYTHON* variables, no user site, no current folder on sys.path (the sandbox scrubs these too)
        proc = subprocess.run([python, "-I", "-c", FIND_SPEC, *sorted(names)], capture_output=True, text=True,
                              timeout=120, env=env, cwd="/")
        found = json.loads(proc.stdout) if proc.returncode == 0 else []
    except (OSError, subprocess.SubprocessError, ValueError):
        return set()  # no evidence: a missing module stays the candidate's failure
    return {str(n) for n in found if n in names}


def lacking_modules(task: Task) -> frozenset[str]:
    """Modules the task's own code needs and its test interpreter lacks (computed once per task and environment)."""
    python = str(task.env.python) if task.env is not None else sys.executable
    key = (str(task.root), python + (task.env.key if task.env is not None else ""))
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    found = frozenset(absent_modules(python, needed_modules(task)))
    with _LOCK:
        _CACHE[key] = found
    return found


class Lacking:
    """`lacking_modules(task)` computed on first use (only a run that reports a missing module needs it)."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.computed: frozenset[str] | None = None

    def __contains__(self, name: object) -> bool:
        if self.computed is None:
            self.computed = lacking_modules(self.task)
        return name in self.computed

    def known(self) -> list[str]:
        """What was computed (kept for re-grading), empty when nothing needed it."""
        return sorted(self.computed or ())
