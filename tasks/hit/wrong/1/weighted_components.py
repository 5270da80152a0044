# WRONG: returns the weighted terms as `cluster` and `centripetal` (they must be unweighted).
from typing import Optional

import torch


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
        curvature = 1.0 / child.shape[-1]
    d_pos = poincare_distance(child, parent, curvature)
    d_neg = poincare_distance(child, negative, curvature)
    cluster = torch.relu(d_pos - d_neg + cluster_margin)

    origin = torch.zeros_like(child)
    parent_norm = poincare_distance(origin, parent, curvature)
    child_norm = poincare_distance(origin, child, curvature)
    centripetal = torch.relu(parent_norm - child_norm + centri_margin)

    cluster = _reduce(cluster, reduction)
    centripetal = _reduce(centripetal, reduction)
    cluster = cluster_weight * cluster
    centripetal = centri_weight * centripetal
    return HiTLossOutput(cluster + centripetal, cluster, centripetal)
