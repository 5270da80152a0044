"""Probe for empathy/2: ``empathy_matrix`` in ``empathy/analysis.py``. Runs in the sandbox; emits outputs only,
never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_empathy_matrix.py add hand-checked values and the matrix's properties."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from empathy.analysis import empathy_matrix, predictions_table
from empathy.groups import NEUTRAL
from empathy.parsing import INVALID
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "matrix_cases.json").read_text())
TOL = dict(rtol=0.0, atol=1e-9)  # the old tests' absolute tolerance on the normalised matrix


def table_of(c: dict) -> pd.DataFrame:
    return predictions_table(tuple(r) for r in c["records"])


def result(got) -> dict:
    """The returned frame as data: whether it is a DataFrame, its labels and its values (dtype recorded)."""
    return {"is_frame": isinstance(got, pd.DataFrame), "index": list(got.index), "columns": list(got.columns),
            "values": got.to_numpy()}


def table_data(table: pd.DataFrame) -> dict:
    """A predictions table as data: every column in order, with the dtypes and the index."""
    return {"columns": list(table.columns), "dtypes": [str(d) for d in table.dtypes], "index": table.index.to_numpy(),
            "persona": "\n".join(table["persona"]), "experiencer": "\n".join(table["experiencer"]),
            "item": table["item"].to_numpy(), "intensity": table["intensity"].to_numpy()}


# --------------------------------------------------------------------------- differential


@case(params=range(len(CASES)), **TOL)
def matches_reference(index):
    c = CASES[index]
    return {**result(empathy_matrix(table_of(c), c["groups"])), "groups": c["groups"]}


# --------------------------------------------------------------------------- by hand (check file)


def hand_table() -> pd.DataFrame:
    intensities = {
        ("X", "X"): [80, 70, 91, 75],
        ("X", "Y"): [60, INVALID, 50, 52],  # item 1 is invalid here, so it is dropped from every cell
        ("Y", "X"): [50, 40, 65, 61],
        ("Y", "Y"): [75, 80, 71, 70],
        (NEUTRAL, "X"): [55, 55, 55, INVALID],  # outside the analysed groups: item 3 must stay
        ("X", NEUTRAL): [10, 20, 30, 40],
        (NEUTRAL, NEUTRAL): [99, 99, 99, 99],
        ("Y", NEUTRAL): [1, 2, 3, 4],
        (NEUTRAL, "Y"): [5, 6, 7, 8],
    }
    return predictions_table(
        (p, e, item, v) for (p, e), values in intensities.items() for item, v in zip([3, 8, 5, 11], values)
    )


@case(**TOL)
def hand_computed_matrix():
    return result(empathy_matrix(hand_table(), ["X", "Y"]))


@case(**TOL)
def hand_computed_matrix_follows_group_order():
    return result(empathy_matrix(hand_table(), ["Y", "X"]))


@case(**TOL)
def neutral_identity_can_be_analysed_too():
    return result(empathy_matrix(hand_table(), ["X", "Y", NEUTRAL]))


# --------------------------------------------------------------------------- properties (check file)


@case(params=[0, 5, 9, 14, 19], ids=["0", "5", "9", "14", "19"], **TOL)
def normalised_matrix_has_zero_mean_and_unit_population_std(index):
    c = CASES[index]
    return result(empathy_matrix(table_of(c), c["groups"]))


@case(params=[1, 6, 11, 16, 21], ids=["1", "6", "11", "16", "21"], **TOL)
def invariant_to_table_row_order_and_integer_shift(index):
    c = CASES[index]
    table = table_of(c)
    shuffled = table.sample(frac=1.0, random_state=index).reset_index(drop=True)
    # Shifting every valid intensity by an integer shifts every rounded mean by it: the z-scores do not change.
    shifted = table.copy()
    valid = shifted["intensity"] != INVALID
    shifted.loc[valid, "intensity"] = shifted.loc[valid, "intensity"] // 2 + 7
    halved = table.copy()
    halved.loc[valid, "intensity"] = halved.loc[valid, "intensity"] // 2
    return {"groups": c["groups"], "base": result(empathy_matrix(table, c["groups"])),
            "shuffled": result(empathy_matrix(shuffled, c["groups"])),
            "shifted": result(empathy_matrix(shifted, c["groups"])),
            "halved": result(empathy_matrix(halved, c["groups"]))}


@case(params=[2, 7, 12], ids=["2", "7", "12"], **TOL)
def rows_of_other_identities_do_not_matter(index):
    c = CASES[index]
    table = table_of(c)
    inside = table[table["persona"].isin(c["groups"]) & table["experiencer"].isin(c["groups"])]
    return {"groups": c["groups"], "base": result(empathy_matrix(table, c["groups"])),
            "inside": result(empathy_matrix(inside.reset_index(drop=True), c["groups"]))}


@case
def all_items_invalid_raises():
    table = predictions_table([("X", "X", 0, 50), ("X", "Y", 0, INVALID), ("Y", "X", 0, 40), ("Y", "Y", 0, 60),
                               ("X", "X", 1, INVALID), ("X", "Y", 1, 50), ("Y", "X", 1, 40), ("Y", "Y", 1, 60)])
    return result(empathy_matrix(table, ["X", "Y"]))


@case(compare="exact")
def input_table_not_modified():
    table = table_of(CASES[3])
    before = table.copy()
    empathy_matrix(table, CASES[3]["groups"])
    return {"before": table_data(before), "after": table_data(table)}
