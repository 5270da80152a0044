"""From predicted intensities to the normalised group matrix and the empathy gap."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from empathy.groups import NEUTRAL
from empathy.parsing import INVALID

COLUMNS = ["persona", "experiencer", "item", "intensity"]


def predictions_table(records: Iterable[tuple[str, str, int, int]]) -> pd.DataFrame:
    """Long table of predictions: one row per (persona, experiencer, item) with its parsed intensity."""
    table = pd.DataFrame(list(records), columns=COLUMNS)
    return table.astype({"item": "int64", "intensity": "int64"})


def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    """Normalised perceiver x experiencer matrix of mean predicted intensities.

    Args:
        predictions: long table with columns ``persona``, ``experiencer``, ``item`` and ``intensity``, one row
            per (persona, experiencer, item); ``intensity`` is an integer in [0, 100] or ``INVALID`` (-1). It may
            contain personas/experiencers that are not in ``groups``.
        groups: the identities to analyse, in the order of the output's rows and columns.

    Returns:
        A float64 DataFrame with index ``groups`` (perceivers) and columns ``groups`` (experiencers), computed as:
        1. keep the rows whose persona and experiencer are both in ``groups``;
        2. drop every item that is ``INVALID`` in at least one of those kept (persona, experiencer) cells, so
           that all cells average the same items;
        3. cell value = mean intensity over the remaining items, rounded to 2 decimals (numpy rounding);
        4. z-score over all cells of the matrix: (value - mean) / std, with the population standard deviation
           (divide by the number of cells).

    Raises:
        ValueError: if no item survives step 2.
    """
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    bad_items = kept.loc[kept["intensity"] == INVALID, "item"].unique()
    kept = kept[~kept["item"].isin(bad_items)]
    if kept.empty:
        raise ValueError("every item has an invalid prediction in some cell")
    means = kept.groupby(["persona", "experiencer"])["intensity"].mean().unstack("experiencer")
    matrix = means.loc[list(groups), list(groups)].to_numpy(dtype=np.float64).round(2)
    normalised = (matrix - matrix.mean()) / matrix.std()
    return pd.DataFrame(normalised, index=list(groups), columns=list(groups))


def empathy_gap(
    matrix: pd.DataFrame,
    social_group: Mapping[str, str] | None = None,
    exclude: Collection[str] = (NEUTRAL,),
) -> float:
    """Empathy gap: mean of the in-group cells minus mean of the out-group cells.

    Args:
        matrix: perceiver x experiencer table (index = perceiver labels, columns = experiencer labels) of
            (normalised) intensities. Rows and columns need not be in the same order.
        social_group: maps each label to its social group; two labels are in-group when their groups are
            equal. ``None``: every label is its own group (in-group means same label).
        exclude: labels whose rows and columns are left out entirely (the neutral identity by default).

    Returns:
        The gap as a Python float: the mean over in-group cells minus the mean over out-group cells, every cell
        counting once. Membership is decided by labels, not by positions in the matrix.

    Raises:
        ValueError: if there are no in-group cells or no out-group cells.
    """
    rows = [label for label in matrix.index if label not in exclude]
    cols = [label for label in matrix.columns if label not in exclude]
    group = (lambda label: label) if social_group is None else social_group.__getitem__
    values = matrix.loc[rows, cols].to_numpy(dtype=np.float64)
    same = np.array([[group(r) == group(c) for c in cols] for r in rows], dtype=bool).reshape(len(rows), len(cols))
    if not same.any() or same.all():
        raise ValueError("the gap needs both in-group and out-group cells")
    return float(values[same].mean() - values[~same].mean())


def permutation_test(
    matrix: pd.DataFrame,
    social_group: Mapping[str, str] | None = None,
    num_permutations: int = 1000,
    seed: int = 0,
    exclude: Collection[str] = (NEUTRAL,),
) -> tuple[float, float]:
    """(gap, p-value): how often shuffling rows and columns independently gives a gap at least as large."""
    observed = empathy_gap(matrix, social_group, exclude)
    rng = np.random.default_rng(seed)
    values = matrix.to_numpy()
    hits = 0
    for _ in range(num_permutations):
        shuffled = values[rng.permutation(values.shape[0])][:, rng.permutation(values.shape[1])]
        permuted = pd.DataFrame(shuffled, index=matrix.index, columns=matrix.columns)
        hits += empathy_gap(permuted, social_group, exclude) >= observed
    return observed, (hits + 1) / (num_permutations + 1)
