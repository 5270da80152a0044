"""Pure grading functions: structured pytest results + exit code -> status. Printed text never counts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lmrbench.evaluate.models import LegacyVerdict, Status
from lmrbench.safefs import read_beneath, read_file

MAX_LEGACY_LOG_BYTES = 64 * 1024 * 1024
MISSING_MODULE = re.compile(r"No module named '([\w.]+)'")


@dataclass(frozen=True)
class Grade:
    status: Status
    passed: int
    total: int
    tests_duration_s: float
    reason: str


def _missing_module(errors: list[dict[str, Any]], workspace_modules: set[str]) -> str | None:
    for err in errors:
        match = MISSING_MODULE.search(err.get("longrepr", ""))
        if match and match.group(1).split(".")[0] not in workspace_modules:
            return match.group(1)
    return None


def grade(
    results: dict[str, Any] | None,
    nonce: str,
    exit_code: int | None,
    timed_out: bool,
    workspace_modules: set[str],
) -> Grade:
    """Grade one pytest run.

    Passed needs all of: the plugin's results carrying the harness's nonce, at least one test, every test
    passed, no collection error, pytest's own exit status 0 and the process exit code 0.
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
    duration = round(sum(float(t.get("duration", 0.0)) for t in tests), 3)
    missing = _missing_module(errors, workspace_modules)
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
