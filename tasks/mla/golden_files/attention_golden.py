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
        c_q = self.q_norm(self.w_dq(h))
        q_c = split_heads(self.w_uq(c_q), self.cfg.n_heads)
        q_rope = apply_rope(split_heads(self.w_qr(c_q), self.cfg.n_heads), positions, self.cfg.rope_base)
        return q_c, q_rope

    def latents(self, h: torch.Tensor, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """What the cache stores for these tokens (see `LatentCache`).

        Args:
            h: hidden states, (B, T, d_model).
            positions: int64 (T,), the absolute position of each of the T tokens.

        Returns:
            (latent, k_rope): (B, T, kv_lora_rank) and (B, T, rope_head_dim).
        """
        latent = self.kv_norm(self.w_dkv(h))
        k_rope = apply_rope(self.w_kr(h), positions, self.cfg.rope_base)
        return latent, k_rope

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
        t, length = q_c.shape[2], latent.shape[1]
        if t > length:
            raise ValueError(f"{t} queries but only {length} tokens")
        k_c = split_heads(self.w_uk(latent), self.cfg.n_heads)
        v_c = split_heads(self.w_uv(latent), self.cfg.n_heads)
        k_r = k_rope[:, None].expand(-1, self.cfg.n_heads, -1, -1)
        q = torch.cat([q_c, q_rope], dim=-1)
        k = torch.cat([k_c, k_r], dim=-1)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(self.cfg.head_dim + self.cfg.rope_head_dim)
        return torch.softmax(scores.masked_fill(~causal_mask(t, length, q_c.device), float("-inf")), -1) @ v_c

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        """MLA over whole sequences (training and prefill): (B, T, d_model) -> (B, T, d_model), positions 0 .. T - 1."""
        positions = torch.arange(h.shape[1], device=h.device)
        q_c, q_rope = self.queries(h, positions)
        latent, k_rope = self.latents(h, positions)
        return self.w_o(merge_heads(self.attend(q_c, q_rope, latent, k_rope)))

    def absorbed_weights(self) -> AbsorbedWeights:
        """W^UK folded into the query side and W^UV into W^O (see `AbsorbedWeights`); differentiable."""
        n, dh = self.cfg.n_heads, self.cfg.head_dim
        w_uq = self.w_uq.weight.view(n, dh, -1)
        w_uk = self.w_uk.weight.view(n, dh, -1)
        w_uv = self.w_uv.weight.view(n, dh, -1)
        w_o = self.w_o.weight.view(-1, n, dh).transpose(0, 1)
        return AbsorbedWeights(w_uq.transpose(1, 2) @ w_uk, w_uv.transpose(1, 2) @ w_o.transpose(1, 2))

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
        if cache.latent.shape[0] != h.shape[0]:
            raise ValueError(f"cache batch {cache.latent.shape[0]} != input batch {h.shape[0]}")
        t = h.shape[1]
        positions = torch.arange(cache.length, cache.length + t, device=h.device)
        cache = cache.extend(*self.latents(h, positions))
        if absorbed is None:
            q_c, q_rope = self.queries(h, positions)
            return self.w_o(merge_heads(self.attend(q_c, q_rope, cache.latent, cache.k_rope))), cache
        c_q = self.q_norm(self.w_dq(h))
        q_latent = torch.einsum("btc,hcl->bhtl", c_q, absorbed.q_to_latent)
        q_rope = apply_rope(split_heads(self.w_qr(c_q), self.cfg.n_heads), positions, self.cfg.rope_base)
        scores = q_latent @ cache.latent[:, None].transpose(-1, -2) + q_rope @ cache.k_rope[:, None].transpose(-1, -2)
        scores = scores / math.sqrt(self.cfg.head_dim + self.cfg.rope_head_dim)
        weights = torch.softmax(scores.masked_fill(~causal_mask(t, cache.length, h.device), float("-inf")), -1)
        mixed = weights @ cache.latent[:, None]
        return torch.einsum("bhtl,hld->btd", mixed, absorbed.latent_to_model), cache
