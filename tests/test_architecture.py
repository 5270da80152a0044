"""The package's shape: no import cycles between its sub-packages (tasks and evaluate below solvers and
authoring; the CLI on top)."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "lmrbench"


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for path in SRC.rglob("*.py"):
        if "builtin_tasks" in path.parts:
            continue
        here = _package(".".join(path.relative_to(SRC.parent).with_suffix("").parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("lmrbench."):
                there = _package(node.module)
                if there != here:
                    edges[here].add(there)
    return edges


def test_no_import_cycles_between_packages():
    edges = _edges()
    assert edges["cli"], "the import graph was not read"
    cycles = set()
    for start in edges:
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in edges.get(node, ()):
                if nxt == start:
                    cycles.add(" -> ".join([*path, start]))
                elif nxt not in path:
                    stack.append((nxt, [*path, nxt]))
    assert cycles == set()


def test_tasks_and_evaluate_do_not_depend_on_authoring_or_the_cli():
    edges = _edges()
    for low in ("tasks", "evaluate", "sandbox"):
        assert not edges[low] & {"authoring", "cli", "solvers", "judge", "report"}, (low, edges[low])
