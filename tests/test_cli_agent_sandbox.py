"""The agent solver's commands run in the sandbox the run's options ask for (--isolation, --hf-cache), the same
SandboxConfig the evaluations use: under --isolation full it refuses exactly as evaluate does, or records the
full isolation its commands had."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from lmrbench.sandbox import IsolationError, LocalSandbox, SandboxConfig
from tests.cli_inprocess import run_cli
from tests.conftest import GOLDEN


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd)


def _script(path: Path) -> Path:
    write = f"cat > calc/ops.py <<'LMR_EOF'\n{GOLDEN}LMR_EOF\n"
    steps = [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo OFFLINE=$HF_HUB_OFFLINE; "
                                                                      "cat $HF_HUB_CACHE/marker.txt"}}]},
             {"tool_calls": [{"name": "bash", "arguments": {"command": write}}]},
             {"tool_calls": [{"name": "submit", "arguments": {}}]}]
    path.write_text("".join(json.dumps(s) + "\n" for s in steps))
    return path


def test_agent_commands_run_with_the_isolation_and_cache_asked_for(tmp_path, toy_root):
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "marker.txt").write_text("the pre-downloaded cache\n")
    args = ("--model", "fake", "--solver", "agent", "--fake-script", str(_script(tmp_path / "s.jsonl")),
            "--tasks", str(toy_root), "--split", "all", "--isolation", "full", "--hf-cache", str(hf),
            "--path", "cold", "--json")
    res = cli("run", *args, "--run-dir", "run", cwd=tmp_path)
    try:
        LocalSandbox(SandboxConfig(isolation="full")).isolation()
    except IsolationError as exc:  # this machine cannot isolate fully: the agent refuses before any step
        assert res.returncode == 2 and str(exc) in res.stderr
        assert not (tmp_path / "run" / "predictions.jsonl").exists()
        preds = tmp_path / "p.jsonl"
        preds.write_text(json.dumps({"instance_id": "toy/1", "model": "m", "functions": {}}) + "\n")
        evaluated = cli("evaluate", "--predictions", str(preds), "--tasks", str(toy_root), "--isolation", "full",
                        cwd=tmp_path)
        assert evaluated.returncode == 2 and str(exc) in evaluated.stderr  # the same refusal
        return
    assert res.returncode == 0, res.stderr[-3000:]
    [pred] = [json.loads(line) for line in (tmp_path / "run" / "predictions.jsonl").read_text().splitlines()]
    traj = json.loads((tmp_path / pred["meta"]["trajectory"]).read_text())  # relative to the working folder
    seen = traj["steps"][0]["observations"][0]
    assert "OFFLINE=1" in seen and "the pre-downloaded cache" in seen  # --hf-cache reached the agent's sandbox
    [ev] = [json.loads(line) for line in (tmp_path / "run" / "evaluations.jsonl").read_text().splitlines()]
    assert ev["status"] == "passed", ev["reason"]
    # the agent's commands had the isolation the evaluation had: network, filesystem, processes, memory
    agent_iso, eval_iso = traj["isolation"], ev["isolation"]
    assert agent_iso is not None and agent_iso["filesystem"] == "bwrap" and agent_iso["network"] == "namespace"
    keys = ("network", "filesystem", "processes", "memory", "capabilities")
    assert {k: agent_iso[k] for k in keys} == {k: eval_iso[k] for k in keys}


def test_generate_runs_the_agent_with_the_isolation_asked_for(tmp_path, toy_root):
    """`generate --solver agent` builds the same SandboxConfig from --isolation as evaluate: under full isolation it
    refuses before any step exactly as evaluate does, or its trajectory records the full isolation its commands
    had (a bwrap view and a network namespace)."""
    args = ("--model", "fake", "--solver", "agent", "--fake-script", str(_script(tmp_path / "s.jsonl")),
            "--tasks", str(toy_root), "--split", "all", "--isolation", "full", "--run-dir", "gen")
    res = cli("generate", *args, cwd=tmp_path)
    try:
        LocalSandbox(SandboxConfig(isolation="full")).isolation()
    except IsolationError as exc:
        assert res.returncode == 2 and str(exc) in res.stderr
        assert not (tmp_path / "gen" / "predictions.jsonl").exists()
        preds = tmp_path / "p.jsonl"
        preds.write_text(json.dumps({"instance_id": "toy/1", "model": "m", "functions": {}}) + "\n")
        evaluated = cli("evaluate", "--predictions", str(preds), "--tasks", str(toy_root), "--isolation", "full",
                        cwd=tmp_path)
        assert evaluated.returncode == 2 and str(exc) in evaluated.stderr
        return
    assert res.returncode == 0, res.stderr[-3000:]
    [pred] = [json.loads(line) for line in (tmp_path / "gen" / "predictions.jsonl").read_text().splitlines()]
    iso = json.loads((tmp_path / pred["meta"]["trajectory"]).read_text())["isolation"]
    assert iso is not None and iso["filesystem"] == "bwrap" and iso["network"] == "namespace"

