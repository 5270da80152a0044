"""Per-question score tables: one model's scores on one eval, padded to a rectangle."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

Kind = Literal["sampled", "probability"]


@dataclass(frozen=True)
class ScoreTable:
    """One model's scores on the questions of one eval.

    name: the model.
    question_ids: (n,) unique question identifiers; row i of `scores` belongs to question_ids[i].
    scores: (n, k_max) float64; scores[i, k] is the score of the k-th answer sampled for question i. Rows with
        fewer than k_max answers are padded at the end with 0.0.
    mask: (n, k_max) bool; True where scores holds a real answer's score. Every row has at least one.
    clusters: None, or an (n,) array of cluster labels (str): questions with equal labels were written as a
        group (e.g. several questions about one passage).
    kind: "sampled" when the scores are those of sampled answers; "probability" when each question has a
        single entry, the probability the model assigns to the correct answer (k_max == 1, values in [0, 1]).
    """

    name: str
    question_ids: tuple[str, ...]
    scores: np.ndarray
    mask: np.ndarray
    clusters: np.ndarray | None = None
    kind: Kind = "sampled"

    def __post_init__(self) -> None:
        n = len(self.question_ids)
        if len(set(self.question_ids)) != n:
            raise ValueError("question ids must be unique")
        if self.scores.dtype != np.float64 or self.scores.ndim != 2 or self.scores.shape[0] != n:
            raise ValueError("scores must be a float64 array of shape (n_questions, k_max)")
        if self.mask.dtype != np.bool_ or self.mask.shape != self.scores.shape:
            raise ValueError("mask must be a bool array shaped like scores")
        if n and not bool(self.mask.any(axis=1).all()):
            raise ValueError("every question needs at least one score")
        if not bool(np.isfinite(self.scores).all()) or bool((self.scores[~self.mask] != 0.0).any()):
            raise ValueError("scores must be finite, with 0.0 in the padding")
        if self.clusters is not None and self.clusters.shape != (n,):
            raise ValueError("clusters must hold one label per question")
        if self.kind == "probability":
            if self.scores.shape[1] != 1 or bool(((self.scores < 0.0) | (self.scores > 1.0)).any()):
                raise ValueError("a probability table has one score in [0, 1] per question")

    @property
    def n_questions(self) -> int:
        return len(self.question_ids)

    @property
    def samples_per_question(self) -> np.ndarray:
        """(n,) int64: how many answers each question has."""
        return self.mask.sum(axis=1).astype(np.int64)


def from_frame(frame: pd.DataFrame, name: str, kind: Kind = "sampled") -> ScoreTable:
    """Build a table from a long frame: one row per sampled answer, columns `question_id`, `score` and,
    optionally, `cluster`. Questions keep the order of their first row; answers keep their row order."""
    if not {"question_id", "score"} <= set(frame.columns):
        raise ValueError("a score table needs the columns question_id and score")
    ids = frame["question_id"].astype(str).to_numpy()
    values = pd.to_numeric(frame["score"], errors="raise").to_numpy(dtype=np.float64)
    order = list(dict.fromkeys(ids))
    row_of = {q: i for i, q in enumerate(order)}
    rows = np.array([row_of[q] for q in ids], dtype=np.int64)
    counts = np.bincount(rows, minlength=len(order))
    k_max = int(counts.max()) if len(order) else 0
    scores = np.zeros((len(order), k_max))
    mask = np.zeros((len(order), k_max), dtype=bool)
    filled = np.zeros(len(order), dtype=np.int64)
    for r, v in zip(rows, values):
        scores[r, filled[r]] = v
        mask[r, filled[r]] = True
        filled[r] += 1
    clusters = None
    if "cluster" in frame.columns:
        labels = frame["cluster"].astype(str).to_numpy()
        clusters = np.empty(len(order), dtype=object)
        for r, label in zip(rows, labels):
            if clusters[r] is not None and clusters[r] != label:
                raise ValueError(f"question {order[r]} is in two clusters")
            clusters[r] = label
        clusters = clusters.astype(str)
    return ScoreTable(name=name, question_ids=tuple(order), scores=scores, mask=mask, clusters=clusters,
                      kind=kind)


def load_scores(path: str | Path, name: str | None = None, kind: Kind = "sampled") -> ScoreTable:
    """Read a long CSV (see `from_frame`); the model is named after the file unless `name` is given."""
    path = Path(path)
    frame = pd.read_csv(path, dtype={"question_id": str, "cluster": str})
    return from_frame(frame, name or path.stem, kind)
