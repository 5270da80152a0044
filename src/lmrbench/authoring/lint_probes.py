"""Lint of hidden tests in probe form: nothing that enters the sandbox may hold or compute a verdict."""

from __future__ import annotations

import ast
from pathlib import Path

from lmrbench import pyast
from lmrbench.checks import matches
from lmrbench.evaluate.probes import ProbeData, parse_probe_output, task_checks
from lmrbench.tasks.problems import Problem
from lmrbench.tasks.schema import Implementation, Task

COMPARING_CALLS = {"isclose", "allclose", "assert_close", "assert_allclose", "approx", "array_equal", "equal"}
TESTING_MODULES = ("pytest", "torch.testing", "numpy.testing", "unittest", "lmrbench.checks")


def _sandbox_py_files(task: Task) -> list[Path]:
    assert task.tests_dir is not None
    return [task.tests_dir / rel for rel in task.sandbox_files() if rel.suffix == ".py"]


def _imports(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module]
    return []


def _defects(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            found.append(f"an assert statement (line {node.lineno})")
        for name in _imports(node):
            if name.startswith(TESTING_MODULES):
                found.append(f"imports {name} (line {getattr(node, 'lineno', 0)})")
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in COMPARING_CALLS:
                found.append(f"calls {name}() (line {node.lineno}): comparisons belong in the check file")
    return found


def lint_probe_files(task: Task, impl: Implementation) -> list[Problem]:
    """A probe-form implementation: sandbox files compare nothing, expected outputs exist, no stray pytest file."""
    assert task.tests_dir is not None
    out = []
    for path in _sandbox_py_files(task):
        rel = path.relative_to(task.root)
        if path.name.startswith("test_"):
            out.append(Problem(task.task_id, impl.index, "pytest-in-sandbox",
                               f"{rel} is a pytest file; probe tasks keep comparisons out of the sandbox"))
            continue
        try:
            tree = pyast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError as exc:
            out.append(Problem(task.task_id, impl.index, "probe-syntax", f"{rel}: {exc}"))
            continue
        out += [Problem(task.task_id, impl.index, "verdict-in-sandbox", f"{rel}: {d}") for d in _defects(tree)]
    stem = Path(impl.unit_test_file).stem
    expected = task.tests_dir / "expected" / f"{stem}.jsonl"
    if not expected.is_file():
        out.append(Problem(task.task_id, impl.index, "no-expected-outputs",
                           f"no tests/expected/{stem}.jsonl (run `lmrbench tasks fixtures -t {task.task_id}`)"))
        return out
    data = parse_probe_output(expected.read_bytes())
    return out + _idle_checks(task, impl, data) + _idle_overrides(task, impl, data) + _accidental_raises(
        task, impl, data)


def _idle_checks(task: Task, impl: Implementation, data: ProbeData) -> list[Problem]:
    """A check whose pattern matches no case never runs: it would look like a proof and prove nothing."""
    assert task.tests_dir is not None
    cases = list(data.cases)
    rel = str(task.test_rel(impl.unit_test_file))
    return [Problem(task.task_id, impl.index, "check-matches-nothing", f"check pattern '{pattern}' matches no case")
            for pattern in task_checks(task.tests_dir, rel).patterns() if not any(matches(c, pattern) for c in cases)]


def _raised_names(path: Path) -> set[str]:
    """Exception class names a file raises explicitly (`raise X(...)`, `raise X`)."""
    try:
        tree = pyast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name):
                names.add(exc.id)
            elif isinstance(exc, ast.Attribute):
                names.add(exc.attr)
    return names


def _accidental_raises(task: Task, impl: Implementation, data: ProbeData) -> list[Problem]:
    """A reference case that raised an exception nothing of ours raises on purpose is most likely a probe that
    crashed; its expected outcome would then be that crash, which every candidate reproduces."""
    raised = {c.raised[0] for c in data.cases.values() if c.status == "raised" and c.raised}
    if not raised:
        return []
    assert task.tests_dir is not None and impl.golden_file is not None
    goldens = [g for g in (impl.golden_path(rel) for rel in impl.target_map()) if g is not None]
    sources = [*goldens, *task.repo_dir.rglob("*.py"), *_sandbox_py_files(task)]
    deliberate = set().union(*(_raised_names(p) for p in sources))
    return [Problem(task.task_id, impl.index, "accidental-raise",
                    f"case '{c.name}' of the reference raised {c.raised[0]}, which neither the reference, the "
                    "repository nor the probe raises explicitly: a crashed case?")
            for c in data.cases.values() if c.status == "raised" and c.raised and c.raised[0] not in deliberate]


def _idle_overrides(task: Task, impl: Implementation, data: ProbeData) -> list[Problem]:
    """A per-output tolerance named after an output that is a dict or a list never applies: outputs are flattened
    (`f32` -> `f32.uniform`, `f32.weighted`), so `{"f32": ...}` matches none of them and they are compared at the
    case's default tolerance instead (`{"f32*": ...}` was meant)."""
    out = []
    for c in data.cases.values():
        names = {k.split("#")[0] for k in c.outputs}
        for pattern in c.spec.outputs:
            if any(ch in pattern for ch in "*?"):
                continue
            if any(n.startswith(pattern + ".") for n in names):
                out.append(Problem(task.task_id, impl.index, "override-misses-flattened-output",
                                   f"case '{c.name}': per-output pattern '{pattern}' matches none of its flattened "
                                   f"outputs '{pattern}.*' (write '{pattern}*')"))
    return out[:1] + ([] if len(out) < 2 else [Problem(task.task_id, impl.index, "override-misses-flattened-output",
                                                       f"... and {len(out) - 1} more case(s)")])
