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
    B, T, H, K = k.shape
    V = v.shape[-1]
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    if q.shape != k.shape or v.shape[:3] != (B, T, H) or beta.shape != (B, T, H):
        raise ValueError("q, k, v and beta do not agree in shape")
    if log_gate is not None and log_gate.shape != (B, T, H):
        raise ValueError(f"log_gate has shape {tuple(log_gate.shape)}, expected {(B, T, H)}")
    if initial_state is not None and initial_state.shape != (B, H, K, V):
        raise ValueError(f"initial_state has shape {tuple(initial_state.shape)}, expected {(B, H, K, V)}")
    C = chunk_size
    n = math.ceil(T / C)
    pad = n * C - T
    gate = log_gate if log_gate is not None else beta.new_zeros(B, T, H)
    # (B, H, T, .) padded with identity steps (beta = 0, no decay) to a multiple of C, then split into chunks
    q_, k_, v_ = (F.pad(x.transpose(1, 2), (0, 0, 0, pad)).reshape(B, H, n, C, -1) for x in (q, k, v))
    b_, g_ = (F.pad(x.transpose(1, 2), (0, pad)).reshape(B, H, n, C) for x in (beta, gate))
    S = k.new_zeros(B, H, K, V) if initial_state is None else initial_state
    eye = torch.eye(C, dtype=k.dtype, device=k.device)
    causal = torch.ones(C, C, dtype=torch.bool, device=k.device).tril()
    strict = causal.tril(-1)
    out = []
    for c in range(n):
        qc, kc, vc, bc = q_[:, :, c], k_[:, :, c], v_[:, :, c], b_[:, :, c]
        cum = g_[:, :, c].cumsum(-1)  # log of gamma_t, the product of the gates up to t within the chunk
        decay = (cum[..., :, None] - cum[..., None, :]).masked_fill(~causal, float("-inf")).exp()
        # UT transform: (I + strict_tril(diag(beta) (K K^T * decay))) U = diag(beta) (V - diag(gamma) K S)
        lower = (bc[..., None] * (kc @ kc.transpose(-1, -2)) * decay).masked_fill(~strict, 0.0)
        rhs = bc[..., None] * (vc - cum.exp()[..., None] * (kc @ S))
        u = torch.linalg.solve_triangular(eye + lower, rhs, upper=False, unitriangular=True)
        scores = (qc @ kc.transpose(-1, -2) * decay).masked_fill(~causal, 0.0)
        out.append(cum.exp()[..., None] * (qc @ S) + scores @ u)
        last = cum[..., -1:]
        S = last.exp()[..., None] * S + (kc * (last - cum).exp()[..., None]).transpose(-1, -2) @ u
    o = torch.stack(out, dim=2).reshape(B, H, n * C, V)[:, :, :T].transpose(1, 2)
    return o, (S if output_final_state else None)


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
    if k.dim() != 5:
        raise ValueError(f"k must have shape (B, L, n_h, H, K), got {tuple(k.shape)}")
    B, L, n_h, H, K = k.shape
    V = v.shape[-1]
    if q.shape != (B, L, H, K) or v.shape[:4] != (B, L, n_h, H) or beta.shape != (B, L, n_h, H):
        raise ValueError("q, k, v and beta do not agree in shape")
    if log_gate is not None and log_gate.shape != (B, L, H):
        raise ValueError(f"log_gate has shape {tuple(log_gate.shape)}, expected {(B, L, H)}")
    # token i's j-th Householder step becomes step i * n_h + j of a sequence n_h times longer; the query reads
    # the state after the token's last step, and the gate decays the state before its first step
    q_long = q.new_zeros(B, L, n_h, H, K)
    q_long[:, :, -1] = q
    g_long = None
    if log_gate is not None:
        g_long = log_gate.new_zeros(B, L, n_h, H)
        g_long[:, :, 0] = log_gate
        g_long = g_long.reshape(B, L * n_h, H)
    o, state = chunk_gated_delta_rule(
        q_long.reshape(B, L * n_h, H, K), k.reshape(B, L * n_h, H, K), v.reshape(B, L * n_h, H, V),
        beta.reshape(B, L * n_h, H), g_long, chunk_size, initial_state, output_final_state)
    return o.reshape(B, L, n_h, H, V)[:, :, -1], state


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
    if k.dim() != 4:
        raise ValueError(f"k must have shape (B, n_h, H, K), got {tuple(k.shape)}")
    B, n_h, H, K = k.shape
    V = v.shape[-1]
    if q.shape != (B, H, K) or v.shape[:3] != (B, n_h, H) or beta.shape != (B, n_h, H):
        raise ValueError("q, k, v and beta do not agree in shape")
    if state.shape != (B, H, K, V) or (log_gate is not None and log_gate.shape != (B, H)):
        raise ValueError("state or log_gate does not agree in shape")
    S = state if log_gate is None else log_gate.exp()[..., None, None] * state
    for j in range(n_h):
        kj, bj = k[:, j], beta[:, j, :, None, None]
        read = torch.einsum("bhk,bhkv->bhv", kj, S)
        S = S + bj * kj[..., :, None] * (v[:, j] - read)[..., None, :]
    return torch.einsum("bhk,bhkv->bhv", q, S), S


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
        cfg = self.cfg
        B, L, _ = hidden_states.shape
        H, K, V = cfg.num_heads, cfg.head_k_dim, cfg.head_v_dim
        if attention_mask is not None and tuple(attention_mask.shape) != (B, L):
            raise ValueError(f"attention_mask has shape {tuple(attention_mask.shape)}, expected {(B, L)}")
        x = hidden_states
        q = l2_normalize(F.silu(self.q_proj(x)).view(B, L, H, K), cfg.norm_eps)
        k = torch.stack([l2_normalize(F.silu(p(x)).view(B, L, H, K), cfg.norm_eps) for p in self.k_projs], dim=2)
        v = torch.stack([p(x).view(B, L, H, V) for p in self.v_projs], dim=2)
        beta = torch.stack([p(x).sigmoid() for p in self.b_projs], dim=2)
        if cfg.allow_neg_eigval:
            beta = 2.0 * beta
        log_gate = log_forget_gate(self.a_proj(x), self.A_log, self.dt_bias) if cfg.use_forget_gate else None
        if attention_mask is not None:
            # a padding position becomes the identity: no Householder step, no decay
            keep = attention_mask.to(torch.bool)
            beta = beta * keep[:, :, None, None]
            if log_gate is not None:
                log_gate = log_gate * keep[:, :, None]
        state = cache.get(self.layer_idx) if cache is not None else None
        if L == 1 and state is not None:
            o, new_state = delta_product_step(q[:, 0], k[:, 0], v[:, 0], beta[:, 0],
                                              None if log_gate is None else log_gate[:, 0], state)
            o = o[:, None]
        else:
            o, new_state = chunk_delta_product(q, k, v, beta, log_gate, cfg.chunk_size, state,
                                               output_final_state=cache is not None)
        if cache is not None and new_state is not None:
            cache.update(self.layer_idx, new_state)
        return self.o_proj(self.o_norm(o).reshape(B, L, H * V))
