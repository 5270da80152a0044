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
    t = torch.arange(T, device=device)
    x = t[:, None] ^ t[None, :]
    lev = torch.zeros(T, T, dtype=torch.long, device=device)
    b = 0
    while (1 << b) < T:
        lev = torch.where(x >= (1 << b), b + 1, lev)
        b += 1
    return lev.masked_fill(~causal_mask(T, device), -1)


def hierarchical_mask(lam: torch.Tensor) -> torch.Tensor:
    """The hierarchical mask M^H built from the level weights.

    lam: (B, T, H, num_levels) level weights lambda_t^(l).
    Returns (B, H, T, T) in lam's dtype: entry [b, h, t, s] is lambda_t^(l(t, s)) for s <= t and 0 for s > t.
    Raises ValueError when T > 2 ** (num_levels - 1).
    """
    B, T, H, NL = lam.shape
    if T > 2 ** (NL - 1):
        raise ValueError(f"{T} positions need more than {NL} levels")
    lev = fenwick_levels(T, lam.device)
    idx = lev.clamp(min=0)
    lam_h = lam.permute(0, 2, 1, 3)  # (B, H, T, NL)
    m = torch.gather(lam_h, 3, idx.expand(B, H, T, T))
    return m.masked_fill(lev < 0, 0.0)


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
    B, T, H, K, V, NL = _check_inputs(q, k, v, log_a, lam)
    mh = hierarchical_mask(lam)
    cum = torch.cumsum(log_a, dim=1).permute(0, 2, 1)  # (B, H, T)
    diff = (cum[:, :, :, None] - cum[:, :, None, :]).masked_fill(~causal_mask(T, q.device), float("-inf"))
    scores = torch.einsum("bthk,bshk->bhts", q, k) * diff.exp() * mh
    return torch.einsum("bhts,bshv->bthv", scores, v)


def merge_levels(states: torch.Tensor, position: int) -> torch.Tensor:
    """The Fenwick merge that turns the level states of position - 1 into those of position, before its decay
    and its own token are applied.

    states: (..., num_levels, K, V) level states (level index at dim -3) after position - 1;
    position: the new position (at least 1).
    Returns a new tensor of the same shape; `states` is not modified.
    Raises ValueError when position < 1 or when the merge needs a level >= num_levels.
    """
    NL = states.shape[-3]
    if position < 1:
        raise ValueError(f"position must be at least 1, got {position}")
    b = (position & -position).bit_length() - 1
    if b + 1 >= NL:
        raise ValueError(f"position {position} needs more than {NL} levels")
    merged = states[..., :b + 1, :, :].sum(-3, keepdim=True)
    return torch.cat([torch.zeros_like(states[..., :b + 1, :, :]), merged, states[..., b + 2:, :, :]], -3)


