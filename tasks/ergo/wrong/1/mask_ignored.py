# WRONG: the padding mask is ignored.
from typing import Optional

import torch
import torch.nn.functional as F


def focal_loss(
    logits: torch.Tensor,
    targets: torch.Tensor,
    alpha: Optional[float] = 0.25,
    gamma: float = 2.0,
    reduction: str = "mean",
    mask: Optional[torch.Tensor] = None,
) -> torch.Tensor:
    """Binary focal loss on the causal / non-causal logit of each event pair.

    Args:
        logits: real-valued scores of any shape; ``sigmoid(logits)`` is the predicted probability
            that a pair is causal.
        targets: same shape as ``logits``, 1 for causal pairs and 0 otherwise (any numeric or bool
            dtype).
        alpha: class-balancing weight ``alpha`` in [0, 1] of the causal class (the non-causal class
            gets ``1 - alpha``); ``None`` disables the weighting (``alpha_t = 1``).
        gamma: focusing parameter ``gamma >= 0``; ``gamma = 0`` gives (weighted) cross-entropy.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.
        mask: optional bool tensor of the same shape; ``False`` marks padding pairs, which must not
            contribute to the loss.

    Returns:
        ``"none"``: the per-element losses, same shape as ``logits``, with 0 at masked-out
        positions. ``"sum"``: their sum. ``"mean"``: their sum divided by the number of unmasked
        elements (all elements when ``mask`` is None); 0 when no element is unmasked.
        The loss must stay finite and accurate for logits of large magnitude (e.g. +-100) and keep
        the dtype of ``logits``.
    """
    targets = targets.to(logits.dtype)
    log_p_t = -F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = torch.exp(log_p_t)
    losses = -((1 - p_t) ** gamma) * log_p_t
    if alpha is not None:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        losses = alpha_t * losses
    count = losses.numel()
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return losses.sum() / max(count, 1)
    raise ValueError(f"unknown reduction {reduction!r}; expected one of {REDUCTIONS}")
