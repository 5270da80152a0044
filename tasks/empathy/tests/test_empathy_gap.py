"""Hidden tests for empathy/1: ``empathy_gap`` in ``empathy/analysis.py``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from empathy.analysis import empathy_gap
from empathy.groups import NEUTRAL

CASES = json.loads((Path(__file__).parent / "fixtures" / "gap_cases.json").read_text())
ATOL = 1e-12


def frame(case: dict) -> pd.DataFrame:
    return pd.DataFrame(np.array(case["values"], dtype=np.float64), index=case["rows"], columns=case["cols"])


def gap_of(case: dict, matrix: pd.DataFrame | None = None) -> float:
    kwargs = {"exclude": case["exclude"]} if "exclude" in case else {}
    return empathy_gap(frame(case) if matrix is None else matrix, case["social_group"], **kwargs)


def check(got, want: float, tol: float = ATOL) -> None:
    assert isinstance(got, float), f"the gap must be a Python float, got {type(got)}"
    assert math.isclose(got, want, rel_tol=0, abs_tol=tol), f"{got!r} != {want!r}"


# --------------------------------------------------------------------------- differential


@pytest.mark.parametrize("index", range(len(CASES)))
def test_matches_reference(index):
    case = CASES[index]
    check(gap_of(case), case["gap"])


# --------------------------------------------------------------------------- by hand

HAND = pd.DataFrame([[3.0, 1.0, 2.0], [0.0, 4.0, 1.0], [2.0, 2.0, 5.0]],
                    index=["A1", "A2", "B1"], columns=["A1", "A2", "B1"])


def test_hand_computed_diagonal_gap():
    # Every label its own group: in-group = diagonal 3, 4, 5 -> mean 4;
    # out-group = 1, 2, 0, 1, 2, 2 -> mean 8/6. Gap = 4 - 4/3 = 8/3 = 2.6666666666666665
    check(empathy_gap(HAND), 8.0 / 3.0)


def test_hand_computed_gap_with_social_groups():
    # A1 and A2 are one group: in-group cells (A1,A1)=3, (A1,A2)=1, (A2,A1)=0, (A2,A2)=4, (B1,B1)=5 -> 13/5 = 2.6;
    # out-group cells (A1,B1)=2, (A2,B1)=1, (B1,A1)=2, (B1,A2)=2 -> 7/4 = 1.75. Gap = 2.6 - 1.75 = 0.85
    check(empathy_gap(HAND, {"A1": "a", "A2": "a", "B1": "b"}), 0.85)


def test_hand_computed_gap_ignores_neutral_identity():
    # The neutral row and column hold huge values and are left out: the gap is the 3x3 one, 8/3.
    labels = ["A1", NEUTRAL, "A2", "B1"]
    m = pd.DataFrame(1e6, index=labels, columns=labels)
    m.loc[["A1", "A2", "B1"], ["A1", "A2", "B1"]] = HAND.to_numpy()
    check(empathy_gap(m), 8.0 / 3.0)
    # Kept (exclude=()), the neutral identity is its own group: in-group 3, 4, 5, 1e6 -> (12 + 1e6)/4;
    # out-group: the 6 off-diagonal HAND cells (sum 8) and the 6 neutral off-diagonal cells (1e6 each) -> (8 + 6e6)/12
    check(empathy_gap(m, exclude=()), (12 + 1e6) / 4 - (8 + 6e6) / 12, tol=1e-7)


def test_membership_follows_labels_not_positions():
    # Same matrix with the columns listed in another order: the in-group cells are still A1/A1, A2/A2, B1/B1.
    shuffled = HAND[["B1", "A1", "A2"]]
    check(empathy_gap(shuffled), 8.0 / 3.0)
    check(empathy_gap(shuffled, {"A1": "a", "A2": "a", "B1": "b"}), 0.85)


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("index", [0, 1, 2, 3, 7, 13])
def test_affine_equivariance(index):
    # Adding a constant to every cell leaves the gap unchanged; a positive factor scales it.
    case = CASES[index]
    m = frame(case)
    check(gap_of(case, m * 3.5 - 12.0), 3.5 * case["gap"], tol=1e-10)


@pytest.mark.parametrize("index", [4, 5, 10, 16])
def test_reordering_rows_and_columns_changes_nothing(index):
    case = CASES[index]
    m = frame(case)
    check(gap_of(case, m.iloc[::-1, ::-1]), case["gap"])


def test_no_out_group_or_no_in_group_raises():
    with pytest.raises(ValueError):
        empathy_gap(HAND, {"A1": "g", "A2": "g", "B1": "g"})  # everything in-group
    with pytest.raises(ValueError):
        empathy_gap(pd.DataFrame([[1.0, 2.0]], index=["A1"], columns=["A2", "B1"]))  # nothing in-group


def test_matrix_not_modified():
    m = HAND.copy()
    empathy_gap(m, {"A1": "a", "A2": "a", "B1": "b"})
    pd.testing.assert_frame_equal(m, HAND)
