"""A small evaluated and judged run folder on four toy tasks (built once a session; each test copies it), and
helpers to run `lmrbench annotate` as a real process."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lmrbench.records import Judgment, JudgmentStatus, Prediction
from tests.cli_inprocess import run_cli
from tests.conftest import write_task

RIGHT = "def add_scaled(a, b, k):\n    return [x + k * y for x, y in zip(a, b)]\n"
STUB = "def add_scaled(a, b, k):\n    raise NotImplementedError\n"
HOSTILE = ('def add_scaled(a, b, k):\n    "</script><script>window.__pwned = 1</script>'
           '<img src=x onerror=\'window.__pwned = 2\'>"\n    return [x + k * y for x, y in zip(a, b)]\n')
TASKS = ("t1", "t2", "t3", "t4")
# The items in the page's order: (instance, model) for sample 0.
ORDER = [("t1/1", "reference"), ("t1/1", "stub"), ("t2/1", "reference"), ("t2/1", "stub"), ("t3/1", "hostile"),
         ("t3/1", "reference"), ("t4/1", "reference")]
RATIONALE = "<script>window.__pwned = 3</script> the judge's secret rationale"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


def _predictions() -> list[Prediction]:
    code = {"reference": RIGHT, "stub": STUB, "hostile": HOSTILE}
    return [Prediction(instance_id=inst, model=model, functions={"calc/ops.py": {"add_scaled": code[model]}})
            for inst, model in ORDER]


@pytest.fixture(scope="session")
def annotated_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(suite, run folder): seven predictions evaluated in the sandbox, the hostile one judged."""
    base = tmp_path_factory.mktemp("annotate")
    suite = base / "suite"
    for task_id in TASKS:
        write_task(suite, task_id)
    preds = base / "preds.jsonl"
    preds.write_text("".join(p.model_dump_json(exclude_none=True) + "\n" for p in _predictions()))
    res = cli("evaluate", "--predictions", str(preds), "--tasks", str(suite), "--split", "all", "--run-dir", "run",
              "--workers", "2", cwd=base)
    assert res.returncode == 0, res.stderr[-3000:]
    judged = Judgment(instance_id="t3/1", model="hostile", sample=0, judge="fake-judge", prompt_version="judge-v1",
                      key="k", status=JudgmentStatus.OK, category=3, rationale=RATIONALE)
    (base / "run" / "judgments.jsonl").write_text(judged.model_dump_json() + "\n")
    return suite, base / "run"


@pytest.fixture
def run_copy(annotated_run: tuple[Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    suite, run = annotated_run
    shutil.copytree(run, tmp_path / "run", symlinks=True)
    return suite, tmp_path / "run"


class Annotator:
    """`lmrbench annotate` as a real process on a free loopback port."""

    def __init__(self, run: Path, suite: Path, name: str, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lmrbench", "annotate", str(run), "--annotator", name, "--port", "0",
             "--tasks", str(suite), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "COLUMNS": "300"})
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not found:
            self.proc.kill()
            raise AssertionError(f"no URL printed: {line!r} {self.proc.stderr.read() if self.proc.stderr else ''}")
        self.url = found.group(0)

    def kill(self) -> None:
        """SIGKILL: no chance to flush or clean up, as a crash or a closed laptop."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


@pytest.fixture
def annotators() -> Iterator[list[Annotator]]:
    """Started annotators, killed at the end whatever happens."""
    started: list[Annotator] = []
    yield started
    for a in started:
        if a.proc.poll() is None:
            a.kill()


def wait_for(pred, timeout: float = 20.0, what: str = "condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]
