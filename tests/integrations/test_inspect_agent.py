"""The Inspect agent task in lmrbench's sandbox: Inspect's ReAct agent, driven by the mock model, runs bash inside
our isolation (network off, no secrets, no hidden tests or references), and its final workspace is scored by our
evaluation core. The sandbox environment itself: exec, files, and links planted towards the host."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import CORRECT, INCORRECT

from lmrbench.evaluate.batch import evaluate_predictions
from lmrbench.integrations.inspect.logs import predictions_from_log
from lmrbench.integrations.inspect.sandbox import LmrbenchSandbox, LmrbenchSandboxConfig
from lmrbench.records import Status
from lmrbench.tasks.loader import load_tasks
from tests.conftest import GOLDEN

LOOK = ("ls -A; test -e {tests} && echo TESTS_VISIBLE || echo TESTS_HIDDEN; "
        "test -e {golden} && echo GOLDEN_VISIBLE || echo GOLDEN_HIDDEN; echo secret=${{OPENAI_API_KEY:-unset}}; "
        "python3 -c \"import socket; print('interfaces', [n for _, n in socket.if_nameindex()])\"")
RENAME = "printf '{\"instance_id\": \"toy/1\"}' > .lmrbench.json"  # claim to be another implementation
WRITE = "python3 -c \"import base64, pathlib; pathlib.Path('calc/ops.py').write_bytes(base64.b64decode('{b64}'))\""


def _call(name: str, args: dict[str, str]) -> ModelOutput:
    out = ModelOutput.for_tool_call("mockllm/model", name, args)
    out.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    return out


def scripted_agent(root: Path):
    """toy/1: look around, write the reference, submit. toy2/1: look around, claim to be toy/1 in .lmrbench.json
    (the file `predictions from-dirs` reads the instance from), submit without implementing anything."""

    def respond(messages: list[ChatMessage], tools: object, choice: object, config: GenerateConfig) -> ModelOutput:
        task_id = "toy2" if any("# Task toy2/1" in m.text for m in messages if m.role == "user") else "toy"
        turn = sum(m.role == "assistant" for m in messages)
        look = LOOK.format(tests=root / task_id / "tests", golden=root / task_id / "golden_files")
        script = [look, WRITE.format(b64=base64.b64encode(GOLDEN.encode()).decode())] if task_id == "toy" else \
            [look, RENAME]
        if turn < len(script):
            return _call("bash", {"command": script[turn]})
        return _call("submit", {"answer": "done"})

    return respond


def test_react_agent_runs_in_our_sandbox_and_its_workspace_is_scored(two_toys, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-for-the-sandbox")
    model = get_model("mockllm/model", custom_outputs=scripted_agent(two_toys))
    (log,) = inspect_eval("lmrbench/agent", task_args={"tasks": str(two_toys), "split": "all"}, model=model,
                          log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    samples = {s.metadata["instance_id"]: s for s in log.samples or []}
    assert sorted(samples) == ["toy/1", "toy2/1"]
    for sample in samples.values():
        seen = next(m.text for m in sample.messages if m.role == "tool")
        for want in ("paper.md", "INSTRUCTIONS.md", "calc", "TESTS_HIDDEN", "GOLDEN_HIDDEN", "secret=unset",
                     "interfaces ['lo']"):
            assert want in seen, (want, seen)
        assert "sk-test" not in seen and "golden_files" not in seen
    (good,), (idle,) = samples["toy/1"].scores.values(), samples["toy2/1"].scores.values()
    assert good.value == CORRECT and good.metadata["tests_passed"] == good.metadata["tests_total"] == 3
    assert idle.value == INCORRECT and idle.metadata["status"] == "failed"
    assert idle.metadata["prediction"]["instance_id"] == idle.metadata["evaluation"]["instance_id"] == "toy2/1"
    assert good.metadata["prediction"]["functions"] is not None  # only the goal file changed: the targets

    got = predictions_from_log(Path(log.location), load_tasks(two_toys))
    assert got.problems == [] and {p.model for p in got.predictions} == {"mockllm/model"}
    out = tmp_path / "run" / "evaluations.jsonl"
    evals = evaluate_predictions(got.predictions, load_tasks(two_toys), out, tmp_path / "w", tmp_path / "l")
    assert {e.instance_id: e.status for e in evals} == {"toy/1": Status.PASSED, "toy2/1": Status.FAILED}


async def _sandbox_session(root: Path, secret: Path) -> dict[str, object]:
    config = LmrbenchSandboxConfig(tasks=root)
    envs = await LmrbenchSandbox.sample_init("t", config, {"instance_id": "toy/1"})
    box = envs["default"]
    assert isinstance(box, LmrbenchSandbox)
    seen: dict[str, object] = {}
    try:
        seen["stdin"] = (await box.exec(["cat"], input="through stdin")).stdout
        seen["cwd"] = (await box.exec(["pwd"], cwd="calc")).stdout.strip()
        seen["python_tool"] = (await box.exec(["bash", "--login", "-c", "python3 -"], input="print(6 * 7)")).stdout
        await box.write_file("notes/new.txt", "written")
        seen["read_back"] = await box.read_file("notes/new.txt")
        seen["on_host"] = (box.workspace / "notes" / "new.txt").read_text()
        (box.workspace / "leak").symlink_to(secret)
        for name, call in [("read_link", box.read_file("leak")), ("write_link", box.write_file("leak", "pwned")),
                           ("missing", box.read_file("nope.txt")), ("folder", box.read_file("calc")),
                           ("root", box.exec(["id"], user="root")), ("slow", box.exec(["sleep", "5"], timeout=1))]:
            try:
                seen[name] = await call
            except Exception as exc:
                seen[name] = type(exc).__name__
        seen["workspace"] = box.workspace
    finally:
        await LmrbenchSandbox.sample_cleanup("t", config, envs, False)
    return seen


def test_sandbox_environment_files_exec_and_links_towards_the_host(two_toys, tmp_path):
    secret = tmp_path / "host-secret.txt"
    secret.write_text("TOPSECRET")
    seen = asyncio.run(_sandbox_session(two_toys, secret))
    assert seen["stdin"] == "through stdin"
    assert str(seen["cwd"]).endswith("/toy__1/calc")
    assert seen["python_tool"] == "42\n"  # as Inspect's python() tool runs code: stdin to `python3 -`
    assert seen["read_back"] == seen["on_host"] == "written"
    assert seen["read_link"] == "FileNotFoundError"  # the link's target is not in the sandbox's view
    assert seen["write_link"] == "PermissionError" and secret.read_text() == "TOPSECRET"
    assert seen["missing"] == "FileNotFoundError" and seen["folder"] == "IsADirectoryError"
    assert seen["root"] == "PermissionError" and seen["slow"] == "TimeoutError"
    assert not Path(str(seen["workspace"])).exists()  # removed at sample cleanup
