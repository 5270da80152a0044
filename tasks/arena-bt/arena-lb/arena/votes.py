"""The vote log: one row per battle between two anonymous models."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

WINNERS = {"model_a": 1.0, "model_b": 0.0, "tie": 0.5, "tie (bothbad)": 0.5}


@dataclass(frozen=True)
class VoteLog:
    """models: names, indexed by the integer columns below.
    model_a, model_b: int64 (n,) indices of the two models of each battle (never equal).
    outcome: float64 (n,) 1.0 if model_a won, 0.0 if model_b won, 0.5 for a tie.
    prob: float64 (n,) the probability with which the pair (model_a, model_b) was chosen for that battle
        (uniform sampling: 1 / number of pairs).
    """

    models: tuple[str, ...]
    model_a: np.ndarray
    model_b: np.ndarray
    outcome: np.ndarray
    prob: np.ndarray

    def __len__(self) -> int:
        return int(self.model_a.shape[0])

    @property
    def n_models(self) -> int:
        return len(self.models)

    def subset(self, idx: np.ndarray) -> "VoteLog":
        """The votes at positions idx (repeats allowed), same models."""
        idx = np.asarray(idx, dtype=np.int64)
        return VoteLog(self.models, self.model_a[idx], self.model_b[idx], self.outcome[idx], self.prob[idx])

    def is_tie(self) -> np.ndarray:
        return self.outcome == 0.5

    def votes_per_model(self) -> np.ndarray:
        """int64 (n_models,): number of battles each model took part in (ties included)."""
        m = self.n_models
        return np.bincount(self.model_a, minlength=m) + np.bincount(self.model_b, minlength=m)


def from_records(records: Iterable[dict], models: Sequence[str] | None = None) -> VoteLog:
    """Records with keys model_a, model_b, winner (see WINNERS) and optionally prob."""
    records = list(records)
    if models is None:
        models = sorted({r["model_a"] for r in records} | {r["model_b"] for r in records})
    index = {m: i for i, m in enumerate(models)}
    n_pairs = len(models) * (len(models) - 1) / 2
    a = np.array([index[r["model_a"]] for r in records], dtype=np.int64)
    b = np.array([index[r["model_b"]] for r in records], dtype=np.int64)
    if np.any(a == b):
        raise ValueError("a battle needs two different models")
    y = np.array([WINNERS[r["winner"]] for r in records], dtype=np.float64)
    p = np.array([float(r.get("prob", 1.0 / n_pairs)) for r in records], dtype=np.float64)
    return VoteLog(tuple(models), a, b, y, p)


def load_votes(path: str | Path) -> VoteLog:
    """A CSV with columns model_a, model_b, winner and optionally prob."""
    with open(path, newline="") as f:
        return from_records(csv.DictReader(f))
