"""Log-linear attention (paper.md Section 3): the hierarchical (Fenwick) mask; log-linear Mamba-2 in its quadratic
masked form, its chunkwise-parallel form and its recurrent step on a cache of level states, and the layer;
log-linear Gated DeltaNet in its masked and recurrent forms."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .cache import LevelCache
from .config import LogLinearConfig
from .modules import RMSNorm, causal_mask, log_decay


def fenwick_levels(T: int, device: torch.device | None = None) -> torch.Tensor:
    """The level of every key position relative to every query position.

    T: sequence length (at least 1).
    Returns an int64 tensor of shape (T, T): entry [t, s] is the level l(t, s) of position s for the query at
    position t (positions counted from 0) when s <= t, and -1 when s > t.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def hierarchical_mask(lam: torch.Tensor) -> torch.Tensor:
    """The hierarchical mask M^H built from the level weights.

    lam: (B, T, H, num_levels) level weights lambda_t^(l).
    Returns (B, H, T, T) in lam's dtype: entry [b, h, t, s] is lambda_t^(l(t, s)) for s <= t and 0 for s > t.
    Raises ValueError when T > 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def _check_inputs(q, k, v, log_a, lam) -> tuple[int, int, int, int, int, int]:
    if q.dim() != 4 or k.shape != q.shape:
        raise ValueError("q and k must both have shape (B, T, H, K)")
    B, T, H, K = q.shape
    if v.dim() != 4 or v.shape[:3] != (B, T, H):
        raise ValueError("v must have shape (B, T, H, V)")
    if log_a.shape != (B, T, H):
        raise ValueError("log_a must have shape (B, T, H)")
    if lam.dim() != 4 or lam.shape[:3] != (B, T, H):
        raise ValueError("lam must have shape (B, T, H, num_levels)")
    return B, T, H, K, v.shape[3], lam.shape[3]


def loglinear_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                        lam: torch.Tensor) -> torch.Tensor:
    """Log-linear Mamba-2 attention in its quadratic (masked) form.

    q, k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0);
    lam: (B, T, H, num_levels) level weights. Computed in the inputs' dtype.
    Returns o: (B, T, H, V).
    Raises ValueError on mismatched shapes or when T > 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def merge_levels(states: torch.Tensor, position: int) -> torch.Tensor:
    """The Fenwick merge that turns the level states of position - 1 into those of position, before its decay
    and its own token are applied.

    states: (..., num_levels, K, V) level states (level index at dim -3) after position - 1;
    position: the new position (at least 1).
    Returns a new tensor of the same shape; `states` is not modified.
    Raises ValueError when position < 1 or when the merge needs a level >= num_levels.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def level_states(k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor, num_levels: int) -> torch.Tensor:
    """The level states S^(l) of the last of T positions, from the whole sequence.

    k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0); num_levels: number of levels.
    Computed in the inputs' dtype.
    Returns (B, H, num_levels, K, V) in the layout of `loglin.cache.LevelCache`.
    Raises ValueError when T > 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def chunk_loglinear_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                              lam: torch.Tensor, chunk_size: int,
                              output_final_state: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-linear Mamba-2 attention by the chunkwise-parallel algorithm, from an empty state.

    q, k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0);
    lam: (B, T, H, num_levels) level weights; chunk_size: a power of two (it need not divide T, and may exceed it).
    Computed in the inputs' dtype.
    Returns (o, states): o of shape (B, T, H, V); states, when output_final_state, the level states after the
    last position in the layout of `loglin.cache.LevelCache` (B, H, num_levels, K, V), else None.
    Raises ValueError on mismatched shapes, when chunk_size is not a power of two, or when
    T > 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def loglinear_step(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor, lam: torch.Tensor,
                   states: torch.Tensor, position: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One position of log-linear Mamba-2 attention on the cached level states (decoding).

    q, k: (B, H, K); v: (B, H, V); log_a: (B, H); lam: (B, H, num_levels) the new position's inputs;
    states: (B, H, num_levels, K, V) the level states after the previous position (layout of
    `loglin.cache.LevelCache`; ignored when position is 0); position: index of the new position (from 0).
    Computed in the inputs' dtype; `states` is not modified.
    Returns (o, new_states): o of shape (B, H, V) and the level states after the new position.
    Raises ValueError on mismatched shapes, a negative position, or position >= 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def delta_interactions(q: torch.Tensor, k: torch.Tensor, log_a: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """The interaction matrix G of Gated DeltaNet.

    q, k: (B, T, H, K); log_a: (B, T, H) log of the decays a_t (<= 0); beta: (B, T, H) write strengths.
    Computed in the inputs' dtype.
    Returns (B, H, T, T): entry [b, h, t, s] is G_{t,s} for s <= t and 0 for s > t.
    Raises ValueError on mismatched shapes.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def loglinear_gated_delta(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                          beta: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    """Log-linear Gated DeltaNet in its masked form.

    q, k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0); beta: (B, T, H) write
    strengths; lam: (B, T, H, num_levels) level weights. Computed in the inputs' dtype.
    Returns o: (B, T, H, V).
    Raises ValueError on mismatched shapes or when T > 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def loglinear_delta_step(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                         beta: torch.Tensor, lam: torch.Tensor, states: torch.Tensor,
                         position: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One position of log-linear Gated DeltaNet on the cached level states (decoding).

    q, k: (B, H, K); v: (B, H, V); log_a, beta: (B, H); lam: (B, H, num_levels) the new position's inputs;
    states: (B, H, num_levels, K, V) the level states after the previous position (ignored when position is 0);
    position: index of the new position (from 0). Computed in the inputs' dtype; `states` is not modified.
    Returns (o, new_states): o of shape (B, H, V) and the level states after the new position.
    Raises ValueError on mismatched shapes, a negative position, or position >= 2 ** (num_levels - 1).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class LogLinearMamba2(nn.Module):
    """A log-linear Mamba-2 token-mixing layer (paper.md Section 3.6)."""

    def __init__(self, cfg: LogLinearConfig, layer_idx: int = 0) -> None:
        super().__init__()
        self.cfg = cfg
        self.layer_idx = layer_idx
        H, K, V, D = cfg.num_heads, cfg.head_k_dim, cfg.head_v_dim, cfg.hidden_size
        self.q_proj = nn.Linear(D, H * K, bias=False)
        self.k_proj = nn.Linear(D, H * K, bias=False)
        self.v_proj = nn.Linear(D, H * V, bias=False)
        self.dt_proj = nn.Linear(D, H, bias=False)
        self.dt_bias = nn.Parameter(torch.zeros(H))
        self.A_log = nn.Parameter(torch.log(torch.linspace(1.0, 4.0, H)))
        self.lam_proj = nn.Linear(D, H * cfg.num_levels, bias=False)  # outputs laid out as (H, num_levels)
        self.g_proj = nn.Linear(D, H * V, bias=False)
        self.o_norm = RMSNorm(V, cfg.norm_eps)
        self.o_proj = nn.Linear(H * V, D, bias=False)

    def forward(self, x: torch.Tensor, cache: LevelCache | None = None) -> torch.Tensor:
        """x: (B, L, hidden_size) -> (B, L, hidden_size), computed in x's dtype (that of the parameters).

        Without a cache the L positions are a whole sequence. With a cache they continue the
        `cache.seen_tokens` positions seen before (none for an empty cache): the layer starts from the level
        states stored under `self.layer_idx` and stores the states after its last position there.
        Raises ValueError when the sequence would exceed cfg.max_positions positions.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
