"""Offline stand-ins for an LLM that answer in-context classification prompts."""
from __future__ import annotations

import numpy as np

from boundary.prompts import LABEL_NAMES, parse_prompt


class NearestNeighbourLearner:
    """Answers with the majority label of the k nearest in-context examples (ties -> the nearest one)."""

    def __init__(self, k: int = 3) -> None:
        self.k = k

    def __call__(self, prompt: str) -> str:
        X, y, q = parse_prompt(prompt)
        order = np.argsort(np.linalg.norm(X - q, axis=1), kind="stable")[: self.k]
        votes = np.bincount(y[order], minlength=2)
        label = int(y[order[0]]) if votes[0] == votes[1] else int(np.argmax(votes))
        return f" {LABEL_NAMES[label]}"


class LinearLearner:
    """Answers with the side of the least-squares linear fit to +-1 targets: a learner with a linear bias."""

    def __call__(self, prompt: str) -> str:
        X, y, q = parse_prompt(prompt)
        A = np.hstack([X, np.ones((len(X), 1))])
        w, *_ = np.linalg.lstsq(A, 2.0 * y - 1.0, rcond=None)
        return f" {LABEL_NAMES[int(np.append(q, 1.0) @ w > 0)]}"
