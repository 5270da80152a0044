"""Pure grading functions: structured pytest results + exit code -> status. Printed text never counts."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lmrbench.evaluate.causes import missing_module
from lmrbench.evaluate.probes import (
    ProbeData,
    check_cases,
    expected_path,
    finite_seconds,
    parse_probe_output,
    read_capped,
    read_probe_output,
    reported_missing,
    task_checks,
)
from lmrbench.records import LegacyVerdict, Status
from lmrbench.safefs import read_beneath, read_file
from lmrbench.tasks.schema import Task

MAX_FAILURES = 10


def workspace_modules(ws: Path) -> set[str]:
    """Top-level modules of a workspace: an import of anything else that fails is the environment's fault."""
    return {p.stem if p.is_file() else p.name for p in ws.iterdir() if p.suffix == ".py" or p.is_dir()}

MAX_LEGACY_LOG_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Grade:
    status: Status
    passed: int
    total: int
    tests_duration_s: float
    reason: str
    failures: list[str] = field(default_factory=list)


def _missing_module(errors: list[dict[str, Any]], lacking: Container[str]) -> str | None:
    return missing_module([str(err.get("longrepr", "")) for err in errors if isinstance(err, dict)], lacking)


def grade(
    results: dict[str, Any] | None,
    nonce: str,
    exit_code: int | None,
    timed_out: bool,
    lacking: Container[str],
) -> Grade:
    """Grade one pytest run.

    Passed needs all of: the plugin's results carrying the harness's nonce, at least one test, every test
    passed, no collection error, pytest's own exit status 0 and the process exit code 0. A collection error
    naming a missing module is an `error` only when that module is in `lacking` (trusted evidence).
    """
    if timed_out:
        return Grade(Status.TIMEOUT, 0, 0, 0.0, "wall-clock timeout")
    if not isinstance(results, dict) or results.get("nonce") != nonce:
        why = "no structured results" if results is None else "structured results not written by the harness"
        return Grade(Status.FAILED, 0, 0, 0.0, f"{why} (exit code {exit_code})")
    tests = results.get("tests") or []
    errors = results.get("collect_errors") or []
    passed = sum(1 for t in tests if t.get("outcome") == "passed")
    total = len(tests)
    duration = round(sum(finite_seconds(t.get("duration", 0.0)) for t in tests if isinstance(t, dict)), 3)
    missing = _missing_module(errors, lacking)
    if missing:
        return Grade(Status.ERROR, passed, total, duration, f"environment: module '{missing}' is not installed")
    ok = total > 0 and passed == total and not errors and results.get("exitstatus") == 0 and exit_code == 0
    if ok:
        return Grade(Status.PASSED, passed, total, duration, "")
    if errors:
        reason = f"{len(errors)} collection error(s)"
    elif total == 0:
        reason = "no test ran"
    elif passed < total:
        reason = f"{total - passed} of {total} tests did not pass"
    else:
        reason = f"exit code {exit_code}, pytest status {results.get('exitstatus')}"
    return Grade(Status.FAILED, passed, total, duration, reason)


_EXPECTED: dict[tuple[str, int, int], ProbeData] = {}


def load_expected(task: Task, probe_rel: str) -> ProbeData:
    """The reference's outputs for one probe file (trusted: written by `lmrbench tasks fixtures`); parsed once
    per file version."""
    assert task.tests_dir is not None
    rel = str(task.test_rel(probe_rel))
    path = expected_path(task.tests_dir, rel)
    try:
        st = path.stat()
    except OSError:
        return ProbeData(problem=f"no expected outputs at {path} (run `lmrbench tasks fixtures`)")
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _EXPECTED:
        data = read_capped(path)
        if data is None:
            return ProbeData(problem=f"expected outputs at {path} are unreadable")
        _EXPECTED[key] = parse_probe_output(data)
    return _EXPECTED[key]


def grade_probe_data(task: Task, probe_rel: str, got: ProbeData, exit_code: int | None, timed_out: bool,
                     lacking: Container[str]) -> Grade:
    """Grade a probe run's data against the reference's outputs and the task's checks (pure, no sandbox). A
    missing module makes it an `error` only when the module is in `lacking` (trusted evidence, evidence.py)."""
    want = load_expected(task, probe_rel)
    if want.problem or not want.cases:
        return Grade(Status.ERROR, 0, 0, 0.0, f"task: {want.problem or 'no expected cases'}")
    total = len(want.cases)
    if got.problem:
        return Grade(Status.TIMEOUT if timed_out else Status.FAILED, 0, total, 0.0, got.problem)
    assert task.tests_dir is not None
    rel = str(task.test_rel(probe_rel))
    results = check_cases(got, want, task_checks(task.tests_dir, rel))
    passed = sum(r.passed for r in results)
    failures = [f"{r.name}: {r.reason}" for r in results if not r.passed][:MAX_FAILURES]
    duration = round(sum(c.seconds for c in got.cases.values()), 3)
    missing = reported_missing(got, lacking)
    if timed_out:
        return Grade(Status.TIMEOUT, passed, total, duration, "wall-clock timeout", failures)
    if missing and passed < total:
        return Grade(Status.ERROR, passed, total, duration, f"environment: module '{missing}' is not installed",
                     failures)
    if passed == total and got.done and exit_code == 0:
        return Grade(Status.PASSED, passed, total, duration, "")
    if got.import_errors:
        reason = f"probe import failed: {got.import_errors[0][:300]}"
    elif passed < total:
        reason = f"{total - passed} of {total} cases did not pass; first: {failures[0][:300]}"
    else:
        reason = f"probe run did not finish cleanly (exit code {exit_code})"
    return Grade(Status.FAILED, passed, total, duration, reason, failures)


def grade_probe(task: Task, probe_rel: str, outputs: Path, exit_code: int | None, timed_out: bool,
                lacking: Container[str]) -> Grade:
    """Grade a finished probe run from the data file it left."""
    return grade_probe_data(task, probe_rel, read_probe_output(outputs), exit_code, timed_out, lacking)


def legacy_verdict(log: Path, exit_code: int | None, root: Path | None = None) -> LegacyVerdict:
    """The original LMR-Bench rule (a 'Passed' and no 'Failed' in the log), and the same plus exit code 0.

    With `root` (a workspace the candidate wrote to), the log is read below it without following any link, and
    a link, a special file or a log over MAX_LEGACY_LOG_BYTES counts as no log."""
    try:
        data = read_beneath(root, log.relative_to(root), MAX_LEGACY_LOG_BYTES) if root else read_file(
            log, MAX_LEGACY_LOG_BYTES)
    except (OSError, ValueError):  # missing, or UnsafePath
        return LegacyVerdict(log_rule=False, strict=False, log_found=False)
    text = data.decode("utf-8", errors="replace")
    rule = "Passed" in text and "Failed" not in text
    return LegacyVerdict(log_rule=rule, strict=rule and exit_code == 0, log_found=True)
