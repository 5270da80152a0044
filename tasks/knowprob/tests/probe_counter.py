"""Probe for knowprob/3: build_counter_knowledge. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_counter.py add hand-checked values and the procedure's properties."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from knowprob.counter import build_counter_knowledge
from knowprob.kb import TEMPLATES
from knowprob_emit import frame
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
# the old test compared the new columns' values, not their dtypes
EXACT = dict(compare="exact", outputs={"*dtypes.counter_*": {"compare": "none"}})


def _load():
    return json.loads((FIXTURES / "counter.json").read_text())


def _frame(c):
    return pd.DataFrame(c["rows"], index=c.get("index"))


def _run(df, **kwargs) -> dict:
    """The input after the call (it must be untouched) and the output, as data."""
    out = build_counter_knowledge(df, **kwargs)
    return {"input": frame(df), "output": frame(out)}


@case(**EXACT)
def matches_reference_on_random_tables():
    cases = _load()["cases"]
    return {"n_tables": len(cases),
            **{f"t{i}": _run(_frame(c), seed=c["seed"], templates=c["templates"]) for i, c in enumerate(cases)}}


@case(**EXACT)
def default_templates_are_the_repository_templates():
    c = _load()["default_templates"]
    return _run(_frame(c), seed=c["seed"])


@case(**EXACT)
def hand_checked_two_object_relation():
    templates = {"lives": "{subject} lives in {object}.", "speaks": "{subject} speaks {object}."}
    df = pd.DataFrame({
        "subject": ["Ann", "Bob", "Cid", "Dee"],
        "relation": ["lives", "lives", "speaks", "speaks"],
        "parametric_object": ["Paris", "Rome", "Latin", "Greek"],
    }, index=["a", "b", "c", "d"])
    return frame(build_counter_knowledge(df, seed=123, templates=templates))


@case(**EXACT)
def objects_compared_after_normalisation():
    templates = {"lives": "{subject} lives in {object}."}
    df = pd.DataFrame({"subject": ["Ann", "Bob", "Cid"], "relation": ["lives"] * 3,
                       "parametric_object": ["Paris", "paris ", "Rome"]})
    out = {f"seed{seed}": frame(build_counter_knowledge(df, seed=seed, templates=templates)) for seed in range(10)}
    df2 = pd.DataFrame({"subject": ["Ann", "Bob"], "relation": ["lives"] * 2,
                        "parametric_object": ["Paris", " PARIS"]})
    out["same_entity"] = _run(df2, seed=0, templates=templates)
    return out


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


@case(**EXACT)
def properties_same_relation_different_object_deterministic():
    df, templates, objs = _big_table()
    return {"objects": objs, "input_index": list(df.index),
            "seed7": frame(build_counter_knowledge(df, seed=7, templates=templates)),
            "seed7_again": frame(build_counter_knowledge(df, seed=7, templates=templates)),
            "seed8": frame(build_counter_knowledge(df, seed=8, templates=templates))}


@case(**EXACT)
def each_kept_row_draws_exactly_once_in_row_order():
    df, templates, _ = _big_table(30)
    templates = dict(templates, SOLO="{subject} likes {object}.")
    solo = pd.DataFrame({"subject": ["X1", "X2", "X3"], "relation": ["SOLO"] * 3,
                         "parametric_object": ["Tea"] * 3})
    mixed = pd.concat([solo.iloc[:2], df.iloc[:10], solo.iloc[2:], df.iloc[10:]], ignore_index=True)
    return {"input_index": list(df.index),
            "mixed": frame(build_counter_knowledge(mixed, seed=3, templates=templates)),
            "plain": frame(build_counter_knowledge(df, seed=3, templates=templates)),
            "reversed": frame(build_counter_knowledge(df.iloc[::-1], seed=3, templates=templates))}


@case(**EXACT)
def repository_templates_used_for_prompts():
    df = pd.DataFrame({"subject": ["Kestin", "Dosel"], "relation": ["P19", "P19"],
                       "parametric_object": ["Valor", "Marnu"]})
    return {"template_P19": TEMPLATES["P19"], "output": frame(build_counter_knowledge(df, seed=0))}


@case(**EXACT)
def custom_column_names():
    templates = {"r": "{subject} is in {object}."}
    df = pd.DataFrame({"s": ["A", "B"], "rel": ["r", "r"], "o": ["X", "Y"]})
    return frame(build_counter_knowledge(df, seed=0, templates=templates, subject_col="s", relation_col="rel",
                                         object_col="o"))
