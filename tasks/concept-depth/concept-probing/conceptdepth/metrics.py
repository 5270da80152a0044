"""Binary classification metrics (class 1 is the positive class)."""
from __future__ import annotations

import math

import torch


def accuracy(y_true: torch.Tensor, y_pred: torch.Tensor) -> float:
    return float((y_true.long() == y_pred.long()).to(torch.float64).mean())


def f1_binary(y_true: torch.Tensor, y_pred: torch.Tensor) -> float:
    """F1 of the positive class: 2 TP / (2 TP + FP + FN), and 0.0 when that denominator is 0."""
    t, p = y_true.long() == 1, y_pred.long() == 1
    tp = int((t & p).sum())
    fp = int((~t & p).sum())
    fn = int((t & ~p).sum())
    denom = 2 * tp + fp + fn
    return 2 * tp / denom if denom else 0.0


def roc_auc(y_true: torch.Tensor, scores: torch.Tensor) -> float:
    """Area under the ROC curve: the probability that a random positive scores higher than a random negative,
    ties counting one half. NaN when one class is absent."""
    t = y_true.long() == 1
    pos, neg = scores[t].to(torch.float64), scores[~t].to(torch.float64)
    if pos.numel() == 0 or neg.numel() == 0:
        return math.nan
    greater = (pos[:, None] > neg[None, :]).to(torch.float64)
    ties = (pos[:, None] == neg[None, :]).to(torch.float64)
    return float((greater + 0.5 * ties).mean())
