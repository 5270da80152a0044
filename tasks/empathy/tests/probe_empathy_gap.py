"""Probe for empathy/1: ``empathy_gap`` in ``empathy/analysis.py``. Runs in the sandbox; emits outputs only,
never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_empathy_gap.py add hand-checked values and the gap's properties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from empathy.analysis import empathy_gap
from empathy.groups import NEUTRAL
from lmrbench_probe import case

CASES = json.loads((Path(__file__).parent / "fixtures" / "gap_cases.json").read_text())
TOL = dict(rtol=0.0, atol=1e-12)  # the old tests' absolute tolerance on the gap


def frame(c: dict) -> pd.DataFrame:
    return pd.DataFrame(np.array(c["values"], dtype=np.float64), index=c["rows"], columns=c["cols"])


def gap_of(c: dict, matrix: pd.DataFrame | None = None) -> float:
    kwargs = {"exclude": c["exclude"]} if "exclude" in c else {}
    return empathy_gap(frame(c) if matrix is None else matrix, c["social_group"], **kwargs)


def result(gap) -> dict:
    """The gap and whether it is a Python float, as the interface requires."""
    return {"gap": gap, "is_float": isinstance(gap, float)}


HAND = pd.DataFrame([[3.0, 1.0, 2.0], [0.0, 4.0, 1.0], [2.0, 2.0, 5.0]],
                    index=["A1", "A2", "B1"], columns=["A1", "A2", "B1"])


# --------------------------------------------------------------------------- differential


@case(params=range(len(CASES)), **TOL)
def matches_reference(index):
    return result(gap_of(CASES[index]))


# --------------------------------------------------------------------------- by hand (check file)


@case(**TOL)
def hand_computed_diagonal_gap():
    return result(empathy_gap(HAND))


@case(**TOL)
def hand_computed_gap_with_social_groups():
    return result(empathy_gap(HAND, {"A1": "a", "A2": "a", "B1": "b"}))


@case(**TOL, outputs={"kept.*": {"atol": 1e-7}})
def hand_computed_gap_ignores_neutral_identity():
    labels = ["A1", NEUTRAL, "A2", "B1"]
    m = pd.DataFrame(1e6, index=labels, columns=labels)
    m.loc[["A1", "A2", "B1"], ["A1", "A2", "B1"]] = HAND.to_numpy()
    return {"excluded": result(empathy_gap(m)), "kept": result(empathy_gap(m, exclude=()))}


@case(**TOL)
def membership_follows_labels_not_positions():
    shuffled = HAND[["B1", "A1", "A2"]]
    return {"diagonal": result(empathy_gap(shuffled)),
            "groups": result(empathy_gap(shuffled, {"A1": "a", "A2": "a", "B1": "b"}))}


# --------------------------------------------------------------------------- properties (check file)


@case(params=[0, 1, 2, 3, 7, 13], ids=["0", "1", "2", "3", "7", "13"], **TOL, outputs={"affine.*": {"atol": 1e-10}})
def affine_equivariance(index):
    c = CASES[index]
    m = frame(c)
    return {"base": result(gap_of(c)), "affine": result(gap_of(c, m * 3.5 - 12.0))}


@case(params=[4, 5, 10, 16], ids=["4", "5", "10", "16"], **TOL)
def reordering_rows_and_columns_changes_nothing(index):
    c = CASES[index]
    return {"base": result(gap_of(c)), "reordered": result(gap_of(c, frame(c).iloc[::-1, ::-1]))}


@case
def everything_in_group_raises():
    return result(empathy_gap(HAND, {"A1": "g", "A2": "g", "B1": "g"}))


@case
def nothing_in_group_raises():
    return result(empathy_gap(pd.DataFrame([[1.0, 2.0]], index=["A1"], columns=["A2", "B1"])))


@case(compare="exact")
def matrix_not_modified():
    m = HAND.copy()
    empathy_gap(m, {"A1": "a", "A2": "a", "B1": "b"})
    return {"values": m.to_numpy(), "index": list(m.index), "columns": list(m.columns),
            "dtypes": [str(d) for d in m.dtypes]}
