import math

from lmrbench.judge.agreement import (
    agreement,
    agreement_table,
    cohen_kappa,
    fleiss_agreement,
    fleiss_kappa,
    load_labels,
)
from lmrbench.records import HumanLabel, Judgment, JudgmentStatus

A = [1, 2, 3, 3, 2, 1, 3, 3]
B = [1, 2, 3, 2, 2, 1, 3, 1]


def _items(labels):
    return {(f"t/{i}", "m", 0): c for i, c in enumerate(labels)}


def test_worked_example():
    # confusion (rows A, columns B): [[2,0,0],[0,2,0],[1,1,2]]
    # po = 6/8; row sums 2,2,4, column sums 3,3,2 -> pe = (6+6+8)/64 = 20/64; kappa = (0.75-0.3125)/0.6875 = 7/11
    # F1 per class (B as truth): 2*2/(2+3), 2*2/(2+3), 2*2/(4+2) -> macro (0.8+0.8+2/3)/3 = 34/45
    res = agreement("A", _items(A), "B", _items(B))
    assert res.confusion == [[2, 0, 0], [0, 2, 0], [1, 1, 2]]
    assert res.n == 8 and res.accuracy == 0.75
    assert math.isclose(res.kappa, 7 / 11) and math.isclose(res.macro_f1, 34 / 45)


def test_perfect_and_chance_agreement():
    assert cohen_kappa([[3, 0, 0], [0, 3, 0], [0, 0, 3]]) == 1.0
    assert math.isclose(cohen_kappa([[1, 1, 0], [1, 1, 0], [0, 0, 0]]), 0.0)


def test_table_judge_vs_humans_and_human_pairs(tmp_path):
    judgments = [Judgment(instance_id=f"t/{i}", model="m", sample=0, judge="judge-x", prompt_version="v", key=str(i),
                          status=JudgmentStatus.OK, category=c, rationale="r") for i, c in enumerate(A)]
    judgments.append(Judgment(instance_id="t/99", model="m", sample=0, judge="judge-x", prompt_version="v",
                              key="x", status=JudgmentStatus.PARSE_ERROR, detail="bad"))
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(
        HumanLabel(annotator=who, instance_id=f"t/{i}", model="m", category=c).model_dump_json() + "\n"
        for who, labels in (("alice", B), ("bob", A)) for i, c in enumerate(labels)))
    rows = agreement_table(judgments, load_labels(path))
    by = {(r.a, r.b): r for r in rows}
    assert by[("judge-x", "bob")].accuracy == 1.0
    assert math.isclose(by[("judge-x", "alice")].kappa, 7 / 11)
    assert math.isclose(by[("alice", "bob")].kappa, 7 / 11)


def test_bad_label_line_names_line_and_field(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"annotator": "a", "instance_id": "t/1", "category": 1}\n'
                    '{"annotator": "a", "instance_id": "t/2", "category": 5}\n')
    try:
        load_labels(path)
    except ValueError as exc:
        assert "line 2" in str(exc) and "category" in str(exc)
    else:
        raise AssertionError("expected a ValueError")


def test_fleiss_kappa_worked_example():
    # 4 items, 3 raters, counts per category 1/2/3:
    # P_i = (sum n_ij^2 - 3) / 6: [3,0,0] -> 1, [2,1,0] -> 1/3, [0,3,0] -> 1, [1,1,1] -> 0; P-bar = 7/12
    # p_j = 6/12, 5/12, 1/12 -> P_e = (36 + 25 + 1)/144 = 31/72; kappa = (7/12 - 31/72)/(1 - 31/72) = 11/41
    kappa, observed, expected = fleiss_kappa([[3, 0, 0], [2, 1, 0], [0, 3, 0], [1, 1, 1]])
    assert math.isclose(observed, 7 / 12) and math.isclose(expected, 31 / 72) and math.isclose(kappa, 11 / 41)


def test_fleiss_kappa_edges():
    assert fleiss_kappa([[2, 0, 0], [0, 2, 0]])[0] == 1.0  # perfect agreement
    assert fleiss_kappa([[3, 0, 0], [3, 0, 0]])[0] == 1.0  # everyone always says 1: P_e = 1
    assert math.isnan(fleiss_kappa([])[0])
    # every item split evenly between two raters: P-bar = 0, P_e = 1/2 -> kappa = -1
    assert math.isclose(fleiss_kappa([[1, 1, 0], [1, 1, 0]])[0], -1.0)
    for bad in ([[1, 0, 0]], [[2, 0, 0], [1, 0, 0]]):
        try:
            fleiss_kappa(bad)
        except ValueError:
            continue
        raise AssertionError(f"expected a ValueError for {bad}")


def test_fleiss_agreement_over_items_every_annotator_labelled():
    # Two annotators: Fleiss' kappa is Scott's pi. On A and B: po = 6/8; pooled shares 5/16, 5/16, 6/16 ->
    # pe = 86/256; pi = (192 - 86)/(256 - 86) = 53/85. A third annotator's label on t/0 only narrows n to 1.
    labels = [HumanLabel(annotator=who, instance_id=f"t/{i}", model="m", category=c)
              for who, cats in (("alice", B), ("bob", A)) for i, c in enumerate(cats)]
    relabel = HumanLabel(annotator="bob", instance_id="t/0", model="m", category=2)
    first = fleiss_agreement(labels)
    assert first is not None and first.n == 8 and math.isclose(first.kappa, 53 / 85)
    # The latest label wins: bob now says 2 on t/0, where alice said 1. po = 5/8 = 160/256; pooled shares
    # 4/16, 6/16, 6/16 -> pe = 88/256; pi = (160 - 88)/(256 - 88) = 3/7.
    later = fleiss_agreement([*labels, relabel])
    assert later is not None and later.n == 8 and math.isclose(later.kappa, 3 / 7)
    three = fleiss_agreement([*labels, HumanLabel(annotator="carol", instance_id="t/0", model="m", category=1)])
    assert three is not None and three.n == 1 and three.annotators == ["alice", "bob", "carol"]
    assert fleiss_agreement(labels[:8]) is None  # one annotator
