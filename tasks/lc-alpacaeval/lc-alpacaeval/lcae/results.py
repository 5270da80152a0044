"""Results of the length-controlled evaluation."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LCResult:
    """One model's evaluation against the baseline.

    n: number of instructions used (comparisons with a valid annotation).
    win_rate: the raw win rate of Eq. (1), in percent.
    lc_win_rate: the length-controlled win rate of Eq. (3), in percent.
    theta, phi, psi: the fitted GLM coefficients of Eq. (2) (model, length and instruction terms).
    """

    model: str
    baseline: str
    n: int
    win_rate: float
    lc_win_rate: float
    theta: float
    phi: float
    psi: float
