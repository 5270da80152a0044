"""Mechanical mutants of a reference definition: swapped operators, changed constants, negated conditions,
deleted statements. Deterministic: the same source always gives the same mutants, in the same order."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass

from lmrbench import pyast

BINOP_SWAPS: dict[type, type] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult,
    ast.FloorDiv: ast.Div, ast.Mod: ast.FloorDiv, ast.MatMult: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
}
CMP_SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}


@dataclass(frozen=True)
class Mutant:
    """One mutant: a stable id, what was changed, and the mutated definition's source."""

    mutant_id: str
    description: str
    source: str


def _is_docstring(node: ast.AST, parent_body: list[ast.stmt]) -> bool:
    return (
        bool(parent_body) and node is parent_body[0] and isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    )


def _const_replacement(value: object) -> object | None:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 if value != 0 else 1.0
    return None


def _sites(fn: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """Every mutation site in the definition: (operator name, node). Docstrings and strings are skipped."""
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in BINOP_SWAPS:
            yield "binop", node
        elif isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in CMP_SWAPS:
                    yield f"cmp{i}", node
        elif isinstance(node, ast.BoolOp):
            yield "boolop", node
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Not):
            yield "unary", node
        elif isinstance(node, ast.Constant) and _const_replacement(node.value) is not None:
            yield "const", node
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            yield "negate", node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.For | ast.While | ast.If | ast.With | ast.Try):
            for field in ("body", "orelse", "finalbody"):
                body = getattr(node, field, None) or []
                for stmt in body:
                    if len(body) > 1 and not _is_docstring(stmt, body) and not isinstance(stmt, ast.Pass):
                        yield "delete", stmt


def _apply(kind: str, node: ast.AST, parents: dict[int, tuple[ast.AST, str, int | None]]) -> str:
    """Mutate `node` in place (it belongs to a private copy); returns a description."""
    if kind == "binop":
        assert isinstance(node, ast.BinOp | ast.AugAssign)
        old = type(node.op)
        node.op = BINOP_SWAPS[old]()
        return f"{old.__name__} -> {type(node.op).__name__}"
    if kind.startswith("cmp"):
        assert isinstance(node, ast.Compare)
        i = int(kind[3:])
        old_cmp = type(node.ops[i])
        node.ops[i] = CMP_SWAPS[old_cmp]()
        return f"{old_cmp.__name__} -> {type(node.ops[i]).__name__}"
    if kind == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return "and <-> or"
    if kind == "const":
        assert isinstance(node, ast.Constant)
        old_value = node.value
        node.value = _const_replacement(old_value)  # type: ignore[assignment]
        return f"constant {old_value!r} -> {node.value!r}"
    parent, field, idx = parents[id(node)]
    if kind == "unary":
        assert isinstance(node, ast.UnaryOp)
        _replace(parent, field, idx, node.operand)
        return f"drop unary {type(node.op).__name__}"
    if kind == "negate":
        assert isinstance(node, ast.If | ast.While | ast.IfExp)
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        return "negate condition"
    _replace(parent, field, idx, ast.Pass())
    return f"delete {type(node).__name__} statement"


def _replace(parent: ast.AST, field: str, idx: int | None, new: ast.AST) -> None:
    if idx is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[idx] = new


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    out: dict[int, tuple[ast.AST, str, int | None]] = {}
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        out[id(child)] = (parent, field, i)
            elif isinstance(value, ast.AST):
                out[id(value)] = (parent, field, None)
    return out


def _docstring_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and _is_docstring(body[0], body):
            skip.update(id(n) for n in ast.walk(body[0]))
    return skip


def mutants(definition: str, prefix: str = "") -> list[Mutant]:
    """All mutants of one definition's source (a function, method or class)."""
    base = pyast.parse(definition)
    skip = _docstring_nodes(base)
    for node in ast.walk(base):  # a signature (defaults, annotations) is interface, not method
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skip.update(id(n) for n in ast.walk(node.args))
            if node.returns is not None:
                skip.update(id(n) for n in ast.walk(node.returns))
        elif isinstance(node, ast.AnnAssign):  # annotations are never evaluated under postponed evaluation
            skip.update(id(n) for n in ast.walk(node.annotation))
    base_sites = [(k, n) for k, n in _sites(base) if id(n) not in skip]
    out: list[Mutant] = []
    seen = {ast.unparse(base)}
    for number, (kind, node) in enumerate(base_sites):
        tree = copy.deepcopy(base)
        mirror = dict(zip(map(id, ast.walk(base)), ast.walk(tree), strict=True))
        target = mirror[id(node)]
        desc = _apply(kind, target, _parents(tree))
        try:
            src = ast.unparse(ast.fix_missing_locations(tree))
            compile(src, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError):
            continue
        if src in seen:
            continue
        seen.add(src)
        line = getattr(node, "lineno", 0)
        out.append(Mutant(f"{prefix}m{number:03d}", f"line {line}: {desc}", src))
    return out
