"""OpenHands output.jsonl (the original's format) replayed into diff predictions, on synthetic trajectories."""

import json

from lmrbench.evaluate.runner import evaluate_one
from lmrbench.importers.openhands import from_openhands
from lmrbench.records import Status
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import make_original

ROOT = "/workspace/benchmark/datasets"


def _edit(i, path, old, new, result="The file {p} has been edited."):
    action = {"id": i, "source": "agent", "action": "edit",
              "args": {"path": path, "command": "str_replace", "old_str": old, "new_str": new}}
    obs = {"id": i + 1, "cause": i, "observation": "edit", "content": result.format(p=path)}
    return [action, obs]


def _write_output(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_successful_edits_are_replayed_failed_ones_skipped(tmp_path):
    make_original(tmp_path / "d", "01-Demo", {}, {"repo/crlf.py": "a = 1\r\nb = 2\r\n"})
    ts = load_tasks(tmp_path / "d")
    goal = f"{ROOT}/1-Demo/repo/losses.py"
    history = [
        [{"id": 0, "source": "user", "action": "message", "args": {}}, {"observation": "null"}],
        _edit(2, goal, "    # TODO\n    raise NotImplementedError\n", "    return x * 2 + 1\n"),
        _edit(4, goal, "return x", "return 0 * x", result="ERROR: No replacement was performed, old_str ..."),
        _edit(6, f"{ROOT}/1-Demo/repo/crlf.py", "a = 1\nb = 2", "a = 1\nb = 3"),  # the agent saw LF
        _edit(8, "/workspace/elsewhere.py", "x", "y"),
        [{"id": 10, "action": "run", "args": {"command": "ls"}}, {"observation": "run", "content": ""}],
    ]
    out = tmp_path / "output.jsonl"
    _write_output(out, [{"instance_id": "1", "history": history, "error": None},
                        {"instance_id": "77", "history": [], "error": None}])
    res = from_openhands(out, ts, "oh/gpt")
    [pred] = res.predictions
    assert pred.instance_id == "01-demo/1" and pred.model == "oh/gpt" and pred.diff
    assert "+    return x * 2 + 1" in pred.diff and "0 * x" not in pred.diff
    assert "+b = 3\r\n" in pred.diff  # the CRLF file keeps its line endings
    replay = pred.meta.replay
    counts = (replay["applied"], replay["failed_in_run"], replay["outside_repo"], replay["shell_commands"])
    assert counts == (2, 1, 1, 1)
    assert res.problems == ["line 2: instance_id '77' names no task"]
    task = ts.task("01-demo")
    ev = evaluate_one(task, task.implementation(1), pred, tmp_path / "w", tmp_path / "l")
    assert ev.status is Status.PASSED


def test_a_run_that_ended_in_an_error_is_an_error_prediction_for_every_implementation(tmp_path):
    second = {"index": 2, "instruction": "x", "category": "loss function", "goal_file": "losses.py",
              "goal_function": "loss", "golden_file": "golden_files/losses_golden.py",
              "unit_test_file": "unit_test/unit_test_1.py"}
    task = make_original(tmp_path / "d", "16-Two", {}, {})
    info = json.loads((task / "info.json").read_text())
    info["implementations"].append(second)
    (task / "info.json").write_text(json.dumps(info))
    ts = load_tasks(tmp_path / "d")
    out = tmp_path / "output.jsonl"
    _write_output(out, [{"instance_id": "16", "history": [], "error": "BadRequestError: litellm.BadRequestError"}])
    preds = from_openhands(out, ts, "oh/gpt").predictions
    assert [p.instance_id for p in preds] == ["16-two/1", "16-two/2"]
    assert all(p.error and "BadRequestError" in p.error for p in preds)


def test_flat_event_history_is_read(tmp_path):
    make_original(tmp_path / "d", "03-Flat", {}, {})
    ts = load_tasks(tmp_path / "d")
    action, obs = _edit(5, f"{ROOT}/3-Flat/repo/losses.py", "raise NotImplementedError", "return 2 * x + 1")
    out = tmp_path / "output.jsonl"
    _write_output(out, [{"instance_id": "3", "history": [action, obs], "error": None}])
    [pred] = from_openhands(out, ts, "m").predictions
    assert pred.diff and "+    return 2 * x + 1" in pred.diff and pred.meta.replay["applied"] == 1