def level_states(k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor, num_levels: int) -> torch.Tensor:
    """The level states S^(l) of the last of T positions, from the whole sequence.

    k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0); num_levels: number of levels.
    Computed in the inputs' dtype.
    Returns (B, H, num_levels, K, V) in the layout of `loglin.cache.LevelCache`.
    Raises ValueError when T > 2 ** (num_levels - 1).
    """
    B, T, H, K = k.shape
    if T > 2 ** (num_levels - 1):
        raise ValueError(f"{T} positions need more than {num_levels} levels")
    total = torch.cumsum(log_a, dim=1)  # (B, T, H)
    decay = (total[:, -1:] - total).exp()  # (B, T, H)
    last_lev = fenwick_levels(T, k.device)[-1]  # (T,)
    onehot = F.one_hot(last_lev, num_levels).to(k.dtype)  # (T, num_levels)
    return torch.einsum("bsh,sl,bshk,bshv->bhlkv", decay, onehot, k, v)


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
    B, T, H, K, V, NL = _check_inputs(q, k, v, log_a, lam)
    if chunk_size < 1 or chunk_size & (chunk_size - 1):
        raise ValueError(f"chunk_size must be a power of two, got {chunk_size}")
    if T > 2 ** (NL - 1):
        raise ValueError(f"{T} positions need more than {NL} levels")
    C = chunk_size
    n = -(-T // C)
    pad = n * C - T
    log_c = C.bit_length() - 1
    # level weights with room for the intra-chunk levels of a chunk longer than the sequence (padding only)
    width = max(NL, log_c + 1)
    lam_p = lam.new_zeros(B, T, H, width)
    lam_p[..., :NL] = lam

    def chunks(x: torch.Tensor) -> torch.Tensor:
        x = F.pad(x, (0, 0) * (x.dim() - 2) + (0, pad))
        return x.view(B, n, C, *x.shape[2:]).transpose(2, 3).transpose(1, 2)  # (B, H, n, C, ...)

    qc, kc, vc, lc = chunks(q), chunks(k), chunks(v), chunks(lam_p)
    cum = torch.cumsum(chunks(log_a[..., None])[..., 0], dim=3)  # (B, H, n, C), inclusive, within each chunk
    # intra-chunk: positions in one aligned chunk have the levels of their offsets
    lev = fenwick_levels(C, q.device)
    mh = torch.gather(lc, 4, lev.clamp(min=0).expand(B, H, n, C, C)).masked_fill(lev < 0, 0.0)
    diff = (cum[..., :, None] - cum[..., None, :]).masked_fill(lev < 0, float("-inf"))
    scores = torch.einsum("bhntk,bhnsk->bhnts", qc, kc) * diff.exp() * mh
    o = torch.einsum("bhnts,bhnsv->bhntv", scores, vc)
    # inter-chunk: a Fenwick tree over chunks; chunk level j >= 1 is token level log2(C) + j
    J = max(1, (n - 1).bit_length()) + 1
    S = q.new_zeros(B, H, J, K, V)
    inter = []
    for c in range(n):
        if c == 0:
            inter.append(torch.zeros_like(o[:, :, 0]))  # nothing before the first chunk
        else:
            qd = qc[:, :, c] * cum[:, :, c, :, None].exp()  # (B, H, C, K)
            read = torch.einsum("bhtk,bhjkv->bhtjv", qd, S[:, :, 1:])
            w = lc[:, :, c, :, log_c + 1:log_c + J]  # (B, H, C, J - 1)
            inter.append(torch.einsum("bhtj,bhtjv->bhtv", w, read))
        if c == n - 1:
            break
        last = cum[:, :, c, -1]
        kd = kc[:, :, c] * (last[..., None] - cum[:, :, c]).exp()[..., None]
        chunk_state = torch.einsum("bhsk,bhsv->bhkv", kd, vc[:, :, c])
        S = torch.cat([chunk_state[:, :, None], S[:, :, 1:] * last.exp()[..., None, None, None]], 2)
        S = merge_levels(S, c + 1)
    o = o + torch.stack(inter, 2)
    o = o.transpose(1, 2).transpose(2, 3).reshape(B, n * C, H, V)[:, :T]
    if not output_final_state:
        return o, None
    return o, level_states(k, v, log_a, NL)


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
    if q.dim() != 3 or k.shape != q.shape:
        raise ValueError("q and k must both have shape (B, H, K)")
    B, H, K = q.shape
    V = v.shape[-1]
    NL = lam.shape[-1]
    if v.shape != (B, H, V) or log_a.shape != (B, H) or lam.shape != (B, H, NL):
        raise ValueError("v, log_a and lam must have shapes (B, H, V), (B, H), (B, H, num_levels)")
    if states.shape != (B, H, NL, K, V):
        raise ValueError("states must have shape (B, H, num_levels, K, V)")
    if position < 0 or position >= 2 ** (NL - 1):
        raise ValueError(f"position {position} needs more than {NL} levels")
    if position == 0:
        S = states.new_zeros(B, H, NL, K, V)
    else:
        S = merge_levels(states, position) * log_a.exp()[..., None, None, None]
    S[:, :, 0] = k[..., :, None] * v[..., None, :]
    o = torch.einsum("bhl,bhk,bhlkv->bhv", lam, q, S)
    return o, S


def delta_interactions(q: torch.Tensor, k: torch.Tensor, log_a: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """The interaction matrix G of Gated DeltaNet.

    q, k: (B, T, H, K); log_a: (B, T, H) log of the decays a_t (<= 0); beta: (B, T, H) write strengths.
    Computed in the inputs' dtype.
    Returns (B, H, T, T): entry [b, h, t, s] is G_{t,s} for s <= t and 0 for s > t.
    Raises ValueError on mismatched shapes.
    """
    if q.dim() != 4 or k.shape != q.shape:
        raise ValueError("q and k must both have shape (B, T, H, K)")
    B, T, H, K = q.shape
    if log_a.shape != (B, T, H) or beta.shape != (B, T, H):
        raise ValueError("log_a and beta must have shape (B, T, H)")
    a = log_a.exp()
    P = q.new_zeros(B, H, T, K)  # row s: A_t ... A_{s+1} beta_s k_s after position t
    G = q.new_zeros(B, H, T, T)
    for t in range(T):
        kt = k[:, t][:, :, None, :]  # (B, H, 1, K)
        P = a[:, t, :, None, None] * (P - beta[:, t, :, None, None] * kt * (P * kt).sum(3, keepdim=True))
        P[:, :, t] = beta[:, t, :, None] * k[:, t]
        G[:, :, t] = torch.einsum("bhk,bhsk->bhs", q[:, t], P)
    return G


def loglinear_gated_delta(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                          beta: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    """Log-linear Gated DeltaNet in its masked form.

    q, k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0); beta: (B, T, H) write
    strengths; lam: (B, T, H, num_levels) level weights. Computed in the inputs' dtype.
    Returns o: (B, T, H, V).
    Raises ValueError on mismatched shapes or when T > 2 ** (num_levels - 1).
    """
    _check_inputs(q, k, v, log_a, lam)
    mh = hierarchical_mask(lam)
    G = delta_interactions(q, k, log_a, beta)
    return torch.einsum("bhts,bshv->bthv", G * mh, v)


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
    if q.dim() != 3 or k.shape != q.shape:
        raise ValueError("q and k must both have shape (B, H, K)")
    B, H, K = q.shape
    V = v.shape[-1]
    NL = lam.shape[-1]
    if v.shape != (B, H, V) or log_a.shape != (B, H) or beta.shape != (B, H) or lam.shape != (B, H, NL):
        raise ValueError("v, log_a, beta and lam must have shapes (B, H, V), (B, H), (B, H), (B, H, num_levels)")
    if states.shape != (B, H, NL, K, V):
        raise ValueError("states must have shape (B, H, num_levels, K, V)")
    if position < 0 or position >= 2 ** (NL - 1):
        raise ValueError(f"position {position} needs more than {NL} levels")
    if position == 0:
        S = states.new_zeros(B, H, NL, K, V)
    else:
        S = merge_levels(states, position)
        kk = k[:, :, None, :, None]  # (B, H, 1, K, 1)
        S = S - beta[:, :, None, None, None] * kk * (kk * S).sum(3, keepdim=True)
        S = S * log_a.exp()[..., None, None, None]
    S[:, :, 0] = beta[..., None, None] * k[..., :, None] * v[..., None, :]
    o = torch.einsum("bhl,bhk,bhlkv->bhv", lam, q, S)
    return o, S


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
        cfg = self.cfg
        B, L, _ = x.shape
        H, K, V, NL = cfg.num_heads, cfg.head_k_dim, cfg.head_v_dim, cfg.num_levels
        start = 0 if cache is None else cache.seen_tokens
        if start + L > cfg.max_positions:
            raise ValueError(f"{start + L} positions exceed max_positions={cfg.max_positions}")
        q = F.silu(self.q_proj(x)).view(B, L, H, K)
        k = F.silu(self.k_proj(x)).view(B, L, H, K)
        dt = F.softplus(self.dt_proj(x) + self.dt_bias)  # (B, L, H)
        v = self.v_proj(x).view(B, L, H, V) * dt[..., None]
        log_a = log_decay(dt, self.A_log)
        lam = F.softplus(self.lam_proj(x)).view(B, L, H, NL)
        if start == 0:
            o, states = chunk_loglinear_attention(q, k, v, log_a, lam, cfg.chunk_size,
                                                  output_final_state=cache is not None)
        else:
            states = cache.get(self.layer_idx)
            outs = []
            for t in range(L):
                o_t, states = loglinear_step(q[:, t], k[:, t], v[:, t], log_a[:, t], lam[:, t], states, start + t)
                outs.append(o_t)
            o = torch.stack(outs, 1)
        if cache is not None:
            cache.update(self.layer_idx, states)
        o = self.o_norm(o) * F.silu(self.g_proj(x)).view(B, L, H, V)
        return self.o_proj(o.reshape(B, L, H * V))
