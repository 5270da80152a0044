"""Lint checks of the upstream split: the recipe (static, no cache needed) and the fetched, masked release.

`body-near-elsewhere` looks for any other copy or near-copy of a target's body anywhere in the masked package:
a definition whose body, with its local names renamed in order of appearance, holds at least `NEAR` of the
target's token shingles. The author then masks it too (another target) or deletes its file (`remove`).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Task
from lmrbench.tasks.source import SourceError, find_node, is_stub, mask
from lmrbench.tasks.upstream import (
    UpstreamError,
    apply_edits,
    golden_root,
    load_variant,
    masked_code_lines,
    task_target_map,
)

MIN_WRONG = 10
MIN_LINES = {"feature": 150, "system": 500}
SHINGLE = 6
NEAR = 0.8
MIN_TOKENS = 30
"""Bodies shorter than this many tokens (after renaming) are too generic to call a copy."""
TOKEN = re.compile(r"\w+|[^\w\s]")


# --- static: the recipe alone ----------------------------------------------------------------------------------


def recipe_checks(task: Task) -> list[Problem]:
    """What can be checked without the release: declared wrong variants, notes, expected outputs."""
    out = []
    for impl in task.implementations:
        files = sorted(task.wrong_dir(impl.index).glob("*.json"))
        if len(files) < MIN_WRONG:
            out.append(Problem(task.task_id, impl.index, "few-wrong-variants",
                               f"{len(files)} declared wrong variant(s), want {MIN_WRONG}+"))
        for path in files:
            try:
                load_variant(path)
            except UpstreamError as exc:
                out.append(Problem(task.task_id, impl.index, "wrong-variant", str(exc)))
        expected = task.root / "tests" / "expected" / f"{Path(impl.unit_test_file).stem}.jsonl"
        if not expected.is_file() and not task.repo_dir.is_dir():  # once fetched, lint_probes says it
            out.append(Problem(task.task_id, impl.index, "no-expected-outputs", f"{expected.relative_to(task.root)} "
                               "is missing (`lmrbench tasks fixtures`)"))
    if not (task.root / "NOTES.md").is_file():
        out.append(Problem(task.task_id, None, "no-notes", "NOTES.md is missing"))
    return out


# --- the fetched release ---------------------------------------------------------------------------------------


def _mask_problems(task: Task, golden: Path) -> list[Problem]:
    out = []
    for rel, names in task_target_map(task).items():
        goal = task.repo_dir / rel
        if not goal.is_file():
            out.append(Problem(task.task_id, None, "missing-target", f"{rel} is not in the masked release"))
            continue
        text, expect = goal.read_text(encoding="utf-8"), (golden / rel).read_text(encoding="utf-8")
        for name in names:
            if find_node(ast.parse(expect), name) is None:
                out.append(Problem(task.task_id, None, "missing-target", f"the release has no '{rel}::{name}'"))
                continue
            expect = mask(expect, name)
            if not is_stub(text, name):
                out.append(Problem(task.task_id, None, "not-masked", f"'{rel}::{name}' is not a stub"))
        if text != expect:
            out.append(Problem(task.task_id, None, "mask-mismatch", f"{rel} differs from the release with its "
                               "targets masked (rebuild it: `lmrbench tasks fetch`)"))
    for rel in task.upstream.remove if task.upstream else []:
        if (task.repo_dir / rel).exists():
            out.append(Problem(task.task_id, None, "mask-mismatch", f"'{rel}' is listed in remove but present"))
    return out


def _wrong_problems(task: Task, golden: Path) -> list[Problem]:
    out = []
    for impl in task.implementations:
        targets = impl.target_map()
        for path in sorted(task.wrong_dir(impl.index).glob("*.json")):
            try:
                edited = apply_edits(load_variant(path), golden, path.name)
            except UpstreamError as exc:
                out.append(Problem(task.task_id, impl.index, "wrong-variant", str(exc)))
                continue
            outside = sorted(set(edited) - set(targets))
            if outside:
                out.append(Problem(task.task_id, impl.index, "wrong-variant", f"{path.name} edits {outside}, which "
                                   "hold no target of this implementation (only targets are taken)"))
    return out


def _size_problems(task: Task, golden: Path) -> list[Problem]:
    assert task.upstream is not None
    try:
        lines = masked_code_lines(task, golden)
    except (OSError, SourceError, SyntaxError) as exc:
        return [Problem(task.task_id, None, "missing-target", str(exc))]
    want = MIN_LINES[task.upstream.tier]
    if lines < want:
        return [Problem(task.task_id, None, "tier-size", f"{lines} masked code lines; the {task.upstream.tier} "
                        f"tier wants {want}+")]
    return []


# --- body-near-elsewhere ---------------------------------------------------------------------------------------


class _Rename(ast.NodeTransformer):
    """Local names (variables, arguments) renamed in order of first appearance: a copy that renamed them
    still matches; attribute and keyword names stay (they carry the meaning)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        return self.names.setdefault(name, f"v{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id=self._new(node.id), ctx=node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._new(node.arg)
        return node


def _body(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return body


def _shingles(stmts: list[ast.stmt]) -> tuple[set[int], int]:
    renamer = _Rename()
    try:
        code = "\n".join(ast.unparse(renamer.visit(ast.parse(ast.unparse(s)))) for s in stmts)
    except (SyntaxError, ValueError, RecursionError):
        return set(), 0
    tokens = TOKEN.findall(code)
    return {hash(tuple(tokens[i:i + SHINGLE])) for i in range(max(len(tokens) - SHINGLE + 1, 0))}, len(tokens)


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _target_bodies(task: Task, golden: Path) -> dict[str, set[int]]:
    """'file::qualname[.method]' -> shingles of each target body long enough to judge."""
    out = {}
    for rel, names in task_target_map(task).items():
        tree = ast.parse((golden / rel).read_text(encoding="utf-8"))
        for name in names:
            node = find_node(tree, name)
            funcs = [node] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else \
                [m for m in (node.body if node else []) if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)]
            for f in funcs:
                shingles, count = _shingles(_body(f))
                if count >= MIN_TOKENS:
                    key = f"{rel}::{name}" if f is node else f"{rel}::{name}.{f.name}"
                    out[key] = shingles
    return out


def near_copies(task: Task, golden: Path) -> list[Problem]:
    """Every definition in the masked package (targets aside, they are stubs) holding most of a target's body."""
    targets = _target_bodies(task, golden)
    if not targets:
        return []
    out = []
    for path in sorted(task.repo_dir.rglob("*.py")):
        rel = path.relative_to(task.repo_dir).as_posix()
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for func in _functions(tree):
            shingles, _ = _shingles(_body(func))
            if not shingles:
                continue
            for key, want in targets.items():
                share = len(want & shingles) / len(want) if want else 0.0
                if share >= NEAR:
                    out.append(Problem(task.task_id, None, "body-near-elsewhere",
                                       f"{rel}:{func.lineno} ({func.name}) holds {share:.0%} of the body of {key}: "
                                       "mask it too (a target) or remove its file"))
    return out


def upstream_checks(task: Task) -> list[Problem]:
    """Every upstream check: the recipe's, then (once fetched) the masked release's."""
    assert task.upstream is not None
    out = recipe_checks(task)
    golden = golden_root(task.upstream)
    if not golden.is_dir() or not task.repo_dir.is_dir():
        return [*out, Problem(task.task_id, None, "not-fetched", "the release is not in the cache "
                              "(`lmrbench tasks fetch`)")]
    out += _mask_problems(task, golden)
    if any(p.kind == "missing-target" for p in out):
        return out
    return out + _wrong_problems(task, golden) + _size_problems(task, golden) + near_copies(task, golden)

