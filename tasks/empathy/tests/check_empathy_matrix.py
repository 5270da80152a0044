"""Trusted checks for empathy/2 (never enter the sandbox): hand-checked values and the matrix's properties, on
the outputs probe_empathy_matrix.py emitted. The default comparison with the reference's outputs has already
passed."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

ATOL = 1e-9
NEUTRAL = "a person"  # empathy.groups.NEUTRAL (checked below against the label the reference run emitted)


def labels(out: dict, key: str) -> list:
    """An emitted list of labels, back from its flattened keys `key.0`, `key.1`, ..."""
    marker = out.get(key)
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key}: not a list")
    return [out.get(f"{key}.{i}") for i in range(int(marker[1]))]


def frame(out: dict, groups: list, want, prefix: str = "") -> None:
    """The old tests' `check`: a DataFrame indexed by `groups` both ways, float64 values within ATOL of `want`."""
    equal(out[f"{prefix}is_frame"], True, what="result is a DataFrame")
    equal(labels(out, f"{prefix}index"), list(groups), what="rows must be the perceivers in the order of `groups`")
    equal(labels(out, f"{prefix}columns"), list(groups),
          what="columns must be the experiencers in the order of `groups`")
    equal(out[f"{prefix}values#dtype"], "float64", what="values dtype")
    close(out[f"{prefix}values"], np.asarray(want, dtype=np.float64), rtol=0, atol=ATOL, what=f"{prefix}values")


# --------------------------------------------------------------------------- differential


@check("matches_reference*")
def matches_reference(out, ref):
    frame(out, labels(ref, "groups"), ref["values"])


# --------------------------------------------------------------------------- by hand


@check("hand_computed_matrix")
def hand_matrix(out, ref):
    # Items kept: 3, 5, 11 (item 8 is invalid in X->Y; the INVALID in the neutral row does not count).
    # Means: X->X (80+91+75)/3 = 82, X->Y (60+50+52)/3 = 54, Y->X (50+65+61)/3 = 58.666... -> 58.67 (2 decimals),
    # Y->Y (75+71+70)/3 = 72.  mu = (82 + 54 + 58.67 + 72)/4 = 66.6675.
    # Deviations 15.3325, -12.6675, -7.9975, 5.3325; population variance = 487.946675/4 = 121.98666875,
    # sigma = 11.04475752336827.  M = deviation / sigma:
    want = [[15.3325 / 11.04475752336827, -12.6675 / 11.04475752336827],
            [-7.9975 / 11.04475752336827, 5.3325 / 11.04475752336827]]
    # = [[1.3882151751688354, -1.1469242283679264], [-0.7240991921351878, 0.4828082453342776]]
    frame(out, ["X", "Y"], want)


@check("hand_computed_matrix_follows_group_order")
def hand_order(out, ref):
    # rows Y, X and columns Y, X: [[Y->Y, Y->X], [X->Y, X->X]]
    want = [[5.3325 / 11.04475752336827, -7.9975 / 11.04475752336827],
            [-12.6675 / 11.04475752336827, 15.3325 / 11.04475752336827]]
    frame(out, ["Y", "X"], want)


@check("neutral_identity_can_be_analysed_too")
def hand_neutral(out, ref):
    # With the neutral identity among the groups, its INVALID (item 11) counts as well: items 8 and 11 are
    # dropped and only items 3 and 5 remain, so every mean is over 2 items.
    equal(ref["index.2"], NEUTRAL, what="the neutral label of empathy.groups")
    a = np.array([[(80 + 91) / 2, (60 + 50) / 2, (10 + 30) / 2],
                  [(50 + 65) / 2, (75 + 71) / 2, (1 + 3) / 2],
                  [(55 + 55) / 2, (5 + 7) / 2, 99.0]])
    # every mean here has at most one decimal, so rounding to 2 decimals leaves it unchanged
    frame(out, ["X", "Y", NEUTRAL], (a - a.mean()) / a.std())


# --------------------------------------------------------------------------- properties


@check("normalised_matrix_has_zero_mean_and_unit_population_std*")
def zero_mean_unit_std(out, ref):
    values = np.asarray(out["values"], dtype=np.float64)
    expect(abs(values.mean()) < 1e-12, f"mean {values.mean()!r} is not 0")
    expect(abs(values.std(ddof=0) - 1.0) < 1e-12, f"population std {values.std(ddof=0)!r} is not 1")


@check("invariant_to_table_row_order_and_integer_shift*")
def row_order_and_shift(out, ref):
    groups = labels(ref, "groups")
    # the old test compared the shuffled table's matrix with the reference's stored matrix of the case
    frame(out, groups, ref["base.values"], prefix="shuffled.")
    close(out["shifted.values"], out["halved.values"], rtol=0, atol=1e-9, what="shifted vs halved")


@check("rows_of_other_identities_do_not_matter*")
def other_identities(out, ref):
    frame(out, labels(ref, "groups"), ref["base.values"], prefix="inside.")


@check("input_table_not_modified")
def not_modified(out, ref):
    # every column (values and dtype), the column names and the index are as before the call
    for key in ref:
        if key.startswith("before."):
            name = key[len("before."):]
            equal(out[f"after.{name}"], out[key], what=f"table {name}")
