"""The original's human-evaluation JSON files into our labels, scales included; the pooled human row."""

import json
import math

from lmrbench.importers.human_eval import import_labels
from lmrbench.judge.agreement import POOLED, agreement_table
from lmrbench.records import Judgment, JudgmentStatus
from lmrbench.tasks.loader import load_tasks
from tests.tasks.test_original import make_original


def _tasks(tmp_path):
    task = make_original(tmp_path / "d", "13-Two", {}, {})
    info = json.loads((task / "info.json").read_text())
    info["implementations"].append(dict(info["implementations"][0], index=2))
    (task / "info.json").write_text(json.dumps(info))
    return load_tasks(tmp_path / "d")


def _item(who, function, result, paper=13, model="gpt4o"):
    return {"annotator": who, "agent_type": "openhands_agent", "model_name": model, "paper_index": paper,
            "function_index": function, "human_judge_result": result, "comment": ""}


def test_labels_scales_and_problems(tmp_path):
    ts = _tasks(tmp_path)
    a, z = tmp_path / "alice.json", tmp_path / "ziming.json"
    a.write_text(json.dumps([_item("alice", 0, 3), _item("alice", 1, 1), _item("alice", 0, 2, paper=99)]))
    z.write_text(json.dumps([_item("ziming", 0, 2), _item("ziming", 1, 0), _item("ziming", 1, 3)]))
    res = import_labels([a, z], ts)
    assert res.scales == {"alice": "1-3", "ziming": "0-2"}
    assert {lab.model for lab in res.labels} == {"openhands_agent/gpt4o"}
    got = sorted((lab.annotator, lab.instance_id, lab.category) for lab in res.labels)
    assert got == [("alice", "13-two/1", 3), ("alice", "13-two/2", 1), ("ziming", "13-two/1", 3),
                   ("ziming", "13-two/2", 1)]
    assert len(res.problems) == 2
    assert any("paper 99" in p for p in res.problems) and any("outside the 0-2 scale" in p for p in res.problems)


def test_explicit_scale_wins(tmp_path):
    ts = _tasks(tmp_path)
    f = tmp_path / "k.json"
    f.write_text(json.dumps([_item("kai", 0, 1), _item("kai", 1, 2)]))  # no 0: would be read as 1-3
    res = import_labels([f], ts, {"kai": "0-2"})
    assert sorted(lab.category for lab in res.labels) == [2, 3]


def test_pooled_human_row(tmp_path):
    ts = _tasks(tmp_path)
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps([_item("a", 0, 3), _item("a", 1, 1)]))
    b.write_text(json.dumps([_item("b", 0, 3), _item("b", 1, 2)]))
    labels = import_labels([a, b], ts).labels
    judgments = [Judgment(instance_id=iid, model="openhands_agent/gpt4o", sample=0, judge="j", prompt_version="v",
                          key=iid, status=JudgmentStatus.OK, category=c, rationale="r")
                 for iid, c in (("13-two/1", 3), ("13-two/2", 1))]
    rows = {(r.a, r.b): r for r in agreement_table(judgments, labels)}
    pooled = rows[("j", POOLED)]
    # pairs (judge, human): (3,3) (3,3) (1,1) (1,2): 4 pairs, 3 agree
    assert pooled.n == 4 and pooled.accuracy == 0.75
    assert pooled.confusion == [[1, 1, 0], [0, 0, 0], [0, 0, 2]]
    assert math.isclose(rows[("j", "a")].accuracy, 1.0) and rows[("j", "b")].accuracy == 0.5
