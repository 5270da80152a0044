"""Lint: every repository module the goal file imports is shown to a prompted model.

In the standard-prompting setting the model sees the goal file and the files of `retrieval_context`, nothing else.
A target that must call a helper from a module the prompt does not show can only be guessed at; a blind solve
failed that way (gated-attn's cache). Imports are read from the golden file too: an import inside a target's body
is masked out of the goal file but the reference needs it, so the model does.
"""

from __future__ import annotations

import ast
from pathlib import Path

from lmrbench import pyast
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import find_node


def _module_file(repo: Path, dotted: str) -> Path | None:
    """The repository file a dotted module name resolves to, or None (a third-party or missing module)."""
    base = repo.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(repo: Path, goal: Path, level: int) -> str | None:
    """The dotted package a relative import of `level` dots in `goal` starts from ("" is the repository root)."""
    parts = list(goal.relative_to(repo).parent.parts)
    if level - 1 > len(parts):
        return None
    return ".".join(parts[: len(parts) - (level - 1)])


def _import_bindings(repo: Path, goal: Path, node: ast.Import | ast.ImportFrom) -> dict[str, Path]:
    """The names an import statement binds, each with the repository file it comes from (others left out)."""
    out: dict[str, Path] = {}
    if isinstance(node, ast.Import):
        for alias in node.names:
            path = _module_file(repo, alias.name)
            if path:
                out[alias.asname or alias.name.split(".")[0]] = path
        return out
    base = node.module or ""
    if node.level:
        package = _package_of(repo, goal, node.level)
        if package is None:
            return out
        base = ".".join(p for p in (package, base) if p)
    for alias in node.names:
        # `from pkg import mod` names a module; `from mod import name` names something inside mod
        sub = _module_file(repo, f"{base}.{alias.name}" if base else alias.name)
        path = sub or (_module_file(repo, base) if base else None)
        if path:
            out[alias.asname or alias.name] = path
    return out


def _needed_files(repo: Path, goal: Path, source: str, targets: list[str]) -> set[Path]:
    """Repository files the targets of `source` (no targets: the whole file) use: imported inside a target, or
    imported at module level under a name a target's code (signature included) refers to."""
    try:
        tree = pyast.parse(source)
    except SyntaxError:
        return set()
    nodes: list[ast.AST] = [n for n in (find_node(tree, t) for t in targets) if n is not None] if targets else [tree]
    used = {n.id for node in nodes for n in ast.walk(node) if isinstance(n, ast.Name)}
    found: set[Path] = set()
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Import | ast.ImportFrom):
                found |= set(_import_bindings(repo, goal, inner).values())
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            found |= {path for name, path in _import_bindings(repo, goal, stmt).items() if name in used}
    return found


def _defines_something(path: Path) -> bool:
    """A package `__init__.py` that only re-exports is not worth showing; one with definitions is."""
    try:
        tree = pyast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return True
    return any(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for n in tree.body)


def context_misses_imports(task: Task, impl: Implementation) -> list[Problem]:
    """One problem per repository module the targets use that `retrieval_context` leaves out."""
    repo = task.repo_dir
    goal = repo / impl.goal_file
    reference = impl.golden_file if impl.golden_file is not None and impl.golden_file.is_file() else goal
    imported = _needed_files(repo, goal, reference.read_text(encoding="utf-8", errors="replace"),
                              impl.targets)
    shown = {goal.resolve()} | {(repo / rel).resolve() for rel in impl.retrieval_context}
    out = []
    for path in sorted(imported):
        if path.resolve() in shown or (path.name == "__init__.py" and not _defines_something(path)):
            continue
        rel = path.relative_to(repo).as_posix()
        out.append(Problem(task.task_id, impl.index, "context-misses-import",
                           f"the targets use {rel} (imported by {impl.goal_file}), which retrieval_context "
                           "does not list: a prompted model never sees it"))
    return out
