"""The target hidden states z_i = h_i^L + delta_i of a batch of edit requests (Eq. (4) of paper.md)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from alphaedit.config import EditConfig
from alphaedit.data import EditBatch
from alphaedit.hooks import block_outputs, shift_block_output
from alphaedit.model import TinyLM


def compute_target_hidden(model: TinyLM, batch: EditBatch, layer: int, cfg: EditConfig) -> torch.Tensor:
    """z (u, d_model), in the model's dtype: for each request, h^layer at the subject's last token plus the
    vector delta that makes the model predict the request's target at the prompt's last position.

    Each delta starts at zero and takes `cfg.v_steps` Adam steps (lr `cfg.v_lr`) on the negative
    log-likelihood of the target plus `cfg.v_weight_decay * ||delta||^2`; after each step ||delta|| is
    clamped to `cfg.v_clamp_factor * ||h^layer||`. The model's weights are not changed.
    """
    hidden = block_outputs(model, batch.tokens, layer, batch.subject_pos)
    max_norm = cfg.v_clamp_factor * hidden.norm(dim=-1, keepdim=True)
    delta = torch.zeros_like(hidden)
    first, second = torch.zeros_like(hidden), torch.zeros_like(hidden)  # Adam's moments (betas 0.9, 0.999)
    for step in range(1, cfg.v_steps + 1):
        delta.requires_grad_(True)
        with shift_block_output(model, layer, batch.subject_pos, delta):
            logits = model(batch.tokens)[:, -1]
        loss = F.cross_entropy(logits, batch.targets, reduction="sum") + cfg.v_weight_decay * delta.pow(2).sum()
        (grad,) = torch.autograd.grad(loss, delta)
        with torch.no_grad():
            first = 0.9 * first + 0.1 * grad
            second = 0.999 * second + 0.001 * grad * grad
            update = (first / (1 - 0.9 ** step)) / ((second / (1 - 0.999 ** step)).sqrt() + 1e-8)
            delta = delta.detach() - cfg.v_lr * update
            norm = delta.norm(dim=-1, keepdim=True)
            delta = delta * torch.where(norm > max_norm, max_norm / norm.clamp_min(1e-30), torch.ones_like(norm))
    return (hidden + delta).detach()
