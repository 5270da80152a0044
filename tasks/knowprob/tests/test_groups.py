"""Hidden tests for knowprob/5: relation_group_overlap."""

import json
from pathlib import Path

import pandas as pd

from knowprob.groups import relation_group_overlap

FIXTURES = Path(__file__).parent / "fixtures"

COLUMNS = [
    "group_a", "group_b",
    "shared_subjects", "shared_objects", "shared_entities",
    "n_shared_subjects", "n_shared_objects", "n_shared_entities",
]


def _records(out):
    recs = out.to_dict(orient="records")
    for r in recs:
        for k in ("shared_subjects", "shared_objects", "shared_entities"):
            assert isinstance(r[k], list), f"{k} must be a list"
        for k in ("n_shared_subjects", "n_shared_objects", "n_shared_entities"):
            assert int(r[k]) == r[k]
            r[k] = int(r[k])
    return recs


def _check_frame(out):
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == COLUMNS
    assert isinstance(out.index, pd.RangeIndex) and out.index.start == 0 and out.index.step == 1


def test_matches_reference_on_random_tables():
    cases = json.loads((FIXTURES / "groups.json").read_text())["cases"]
    assert len(cases) >= 20
    for case in cases:
        df = pd.DataFrame(case["rows"])
        before = df.copy(deep=True)
        out = relation_group_overlap(df)
        pd.testing.assert_frame_equal(df, before)  # input untouched
        _check_frame(out)
        assert _records(out) == case["expected"]


def test_hand_checked_example():
    df = pd.DataFrame({
        "relation_group": ["location", "location", "language", "language", "profession"],
        "subject": ["Paris", "Rome", "France", "Rome ", "Ann"],
        "parametric_object": ["France", "Italy", "French", "Italian", "painter"],
        "object": ["painter", "Ann", "Rome", "Italy", "Paris"],  # gold objects: not used
    })
    out = relation_group_overlap(df)
    _check_frame(out)
    # groups sorted: language < location < profession; pairs (a, b) with a < b.
    # language: S={france, rome}, O={french, italian}; location: S={paris, rome}, O={france, italy};
    # profession: S={ann}, O={painter}.
    # (language, location): shared subjects {rome} ("Rome " normalises to "rome"), no shared
    # object, shared entities {france (subject vs object), rome}.
    assert _records(out) == [
        {"group_a": "language", "group_b": "location",
         "shared_subjects": ["rome"], "shared_objects": [], "shared_entities": ["france", "rome"],
         "n_shared_subjects": 1, "n_shared_objects": 0, "n_shared_entities": 2},
        {"group_a": "language", "group_b": "profession",
         "shared_subjects": [], "shared_objects": [], "shared_entities": [],
         "n_shared_subjects": 0, "n_shared_objects": 0, "n_shared_entities": 0},
        {"group_a": "location", "group_b": "profession",
         "shared_subjects": [], "shared_objects": [], "shared_entities": [],
         "n_shared_subjects": 0, "n_shared_objects": 0, "n_shared_entities": 0},
    ]


def test_object_column_choice():
    df = pd.DataFrame({
        "relation_group": ["g1", "g2"],
        "subject": ["A", "B"],
        "parametric_object": ["X", "Y"],
        "object": ["Z", "Z"],
    })
    out = relation_group_overlap(df)
    assert out.loc[0, "shared_objects"] == []
    out = relation_group_overlap(df, object_col="object")
    assert out.loc[0, "shared_objects"] == ["z"]
    assert out.loc[0, "shared_entities"] == ["z"]


def test_custom_column_names():
    df = pd.DataFrame({"grp": ["b", "a", "b"], "s": ["New  York", "new york", "Kyoto"],
                       "o": ["Japan", "USA", "usa"]})
    out = relation_group_overlap(df, group_col="grp", subject_col="s", object_col="o")
    assert _records(out) == [
        {"group_a": "a", "group_b": "b",
         "shared_subjects": ["new york"], "shared_objects": ["usa"],
         "shared_entities": ["new york", "usa"],
         "n_shared_subjects": 1, "n_shared_objects": 1, "n_shared_entities": 2},
    ]


def test_missing_and_blank_values_are_ignored():
    nan = float("nan")
    df = pd.DataFrame({
        "relation_group": ["g1", "g1", "g1", "g2", "g2", "g2"],
        "subject": [None, "", nan, nan, "  ", None],
        "parametric_object": ["", None, nan, "   ", nan, None],
    })
    out = relation_group_overlap(df)
    assert _records(out) == [
        {"group_a": "g1", "group_b": "g2", "shared_subjects": [], "shared_objects": [],
         "shared_entities": [], "n_shared_subjects": 0, "n_shared_objects": 0,
         "n_shared_entities": 0},
    ]


def test_fewer_than_two_groups():
    df = pd.DataFrame({"relation_group": ["g1", "g1"], "subject": ["A", "B"],
                       "parametric_object": ["B", "A"]})
    out = relation_group_overlap(df)
    assert len(out) == 0
    assert list(out.columns) == COLUMNS
    empty = df.iloc[:0]
    out = relation_group_overlap(empty)
    assert len(out) == 0
    assert list(out.columns) == COLUMNS


def test_pairs_count_order_and_row_order_invariance():
    names = ["zeta", "alpha", "mid", "beta"]
    rows = []
    for i in range(24):
        rows.append({"relation_group": names[i % 4], "subject": f"S{i % 5}",
                     "parametric_object": f"O{(i * 3) % 7}"})
    df = pd.DataFrame(rows)
    out = relation_group_overlap(df)
    assert len(out) == 6  # C(4, 2) unordered pairs, each once
    pairs = list(zip(out["group_a"], out["group_b"]))
    assert pairs == sorted(pairs)
    assert all(a < b for a, b in pairs)
    shuffled = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
    pd.testing.assert_frame_equal(relation_group_overlap(shuffled), out)
    # counts agree with the lists, and subjects/objects shared are entities shared
    for r in _records(out):
        assert r["n_shared_subjects"] == len(r["shared_subjects"])
        assert r["n_shared_objects"] == len(r["shared_objects"])
        assert r["n_shared_entities"] == len(r["shared_entities"])
        assert set(r["shared_subjects"]) | set(r["shared_objects"]) <= set(r["shared_entities"])
        assert r["shared_entities"] == sorted(r["shared_entities"])
