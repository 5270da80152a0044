"""The agent solver driven by a scripted fake (native tool calls and the text fallback) on a real task."""

from __future__ import annotations

import json

from lmrbench.evaluate.runner import EvalConfig, evaluate_one
from lmrbench.models.base import ModelResponse
from lmrbench.models.fake import FakeModel, tool_call
from lmrbench.papers import paper_text
from lmrbench.records import Outcome, Status
from lmrbench.solvers.agent import AgentLimits, agent_prediction
from lmrbench.tasks.loader import load_tasks

TASK = "dpo"


def _bash(cmd: str, n: int) -> ModelResponse:
    return ModelResponse(content="", tool_calls=[tool_call("bash", f"c{n}", command=cmd)])


def _write_file(rel: str, text: str) -> str:
    return f"cat > {rel} <<'LMR_EOF'\n{text}LMR_EOF\n"


def _episode(tmp_path, script, limits=None):
    ts = load_tasks()
    task = ts.task(TASK)
    impl = task.implementation(1)
    fake = FakeModel(script, name="fake/agent")
    pred = agent_prediction(task, impl, fake, paper_text(task, tmp_path / "np"), tmp_path / "run",
                            limits or AgentLimits(max_steps=8))
    # the agent leaves its final workspace in run/workspaces/: the root its repo_dir predictions are read under
    ev = evaluate_one(task, impl, pred, tmp_path / "w", tmp_path / "l",
                      EvalConfig(repo_root=tmp_path / "run" / "workspaces"))
    return task, impl, pred, ev, fake


def test_agent_writing_the_reference_passes(tmp_path):
    ts = load_tasks()
    impl = ts.task(TASK).implementation(1)
    assert impl.golden_file is not None
    script = [
        _bash("cat .task/INSTRUCTIONS.md && ls", 1),
        _bash(_write_file(impl.goal_file, impl.golden_file.read_text()), 2),
        ModelResponse(tool_calls=[tool_call("submit", "c3")]),
    ]
    _task, impl, pred, ev, fake = _episode(tmp_path, script)
    assert pred.meta.exit == "submitted" and pred.meta.steps == 3
    assert ev.status is Status.PASSED, ev.reason
    traj = json.loads(open(pred.meta.trajectory).read())
    observations = [o for s in traj["steps"] for o in s["observations"]]
    assert "Implement" in observations[0] and "[exit code 0]" in observations[0]
    # the model saw the tool output as a tool message on the next call
    assert fake.requests[1][-1].role == "tool"


def test_agent_cannot_see_reference_or_hidden_tests(tmp_path):
    ts = load_tasks()
    task = ts.task(TASK)
    impl = task.implementation(1)
    script = [
        _bash(f"cat {impl.golden_file}; ls {task.root}; ls {task.tests_dir}; echo token=$OPENAI_API_KEY", 1),
        ModelResponse(tool_calls=[tool_call("submit", "c2")]),
    ]
    _, _, pred, ev, _ = _episode(tmp_path, script)
    traj = json.loads(open(pred.meta.trajectory).read())
    obs = traj["steps"][0]["observations"][0]
    assert ("No such file" in obs and "token=\n" in obs) or obs.rstrip().endswith("token=")
    assert ev.status is Status.FAILED  # nothing implemented


def test_text_format_fallback_and_step_limit(tmp_path):
    script = [ModelResponse(content="Let me look.\n```bash\nls\n```")] * 10
    _, _, pred, ev, fake = _episode(tmp_path, script, AgentLimits(max_steps=3, native_tools=False))
    assert pred.meta.exit == "limit: step limit (3)" and len(fake.requests) == 3
    assert pred.meta.outcome is Outcome.LIMIT
    assert ev.status is Status.FAILED


def test_malformed_tool_call_is_reported_to_the_model(tmp_path):
    bad = ModelResponse(tool_calls=[tool_call("bash", "c1")])  # no command
    script = [bad, ModelResponse(content="SUBMIT")]
    _, _, pred, _, fake = _episode(tmp_path, script)
    assert pred.meta.exit == "submitted"
    assert "bad tool call" in fake.requests[1][-1].content
