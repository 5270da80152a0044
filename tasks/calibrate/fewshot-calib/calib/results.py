"""What few-shot classification returns."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Classification:
    """Predictions for a set of test inputs.

    Attributes:
        probs: (n, num_classes) float64 class probabilities of each input (calibrated when calibration was used).
        predictions: (n,) int64 the predicted class of each input.
        p_cf: (num_classes,) float64 the content-free estimate used for calibration, or None without calibration.
    """

    probs: torch.Tensor
    predictions: torch.Tensor
    p_cf: torch.Tensor | None
