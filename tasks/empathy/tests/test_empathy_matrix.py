"""Hidden tests for empathy/2: ``empathy_matrix`` in ``empathy/analysis.py``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from empathy.analysis import empathy_matrix, predictions_table
from empathy.groups import NEUTRAL
from empathy.parsing import INVALID

CASES = json.loads((Path(__file__).parent / "fixtures" / "matrix_cases.json").read_text())
ATOL = 1e-9


def table_of(case: dict) -> pd.DataFrame:
    return predictions_table(tuple(r) for r in case["records"])


def check(got: pd.DataFrame, groups: list[str], want) -> None:
    assert isinstance(got, pd.DataFrame)
    assert list(got.index) == list(groups), "rows must be the perceivers in the order of `groups`"
    assert list(got.columns) == list(groups), "columns must be the experiencers in the order of `groups`"
    values = got.to_numpy()
    assert values.dtype == np.float64
    np.testing.assert_allclose(values, np.asarray(want, dtype=np.float64), rtol=0, atol=ATOL)


# --------------------------------------------------------------------------- differential


@pytest.mark.parametrize("index", range(len(CASES)))
def test_matches_reference(index):
    case = CASES[index]
    check(empathy_matrix(table_of(case), case["groups"]), case["groups"], case["matrix"])


# --------------------------------------------------------------------------- by hand


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


def test_hand_computed_matrix():
    # Items kept: 3, 5, 11 (item 8 is invalid in X->Y; the INVALID in the neutral row does not count).
    # Means: X->X (80+91+75)/3 = 82, X->Y (60+50+52)/3 = 54, Y->X (50+65+61)/3 = 58.666... -> 58.67 (2 decimals),
    # Y->Y (75+71+70)/3 = 72.  mu = (82 + 54 + 58.67 + 72)/4 = 66.6675.
    # Deviations 15.3325, -12.6675, -7.9975, 5.3325; population variance = 487.946675/4 = 121.98666875,
    # sigma = 11.04475752336827.  M = deviation / sigma:
    want = [[15.3325 / 11.04475752336827, -12.6675 / 11.04475752336827],
            [-7.9975 / 11.04475752336827, 5.3325 / 11.04475752336827]]
    # = [[1.3882151751688354, -1.1469242283679264], [-0.7240991921351878, 0.4828082453342776]]
    check(empathy_matrix(hand_table(), ["X", "Y"]), ["X", "Y"], want)


def test_hand_computed_matrix_follows_group_order():
    # rows Y, X and columns Y, X: [[Y->Y, Y->X], [X->Y, X->X]]
    want = [[5.3325 / 11.04475752336827, -7.9975 / 11.04475752336827],
            [-12.6675 / 11.04475752336827, 15.3325 / 11.04475752336827]]
    check(empathy_matrix(hand_table(), ["Y", "X"]), ["Y", "X"], want)


def test_neutral_identity_can_be_analysed_too():
    # With the neutral identity among the groups, its INVALID (item 11) counts as well: items 8 and 11 are
    # dropped and only items 3 and 5 remain, so every mean is over 2 items.
    got = empathy_matrix(hand_table(), ["X", "Y", NEUTRAL])
    a = np.array([[(80 + 91) / 2, (60 + 50) / 2, (10 + 30) / 2],
                  [(50 + 65) / 2, (75 + 71) / 2, (1 + 3) / 2],
                  [(55 + 55) / 2, (5 + 7) / 2, 99.0]])
    # every mean here has at most one decimal, so rounding to 2 decimals leaves it unchanged
    check(got, ["X", "Y", NEUTRAL], (a - a.mean()) / a.std())


# --------------------------------------------------------------------------- properties


@pytest.mark.parametrize("index", [0, 5, 9, 14, 19])
def test_normalised_matrix_has_zero_mean_and_unit_population_std(index):
    case = CASES[index]
    values = empathy_matrix(table_of(case), case["groups"]).to_numpy()
    assert abs(values.mean()) < 1e-12
    assert abs(values.std(ddof=0) - 1.0) < 1e-12


@pytest.mark.parametrize("index", [1, 6, 11, 16, 21])
def test_invariant_to_table_row_order_and_integer_shift(index):
    case = CASES[index]
    table = table_of(case)
    shuffled = table.sample(frac=1.0, random_state=index).reset_index(drop=True)
    check(empathy_matrix(shuffled, case["groups"]), case["groups"], case["matrix"])
    # Shifting every valid intensity by an integer shifts every rounded mean by it: the z-scores do not change.
    shifted = table.copy()
    valid = shifted["intensity"] != INVALID
    shifted.loc[valid, "intensity"] = shifted.loc[valid, "intensity"] // 2 + 7
    halved = table.copy()
    halved.loc[valid, "intensity"] = halved.loc[valid, "intensity"] // 2
    np.testing.assert_allclose(
        empathy_matrix(shifted, case["groups"]).to_numpy(), empathy_matrix(halved, case["groups"]).to_numpy(),
        rtol=0, atol=1e-9,
    )


@pytest.mark.parametrize("index", [2, 7, 12])
def test_rows_of_other_identities_do_not_matter(index):
    case = CASES[index]
    table = table_of(case)
    inside = table[table["persona"].isin(case["groups"]) & table["experiencer"].isin(case["groups"])]
    check(empathy_matrix(inside.reset_index(drop=True), case["groups"]), case["groups"], case["matrix"])


def test_all_items_invalid_raises():
    table = predictions_table([("X", "X", 0, 50), ("X", "Y", 0, INVALID), ("Y", "X", 0, 40), ("Y", "Y", 0, 60),
                               ("X", "X", 1, INVALID), ("X", "Y", 1, 50), ("Y", "X", 1, 40), ("Y", "Y", 1, 60)])
    with pytest.raises(ValueError):
        empathy_matrix(table, ["X", "Y"])


def test_input_table_not_modified():
    table = table_of(CASES[3])
    before = table.copy()
    empathy_matrix(table, CASES[3]["groups"])
    pd.testing.assert_frame_equal(table, before)
