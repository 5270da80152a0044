"""Hidden tests for knowprob/3: build_counter_knowledge."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from knowprob.counter import build_counter_knowledge
from knowprob.kb import TEMPLATES
from knowprob.text import normalize_entity

FIXTURES = Path(__file__).parent / "fixtures"


def _load():
    return json.loads((FIXTURES / "counter.json").read_text())


def _frame(case):
    return pd.DataFrame(case["rows"], index=case.get("index"))


def _check(df, out, case):
    assert isinstance(out, pd.DataFrame)
    assert list(out.index) == case["expected_index"]
    assert list(out.columns) == list(df.columns) + ["counter_object", "counter_prompt"]
    pd.testing.assert_frame_equal(out[list(df.columns)], df.loc[case["expected_index"]])
    assert list(out["counter_object"]) == case["expected_counter_object"]
    assert list(out["counter_prompt"]) == case["expected_counter_prompt"]


def test_matches_reference_on_random_tables():
    cases = _load()["cases"]
    assert len(cases) >= 20
    for case in cases:
        df = _frame(case)
        before = df.copy(deep=True)
        out = build_counter_knowledge(df, seed=case["seed"], templates=case["templates"])
        pd.testing.assert_frame_equal(df, before)  # input untouched
        _check(df, out, case)


def test_default_templates_are_the_repository_templates():
    case = _load()["default_templates"]
    df = _frame(case)
    out = build_counter_knowledge(df, seed=case["seed"])
    _check(df, out, case)
    # the relation with a single distinct object (P176) has no counter object
    assert "P176" not in set(out["relation"])


def test_hand_checked_two_object_relation():
    # With two distinct objects per relation every row has exactly one candidate (the other
    # object), whatever the random draw; the prompt is statement(o_c) + " " + query.
    templates = {"lives": "{subject} lives in {object}.", "speaks": "{subject} speaks {object}."}
    df = pd.DataFrame({
        "subject": ["Ann", "Bob", "Cid", "Dee"],
        "relation": ["lives", "lives", "speaks", "speaks"],
        "parametric_object": ["Paris", "Rome", "Latin", "Greek"],
    }, index=["a", "b", "c", "d"])
    out = build_counter_knowledge(df, seed=123, templates=templates)
    assert list(out.index) == ["a", "b", "c", "d"]
    assert list(out["counter_object"]) == ["Rome", "Paris", "Greek", "Latin"]
    assert list(out["counter_prompt"]) == [
        "Ann lives in Rome. Ann lives in",
        "Bob lives in Paris. Bob lives in",
        "Cid speaks Greek. Cid speaks",
        "Dee speaks Latin. Dee speaks",
    ]


def test_objects_compared_after_normalisation():
    # "paris " and "Paris" are the same entity: they can never replace each other.
    templates = {"lives": "{subject} lives in {object}."}
    df = pd.DataFrame({"subject": ["Ann", "Bob", "Cid"], "relation": ["lives"] * 3,
                       "parametric_object": ["Paris", "paris ", "Rome"]})
    for seed in range(10):
        out = build_counter_knowledge(df, seed=seed, templates=templates)
        assert list(out["counter_object"][:2]) == ["Rome", "Rome"]
        assert out["counter_object"].iloc[2] in {"Paris", "paris "}
    # a relation whose objects are all the same entity yields no row
    df2 = pd.DataFrame({"subject": ["Ann", "Bob"], "relation": ["lives"] * 2,
                        "parametric_object": ["Paris", " PARIS"]})
    out = build_counter_knowledge(df2, seed=0, templates=templates)
    assert len(out) == 0
    assert list(out.columns) == list(df2.columns) + ["counter_object", "counter_prompt"]


def _big_table(n=60):
    rels = ["R1", "R2", "R3"]
    objs = {"R1": ["Valor", "Kestin", "Marnu", "Dosel", "Pelos"], "R2": ["Banu", "Selri", "Tinva"],
            "R3": ["Osva", "Lorkes", "Numar", "Ribel"]}
    rng = np.random.default_rng(n)
    rows = []
    for i in range(n):
        r = rels[i % 3]
        rows.append({"subject": f"Subj{i}", "relation": r,
                     "parametric_object": objs[r][int(rng.integers(len(objs[r])))]})
    templates = {"R1": "{subject} is in {object}.", "R2": "{subject} speaks {object}.",
                 "R3": "{subject} is made by {object}."}
    return pd.DataFrame(rows), templates, objs


def test_properties_same_relation_different_object_deterministic():
    df, templates, objs = _big_table()
    out = build_counter_knowledge(df, seed=7, templates=templates)
    assert list(out.index) == list(df.index)  # every relation has >= 2 objects
    for _, row in out.iterrows():
        assert row["counter_object"] in objs[row["relation"]]
        assert normalize_entity(row["counter_object"]) != normalize_entity(row["parametric_object"])
    again = build_counter_knowledge(df, seed=7, templates=templates)
    pd.testing.assert_frame_equal(out, again)
    other = build_counter_knowledge(df, seed=8, templates=templates)
    assert (other["counter_object"] != out["counter_object"]).any()


def test_each_kept_row_draws_exactly_once_in_row_order():
    # Rows of a relation with one object are dropped without consuming a random number, so
    # removing them does not change the other rows' counter objects.
    df, templates, _ = _big_table(30)
    templates = dict(templates, SOLO="{subject} likes {object}.")
    solo = pd.DataFrame({"subject": ["X1", "X2", "X3"], "relation": ["SOLO"] * 3,
                         "parametric_object": ["Tea"] * 3})
    mixed = pd.concat([solo.iloc[:2], df.iloc[:10], solo.iloc[2:], df.iloc[10:]], ignore_index=True)
    out_mixed = build_counter_knowledge(mixed, seed=3, templates=templates)
    out_plain = build_counter_knowledge(df, seed=3, templates=templates)
    assert "SOLO" not in set(out_mixed["relation"])
    assert list(out_mixed["counter_object"]) == list(out_plain["counter_object"])
    # the draws follow the row order: reversing the rows changes the assignment
    rev = build_counter_knowledge(df.iloc[::-1], seed=3, templates=templates)
    assert list(rev.index) == list(df.index[::-1])
    assert (rev.loc[df.index, "counter_object"].to_numpy() != out_plain["counter_object"].to_numpy()).any()


def test_repository_templates_used_for_prompts():
    df = pd.DataFrame({"subject": ["Kestin", "Dosel"], "relation": ["P19", "P19"],
                       "parametric_object": ["Valor", "Marnu"]})
    out = build_counter_knowledge(df, seed=0)
    tpl = TEMPLATES["P19"]  # "{subject} was born in {object}."
    assert tpl == "{subject} was born in {object}."
    assert list(out["counter_prompt"]) == ["Kestin was born in Marnu. Kestin was born in",
                                           "Dosel was born in Valor. Dosel was born in"]


def test_custom_column_names():
    templates = {"r": "{subject} is in {object}."}
    df = pd.DataFrame({"s": ["A", "B"], "rel": ["r", "r"], "o": ["X", "Y"]})
    out = build_counter_knowledge(df, seed=0, templates=templates, subject_col="s",
                                  relation_col="rel", object_col="o")
    assert list(out["counter_object"]) == ["Y", "X"]
    assert list(out["counter_prompt"]) == ["A is in Y. A is in", "B is in X. B is in"]
