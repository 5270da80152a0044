"""Lint tasks of either layout: one Problem per defect (task, implementation, kind, detail)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from lmrbench import pyast
from lmrbench.authoring.lint_context import context_misses_imports
from lmrbench.authoring.lint_original import original_checks
from lmrbench.authoring.lint_probes import lint_probe_files
from lmrbench.authoring.lint_upstream import upstream_checks
from lmrbench.tasks.loader import TaskSet
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Implementation, Layout, Task
from lmrbench.tasks.source import SourceError, body_fingerprint, find_node, is_stub, mask

LFS_HEADER = b"version https://git-lfs"
ALLOWED_REQUIREMENTS = {"torch", "numpy", "scipy", "pandas"}
GPU_HINTS = re.compile(r"""\.cuda\(|device\s*=\s*["']cuda|from_pretrained\(|hf_hub_download""")


def _files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _lfs_pointers(task: Task) -> list[Problem]:
    """One line per task: how many files are Git-LFS pointers, with the first few."""
    found = []
    for path in _files(task.repo_dir):
        with open(path, "rb") as fh:
            if fh.read(len(LFS_HEADER)) == LFS_HEADER:
                found.append(str(path.relative_to(task.root)))
    if not found:
        return []
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return [Problem(task.task_id, None, "lfs-pointer", f"{len(found)} Git-LFS pointer file(s), not data: "
                    f"{', '.join(found[:3])}{more}")]


def _golden_in_workspace(task: Task) -> list[Problem]:
    goldens = {impl.golden_file.read_bytes() for impl in task.implementations if impl.golden_file}
    out = []
    for path in _files(task.repo_dir):
        rel = path.relative_to(task.root)
        if "golden" in path.name.lower() or "golden_files" in path.parts or path.read_bytes() in goldens:
            out.append(Problem(task.task_id, None, "golden-in-workspace", f"{rel} is a reference file"))
    return out


def _body_elsewhere(task: Task, impl: Implementation) -> list[Problem]:
    """A definition anywhere in the workspace (or our hidden tests) whose body equals a target's golden body."""
    if impl.golden_file is None:
        return []
    golden = impl.golden_file.read_text(encoding="utf-8", errors="replace")
    prints = {}
    for t in impl.targets:
        try:
            fp = body_fingerprint(golden, t)
        except SourceError:
            continue
        if fp:
            prints[fp] = t
    roots = [task.repo_dir] + ([task.tests_dir] if task.tests_dir else [])
    out = []
    for root in roots:
        for path in (p for p in _files(root) if p.suffix == ".py"):
            try:
                tree = pyast.parse(path.read_text(encoding="utf-8", errors="replace"))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
                    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
                    fp = "\n".join(ast.dump(s, annotate_fields=False) for s in body)
                    if fp in prints:
                        out.append(Problem(task.task_id, impl.index, "body-elsewhere",
                                           f"the body of '{prints[fp]}' is in {path.relative_to(task.root)} "
                                           f"(line {node.lineno})"))
    return out


def _our_checks(task: Task, impl: Implementation) -> list[Problem]:
    out = []
    goal = (task.repo_dir / impl.goal_file).read_text(encoding="utf-8")
    assert impl.golden_file is not None
    golden = impl.golden_file.read_text(encoding="utf-8")
    for t in impl.targets:
        if find_node(pyast.parse(golden), t) is None:
            out.append(Problem(task.task_id, impl.index, "missing-target", f"golden file has no '{t}'"))
        elif not is_stub(goal, t):
            out.append(Problem(task.task_id, impl.index, "not-masked", f"'{t}' in {impl.goal_file} is not a stub"))
    if out:
        return out
    masked = golden
    others = [t for i in task.implementations if i.goal_file == impl.goal_file for t in i.targets]
    for t in others:
        if find_node(pyast.parse(masked), t) is not None:
            masked = mask(masked, t)
    if masked != goal:
        out.append(Problem(task.task_id, impl.index, "mask-mismatch",
                           f"{impl.goal_file} differs from the golden file with its targets masked"))
    wrong = list(task.wrong_dir(impl.index).glob("*.py"))
    if len(wrong) < 3:
        out.append(Problem(task.task_id, impl.index, "few-wrong-variants", f"{len(wrong)} wrong variant(s), want 3+"))
    assert task.tests_dir is not None
    for path in _files(task.tests_dir):
        if path.suffix == ".py" and "golden" in path.read_text(encoding="utf-8", errors="replace"):
            out.append(Problem(task.task_id, impl.index, "test-reads-golden", f"{path.name} mentions golden files"))
    return out


def _task_checks(task: Task) -> list[Problem]:
    if task.upstream is not None:  # a release: its own files, its own requirements (lint_upstream.py)
        return upstream_checks(task)
    out = _lfs_pointers(task) + _golden_in_workspace(task)
    if task.layout is Layout.ORIGINAL:
        out += original_checks(task)
    else:
        for path in (p for p in _files(task.repo_dir) if p.suffix == ".py"):
            if GPU_HINTS.search(path.read_text(encoding="utf-8", errors="replace")):
                out.append(Problem(task.task_id, None, "needs-gpu-or-hub", f"{path.relative_to(task.root)} uses "
                                   "CUDA or downloads from a hub", "warning"))
    if task.layout is Layout.LMRBENCH:
        bad = sorted(set(task.requirements) - ALLOWED_REQUIREMENTS)
        if bad:
            out.append(Problem(task.task_id, None, "requirements", f"not installable offline here: {bad}"))
    return out


def lint(tasks: TaskSet) -> list[Problem]:
    """Every problem: those met while loading, then per-task and per-implementation checks."""
    out = list(tasks.problems)
    for task in tasks.tasks:
        out += _task_checks(task)
        for impl in task.implementations:
            if task.upstream is not None and task.repo_dir.is_dir():  # a release imports much: context is advice
                out += [p.model_copy(update={"severity": "warning"}) for p in context_misses_imports(task, impl)]
                out += lint_probe_files(task, impl)
            elif task.layout is Layout.LMRBENCH and task.upstream is None:  # the original's: lint_original
                out += _body_elsewhere(task, impl) + _our_checks(task, impl) + context_misses_imports(task, impl)
                if impl.is_probe:
                    out += lint_probe_files(task, impl)
    return out
