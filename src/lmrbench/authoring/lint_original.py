"""Lint checks that matter for the original layout: what a test really reaches, loads and writes.

- `needs-gpu-or-hub`: CUDA or hub downloads in the test or in repository modules it reaches by imports (not in
  every file of the repository), one line per task;
- `lfs-fixture` / `missing-fixture`: data files a test names that are Git-LFS pointers or absent;
- `log-name-collision`: implementations whose tests write the same log; `log-name-mismatch`: a test whose log
  is not named after it;
- `test-reads-golden`: a test that imports or opens the golden files;
- `body-elsewhere` / `body-near-elsewhere`: a definition elsewhere in the repository whose body is nearly the golden
  body once names are normalised (a vendored or renamed copy of the answer); every file is parsed once per task.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections import defaultdict
from pathlib import Path

from lmrbench import pyast
from lmrbench.tasks.fixture_refs import FixtureState, fixture_refs
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Implementation, Task
from lmrbench.tasks.source import SourceError, find_node

GPU_HINTS = re.compile(r"""\.cuda\(|device\s*=\s*["']cuda|from_pretrained\(|hf_hub_download|snapshot_download""")
LOG_NAME = re.compile(r"""["'](?:[\w./-]*/)?([\w.-]+\.log)["']""")
NEAR = 0.9
MAX_FILES = 400


def _parse(path: Path) -> ast.Module | None:
    try:
        return pyast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return None


def _module_file(repo: Path, base: Path, name: str) -> Path | None:
    rel = Path(*name.split("."))
    for root in (base, repo):
        for cand in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
            if cand.is_file() and not cand.is_symlink() and cand.resolve().is_relative_to(repo.resolve()):
                return cand
    return None


def _imported(tree: ast.Module) -> list[str]:
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
    return names


def reached_files(repo: Path, test_rel: str) -> list[Path]:
    """The test and the repository modules it reaches through imports (transitively)."""
    start = repo / test_rel
    seen: list[Path] = []
    todo = [start] if start.is_file() else []
    while todo and len(seen) < MAX_FILES:
        path = todo.pop()
        if path in seen:
            continue
        seen.append(path)
        tree = _parse(path)
        if tree is None:
            continue
        for name in _imported(tree):
            found = _module_file(repo, start.parent, name)
            if found is not None and found not in seen:
                todo.append(found)
    return seen


def gpu_or_hub(task: Task) -> list[Problem]:
    hits: dict[str, str] = {}
    for impl in task.implementations:
        for path in reached_files(task.repo_dir, impl.unit_test_file):
            m = GPU_HINTS.search(path.read_text(encoding="utf-8", errors="replace"))
            if m:
                hits.setdefault(str(path.relative_to(task.repo_dir)), m.group(0))
    if not hits:
        return []
    shown = ", ".join(f"{f} ({h})" for f, h in sorted(hits.items())[:4])
    more = f" and {len(hits) - 4} more" if len(hits) > 4 else ""
    return [Problem(task.task_id, None, "needs-gpu-or-hub", f"the tests reach CUDA or hub downloads: {shown}{more}",
                    "warning")]


def fixtures(task: Task, impl: Implementation) -> list[Problem]:
    out = []
    for ref in fixture_refs(task.repo_dir, impl.unit_test_file):
        if ref.state is FixtureState.LFS_POINTER:
            out.append(Problem(task.task_id, impl.index, "lfs-fixture",
                               f"the test loads {ref.path}, a Git-LFS pointer"))
        elif ref.state is FixtureState.MISSING:
            out.append(Problem(task.task_id, impl.index, "missing-fixture", f"the test loads {ref.path}, which is "
                               "missing"))
    return out


def _log_names(task: Task, impl: Implementation) -> list[str]:
    path = task.repo_dir / impl.unit_test_file
    if not path.is_file():
        return []
    return sorted(set(LOG_NAME.findall(path.read_text(encoding="utf-8", errors="replace"))))


def log_names(task: Task) -> list[Problem]:
    out = []
    writers: dict[str, list[int]] = defaultdict(list)
    for impl in task.implementations:
        names = _log_names(task, impl)
        for name in names:
            writers[name].append(impl.index)
        own = f"{Path(impl.unit_test_file).stem}.log"
        if names and own not in names:
            out.append(Problem(task.task_id, impl.index, "log-name-mismatch", f"{impl.unit_test_file} writes "
                               f"{', '.join(names)}, not {own}", "warning"))
    for name, idx in sorted(writers.items()):
        if len(idx) > 1:
            out.append(Problem(task.task_id, None, "log-name-collision", f"implementations {idx} all write {name}"))
    return out


def reads_golden(task: Task, impl: Implementation) -> list[Problem]:
    path = task.repo_dir / impl.unit_test_file
    tree = _parse(path) if path.is_file() else None
    if tree is None:
        return []
    hits = [n for n in _imported(tree) if "golden" in n.lower()]
    hits += [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and "golden" in n.value.lower() and len(n.value) < 200]
    if not hits:
        return []
    return [Problem(task.task_id, impl.index, "test-reads-golden", f"{impl.unit_test_file} uses {hits[0]!r}")]


class _Normalise(ast.NodeTransformer):
    """Local names and arguments become placeholders (a renamed copy is still a copy); attribute names, which
    carry the method (`.softmax`, `.log_softmax`), stay; constants keep their type only."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id="_", ctx=node.ctx), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.copy_location(ast.arg(arg="_"), node)

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.copy_location(ast.Constant(value=type(node.value).__name__), node)


def normalised_tokens(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The body's AST, names and constants blanked, as a token list (docstring left out)."""
    body = node.body[1:] if ast.get_docstring(node) is not None else node.body
    mod = _Normalise().visit(ast.Module(body=[ast.fix_missing_locations(s) for s in body], type_ignores=[]))
    return re.findall(r"\w+|[^\w\s]", ast.dump(mod, annotate_fields=False))


FuncDef = ast.FunctionDef | ast.AsyncFunctionDef


def _lines(node: FuncDef) -> int:
    return (node.end_lineno or node.lineno) - node.lineno + 1


def _golden_defs(impl: Implementation) -> dict[str, tuple[int, list[str]]]:
    """Target -> (line count, normalised tokens) of each golden function big enough to compare."""
    out = {}
    for t, node in _golden_functions(impl).items():
        toks = normalised_tokens(node)
        if len(toks) >= 40:  # tiny bodies are alike by chance
            out[t] = (_lines(node), toks)
    return out


def _golden_functions(impl: Implementation) -> dict[str, FuncDef]:
    """Target -> its function in the golden file (targets that are not functions, or not found, left out)."""
    tree = _parse(impl.golden_file) if impl.golden_file is not None else None
    out = {}
    for t in impl.targets:
        try:
            node = find_node(tree, t) if tree is not None else None
        except SourceError:
            node = None
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[t] = node
    return out


def _functions(task: Task) -> list[tuple[Path, FuncDef]]:
    """Every function of the repository, each file parsed once per task."""
    out = []
    for path in sorted(task.repo_dir.rglob("*.py")):
        tree = None if path.is_symlink() else _parse(path)
        out += [(path, n) for n in ast.walk(tree) if isinstance(n, FuncDef)] if tree is not None else []
    return out


def _body(node: FuncDef) -> list[ast.stmt]:
    return node.body[1:] if ast.get_docstring(node) is not None else node.body


def _exact_prints(impl: Implementation) -> dict[str, tuple[int, str]]:
    """Target -> (statement count, dump of its golden body), for exact copies."""
    out = {}
    for t, node in _golden_functions(impl).items():
        if _body(node):
            out[t] = (len(_body(node)), "\n".join(ast.dump(b, annotate_fields=False) for b in _body(node)))
    return out


def _near(ref: list[str], node: FuncDef) -> float:
    toks = normalised_tokens(node)
    if abs(len(toks) - len(ref)) > 0.2 * len(ref):
        return 0.0
    sm = difflib.SequenceMatcher(None, ref, toks, autojunk=False)
    if sm.real_quick_ratio() < NEAR or sm.quick_ratio() < NEAR:
        return 0.0
    return sm.ratio()


def copies_elsewhere(task: Task, impl: Implementation, functions: list[tuple[Path, FuncDef]]) -> list[Problem]:
    """Definitions whose body is the golden body (`body-elsewhere`), or nearly so once local names are blanked
    (`body-near-elsewhere`, not in the goal file). Cheap filters (statement count, size) come first: a vendored
    library has tens of thousands of functions."""
    exact, near = _exact_prints(impl), _golden_defs(impl)
    goal = (task.repo_dir / impl.goal_file).resolve()
    out = []
    for path, node in functions:
        where = f"{path.relative_to(task.root)} (line {node.lineno})"
        body = _body(node)
        hit = next((t for t, (n, fp) in exact.items() if len(body) == n and fp == "\n".join(
            ast.dump(b, annotate_fields=False) for b in body)), None)
        if hit is not None:
            out.append(Problem(task.task_id, impl.index, "body-elsewhere", f"the body of '{hit}' is in {where}"))
            continue
        for t, (lines, ref) in near.items():
            if 0.6 * lines <= _lines(node) <= 1.6 * lines and path.resolve() != goal:
                ratio = _near(ref, node)
                if ratio >= NEAR:
                    out.append(Problem(task.task_id, impl.index, "body-near-elsewhere",
                                       f"'{node.name}' in {where} is {ratio:.0%} like the golden '{t}'"))
    return out


def original_checks(task: Task) -> list[Problem]:
    """Every check above for one original-layout task."""
    if task.defect:
        return []
    out = gpu_or_hub(task) + log_names(task)
    functions = _functions(task) if any(i.golden_file for i in task.implementations) else []
    for impl in task.implementations:
        out += fixtures(task, impl) + reads_golden(task, impl) + copies_elsewhere(task, impl, functions)
    return out
