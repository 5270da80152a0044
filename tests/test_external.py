"""External agents: export workspaces, edit them as an outside agent would, import, evaluate."""

from __future__ import annotations

import json
import subprocess
import sys

from lmrbench.evaluate.batch import evaluate_predictions, latest_evaluations, load_predictions
from lmrbench.evaluate.models import Status
from lmrbench.tasks.loader import load_tasks


def test_round_trip_through_the_cli(tmp_path):
    ts = load_tasks()
    impl = ts.task("dpo").implementation(1)
    assert impl.golden_file is not None
    cli = [sys.executable, "-m", "lmrbench"]
    res = subprocess.run([*cli, "workspace", "export", "--out", str(tmp_path / "ws"), "-t", "dpo", "-t", "simpo"],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    dpo = tmp_path / "ws" / "dpo__1"
    assert {"paper.md", "INSTRUCTIONS.md", ".lmrbench.json"} <= {p.name for p in dpo.iterdir()}
    assert not any("golden" in p.name for p in dpo.rglob("*"))
    # the outside agent: implements dpo with the reference file, and edits simpo plus a second file
    (dpo / impl.goal_file).write_text(impl.golden_file.read_text())
    simpo_dirs = [p for p in (tmp_path / "ws").iterdir() if p.name.startswith("simpo__")]
    for d in simpo_dirs:
        meta = json.loads((d / ".lmrbench.json").read_text())
        (d / "NOTES_BY_AGENT.txt").write_text("scratch\n")
        assert meta["targets"]
    out = tmp_path / "predictions.jsonl"
    res = subprocess.run([*cli, "predictions", "from-dirs", str(tmp_path / "ws"), "--model", "outside",
                          "--out", str(out)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    preds, invalid = load_predictions(out, ts)
    assert not invalid
    by_id = {p.instance_id: p for p in preds}
    assert by_id["dpo/1"].functions is not None  # only the goal file changed: form (a)
    assert all(by_id[d.name.replace("__", "/")].diff for d in simpo_dirs)  # another file changed: a diff
    evaluate_predictions(preds, ts, tmp_path / "e.jsonl", tmp_path / "w", tmp_path / "l")
    status = {e.instance_id: e.status for e in latest_evaluations(tmp_path / "e.jsonl")}
    assert status["dpo/1"] is Status.PASSED
    assert all(status[d.name.replace("__", "/")] is Status.FAILED for d in simpo_dirs)
