"""Multi-head Latent Attention (MLA): the explicit path used in training and the weight-absorbed decoding path."""
from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import nn

from mla.cache import LatentCache
from mla.config import ModelConfig
from mla.layers import RMSNorm, apply_rope, causal_mask, merge_heads, split_heads


class AbsorbedWeights(NamedTuple):
    """The up-projections folded into their neighbours, for decoding from the latent cache.

    q_to_latent: (n_heads, q_lora_rank, kv_lora_rank): for head i, the row vector c^Q @ q_to_latent[i] (c^Q the
        normalised query latent of a token) has, with every key-value latent c^KV, the dot product that the
        compressed-path query and key of head i have: q^C_i . k^C_i.
    latent_to_model: (n_heads, kv_lora_rank, d_model): if a_i is head i's attention-weighted sum of cached
        latents, the layer output is sum_i a_i @ latent_to_model[i].
    """

    q_to_latent: torch.Tensor
    latent_to_model: torch.Tensor


class MultiHeadLatentAttention(nn.Module):
    """Causal Multi-head Latent Attention with decoupled rotary embeddings (paper.md Section 2).

    Parameters, all bias-free `nn.Linear` layers (paper notation in brackets), and the two latent norms:
        w_dq: d_model -> q_lora_rank [W^DQ];  q_norm: RMSNorm of the query latent c^Q.
        w_uq: q_lora_rank -> n_heads * head_dim [W^UQ].
        w_qr: q_lora_rank -> n_heads * rope_head_dim [W^QR].
        w_dkv: d_model -> kv_lora_rank [W^DKV];  kv_norm: RMSNorm of the key-value latent c^KV.
        w_uk: kv_lora_rank -> n_heads * head_dim [W^UK].
        w_uv: kv_lora_rank -> n_heads * head_dim [W^UV].
        w_kr: d_model -> rope_head_dim [W^KR].
        w_o: n_heads * head_dim -> d_model [W^O].
    Head i owns features [i * w, (i + 1) * w) of every per-head projection of width n_heads * w (`split_heads`).
    The latents are used after their norm everywhere (c^Q = q_norm(W^DQ h), c^KV = kv_norm(W^DKV h)).
    """

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        h, dh, dr = cfg.n_heads, cfg.head_dim, cfg.rope_head_dim
        self.w_dq = nn.Linear(cfg.d_model, cfg.q_lora_rank, bias=False)
        self.q_norm = RMSNorm(cfg.q_lora_rank, cfg.norm_eps)
        self.w_uq = nn.Linear(cfg.q_lora_rank, h * dh, bias=False)
        self.w_qr = nn.Linear(cfg.q_lora_rank, h * dr, bias=False)
        self.w_dkv = nn.Linear(cfg.d_model, cfg.kv_lora_rank, bias=False)
        self.kv_norm = RMSNorm(cfg.kv_lora_rank, cfg.norm_eps)
        self.w_uk = nn.Linear(cfg.kv_lora_rank, h * dh, bias=False)
        self.w_uv = nn.Linear(cfg.kv_lora_rank, h * dh, bias=False)
        self.w_kr = nn.Linear(cfg.d_model, dr, bias=False)
        self.w_o = nn.Linear(h * dh, cfg.d_model, bias=False)

    def queries(self, h: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The per-head queries of Eqs. (12)-(14).

        Args:
            h: hidden states, (B, T, d_model).
            positions: int64 (T,), the absolute position of each of the T tokens.

        Returns:
            (q_c, q_rope): the compressed-path queries (B, n_heads, T, head_dim) and the decoupled queries
            (B, n_heads, T, rope_head_dim), rotary embedding applied.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def latents(self, h: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """What the cache stores for these tokens (see `LatentCache`).

        Args:
            h: hidden states, (B, T, d_model).
            positions: int64 (T,), the absolute position of each of the T tokens.

        Returns:
            (latent, k_rope): (B, T, kv_lora_rank) and (B, T, rope_head_dim).
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def attend(self, q_c: torch.Tensor, q_rope: torch.Tensor, latent: torch.Tensor,
               k_rope: torch.Tensor) -> torch.Tensor:
        """Causal attention of Eqs. (10), (11), (16)-(18), keys and values up-projected from the latents.

        Args:
            q_c: (B, n_heads, T, head_dim); q_rope: (B, n_heads, T, rope_head_dim); the queries of the last T of
                the L tokens (positions L - T .. L - 1), as returned by `queries`.
            latent: (B, L, kv_lora_rank); k_rope: (B, L, rope_head_dim); tokens 0 .. L - 1, as returned by
                `latents` (or held in a `LatentCache`).

        Returns:
            The per-head outputs o_{t,i}, (B, n_heads, T, head_dim), in the dtype of the inputs and computed in it
            throughout (float32 or float64; no up- or down-cast).

        Raises:
            ValueError: if T > L.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """MLA over whole sequences (training and prefill): (B, T, d_model) -> (B, T, d_model), positions 0 .. T - 1."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def absorbed_weights(self) -> AbsorbedWeights:
        """W^UK folded into the query side and W^UV into W^O (see `AbsorbedWeights`); differentiable."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def decode(self, h: torch.Tensor, cache: LatentCache,
               absorbed: AbsorbedWeights | None = None) -> tuple[torch.Tensor, LatentCache]:
        """Process T new tokens that follow the cached ones (positions cache.length .. cache.length + T - 1).

        Args:
            h: hidden states of the new tokens, (B, T, d_model), T >= 1.
            cache: this layer's cache of the previous tokens (batch size B, dtype of h); left unchanged.
            absorbed: None computes the attention with `attend` (keys and values up-projected); the result of
                `absorbed_weights` computes it in the latent space from these weights, without up-projecting any
                key or value (w_uq, w_uk, w_uv and w_o are then not used).

        Returns:
            (out, new_cache): out (B, T, d_model), equal to the rows of `forward` over the whole sequence that
            belong to the new tokens; new_cache holds the cached tokens followed by the new ones. out has the
            dtype of h and is computed in it throughout (float32 or float64; no up- or down-cast), on both paths.

        Raises:
            ValueError: if the cache's batch size differs from h's.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
