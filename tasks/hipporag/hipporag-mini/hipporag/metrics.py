"""Retrieval metrics."""
from __future__ import annotations

import numpy as np


def recall_at_k(retrieved: np.ndarray, supporting: list[int], k: int) -> float:
    """Fraction of the supporting passages among the first k retrieved ones."""
    if not supporting:
        raise ValueError("no supporting passages")
    top = set(np.asarray(retrieved).reshape(-1)[:k].tolist())
    return sum(1 for s in supporting if s in top) / len(supporting)


def all_supporting_at_k(retrieved: np.ndarray, supporting: list[int], k: int) -> float:
    """1.0 if every supporting passage is among the first k retrieved ones (the paper's All-Recall), else 0.0."""
    return float(recall_at_k(retrieved, supporting, k) == 1.0)
