"""The graders: one per way a verdict is computed (`Grading`), each with the same four steps.

- `place_hidden`: what goes beside the workspace before the run (hidden tests and the runner, read-only in the
  sandbox), or what must be cleared in it (a stale legacy log);
- `command`: the command line that runs the item;
- `grade`: the verdict, from what the run left;
- `keep`: what is kept beside the log for re-grading from disk (the probe grader's data and run facts).

`refuse` says, before anything runs, why an item cannot be measured at all (the original layout's preflight).
"""

from __future__ import annotations

import json
import secrets
import shutil
import sys
from collections.abc import Container
from pathlib import Path
from typing import Protocol

from lmrbench.evaluate.causes import Cause
from lmrbench.evaluate.grading import grade, grade_probe_data, workspace_modules
from lmrbench.evaluate.item import Command, Prepared, RunFacts, RunResult
from lmrbench.evaluate.legacy import legacy_command, legacy_grade, preflight, prepare_logs
from lmrbench.evaluate.probes import read_capped, read_probe_output
from lmrbench.jsonl import MAX_DEPTH, within_depth
from lmrbench.records import Grading, Verdict
from lmrbench.rundir import kept_outputs, run_facts
from lmrbench.sandbox.scripts import script
from lmrbench.tasks.schema import Implementation, Task

RUNNER = script("probe_runner.py")
PLUGIN = script("pytest_results_plugin.py")
KEPT_OUTPUT_BYTES = 8 * 1024 * 1024
MAX_RESULTS_BYTES = 16 * 1024 * 1024
MAX_FACTS_BYTES = 1024 * 1024

LAUNCHER = """\
import os, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import json  # noqa: F401  (bound before the workspace can shadow it)
import pytest
import pytest_results_plugin
sys.path.insert(0, os.getcwd())  # the repository, after pytest and the plugin are loaded
args = ["-q", "-p", "no:cacheprovider", "--import-mode=importlib", "-c", os.path.join(HERE, "pytest.ini"),
        "--rootdir", os.getcwd(), "--confcutdir", HERE, "-o", "addopts=", *sys.argv[1:]]
sys.exit(pytest.main(args, plugins=[pytest_results_plugin]))
"""


class Grader(Protocol):
    """How one kind of hidden test is placed, run, graded and kept."""

    kind: Grading
    watchable: bool  # its data can be watched from outside the sandbox while it runs (warm: stop at a failure)

    def refuse(self, task: Task, impl: Implementation) -> Cause | None: ...

    def place_hidden(self, p: Prepared) -> None: ...

    def command(self, p: Prepared) -> Command: ...

    def grade(self, p: Prepared, r: RunResult, lacking: Container[str]) -> Verdict: ...

    def keep(self, p: Prepared, r: RunResult, lacking: list[str]) -> str: ...


def _home(p: Prepared) -> dict[str, str]:
    return {"HOME": str(p.ws / ".home"), "TMPDIR": str(p.ws / ".tmp")}


def _python(task: Task) -> tuple[str, list[Path]]:
    """The interpreter that runs a task's tests: its own environment's (`lmrbench env build`), else ours."""
    if task.env is None:
        return sys.executable, []
    return str(task.env.python), [task.env.root]


def _copy_sandbox_files(p: Prepared) -> None:
    assert p.task.tests_dir is not None
    for rel in p.task.sandbox_files():
        dest = p.hidden / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p.task.tests_dir / rel, dest)


def _hidden_test(p: Prepared) -> Path:
    return p.hidden / p.task.test_rel(p.impl.unit_test_file)


