"""DeltaProduct: the token mixer of the model (chunkwise-parallel form, one-token decoding, and the layer)."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from deltaprod.cache import RecurrentCache
from deltaprod.config import DeltaProductConfig
from deltaprod.modules import RMSNorm, l2_normalize, log_forget_gate


def chunk_gated_delta_rule(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_gate: torch.Tensor | None = None,
    chunk_size: int = 64,
    initial_state: torch.Tensor | None = None,
    output_final_state: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The (gated) delta rule over a sequence, computed chunk by chunk.

    Args:
        q: (B, T, H, K) queries.
        k: (B, T, H, K) keys.
        v: (B, T, H, V) values.
        beta: (B, T, H) step sizes.
        log_gate: (B, T, H) log of the forget gate of each step, or None for no gate.
        chunk_size: number of steps per chunk.
        initial_state: (B, H, K, V) state before the first step, or None for zeros.
        output_final_state: whether to return the state after the last step.

    All tensors share one floating dtype; the outputs are in that dtype, and everything is computed in it (float32
    or float64; no up- or down-cast).

    Returns:
        (o, final_state): o of shape (B, T, H, V), the output of every step; final_state of shape (B, H, K, V),
        or None when output_final_state is false.

    Raises:
        ValueError: if chunk_size < 1 or the shapes do not agree.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def chunk_delta_product(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_gate: torch.Tensor | None = None,
    chunk_size: int = 64,
    initial_state: torch.Tensor | None = None,
    output_final_state: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(Gated) DeltaProduct over a sequence of L tokens, in its chunkwise-parallel form.

    Args:
        q: (B, L, H, K) queries, one per token.
        k: (B, L, n_h, H, K) keys, n_h per token.
        v: (B, L, n_h, H, V) values, n_h per token.
        beta: (B, L, n_h, H) step sizes, n_h per token.
        log_gate: (B, L, H) log of the forget gate of each token, or None for no gate.
        chunk_size: number of steps per chunk of the chunkwise computation.
        initial_state: (B, H, K, V) state before the first token, or None for zeros.
        output_final_state: whether to return the state after the last token.

    All tensors share one floating dtype; the outputs are in that dtype, and everything is computed in it (float32
    or float64; no up- or down-cast).

    Returns:
        (o, final_state): o of shape (B, L, H, V), the output of every token; final_state of shape (B, H, K, V),
        or None when output_final_state is false.

    Raises:
        ValueError: if chunk_size < 1 or the shapes do not agree.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def delta_product_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_gate: torch.Tensor | None,
    state: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token of (gated) DeltaProduct applied to a recurrent state (decoding).

    Args:
        q: (B, H, K) the token's query.
        k: (B, n_h, H, K) its keys.
        v: (B, n_h, H, V) its values.
        beta: (B, n_h, H) its step sizes.
        log_gate: (B, H) log of its forget gate, or None for no gate.
        state: (B, H, K, V) the state before the token.

    All tensors share one floating dtype; the outputs are in that dtype, and everything is computed in it (float32
    or float64; no up- or down-cast).

    Returns:
        (o, new_state): o of shape (B, H, V), the token's output; new_state of shape (B, H, K, V), the state
        after the token.

    Raises:
        ValueError: if the shapes do not agree.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class DeltaProductAttention(nn.Module):
    """The DeltaProduct token mixer: projections, the recurrence over the heads, output norm and projection."""

    def __init__(self, cfg: DeltaProductConfig, layer_idx: int = 0) -> None:
        super().__init__()
        self.cfg = cfg
        self.layer_idx = layer_idx
        D, H, n_h = cfg.hidden_size, cfg.num_heads, cfg.num_householder
        self.q_proj = nn.Linear(D, H * cfg.head_k_dim, bias=False)
        # one projection per Householder step j = 1..n_h
        self.k_projs = nn.ModuleList([nn.Linear(D, H * cfg.head_k_dim, bias=False) for _ in range(n_h)])
        self.v_projs = nn.ModuleList([nn.Linear(D, H * cfg.head_v_dim, bias=False) for _ in range(n_h)])
        self.b_projs = nn.ModuleList([nn.Linear(D, H, bias=True) for _ in range(n_h)])
        if cfg.use_forget_gate:
            self.a_proj = nn.Linear(D, H, bias=False)
            self.A_log = nn.Parameter(torch.empty(H).uniform_(1.0, 16.0).log())
            self.dt_bias = nn.Parameter(torch.empty(H).uniform_(-4.0, -2.0))
        self.o_norm = RMSNorm(cfg.head_v_dim, eps=cfg.norm_eps)
        self.o_proj = nn.Linear(H * cfg.head_v_dim, D, bias=False)

    def forward(
        self,
        hidden_states: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        cache: RecurrentCache | None = None,
    ) -> torch.Tensor:
        """Mix the tokens of `hidden_states` (B, L, hidden_size); returns a tensor of the same shape.

        attention_mask: (B, L), true (or 1) at real tokens and false (or 0) at padding; padding positions leave
        the recurrent state unchanged (their outputs are unspecified). None: every position is a real token.
        cache: when given, the layer starts from the state stored under its `layer_idx` (zeros if none is
        stored yet) and stores the state after the last position in it; the layer does not call `advance`.

        Raises:
            ValueError: if attention_mask does not have shape (B, L).
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
