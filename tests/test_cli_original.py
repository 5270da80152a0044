"""The CLI on a synthetic original-layout folder: environments, legacy runs, importers, the report's two figures."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.cli_inprocess import run_cli
from tests.tasks.test_original import make_original


def cli(*args: str, cwd: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, LMRBENCH_CACHE=str(cache))
    return run_cli(*args, cwd=cwd, env=env)


def test_original_layout_end_to_end(tmp_path):
    data, cache = tmp_path / "datasets", tmp_path / "cache"
    make_original(data, "01-Demo", {}, {})
    make_original(data, "02-Lfs", {}, {"repo/unit_test/unit_test_1.py": "import pickle\n"
                                       "pickle.load(open('unit_test/x.pkl', 'rb'))\n",
                                       "repo/unit_test/x.pkl": "version https://git-lfs.github.com/spec/v1\n"})
    built = cli("env", "build", "--tasks", str(data), cwd=tmp_path, cache=cache)
    assert built.returncode == 0, built.stderr[-2000:]
    assert "01-demo: ready" in built.stdout and "2 environment(s)" in built.stdout
    res = cli("run", "--model", "reference", "--tasks", str(data), "--run-dir", "run", "--json", cwd=tmp_path,
              cache=cache)
    assert res.returncode == 0, res.stderr[-2000:]
    score = json.loads(res.stdout)["scores"][0]
    assert score["status_counts"]["passed"] == 1 and score["error_causes"] == {"lfs_pointer": 1}
    assert score["log_rule_rate"]["value"] == 0.5 and score["unmeasured"] == ["02-lfs/1: lfs_pointer"]
    assert "log-rule pass rate" in (tmp_path / "run" / "report.md").read_text()
    # an OpenHands trajectory of the same task, replayed and evaluated
    edit = [{"id": 1, "action": "edit", "args": {"command": "str_replace",
             "path": "/workspace/benchmark/datasets/1-Demo/repo/losses.py", "old_str": "raise NotImplementedError",
             "new_str": "return 2 * x + 1"}}, {"id": 2, "cause": 1, "observation": "edit", "content": "edited"}]
    (tmp_path / "output.jsonl").write_text(json.dumps({"instance_id": "1", "history": [edit], "error": None}) + "\n")
    imp = cli("predictions", "from-openhands", "output.jsonl", "--model", "oh/m", "--out", "oh/predictions.jsonl",
              "--tasks", str(data), cwd=tmp_path, cache=cache)
    assert imp.returncode == 0 and "1 prediction(s)" in imp.stdout
    ev = cli("evaluate", "--predictions", "oh/predictions.jsonl", "--tasks", str(data), "--json", cwd=tmp_path,
             cache=cache)
    assert json.loads(ev.stdout)["scores"][0]["status_counts"]["passed"] == 1
    labels = tmp_path / "h.json"
    labels.write_text(json.dumps([{"annotator": "z", "agent_type": "openhands_agent", "model_name": "m",
                                   "paper_index": 1, "function_index": 0, "human_judge_result": 0}]))
    lab = cli("judge", "import-labels", str(labels), "--out", "labels.jsonl", "--scale", "z=0-2", "--tasks",
              str(data), cwd=tmp_path, cache=cache)
    assert lab.returncode == 0, lab.stderr
    assert json.loads((tmp_path / "labels.jsonl").read_text())["category"] == 1
