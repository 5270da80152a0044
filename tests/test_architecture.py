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


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import a module runs, at its top or inside a function (a deferred import that closes a cycle still
    ties the two modules together); not those only for the type checker (`if TYPE_CHECKING:`)."""
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            todo += node.orelse
        else:
            todo += ast.iter_child_nodes(node)
    return found


def _module_edges() -> dict[str, set[str]]:
    """Module -> the lmrbench modules it imports (`from P import name` counts P.name when that is a module, else
    P)."""
    files = {_module_name(p): p for p in SRC.rglob("*.py") if "builtin_tasks" not in p.parts}
    edges: dict[str, set[str]] = {m: set() for m in files}
    for here, path in files.items():
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif node.level == 0 and node.module:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in files else node.module
                           for a in node.names]
            else:
                continue
            edges[here] |= {t for t in targets if t in files and t != here}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_modules():
    edges = _module_edges()
    assert "lmrbench.evaluate.runner" in edges["lmrbench.evaluate.warm"], "the import graph was not read"
    assert _cycles(edges) == []
