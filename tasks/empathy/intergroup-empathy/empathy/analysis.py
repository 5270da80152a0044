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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
