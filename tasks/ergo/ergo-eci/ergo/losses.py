"""Training objective for event causality identification (ECI).

Most event pairs of a document are *not* causally related, so the pair classifier is trained with
the focal loss, which down-weights the many easy negatives (see ``paper.md``).
"""
from __future__ import annotations

from typing import Optional

import torch
import torch.nn.functional as F

REDUCTIONS = ("mean", "sum", "none")


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
        reduction: ``"mean"``, ``"sum"`` or ``"none"``; any other value raises ``ValueError``.
        mask: optional bool tensor of the same shape; ``False`` marks padding pairs, which must not
            contribute to the loss.

    Returns:
        ``"none"``: the per-element losses, same shape as ``logits``, with 0 at masked-out
        positions. ``"sum"``: their sum. ``"mean"``: their sum divided by the number of unmasked
        elements (all elements when ``mask`` is None); 0 when no element is unmasked.
        The loss must stay finite and accurate for logits of large magnitude (e.g. +-100) and keep
        the dtype of ``logits``.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
