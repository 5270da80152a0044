"""The agent on an upstream task: its commands run with the task environment's interpreter (the requirements
the release needs) and never see the cache's golden tree."""

from __future__ import annotations

from lmrbench.envs import EnvConfig, build_env
from lmrbench.envs.build import task_env
from lmrbench.models.base import ModelResponse
from lmrbench.models.fake import FakeModel, tool_call
from lmrbench.papers import paper_text
from lmrbench.solvers.agent import AgentLimits, agent_prediction
from lmrbench.tasks.loader import load_tasks
from lmrbench.tasks.upstream import FetchConfig, ensure_task, golden_root
from tests.upstream_fake import build_dep_wheel, build_wheel, write_recipe


def test_agent_commands_use_the_task_environment(tmp_path, monkeypatch):
    cache, dist = tmp_path / "cache", tmp_path / "dist"
    monkeypatch.setenv("LMRBENCH_CACHE", str(cache))
    for key, value in {"UV_FIND_LINKS": str(dist), "UV_NO_INDEX": "1", "UV_OFFLINE": "1"}.items():
        monkeypatch.setenv(key, value)
    wheel = build_wheel(dist)
    build_dep_wheel(dist)
    task = load_tasks(write_recipe(tmp_path / "tasks", wheel, requirements=["lmrfakedep==0.1.0"])).tasks[0]
    ensure_task(task, FetchConfig(cache_dir=cache, find_links=dist))
    config = EnvConfig(cache_dir=cache)
    task.env = task_env(task, config, build_env(task, config))
    golden = golden_root(task.upstream, cache) / "lmrfake" / "ops.py"
    script = [
        ModelResponse(content="", tool_calls=[tool_call("bash", "c1", command=(
            "python -c 'import lmrfakedep, lmrfake.ops as o; print(\"SCALE\", lmrfakedep.SCALE, o.__file__)'; "
            f"cat {golden} || echo NO-GOLDEN"))]),
        ModelResponse(tool_calls=[tool_call("submit", "c2")]),
    ]
    pred = agent_prediction(task, task.implementations[0], FakeModel(script, name="fake/agent"),
                            paper_text(task, tmp_path / "np"), tmp_path / "run", AgentLimits(max_steps=4))
    log = (tmp_path / "run").rglob("cmd001.log")  # (step 1)
    text = next(log).read_text()
    assert "SCALE 3.0" in text, text  # the requirement the harness lacks, from the task's environment
    assert "out.append(m)" not in text and "NO-GOLDEN" in text, text  # the workspace's masked copy only
    assert pred.meta.exit == "submitted"
