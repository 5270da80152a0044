"""The sampled-label loss behind the Gauss-Newton-Bartlett (GNB) Hessian estimator.

For a loss of the form ``CE(logits, y)``, the Gauss-Newton matrix can be estimated without second
derivatives: sample labels ``y_hat`` from the model's own softmax, back-propagate the mean cross-entropy with
those labels, and square the gradient (scaled by the number of terms averaged). This module builds that loss;
``SophiaG.update_hessian`` does the squaring and the averaging over time.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def sampled_label_loss(logits: torch.Tensor, generator: torch.Generator | None = None) -> tuple[torch.Tensor, int]:
    """Mean cross-entropy of ``logits (..., vocab)`` against labels drawn from ``softmax(logits)``.

    The labels are sampled without gradient. Returns the loss and the number of terms it averages (the
    ``batch_size`` that ``SophiaG.update_hessian`` expects).
    """
    flat = logits.reshape(-1, logits.shape[-1])
    with torch.no_grad():
        probs = F.softmax(flat.float(), dim=-1)
        labels = torch.multinomial(probs, 1, generator=generator).squeeze(-1)
    return F.cross_entropy(flat, labels), flat.shape[0]
