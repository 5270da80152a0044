"""Multi-head differential attention (Section 2 of paper.md), with rotary embeddings and a key-value cache."""
from __future__ import annotations

import math

import torch
from torch import nn

from difft.cache import LayerCache
from difft.config import ModelConfig
from difft.layers import RMSNorm, apply_rotary, causal_mask


def lambda_init_fn(layer: int) -> float:
    """lambda_init of Eq. (3) for a layer.

    Args:
        layer: the layer's 1-based index l (1 for the first layer).

    Returns:
        lambda_init as a Python float.

    Raises:
        ValueError: if layer < 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class DiffAttention(nn.Module):
    """Multi-head differential attention of Sections 2.1 and 2.2 (Eqs. (1) to (4)), one layer.

    Attributes (names and shapes are the interface: weights are loaded by name):
        q_proj, k_proj: nn.Linear(d_model, 2 * n_heads * head_dim, bias=False). Their output, viewed as
            (..., n_heads, 2, head_dim), holds Q_1 (K_1) of head i at [..., i, 0, :] and Q_2 (K_2) at [..., i, 1, :].
        v_proj: nn.Linear(d_model, 2 * n_heads * head_dim, bias=False); viewed as (..., n_heads, 2 * head_dim),
            the values of head i at [..., i, :].
        out_proj: nn.Linear(2 * n_heads * head_dim, d_model, bias=False): W^O, applied to the heads concatenated
            in head order.
        lambda_q1, lambda_k1, lambda_q2, lambda_k2: nn.Parameter of shape (head_dim,), drawn from
            N(0, cfg.lambda_std^2) (in this order, from the global generator).
        head_norm: RMSNorm(2 * head_dim, cfg.norm_eps) with a learned gain: the per-head normalisation.
        lambda_init: float, `lambda_init_fn(layer)`.
        layer: the layer's 1-based index.

    Queries and keys carry rotary position embeddings: `apply_rotary` (base cfg.rope_base) is applied to each
    head_dim-wide Q_1, Q_2, K_1, K_2 at its absolute position.
    """

    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        """
        Args:
            cfg: the model configuration.
            layer: the layer's 1-based index l.

        Raises:
            ValueError: if layer < 1.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def lambda_value(self) -> torch.Tensor:
        """lambda of Eq. (2): a 0-dim tensor (dtype of the lambda vectors), differentiable in the four vectors."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> torch.Tensor:
        """Differential attention over the current and earlier positions.

        Args:
            x: (B, T, d_model) inputs of T consecutive positions.
            cache: None: x holds positions 0 .. T-1 and attends within itself. Otherwise x holds positions
                cache.length .. cache.length + T - 1 and also attends to the cache's earlier positions; this
                layer's new keys and values are appended to the cache (`LayerCache.append`, time axis -2).

        Returns:
            (B, T, d_model), dtype of x, and computed in it throughout (float32 or float64; no up- or down-cast).

        Raises:
            ValueError: if x is not 3-D with last dimension d_model.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