class ProbeGrader:
    """Probe files: the sandbox only writes data; it is compared with the reference's outside (cannot be forged)."""

    kind = Grading.PROBE
    watchable = True

    def refuse(self, task: Task, impl: Implementation) -> Cause | None:
        return None

    def place_hidden(self, p: Prepared) -> None:
        _copy_sandbox_files(p)
        shutil.copyfile(RUNNER, p.hidden / "lmrbench_probe.py")

    def command(self, p: Prepared) -> Command:
        python, env_paths = _python(p.task)
        argv = [python, "-P", str(p.hidden / "lmrbench_probe.py"), "--out", str(p.out / "outputs.jsonl"),
                "--root", str(p.ws), str(_hidden_test(p))]
        return Command(argv, _home(p), [p.hidden, *env_paths], [p.out])

    def grade(self, p: Prepared, r: RunResult, lacking: Container[str]) -> Verdict:
        return self.grade_data(p.task, p.impl, p.out / "outputs.jsonl", r.exit_code, r.timed_out, lacking)

    def grade_data(self, task: Task, impl: Implementation, outputs: Path, exit_code: int | None, timed_out: bool,
                   lacking: Container[str]) -> Verdict:
        """The verdict of a probe run from the data file it left (or that was kept of it)."""
        g = grade_probe_data(task, impl.unit_test_file, read_probe_output(outputs), exit_code, timed_out, lacking)
        return Verdict(status=g.status, tests_passed=g.passed, tests_total=g.total,
                       tests_duration_s=g.tests_duration_s, reason=g.reason, failures=g.failures)

    def keep(self, p: Prepared, r: RunResult, lacking: list[str]) -> str:
        """Keep the probe data beside the log (capped) with what else grading used, so that a finished run can be
        re-graded from disk without a sandbox (`lmrbench evaluate --regrade`)."""
        dest = kept_outputs(p.log)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(read_capped(p.out / "outputs.jsonl", KEPT_OUTPUT_BYTES) or b"")
        facts = RunFacts(exit_code=r.exit_code, timed_out=r.timed_out,
                         workspace_modules=sorted(workspace_modules(p.ws)), limits_hit=r.limits_hit,
                         tampered=len(p.tampered), lacking=lacking)
        run_facts(dest).write_text(facts.model_dump_json())
        return str(dest)

    def kept_facts(self, outputs: Path) -> RunFacts | None:
        """The run facts kept beside kept probe data; None when missing or unreadable."""
        raw = read_capped(run_facts(outputs), MAX_FACTS_BYTES)
        try:
            return RunFacts.model_validate_json(raw) if raw is not None else None
        except ValueError:
            return None


class PytestGrader:
    """pytest files: run inside the sandbox, graded by the harness's nonce and exit code (forgeable)."""

    kind = Grading.PYTEST
    watchable = False

    def refuse(self, task: Task, impl: Implementation) -> Cause | None:
        return None

    def place_hidden(self, p: Prepared) -> None:
        _copy_sandbox_files(p)
        shutil.copyfile(PLUGIN, p.hidden / "pytest_results_plugin.py")
        (p.hidden / "_launcher.py").write_text(LAUNCHER)
        (p.hidden / "pytest.ini").write_text("[pytest]\n")
        p.nonce = secrets.token_hex(16)
        (p.out / "nonce").write_text(p.nonce)

    def command(self, p: Prepared) -> Command:
        python, env_paths = _python(p.task)
        argv = [python, "-P", str(p.hidden / "_launcher.py"), str(_hidden_test(p))]
        env = {**_home(p), "LMRBENCH_NONCE_FILE": str(p.out / "nonce"),
               "LMRBENCH_RESULTS": str(p.out / "results.json"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
        return Command(argv, env, [p.hidden, *env_paths], [p.out])

    def grade(self, p: Prepared, r: RunResult, lacking: Container[str]) -> Verdict:
        raw = read_capped(p.out / "results.json", MAX_RESULTS_BYTES)
        try:  # the candidate could have replaced it with a link, a FIFO, a huge or deeply nested file
            results = json.loads(raw) if raw is not None else None
            results = results if within_depth(results, MAX_DEPTH) else None
        except (ValueError, RecursionError, MemoryError):
            results = None
        g = grade(results, p.nonce, r.exit_code, r.timed_out, lacking)
        return Verdict(status=g.status, tests_passed=g.passed, tests_total=g.total,
                       tests_duration_s=g.tests_duration_s, reason=g.reason, forgeable=True)

    def keep(self, p: Prepared, r: RunResult, lacking: list[str]) -> str:
        return ""


class LegacyGrader:
    """The original layout: its own test script, graded by its log rule plus exit code 0 (forgeable)."""

    kind = Grading.LEGACY
    watchable = False

    def refuse(self, task: Task, impl: Implementation) -> Cause | None:
        return preflight(task, impl)  # no repository, no test, LFS fixtures: nothing to measure here

    def place_hidden(self, p: Prepared) -> None:
        prepare_logs(p.impl, p.ws)  # nothing is hidden; a stale log in the workspace must not grade this run

    def command(self, p: Prepared) -> Command:
        argv, env, readonly = legacy_command(p.task, p.impl, p.ws)
        return Command(argv, {**_home(p), **env}, readonly, [])

    def grade(self, p: Prepared, r: RunResult, lacking: Container[str]) -> Verdict:
        return legacy_grade(p.task, p.impl, p.ws, p.log, r.exit_code, r.timed_out, lacking)

    def keep(self, p: Prepared, r: RunResult, lacking: list[str]) -> str:
        return ""


GRADERS: dict[Grading, Grader] = {g.kind: g for g in (ProbeGrader(), PytestGrader(), LegacyGrader())}


def grader_for(grading: Grading) -> Grader:
    return GRADERS[grading]
