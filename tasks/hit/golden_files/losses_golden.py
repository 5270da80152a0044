"""Hyperbolic geometry and the training objective of Hierarchy Transformer encoders (HiT).

Entity embeddings produced by :class:`hit.model.HierarchyEncoder` are treated as points of a
Poincare ball. Two margin losses shape that space during training (see ``paper.md``):

* the hyperbolic clustering loss, a triplet loss that pulls a child towards its parent and pushes
  it away from a negative entity;
* the hyperbolic centripetal loss, which keeps a parent closer to the origin of the ball than
  its child.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

import torch

REDUCTIONS = ("mean", "sum", "none")


class HiTLossOutput(NamedTuple):
    """Result of :func:`hit_loss`.

    ``loss`` is the weighted total; ``cluster`` and ``centripetal`` are the two *unweighted*
    terms, reduced the same way as ``loss``.
    """

    loss: torch.Tensor
    cluster: torch.Tensor
    centripetal: torch.Tensor


def _reduce(values: torch.Tensor, reduction: str) -> torch.Tensor:
    """Reduce a vector of per-triplet values: ``"mean"``, ``"sum"`` or ``"none"`` (as is)."""
    if reduction == "mean":
        return values.mean()
    if reduction == "sum":
        return values.sum()
    if reduction == "none":
        return values
    raise ValueError(f"unknown reduction {reduction!r}; expected one of {REDUCTIONS}")


def poincare_distance(u: torch.Tensor, v: torch.Tensor, curvature: float) -> torch.Tensor:
    """Geodesic distance between points of the Poincare ball of curvature ``-curvature``.

    Args:
        u, v: tensors of shape ``(..., d)`` (broadcastable against each other) holding points
            strictly inside the ball, i.e. with Euclidean norm below ``1 / sqrt(curvature)``.
        curvature: the positive number ``c``; the ball has curvature ``-c`` and radius
            ``1 / sqrt(c)``.

    Returns:
        Tensor of shape ``(...)`` (the broadcast batch shape) with the distances, differentiable
        with respect to ``u`` and ``v``.
    """
    c = curvature
    sqrt_c = c ** 0.5
    x = -u
    xy = (x * v).sum(dim=-1, keepdim=True)
    xx = (x * x).sum(dim=-1, keepdim=True)
    yy = (v * v).sum(dim=-1, keepdim=True)
    numerator = (1 + 2 * c * xy + c * yy) * x + (1 - c * xx) * v
    denominator = 1 + 2 * c * xy + c * c * xx * yy
    gap = torch.linalg.vector_norm(numerator / denominator, dim=-1)
    return 2 / sqrt_c * torch.atanh(sqrt_c * gap)


def hit_loss(
    child: torch.Tensor,
    parent: torch.Tensor,
    negative: torch.Tensor,
    curvature: Optional[float] = None,
    cluster_margin: float = 5.0,
    centri_margin: float = 0.5,
    cluster_weight: float = 1.0,
    centri_weight: float = 1.0,
    reduction: str = "mean",
) -> HiTLossOutput:
    """HiT training loss for a batch of (child, parent, negative) triplets.

    Args:
        child, parent, negative: embeddings of shape ``(B, d)``; row ``i`` of the three tensors
            forms one triplet (``parent[i]`` is a parent of ``child[i]``, ``negative[i]`` is not).
        curvature: the positive ``c`` of the Poincare ball (curvature ``-c``). ``None`` selects
            the paper's choice for ``d``-dimensional embeddings (see the method description).
        cluster_margin: margin ``alpha`` of the hyperbolic clustering (triplet) loss.
        centri_margin: margin ``beta`` of the hyperbolic centripetal loss.
        cluster_weight, centri_weight: weights of the two terms in the total.
        reduction: how the per-triplet values are reduced over the batch: ``"mean"``, ``"sum"``
            or ``"none"`` (per-triplet values of shape ``(B,)``).

    Returns:
        :class:`HiTLossOutput` ``(loss, cluster, centripetal)`` where
        ``loss = cluster_weight * cluster + centri_weight * centripetal`` and the two terms are
        unweighted; all three reduced with ``reduction``.
    """
    if curvature is None:
        curvature = 1.0 / child.shape[1]
    d_pos = poincare_distance(child, parent, curvature)
    d_neg = poincare_distance(child, negative, curvature)
    cluster = torch.relu(d_pos - d_neg + cluster_margin)

    origin = torch.zeros_like(child)
    parent_norm = poincare_distance(origin, parent, curvature)
    child_norm = poincare_distance(origin, child, curvature)
    centripetal = torch.relu(parent_norm - child_norm + centri_margin)

    cluster = _reduce(cluster, reduction)
    centripetal = _reduce(centripetal, reduction)
    loss = cluster_weight * cluster + centri_weight * centripetal
    return HiTLossOutput(loss, cluster, centripetal)
