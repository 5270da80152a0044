"""Precision, recall and F1 of the causal class over the valid (unpadded) event pairs."""
from __future__ import annotations

from typing import Dict

import torch


def causal_prf(logits: torch.Tensor, labels: torch.Tensor, mask: torch.Tensor, threshold: float = 0.0) -> Dict[str, float]:
    pred = (logits > threshold) & mask
    gold = labels.bool() & mask
    tp = (pred & gold).sum().item()
    p = tp / max(pred.sum().item(), 1)
    r = tp / max(gold.sum().item(), 1)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1}
