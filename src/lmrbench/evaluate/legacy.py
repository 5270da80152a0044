"""Legacy evaluation of original-layout tasks: `python unit_test/unit_test_N.py` with PYTHONPATH = the repository,
graded by the original's log rule and, strictly, by the log rule plus exit code 0.

What the environment decides is told apart from what the prediction decides: a task without a repository, a
missing test file or a test fixture that is a Git-LFS pointer refuses the run before it starts; after a run that
did not pass, a package that could not be installed, a module not installed (one the reference's run imports, which
the harness itself finds absent: evidence.py), a refused hub download or a missing GPU makes the result an `error`
with that cause instead of `failed`.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Container
from pathlib import Path

from lmrbench.evaluate.causes import Cause, classify_output
from lmrbench.evaluate.grading import legacy_verdict
from lmrbench.records import ErrorCause, LegacyVerdict, Status, Verdict
from lmrbench.safefs import read_tail
from lmrbench.tasks.fixture_refs import FixtureRef, FixtureState, fixture_refs
from lmrbench.tasks.schema import Implementation, Task

MAX_LOG_BYTES = 4 * 1024 * 1024
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


def preflight(task: Task, impl: Implementation) -> Cause | None:
    """Why this implementation cannot be measured at all here, known before any run; None when it can run."""
    if task.defect:
        return Cause(ErrorCause.MISSING_REPO, f"environment: {task.defect}")
    test = task.repo_dir / impl.unit_test_file
    if not impl.unit_test_file or not test.is_file():
        return Cause(ErrorCause.MISSING_TEST, f"environment: test file '{impl.unit_test_file}' does not exist")
    pointers = [r for r in fixture_refs(task.repo_dir, impl.unit_test_file) if r.state is FixtureState.LFS_POINTER]
    if pointers:
        more = f" (and {len(pointers) - 1} more)" if len(pointers) > 1 else ""
        return Cause(ErrorCause.LFS_POINTER, f"environment: fixture '{pointers[0].path}' is a Git-LFS pointer, "
                     f"not data{more}")
    return None


def find_log(logs_dir: Path, stem: str) -> Path | None:
    """The test's log: `<stem>.log`, else the one log the run wrote under another name (16/3 and 16/5 write
    `unit_test.log`). Symlinks are never followed: the folder was writable by the tested code."""
    if logs_dir.is_symlink() or not logs_dir.is_dir():
        return None
    own = logs_dir / f"{stem}.log"
    if own.is_file() and not own.is_symlink():
        return own
    logs = [p for p in logs_dir.glob("*.log") if p.is_file() and not p.is_symlink()]
    return logs[0] if len(logs) == 1 else None


def _clear_logs(logs_dir: Path) -> None:
    """A stale log must not grade this run."""
    if logs_dir.is_symlink() or logs_dir.is_file():
        logs_dir.unlink()
    elif logs_dir.exists():
        shutil.rmtree(logs_dir)
    logs_dir.mkdir(parents=True)


def _interpreter(task: Task, ws: Path) -> tuple[str, dict[str, str], list[Path]]:
    """(python, extra environment, read-only paths) for the task's own environment or the harness's."""
    env = dict(OFFLINE_ENV)
    if task.env is None:
        return sys.executable, env | {"PYTHONPATH": str(ws)}, []
    # after the repository: tests that drop sys.path's first entries still find the local packages (25-AdaLora)
    paths = [str(ws)] + [str(ws / p) for p in task.env.paths]
    bins = [str(task.env.python.parent), str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]
    env |= {"PYTHONPATH": os.pathsep.join(paths), "PATH": os.pathsep.join(bins), "VIRTUAL_ENV": str(task.env.root)}
    return str(task.env.python), env, [task.env.root]


def _read_tail(path: Path) -> str:
    try:
        return read_tail(path, MAX_LOG_BYTES)
    except (OSError, ValueError):
        return ""


def refusal(cause: Cause, log: Path) -> Verdict:
    """The verdict of an implementation that was not run; the reason is also the log."""
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(cause.reason + "\n", encoding="utf-8")
    return Verdict(status=Status.ERROR, cause=cause.cause, reason=cause.reason, tests_passed=0, tests_total=1)


def _not_passed(task: Task, ws: Path, output: str, refs: list[FixtureRef], lacking: Container[str]
                ) -> Cause | None:
    """The environment cause of a run that did not pass: what its output shows, else a requirement that could not
    be installed; either way the requirements that failed are named. A missing module counts only when the
    trusted evidence (`lacking`, evidence.py) says the reference's run needs it and the environment lacks it."""
    seen = classify_output(output, lacking, refs, str(ws.resolve()) + os.sep)
    if task.env is None or not task.env.failed:
        return seen
    failed = "could not install " + ", ".join(task.env.failed)
    if seen is None:
        return Cause(ErrorCause.PACKAGE_INSTALL, f"environment: {failed}")
    return Cause(seen.cause, f"{seen.reason}; {failed}")


def legacy_command(task: Task, impl: Implementation, ws: Path) -> tuple[list[str], dict[str, str], list[Path]]:
    """(argv, extra environment, read-only paths) of one original-layout test run in the prepared workspace."""
    python, env, readonly = _interpreter(task, ws)
    return [python, str(Path(impl.unit_test_file))], env, readonly


def prepare_logs(impl: Implementation, ws: Path) -> None:
    _clear_logs(ws / Path(impl.unit_test_file).parent / "logs")


def legacy_grade(task: Task, impl: Implementation, ws: Path, log: Path, exit_code: int | None,
                      timed_out: bool, lacking: Container[str]) -> Verdict:
    """Grade one finished original-layout run."""
    test = Path(impl.unit_test_file)
    logs_dir = ws / test.parent / "logs"
    found = find_log(logs_dir, test.stem)
    verdict: LegacyVerdict = legacy_verdict(found or logs_dir / f"{test.stem}.log", exit_code, root=ws)
    verdict.log_file = found.name if found else ""
    base = Verdict(status=Status.FAILED, tests_passed=int(verdict.strict), tests_total=1, legacy=verdict,
                   forgeable=True)
    if timed_out:
        return base.model_copy(update={"status": Status.TIMEOUT, "reason": "wall-clock timeout"})
    if verdict.strict:
        return base.model_copy(update={"status": Status.PASSED})
    why = f"legacy: log_rule={verdict.log_rule}, exit code {exit_code}"
    cause = _not_passed(task, ws, _read_tail(log), fixture_refs(task.repo_dir, impl.unit_test_file), lacking)
    if cause is not None:
        return base.model_copy(update={"status": Status.ERROR, "cause": cause.cause,
                                       "reason": f"{cause.reason} ({why})"})
    return base.model_copy(update={"reason": why})
