"""Provider failures are never model failures: a missing key stops a run before any work, naming the variable; a
request that still fails after its retries is `model_error`, outside the pass rate, and a re-run retries exactly
those items. Through the real CLI and the real HTTP client (the OpenAI-protocol stub server on loopback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lmrbench.models.openai_stub_server import Reply, StubServer
from lmrbench.models.registry import MissingCredentials, check_credentials
from tests.conftest import GOLDEN, write_task

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "GEMINI_API_KEY")
BANNER = ("Give Feedback", "Get Help", "LiteLLM.Info")
ANSWER = f"```python\n{GOLDEN}```\n"


def cli(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS}
    return subprocess.run([sys.executable, "-m", "lmrbench", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def test_missing_key_is_named_by_the_library(monkeypatch):
    for k in KEYS:
        monkeypatch.delenv(k, raising=False)
    with pytest.raises(MissingCredentials, match="openai/gpt-4o needs OPENAI_API_KEY"):
        check_credentials(["openai/gpt-4o"])
    check_credentials(["reference", "stub", "fake", "fake/x"])  # built-in and scripted models need no key
    from lmrbench.models.base import ModelSettings

    check_credentials(["openai/local-model"], ModelSettings(api_base="http://127.0.0.1:9/v1"))  # a local server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    check_credentials(["openai/gpt-4o"])


def test_run_without_a_key_stops_at_once_naming_it_and_no_banner(tmp_path, toy_root):
    res = cli("run", "--model", "openai/gpt-4o", "--tasks", str(toy_root), cwd=tmp_path, timeout=120)
    assert res.returncode == 2, res.stdout + res.stderr
    assert "OPENAI_API_KEY" in res.stderr and "openai/gpt-4o" in res.stderr
    for text in BANNER:
        assert text not in res.stdout + res.stderr
    assert not (tmp_path / "runs").exists()  # before any work: no run folder, no request, no retry
    gen = cli("generate", "--model", "anthropic/claude-sonnet-4-5", "--tasks", str(toy_root), cwd=tmp_path,
              timeout=120)
    assert gen.returncode == 2 and "ANTHROPIC_API_KEY" in gen.stderr
    judged = cli("judge", "run", str(tmp_path), "--judge", "openai/gpt-4o", cwd=tmp_path, timeout=120)
    assert judged.returncode == 2 and "OPENAI_API_KEY" in judged.stderr


def _run(srv: StubServer, root: Path, run_dir: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return cli("run", "--model", "openai/stub-model", "--api-base", srv.url, "--tasks", str(root),
               "--split", "all", "--run-dir", str(run_dir), "--concurrency", "1", "--max-retries", "1", "--no-cache",
               "--path", "cold", "--json", cwd=cwd)


@pytest.fixture
def four_toys(tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    root.mkdir()
    for name in ("toy", "toy2", "toy3", "toy4"):
        write_task(root, name)
    return root


def test_provider_failures_are_model_errors_outside_the_pass_rate_then_retried(tmp_path, four_toys):
    # One run holds every outcome (each CLI run imports litellm, about 4 CPU-seconds): toy/1 is answered with the
    # reference; toy2/1's requests fail with HTTP 500 and toy3/1's with a closed connection (each: one try and one
    # retry, then given up); toy4/1 is answered with prose, which is the model's own failure, not the provider's.
    run = tmp_path / "run"
    script = [Reply(content=ANSWER), Reply(status=500), Reply(status=500), Reply(close=True), Reply(close=True),
              Reply(content="I would rather not write code.")]
    with StubServer(script) as srv:
        first = _run(srv, four_toys, run, tmp_path)
    assert first.returncode == 1, first.stderr[-3000:]
    assert len(srv.requests) == 6
    for text in BANNER:
        assert text not in first.stdout + first.stderr
    assert "toy2/1#0" in first.stderr and "toy3/1#0" in first.stderr and "re-run" in first.stderr.lower()
    evals = {e["instance_id"]: e for e in map(json.loads, (run / "evaluations.jsonl").read_text().splitlines())}
    assert evals["toy/1"]["status"] == "passed"
    for failed in ("toy2/1", "toy3/1"):
        assert evals[failed]["status"] == "model_error" and "re-run to retry" in evals[failed]["reason"]
    assert evals["toy4/1"]["status"] == "invalid_prediction"
    score = json.loads(first.stdout)["scores"][0]
    assert score["status_counts"]["model_error"] == 2 and score["status_counts"]["invalid_prediction"] == 1
    assert score["pass_rate"]["value"] == 0.5 and score["pass_rate"]["n"] == 2  # 1/2, not 1/4
    assert score["model_errors"] == ["toy2/1#0", "toy3/1#0"]
    report = (run / "report.md").read_text()
    assert "re-run to retry" in report and "toy2/1#0" in report and "toy3/1#0" in report
    # the provider is back: the re-run asks again for toy2/1 and toy3/1 only, and the run is complete (toy4/1's
    # prose answer was the model's: its extraction error is kept, not asked again, and nothing is missing)
    with StubServer([Reply(content=ANSWER)]) as srv:
        second = _run(srv, four_toys, run, tmp_path)
    assert second.returncode == 0, second.stderr[-3000:]
    assert len(srv.requests) == 2
    preds = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [(p["instance_id"], p["error"] is None) for p in preds] == [
        ("toy/1", True), ("toy2/1", False), ("toy3/1", False), ("toy4/1", False), ("toy2/1", True), ("toy3/1", True)]
    score = json.loads(second.stdout)["scores"][0]
    assert score["status_counts"]["model_error"] == 0 and score["status_counts"]["invalid_prediction"] == 1
    assert score["pass_rate"]["n"] == 4 and score["pass_rate"]["value"] == 0.75
