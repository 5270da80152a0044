"""End to end: the real CLI on the real built-in tasks, as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lmrbench.tasks.loader import load_tasks

N = len(load_tasks().restrict(split="all").instances())  # lite and main (upstream: test_upstream_e2e)
FEW = ("dpo", "knowprob/4", "timemixer/2")  # a torch task, a no-torch task, one of a two-implementation task


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lmrbench", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=1200)


def test_run_reference_end_to_end_then_resume_and_regrade(tmp_path):
    # (every built-in reference is proven by tests/test_builtin_tasks.py; this is the CLI path on a few)
    run = tmp_path / "run"  # given relative to the working directory, as `make demo` does (runs/reference)
    select = [arg for t in FEW for arg in ("-t", t)]
    res = cli("run", "--model", "reference", "--run-dir", "run", "--workers", "2", *select, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    n = len(FEW)
    assert f"reference: {n}/{n} passed (100.0%" in res.stdout
    evals = [json.loads(line) for line in (run / "evaluations.jsonl").read_text().splitlines()]
    assert len(evals) == n and all(e["status"] == "passed" and e["grading"] == "probe" for e in evals)
    assert (run / "report.md").is_file()
    # resuming does nothing new and reports the same
    again = cli("run", "--model", "reference", "--run-dir", str(run), *select, cwd=tmp_path)
    assert again.returncode == 0 and f"{n}/{n} passed" in again.stdout
    assert len((run / "evaluations.jsonl").read_text().splitlines()) == n
    report = json.loads(cli("report", str(run), "--json", cwd=tmp_path).stdout)
    score = report["scores"][0]
    assert score["model"] == "reference" and score["pass_rate"]["value"] == 1.0
    assert score["implementations"] == n
    regraded = cli("evaluate", "--regrade", str(run), "--json", cwd=tmp_path)
    assert regraded.returncode == 0 and json.loads(regraded.stdout) == {"evaluations": n, "same": n, "changed": []}


def test_stub_fails_and_json_listing(tmp_path):
    res = cli("run", "--model", "stub", "-t", "dpo", "--run-dir", str(tmp_path / "stub"), cwd=tmp_path)
    assert res.returncode == 0
    assert "stub: 0/1 passed (0.0%" in res.stdout
    listing = json.loads(cli("tasks", "list", "--split", "all", "--json", cwd=tmp_path).stdout)
    assert len(listing) == N and all(row["category"] for row in listing)
    # without --split, new work is the main split
    main = json.loads(cli("tasks", "list", "--json", cwd=tmp_path).stdout)
    assert {row["split"] for row in main} == {"main"} and len(main) == sum(r["split"] == "main" for r in listing)


def test_bad_tasks_path_is_a_clear_error(tmp_path):
    res = cli("tasks", "list", "--tasks", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert res.returncode == 2 and "does not exist" in res.stderr


def test_every_command_has_working_help():
    from typer.testing import CliRunner

    from lmrbench.cli import app

    runner = CliRunner()
    for cmd in (["tasks", "list"], ["tasks", "show"], ["tasks", "lint"], ["tasks", "fixtures"], ["tasks", "prompt"],
                ["validate"], ["generate"], ["evaluate"], ["judge", "run"], ["judge", "agreement"],
                ["judge", "import-labels"], ["report"], ["run"], ["papers", "fetch"], ["workspace", "export"],
                ["predictions", "from-dirs"], ["predictions", "from-openhands"], ["env", "build"]):
        res = runner.invoke(app, [*cmd, "--help"])
        assert res.exit_code == 0, (cmd, res.output)
