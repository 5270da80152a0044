"""Regenerate tests/fixtures for moba/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/pool_cases.pt, attention_cases.pt, route_cases.pt and layer_cases.pt.
Deterministic. Attention inputs are redrawn until every gate decision has a clear margin (the k-th and the
(k+1)-th eligible past-block scores differ by at least MARGIN), so that no decision depends on rounding.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from moba.config import ModelConfig
from moba.layer import SelfAttention

F64, F32 = torch.float64, torch.float32
MARGIN = 1e-3

# B, H, T, D, block_size, dtype
POOL = [
    (2, 3, 12, 4, 4, F64),
    (1, 2, 10, 3, 4, F64),  # last block shorter
    (2, 1, 7, 2, 1, F64),  # one key per block
    (1, 1, 5, 3, 8, F64),  # one block, shorter than block_size
    (2, 2, 13, 5, 3, F32),
]

# B, H, T, D, Dv, block_size, top_k, dtype, scale, query multiplier
ATTENTION = [
    (2, 3, 16, 4, 5, 4, 2, F64, None, 1.0),
    (1, 1, 1, 3, 2, 4, 2, F64, None, 1.0),  # a single token
    (1, 2, 22, 6, 4, 4, 3, F64, None, 2.0),  # batch of one, last block shorter
    (2, 2, 18, 4, 3, 3, 1, F64, 0.5, 1.0),  # top-1: the current block only
    (2, 2, 20, 4, 4, 5, 9, F64, None, 1.0),  # top-k above the number of blocks
    (1, 3, 12, 4, 2, 1, 4, F64, None, 1.5),  # one token per block
    (2, 1, 30, 8, 8, 4, 3, F64, 0.3, 3.0),  # sharp gates, custom scale
    (1, 2, 9, 4, 4, 16, 2, F64, None, 1.0),  # one block, shorter than block_size
    (2, 2, 24, 4, 6, 4, 2, F32, None, 1.0),  # float32
    (1, 3, 19, 8, 4, 3, 4, F32, 0.7, 2.0),  # float32, custom scale, last block shorter
]

# B, H, T, n_blocks_of_size, block_size, selection probability of a past block
ROUTE = [
    (2, 3, 16, 4, 0.5),
    (1, 1, 1, 3, 0.5),
    (1, 2, 11, 3, 0.7),
    (2, 2, 9, 1, 0.3),
    (3, 1, 20, 5, 0.0),  # the current block only
    (1, 2, 12, 2, 1.0),  # every past block
]

# kind, moba_impl, B, T, d_model, n_heads, block_size, top_k, dtype
LAYER = [
    ("moba", "naive", 2, 14, 16, 2, 4, 2, F64),
    ("moba", "varlen", 2, 14, 16, 2, 4, 2, F64),
    ("moba", "varlen", 1, 21, 24, 3, 3, 3, F64),
    ("moba", "naive", 1, 1, 8, 2, 4, 2, F64),
    ("moba", "varlen", 2, 16, 16, 4, 4, 2, F32),
]


def gate_margin(q: torch.Tensor, k: torch.Tensor, block_size: int, top_k: int) -> float:
    """Smallest gap, over all queries, between the k-th and (k+1)-th past-block scores (inf if never decided)."""
    t = q.shape[2]
    n = -(-t // block_size)
    pad = n * block_size - t
    padded = torch.nn.functional.pad(k.to(F64), (0, 0, 0, pad)).reshape(*k.shape[:2], n, block_size, -1)
    counts = (t - torch.arange(n) * block_size).clamp(max=block_size).to(F64)
    scores = q.to(F64) @ (padded.sum(3) / counts[:, None]).transpose(-1, -2)
    best = float("inf")
    for pos in range(t):
        past = scores[:, :, pos, : pos // block_size]
        if past.shape[-1] >= top_k:  # top_k - 1 past blocks are chosen out of more than that
            ordered = past.sort(dim=-1, descending=True).values
            best = min(best, (ordered[..., top_k - 2] - ordered[..., top_k - 1]).min().item() if top_k > 1
                       else float("inf"))
    return best


def attention_case(g: torch.Generator, cfg: tuple) -> dict:
    b, h, t, d, dv, block_size, top_k, dtype, scale, q_mult = cfg
    while True:
        q = (q_mult * torch.randn(b, h, t, d, generator=g, dtype=F64)).to(dtype)
        k = torch.randn(b, h, t, d, generator=g, dtype=F64).to(dtype)
        if gate_margin(q, k, block_size, top_k) >= MARGIN:
            break
    return {
        "q": q, "k": k,
        "v": torch.randn(b, h, t, dv, generator=g, dtype=F64).to(dtype),
        "block_size": block_size, "top_k": top_k, "scale": scale,
        "cotangent": torch.randn(b, h, t, dv, generator=g, dtype=F64).to(dtype),
        "lse_cotangent": torch.randn(b, h, t, generator=g, dtype=F64).to(dtype),
    }


def route_case(g: torch.Generator, cfg: tuple) -> dict:
    b, h, t, block_size, prob = cfg
    n = -(-t // block_size)
    own = torch.arange(t) // block_size
    blocks = torch.arange(n)
    past = blocks[None, :] < own[:, None]
    draw = torch.rand(b, h, t, n, generator=g, dtype=F64) < prob
    selected = (draw & past) | (blocks[None, :] == own[:, None])
    return {"selected": selected, "block_size": block_size}


def layer_case(g: torch.Generator, cfg: tuple) -> dict:
    kind, impl, b, t, d_model, n_heads, block_size, top_k, dtype = cfg
    config = {"d_model": d_model, "n_heads": n_heads, "block_size": block_size, "top_k": top_k,
              "moba_impl": impl}
    module = SelfAttention(ModelConfig(**config), kind)
    state = {name: (torch.randn(p.shape, generator=g, dtype=F64) / p.shape[-1] ** 0.5).to(dtype)
             for name, p in module.state_dict().items()}
    return {
        "config": config, "kind": kind, "state": state,
        "x": torch.randn(b, t, d_model, generator=g, dtype=F64).to(dtype),
        "cotangent": torch.randn(b, t, d_model, generator=g, dtype=F64).to(dtype),
    }


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20250218)
    torch.save([{"k": torch.randn(b, h, t, d, generator=g, dtype=F64).to(dtype), "block_size": bs}
                for b, h, t, d, bs, dtype in POOL], out / "pool_cases.pt")
    torch.save([attention_case(g, c) for c in ATTENTION], out / "attention_cases.pt")
    torch.save([route_case(g, c) for c in ROUTE], out / "route_cases.pt")
    torch.save([layer_case(g, c) for c in LAYER], out / "layer_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
