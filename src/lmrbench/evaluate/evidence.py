"""Trusted evidence for environment errors: which modules the reference's run needs that the environment lacks.

A run's output is the candidate's to write: it can raise `ModuleNotFoundError("No module named 'flash_attn'")`
itself. So a missing module makes a result an `error` (not measured) only when evidence the candidate cannot fake
says the reference would fail the same way here:

- the module is imported unconditionally on the reference's path: by the implementation's hidden test or probe
  file, or by a module of the pristine repository or tests folder that these import (transitively; a module's
  top-level imports, not those inside functions, `if` or `try` blocks), or anywhere in the reference's golden
  file; and
- the harness itself, in a process of its own (no candidate code), finds it absent from the interpreter the tests
  run with.

Anything else is the candidate's `failed`. Names that exist as a module or folder anywhere in the repository or
the tests folder are never counted (a local module the candidate's code failed to import is its own failure).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from lmrbench.tasks.schema import Implementation, Layout, Task

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
MAX_FILES = 5_000
HARNESS_MODULES = {"lmrbench_probe", "pytest_results_plugin"}  # placed beside the probes and tests at run time
_CACHE: dict[tuple[str, int, str], frozenset[str]] = {}
_LOCK = threading.Lock()


def _parse(path: Path) -> ast.Module | None:
    try:
        if path.stat().st_size > MAX_SOURCE_BYTES:
            return None
        return ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _unconditional(body: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports that run whenever the module is imported: top level and class bodies (not functions, if, try)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif isinstance(node, ast.ClassDef):
            yield from _unconditional(node.body)


def _imported(tree: ast.Module, everywhere: bool) -> list[tuple[str, int]]:
    """(dotted module, relative level) of each import; `from a import b` also gives `a.b` (b may be a module)."""
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)] if everywhere \
        else list(_unconditional(tree.body))
    out: list[tuple[str, int]] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(a.name, 0) for a in node.names]
        else:
            base = node.module or ""
            out.append((base, node.level))
            out += [(f"{base}.{a.name}".lstrip("."), node.level) for a in node.names if a.name != "*"]
    return out


class _Graph:
    """Resolve imports to the task's own files and collect the third-party modules reached."""

    def __init__(self, roots: list[Path], local: set[str]) -> None:
        self.roots, self.local = roots, local
        self.seen: set[Path] = set()
        self.third_party: set[str] = set()

    def module_files(self, dotted: str, level: int, here: Path) -> list[Path] | None:
        """The files importing `dotted` runs (package __init__ files included), or None when it is not local."""
        parts = [p for p in dotted.split(".") if p]
        if level:
            base = here.parent
            for _ in range(level - 1):
                base = base.parent
            return self._walk(base, parts)
        for root in self.roots:
            found = self._walk(root, parts)
            if found:
                return found
        return None

    @staticmethod
    def _walk(base: Path, parts: list[str]) -> list[Path]:
        files, here = [], base
        for part in parts:
            here = here / part
            if (here / "__init__.py").is_file():
                files.append(here / "__init__.py")
            elif here.with_suffix(".py").is_file():
                files.append(here.with_suffix(".py"))
                break
            elif not here.is_dir():
                break
        return files

    def visit(self, path: Path, tree: ast.Module | None = None, everywhere: bool = False, at: Path | None = None,
              ) -> None:
        """Follow the imports of one file (`at`: where it stands, for relative imports)."""
        if len(self.seen) >= MAX_FILES or (tree is None and path in self.seen):
            return
        self.seen.add(path)
        tree = tree or _parse(path)
        if tree is None:
            return
        for dotted, level in _imported(tree, everywhere):
            files = self.module_files(dotted, level, at or path)
            if files:
                for f in files:
                    self.visit(f)
            elif level == 0 and dotted:
                top = dotted.split(".")[0]
                if top not in self.local and top not in sys.stdlib_module_names and top not in HARNESS_MODULES:
                    self.third_party.add(top)


def _local_names(folders: list[Path]) -> set[str]:
    names: set[str] = set()
    for folder in folders:
        if not folder.is_dir():
            continue
        for count, path in enumerate(folder.rglob("*")):
            if count > 50 * MAX_FILES:
                break
            if path.suffix == ".py" or path.is_dir():
                names.add(path.stem if path.suffix == ".py" else path.name)
    return names


def needed_modules(task: Task, impl: Implementation) -> set[str]:
    """Third-party top-level modules the reference's run imports unconditionally (see the module docstring)."""
    repo = task.repo_dir
    tests = task.tests_dir
    roots = [repo, *([repo / p for p in task.env.paths] if task.env is not None else [])]
    if task.layout is Layout.ORIGINAL:
        test = repo / impl.unit_test_file
    else:
        test = task.root / impl.unit_test_file
        roots += [test.parent] + ([tests] if tests is not None else [])
    graph = _Graph(roots, _local_names([repo, *([tests] if tests is not None else [])]))
    if test.is_file():
        graph.visit(test)
    if impl.golden_file is not None and impl.golden_file.is_file():
        golden = _parse(impl.golden_file)
        if golden is not None:  # the reference's own code: every import in it, as if at the goal file's place
            graph.visit(impl.golden_file, golden, everywhere=True, at=repo / impl.goal_file)
    return graph.third_party


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


def lacking_modules(task: Task, impl: Implementation) -> frozenset[str]:
    """Modules the reference's run needs and the test interpreter lacks (once per implementation and
    environment)."""
    python = str(task.env.python) if task.env is not None else sys.executable
    key = (str(task.root), impl.index, python + (task.env.key if task.env is not None else ""))
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    found = frozenset(absent_modules(python, needed_modules(task, impl)))
    with _LOCK:
        _CACHE[key] = found
    return found


class Lacking:
    """`lacking_modules(task, impl)` computed on first use (only a run that reports a missing module needs it)."""

    def __init__(self, task: Task, impl: Implementation) -> None:
        self.task, self.impl = task, impl
        self.computed: frozenset[str] | None = None

    def __contains__(self, name: object) -> bool:
        if self.computed is None:
            self.computed = lacking_modules(self.task, self.impl)
        return name in self.computed

    def known(self) -> list[str]:
        """What was computed (kept for re-grading), empty when nothing needed it."""
        return sorted(self.computed or ())
