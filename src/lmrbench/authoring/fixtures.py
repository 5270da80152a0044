"""Regenerate a task's test data from the reference, in the sandbox, and check it is up to date.

Two kinds: input fixtures (`make_fixtures.py` -> `tests/fixtures/`, which enter the sandbox) and, for probe
files, the reference's outputs (`tests/expected/<probe>.jsonl`, which never do)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from lmrbench.authoring.fixture_compare import Same, compare_files
from lmrbench.evaluate.apply import apply_prediction, make_workspace
from lmrbench.evaluate.grading import grade_probe_data
from lmrbench.evaluate.probes import ProbeData, expected_path, parse_probe_output, read_capped
from lmrbench.evaluate.runner import EvalConfig, prepare, run_cold, shared_pool
from lmrbench.records import Grading, Status
from lmrbench.sandbox import SandboxConfig
from lmrbench.solvers.builtin import reference_prediction
from lmrbench.tasks.schema import Implementation, Task

SCRIPT = "make_fixtures.py"


@dataclass
class FixtureResult:
    task_id: str
    ok: bool
    detail: str


def _differences(a: Path, b: Path) -> tuple[list[str], list[str]]:
    """What differs between a new and an old fixture folder, and the files equal only up to float rounding."""
    names_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    names_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()} if b.is_dir() else set()
    diffs = [f"only in new: {n}" for n in sorted(names_a - names_b)]
    diffs += [f"only in old: {n}" for n in sorted(names_b - names_a)]
    same = {n: compare_files(a / n, b / n) for n in sorted(names_a & names_b)}
    diffs += [f"differs: {n}" for n, s in same.items() if s is Same.NO]
    return diffs, [str(n) for n, s in same.items() if s is Same.ROUNDING]


def canonical_outputs(data: bytes) -> bytes:
    """A probe run's output without timings, keys sorted: the stored form of expected outputs."""
    lines = []
    for line in data.decode().splitlines():
        if line.strip():
            row = json.loads(line)
            row.pop("seconds", None)
            lines.append(json.dumps(row, sort_keys=True, allow_nan=False))
    return ("\n".join(lines) + "\n").encode()


def spec_changes(stored: ProbeData, fresh: ProbeData) -> str:
    """Cases added or removed, or whose comparison spec (tolerances, compare mode, dtype) differs, between the
    stored expected outputs and a fresh reference run; '' when none. Values may differ by float rounding (the
    grade decides that); a spec may not, since grading uses the stored one."""
    old, new = stored.cases, fresh.cases
    names = [f"+{n}" for n in new if n not in old] + [f"-{n}" for n in old if n not in new]
    names += [n for n in new if n in old and new[n].spec != old[n].spec]
    return ", ".join(names[:5]) + (f" (+{len(names) - 5} more)" if len(names) > 5 else "")


def reference_outputs(task: Task, impl: Implementation, sandbox_config: SandboxConfig | None = None) -> bytes | str:
    """Run an implementation's probe file with the reference, in the sandbox: its canonical output, or an error."""
    pred = reference_prediction(task, impl)
    config = EvalConfig(sandbox=sandbox_config or SandboxConfig())
    with tempfile.TemporaryDirectory(prefix="lmrbench-expected-") as tmp:
        p = prepare(task, impl, pred, Path(tmp) / "item", Path(tmp) / "log.txt", "expected", config)
        if p.invalid:
            return f"reference does not apply: {p.invalid}"
        res = run_cold(p, shared_pool(config).for_task(task))
        data = read_capped(p.out / "outputs.jsonl")
        parsed = parse_probe_output(data) if data is not None else None
        if res.exit_code != 0 or parsed is None or not parsed.done or parsed.import_errors or not parsed.cases:
            tail = p.log.read_text(errors="replace")[-1500:] if p.log.is_file() else ""
            return f"probe run with the reference failed (exit {res.exit_code}):\n{tail}"
        unsupported = [f"{c.name}:{k}" for c in parsed.cases.values() for k, v in c.outputs.items()
                       if isinstance(v, tuple) and v[0] == "unsupported"]
        if unsupported:
            return f"outputs that are not plain data: {unsupported[:5]}"
        return canonical_outputs(data or b"")


def _expected(task: Task, check: bool, sandbox_config: SandboxConfig | None) -> list[str]:
    """Write (or check) every probe file's expected outputs; returns problems."""
    assert task.tests_dir is not None
    problems = []
    for impl in task.implementations:
        if task.grading(impl) is not Grading.PROBE:
            continue
        rel = str(task.test_rel(impl.unit_test_file))
        target = expected_path(task.tests_dir, rel)
        new = reference_outputs(task, impl, sandbox_config)
        if isinstance(new, str):
            problems.append(f"{impl.instance_id}: {new}")
        elif not check:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(new)
        elif not target.is_file():
            problems.append(f"{impl.instance_id}: no {target.relative_to(task.root)}")
        elif (stored := target.read_bytes()) != new:
            fresh = parse_probe_output(new)
            changed = spec_changes(parse_probe_output(stored), fresh)
            if changed:
                problems.append(f"{impl.instance_id}: the probe's cases or comparison specs changed: {changed}")
                continue
            g = grade_probe_data(task, impl.unit_test_file, fresh, 0, False, set())
            if g.status is not Status.PASSED:
                problems.append(f"{impl.instance_id}: expected outputs differ from the reference's: {g.reason}")
    return problems


def build_fixtures(task: Task, check: bool, sandbox_config: SandboxConfig | None = None,
                   outputs: bool = True) -> FixtureResult:
    """Input fixtures (make_fixtures.py) and, unless `outputs` is False, the expected probe outputs from the
    reference: write or check them."""
    inputs = _input_fixtures(task, check, sandbox_config)
    if not inputs.ok or not outputs:
        return inputs
    problems = _expected(task, check, sandbox_config)
    if problems:
        return FixtureResult(task.task_id, False, "; ".join(problems))
    return inputs


def _input_fixtures(task: Task, check: bool, sandbox_config: SandboxConfig | None = None) -> FixtureResult:
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
        res = shared_pool(EvalConfig(sandbox=sandbox_config or SandboxConfig())).for_task(task).exec(
            [sys.executable, "-P", "_make_fixtures.py", "_fixtures_out"], ws, task.timeout_s * 3, log,
            env={"PYTHONPATH": str(ws)},
        )
        out = ws / "_fixtures_out"
        if res.exit_code != 0 or not out.is_dir():
            tail = log.read_text(errors="replace")[-1500:]
            return FixtureResult(task.task_id, False, f"make_fixtures.py failed (exit {res.exit_code}):\n{tail}")
        diffs, rounding = _differences(out, target)
        if check:
            if diffs:
                return FixtureResult(task.task_id, False, "; ".join(diffs[:5]))
            note = f" ({', '.join(rounding)} equal up to float rounding)" if rounding else ""
            return FixtureResult(task.task_id, True, "up to date" + note)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out, target)
        return FixtureResult(task.task_id, True, f"wrote {sum(1 for p in target.rglob('*') if p.is_file())} file(s)")
