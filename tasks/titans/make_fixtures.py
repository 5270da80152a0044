"""Regenerate tests/fixtures for titans/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied. Writes
OUT_DIR/memory_cases.pt. Deterministic (random draws only, no matrix products).
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

F64, F32 = torch.float64, torch.float32

# name, B, T, memory shapes, dtype, chunk size, (alpha lo, hi), (eta lo, hi), (theta lo, hi), momentum scale
CASES = [
    ("linear_chunk1", 2, 6, [(3, 3)], F64, 1, (0.0, 0.3), (0.3, 0.9), (0.05, 0.3), 0.0),
    ("mlp_chunk3_ragged", 2, 7, [(3, 5), (5, 3)], F64, 3, (0.0, 0.3), (0.3, 0.9), (0.05, 0.3), 0.1),
    ("mlp_dk_ne_dv", 1, 5, [(4, 6), (6, 2)], F64, 2, (0.05, 0.2), (0.5, 0.95), (0.1, 0.4), 0.0),
    ("mlp_depth3", 3, 8, [(3, 4), (4, 4), (4, 3)], F64, 4, (0.0, 0.2), (0.2, 0.8), (0.05, 0.3), 0.1),
    ("linear_chunk_gt_T", 2, 5, [(4, 2)], F64, 8, (0.0, 0.3), (0.3, 0.9), (0.05, 0.3), 0.2),
    ("mlp_one_chunk", 2, 6, [(3, 5), (5, 3)], F64, 6, (0.0, 0.1), (0.6, 0.95), (0.3, 0.6), 0.3),
    ("single_token", 1, 1, [(3, 4), (4, 3)], F64, 2, (0.0, 0.3), (0.3, 0.9), (0.05, 0.3), 0.2),
    ("strong_forgetting", 2, 6, [(3, 3)], F64, 3, (0.8, 0.99), (0.0, 0.1), (0.05, 0.3), 0.3),
    ("linear_chunk2", 2, 8, [(3, 3)], F64, 2, (0.0, 0.4), (0.2, 0.9), (0.1, 0.5), 0.2),
    ("f32_mlp", 2, 9, [(4, 8), (8, 4)], F32, 4, (0.0, 0.3), (0.3, 0.9), (0.05, 0.3), 0.1),
]


def uniform(shape, lo, hi, g, dtype):
    return lo + (hi - lo) * torch.rand(shape, generator=g, dtype=F64).to(dtype)


def build(i, name, B, T, shapes, dtype, chunk, ar, er, tr, mscale):
    g = torch.Generator().manual_seed(100 + i)
    weights = [(torch.randn(B, a, b, generator=g, dtype=F64) * a ** -0.5).to(dtype) for a, b in shapes]
    momentum = [(torch.randn(B, a, b, generator=g, dtype=F64) * mscale).to(dtype) for a, b in shapes]
    k = torch.randn(B, T, shapes[0][0], generator=g, dtype=F64)
    k = (k / k.norm(dim=-1, keepdim=True)).to(dtype)
    v = torch.randn(B, T, shapes[-1][1], generator=g, dtype=F64).to(dtype)
    q = torch.randn(B, T, shapes[0][0], generator=g, dtype=F64).to(dtype)
    return {"name": name, "weights": weights, "momentum": momentum, "k": k, "v": v, "q": q,
            "alpha": uniform((B, T), *ar, g, dtype), "eta": uniform((B, T), *er, g, dtype),
            "theta": uniform((B, T), *tr, g, dtype), "chunk_size": chunk}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    torch.save([build(i, *c) for i, c in enumerate(CASES)], out / "memory_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
