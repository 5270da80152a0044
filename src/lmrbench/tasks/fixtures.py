"""Regenerate a task's test fixtures from the reference, in the sandbox, and check they are up to date."""

from __future__ import annotations

import filecmp
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lmrbench.evaluate.apply import apply_prediction, make_workspace
from lmrbench.sandbox import LocalSandbox, SandboxConfig
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.schema import Task

SCRIPT = "make_fixtures.py"


@dataclass
class FixtureResult:
    task_id: str
    ok: bool
    detail: str


def _differences(a: Path, b: Path) -> list[str]:
    names_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    names_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()} if b.is_dir() else set()
    diffs = [f"only in new: {n}" for n in sorted(names_a - names_b)]
    diffs += [f"only in old: {n}" for n in sorted(names_b - names_a)]
    diffs += [f"differs: {n}" for n in sorted(names_a & names_b) if not filecmp.cmp(a / n, b / n, shallow=False)]
    return diffs


def build_fixtures(task: Task, check: bool, sandbox_config: SandboxConfig | None = None) -> FixtureResult:
    """Run make_fixtures.py with every reference applied; write (or, with `check`, compare) tests/fixtures."""
    script = task.root / SCRIPT
    if not script.is_file():
        return FixtureResult(task.task_id, True, "no make_fixtures.py")
    assert task.tests_dir is not None
    target = task.tests_dir / "fixtures"
    with tempfile.TemporaryDirectory(prefix="lmrbench-fixtures-") as tmp:
        ws = make_workspace(task, Path(tmp) / "repo")
        for impl in task.implementations:
            apply_prediction(reference_prediction(task, impl), ws)
        shutil.copyfile(script, ws / "_make_fixtures.py")
        log = Path(tmp) / "log.txt"
        res = LocalSandbox(sandbox_config).exec(
            [sys.executable, "_make_fixtures.py", "_fixtures_out"], ws, task.timeout_s * 3, log,
            env={"PYTHONPATH": str(ws)},
        )
        out = ws / "_fixtures_out"
        if res.exit_code != 0 or not out.is_dir():
            tail = log.read_text(errors="replace")[-1500:]
            return FixtureResult(task.task_id, False, f"make_fixtures.py failed (exit {res.exit_code}):\n{tail}")
        diffs = _differences(out, target)
        if check:
            return FixtureResult(task.task_id, not diffs, "up to date" if not diffs else "; ".join(diffs[:5]))
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out, target)
        return FixtureResult(task.task_id, True, f"wrote {sum(1 for p in target.rglob('*') if p.is_file())} file(s)")
