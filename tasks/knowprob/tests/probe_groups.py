"""Probe for knowprob/5: relation_group_overlap. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_groups.py add hand-checked values and the table's properties."""

import json
from pathlib import Path

import pandas as pd

from knowprob.groups import relation_group_overlap
from knowprob_emit import frame, plain
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
LIST_COLUMNS = ("shared_subjects", "shared_objects", "shared_entities")
# the old test compared the records (values), the frame's columns and its index, not the columns' dtypes
EXACT = dict(compare="exact", outputs={"*dtypes.*": {"compare": "none"}})


def overlap(out) -> dict:
    """The result as data: frame, columns and index facts, records, and whether each list cell is a list."""
    recs = out.to_dict(orient="records")
    return {"is_frame": isinstance(out, pd.DataFrame), "columns": [plain(c) for c in out.columns],
            "index_type": type(out.index).__name__, "index_start": plain(getattr(out.index, "start", None)),
            "index_step": plain(getattr(out.index, "step", None)),
            "records": [{str(k): plain(v) for k, v in r.items()} for r in recs],
            "is_list": [[isinstance(r.get(k), list) for k in LIST_COLUMNS] for r in recs]}


@case(compare="exact")
def matches_reference_on_random_tables():
    cases = json.loads((FIXTURES / "groups.json").read_text())["cases"]
    out = {"n_tables": len(cases)}
    for i, c in enumerate(cases):
        df = pd.DataFrame(c["rows"])
        result = relation_group_overlap(df)
        out[f"t{i}"] = {"input": frame(df), "output": overlap(result)}
    return out


@case(compare="exact")
def hand_checked_example():
    df = pd.DataFrame({
        "relation_group": ["location", "location", "language", "language", "profession"],
        "subject": ["Paris", "Rome", "France", "Rome ", "Ann"],
        "parametric_object": ["France", "Italy", "French", "Italian", "painter"],
        "object": ["painter", "Ann", "Rome", "Italy", "Paris"],  # gold objects: not used
    })
    return overlap(relation_group_overlap(df))


@case(compare="exact")
def object_column_choice():
    df = pd.DataFrame({
        "relation_group": ["g1", "g2"],
        "subject": ["A", "B"],
        "parametric_object": ["X", "Y"],
        "object": ["Z", "Z"],
    })
    return {"default": overlap(relation_group_overlap(df)),
            "gold_objects": overlap(relation_group_overlap(df, object_col="object"))}


@case(compare="exact")
def custom_column_names():
    df = pd.DataFrame({"grp": ["b", "a", "b"], "s": ["New  York", "new york", "Kyoto"],
                       "o": ["Japan", "USA", "usa"]})
    return overlap(relation_group_overlap(df, group_col="grp", subject_col="s", object_col="o"))


@case(compare="exact")
def missing_and_blank_values_are_ignored():
    nan = float("nan")
    df = pd.DataFrame({
        "relation_group": ["g1", "g1", "g1", "g2", "g2", "g2"],
        "subject": [None, "", nan, nan, "  ", None],
        "parametric_object": ["", None, nan, "   ", nan, None],
    })
    return overlap(relation_group_overlap(df))


@case(compare="exact")
def fewer_than_two_groups():
    df = pd.DataFrame({"relation_group": ["g1", "g1"], "subject": ["A", "B"],
                       "parametric_object": ["B", "A"]})
    return {"one_group": overlap(relation_group_overlap(df)), "empty": overlap(relation_group_overlap(df.iloc[:0]))}


@case(**EXACT)
def pairs_count_order_and_row_order_invariance():
    names = ["zeta", "alpha", "mid", "beta"]
    rows = []
    for i in range(24):
        rows.append({"relation_group": names[i % 4], "subject": f"S{i % 5}",
                     "parametric_object": f"O{(i * 3) % 7}"})
    df = pd.DataFrame(rows)
    out = relation_group_overlap(df)
    shuffled = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
    return {"result": overlap(out), "frame": frame(out), "shuffled_frame": frame(relation_group_overlap(shuffled))}
