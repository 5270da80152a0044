"""Orthogonality penalty on the singular vectors of every SVD adapter."""

from __future__ import annotations

import torch
import torch.nn as nn

from adalora.utils import svd_layers


def orthogonal_regularization(model: nn.Module) -> torch.Tensor:
    """Sum over SVD layers of ``||Q Q^T - I||_F^2 + ||P^T P - I||_F^2`` (``Q = lora_A``, ``P = lora_B``).

    Keeping ``P`` and ``Q`` close to orthogonal is what lets a single singular value stand for the
    contribution of its triplet, so that zeroing it is a meaningful pruning decision.
    """
    penalty = None
    for _, module in svd_layers(model):
        eye = torch.eye(module.r, dtype=module.lora_A.dtype, device=module.lora_A.device)
        gram_q = module.lora_A @ module.lora_A.T
        gram_p = module.lora_B.T @ module.lora_B
        term = (gram_q - eye).pow(2).sum() + (gram_p - eye).pow(2).sum()
        penalty = term if penalty is None else penalty + term
    if penalty is None:
        return torch.zeros(())
    return penalty
