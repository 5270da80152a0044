"""`run`, `evaluate` and `validate` grade an original-layout task in the same environment: its own, built with uv
from the package index. The task needs a package the harness lacks (einops, small and pure Python), so a command
that evaluated without the task's environment would record `error: module 'einops' is not installed`."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_inprocess import run_cli
from tests.tasks.test_original import make_original

NEEDS_EINOPS = """import sys, os
sys.path.insert(0, os.getcwd())
import einops
from losses import loss
os.makedirs('unit_test/logs', exist_ok=True)
ok = loss(1) == 3 and einops.__version__ == '0.8.1'
open('unit_test/logs/unit_test_1.log', 'w').write('Test Passed' if ok else 'Test Failed')
"""


def cli(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LMRBENCH_CACHE=str(cache))
    return run_cli(*args, cwd=cwd, env=env)


@pytest.mark.skipif(importlib.util.find_spec("einops") is not None, reason="the harness itself has einops")
def test_run_evaluate_and_validate_use_the_tasks_environment(tmp_path):
    data, cache = tmp_path / "datasets", tmp_path / "cache"
    make_original(data, "25-Needs", {}, {"repo/requirements.txt": "einops==0.8.1\n",
                                         "repo/unit_test/unit_test_1.py": NEEDS_EINOPS})
    make_original(data, "26-Other", {}, {})  # a second task: -t selects, so run works on a copy of the task set
    res = cli("run", "--model", "reference", "--tasks", str(data), "-t", "25-needs", "--run-dir", "run", "--json",
              cwd=tmp_path, cache=cache)
    assert res.returncode == 0, res.stderr[-3000:]
    [ev] = [json.loads(line) for line in (tmp_path / "run" / "evaluations.jsonl").read_text().splitlines()]
    assert ev["instance_id"] == "25-needs/1" and ev["status"] == "passed", ev["reason"]
    score = json.loads(res.stdout)["scores"][0]
    assert score["status_counts"]["passed"] == 1 and score["error_causes"] == {}
    # evaluate (on the same predictions, selected) and validate grade it in that same environment
    ev_res = cli("evaluate", "--predictions", "run/predictions.jsonl", "--tasks", str(data), "-t", "25-needs",
                 "--run-dir", "again", "--json", cwd=tmp_path, cache=cache)
    assert ev_res.returncode == 0, ev_res.stderr[-3000:]
    assert json.loads(ev_res.stdout)["scores"][0]["status_counts"]["passed"] == 1
    val = cli("validate", "--tasks", str(data), "-t", "25-needs", "--repeat", "1", "--no-wrong", "--json",
              cwd=tmp_path, cache=cache)
    [row] = json.loads(val.stdout)
    assert row["reference_passed"] == row["reference_runs"] == 1, val.stdout[-3000:]
    # without its environment the same reference is not measured: the environment is what made it pass
    shared = cli("run", "--model", "reference", "--tasks", str(data), "-t", "25-needs", "--run-dir", "shared",
                 "--env", "shared", "--json", cwd=tmp_path, cache=cache)
    score = json.loads(shared.stdout)["scores"][0]
    assert score["status_counts"]["error"] == 1 and score["error_causes"] == {"missing_module": 1}
