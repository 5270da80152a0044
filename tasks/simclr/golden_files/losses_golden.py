"""Contrastive objective of SimCLR: the normalized temperature-scaled cross-entropy (NT-Xent).

A batch of N examples is augmented twice, giving 2N views. The projection head maps every view to
a vector z; the loss asks each view to pick out the other view of the same example among the
2N - 1 other views of the batch (see ``paper.md``).
"""
from __future__ import annotations

import torch

REDUCTIONS = ("mean", "sum", "none")


def _reduce(values: torch.Tensor, reduction: str) -> torch.Tensor:
    """Reduce per-view losses: ``"mean"``, ``"sum"`` or ``"none"`` (returned as is)."""
    if reduction == "mean":
        return values.mean()
    if reduction == "sum":
        return values.sum()
    if reduction == "none":
        return values
    raise ValueError(f"unknown reduction {reduction!r}; expected one of {REDUCTIONS}")


def nt_xent_loss(
    z1: torch.Tensor,
    z2: torch.Tensor,
    temperature: float = 0.5,
    reduction: str = "mean",
) -> torch.Tensor:
    """NT-Xent loss over the 2N views of a batch.

    Args:
        z1: projections of the first view of each example, shape ``(N, d)``.
        z2: projections of the second view, shape ``(N, d)``; ``z1[k]`` and ``z2[k]`` are the
            positive pair of example ``k``.
        temperature: the temperature ``tau > 0`` dividing the cosine similarities.
        reduction: ``"mean"`` (average over the 2N anchors), ``"sum"``, or ``"none"``.

    Returns:
        A scalar for ``"mean"``/``"sum"``. For ``"none"``, the per-anchor losses of shape
        ``(2N,)``: entries ``0..N-1`` use ``z1[k]`` as the anchor, entries ``N..2N-1`` use
        ``z2[k]``. The inputs need not be normalised. The computation must stay finite for small
        temperatures (e.g. ``tau = 0.01`` in float32) and keep the input dtype.
    """
    n = z1.shape[0]
    z = torch.cat([z1, z2], dim=0)
    z = z / torch.linalg.vector_norm(z, dim=1, keepdim=True)
    logits = z @ z.T / temperature
    self_mask = torch.eye(2 * n, dtype=torch.bool, device=z.device)
    logits = logits.masked_fill(self_mask, float("-inf"))
    anchors = torch.arange(2 * n, device=z.device)
    positives = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    losses = torch.logsumexp(logits, dim=1) - logits[anchors, positives]
    return _reduce(losses, reduction)
