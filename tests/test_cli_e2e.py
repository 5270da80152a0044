"""End to end: the real CLI on the real built-in tasks, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lmrbench.tasks.loader import load_tasks

N = len(load_tasks().instances())


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lmrbench", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1200)


def test_run_reference_end_to_end_then_resume(tmp_path):
    run = tmp_path / "run"  # given relative to the working directory, as `make demo` does (runs/reference)
    res = cli("run", "--model", "reference", "--run-dir", "run", "--workers", "2", cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert f"reference: {N}/{N} passed (100.0%" in res.stdout
    evals = [json.loads(line) for line in (run / "evaluations.jsonl").read_text().splitlines()]
    assert len(evals) == N and all(e["status"] == "passed" for e in evals)
    assert (run / "report.md").is_file()
    # resuming does nothing new and reports the same
    again = cli("run", "--model", "reference", "--run-dir", str(run), cwd=tmp_path)
    assert again.returncode == 0 and f"{N}/{N} passed" in again.stdout
    assert len((run / "evaluations.jsonl").read_text().splitlines()) == N
    report = json.loads(cli("report", str(run), "--json", cwd=tmp_path).stdout)
    score = report["scores"][0]
    assert score["model"] == "reference" and score["pass_rate"]["value"] == 1.0
    assert score["implementations"] == N


def test_stub_fails_and_json_listing(tmp_path):
    res = cli("run", "--model", "stub", "-t", "dpo", "--run-dir", str(tmp_path / "stub"), cwd=tmp_path)
    assert res.returncode == 0
    assert "stub: 0/1 passed (0.0%" in res.stdout
    listing = json.loads(cli("tasks", "list", "--json", cwd=tmp_path).stdout)
    assert len(listing) == N and all(row["category"] for row in listing)


def test_bad_tasks_path_is_a_clear_error(tmp_path):
    res = cli("tasks", "list", "--tasks", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert res.returncode == 2 and "does not exist" in res.stderr


def test_every_command_has_working_help():
    from typer.testing import CliRunner

    from lmrbench.cli import app

    runner = CliRunner()
    for cmd in (["tasks", "list"], ["tasks", "show"], ["tasks", "lint"], ["tasks", "fixtures"], ["validate"],
                ["generate"], ["evaluate"], ["judge"], ["report"], ["run"], ["papers", "fetch"],
                ["workspace", "export"], ["predictions", "from-dirs"], ["predictions", "from-openhands"],
                ["env", "build"]):
        res = runner.invoke(app, [*cmd, "--help"])
        assert res.exit_code == 0, (cmd, res.output)
