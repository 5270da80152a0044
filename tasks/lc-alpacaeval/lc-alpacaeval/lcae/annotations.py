"""The annotations table: one row per judged pair of outputs, as the auto-annotator writes it.

Columns (a pandas DataFrame):

- ``instruction`` (str): identifier of the instruction x;
- ``generator_1``, ``generator_2`` (str): the models whose outputs were shown first and second (the order is
  randomised per row, so the baseline may be either);
- ``output_1``, ``output_2`` (str): the two outputs;
- ``preference`` (float): the judge's preference, in [1, 2]: 1 means ``output_1`` is preferred, 2 means
  ``output_2`` is preferred, 1.5 a tie; values in between are the judge's probability that ``output_2`` is
  preferred, plus one. NaN when the judge failed to annotate the pair.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

COLUMNS = ("instruction", "generator_1", "generator_2", "output_1", "output_2", "preference")


def output_length(text: str) -> int:
    """len(z): the length of an output, in characters."""
    return len(text)


def check_columns(annotations: pd.DataFrame) -> None:
    """Raise ValueError unless the table has every column of the schema."""
    missing = [c for c in COLUMNS if c not in annotations.columns]
    if missing:
        raise ValueError(f"annotations lack columns {missing}")


def load_annotations(path: str | Path) -> pd.DataFrame:
    """Read a JSON list of annotation records (the auto-annotator's output file)."""
    records = json.loads(Path(path).read_text())
    table = pd.DataFrame.from_records(records)
    check_columns(table)
    table["preference"] = table["preference"].astype(np.float64)
    return table


@dataclass(frozen=True)
class Comparison:
    """One model's judged comparisons with the baseline, one entry per instruction.

    instructions: the instruction ids, sorted ascending.
    win_prob: (n,) float64, the judge's probability that the model's output is preferred to the baseline's.
    model_len, baseline_len: (n,) int64, len(z_m) and len(z_b) (see `output_length`).
    """

    model: str
    baseline: str
    instructions: tuple[str, ...]
    win_prob: np.ndarray
    model_len: np.ndarray
    baseline_len: np.ndarray

    def __len__(self) -> int:
        return len(self.instructions)
