"""Regenerate tests/fixtures for deltaproduct/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/rule_cases.pt and OUT_DIR/product_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

F64, F32 = torch.float64, torch.float32

# B, T, H, K, V, chunk_size, gated, initial state, beta range, dtype
RULE = [
    (2, 8, 2, 4, 3, 4, False, False, 1.0, F64),
    (1, 7, 1, 3, 2, 3, False, True, 2.0, F64),  # T not a multiple of the chunk size, from a state
    (2, 5, 3, 4, 4, 1, True, True, 2.0, F64),  # one step per chunk
    (1, 6, 2, 5, 3, 16, True, False, 1.0, F64),  # a chunk longer than the sequence
    (2, 1, 2, 3, 2, 4, True, True, 2.0, F64),  # a single step
    (1, 12, 1, 6, 4, 4, True, True, 2.0, F64),
    (2, 10, 2, 4, 3, 5, False, True, 2.0, F32),
]

# B, L, n_h, H, K, V, chunk_size, gated, initial state, beta range, dtype
PRODUCT = [
    (2, 5, 2, 2, 4, 3, 4, False, False, 2.0, F64),
    (1, 4, 3, 1, 3, 2, 4, False, True, 2.0, F64),  # chunks cut through a token's steps
    (2, 6, 1, 2, 4, 3, 4, True, True, 1.0, F64),  # n_h = 1: Gated DeltaNet
    (1, 5, 4, 2, 3, 3, 6, True, True, 2.0, F64),
    (2, 3, 2, 1, 5, 2, 1, True, False, 2.0, F64),
    (1, 1, 3, 2, 3, 2, 2, True, True, 2.0, F64),  # a single token
    (2, 7, 3, 2, 4, 4, 16, True, True, 1.0, F64),
    (1, 6, 2, 2, 4, 3, 5, True, True, 2.0, F32),
]


def unit(x: torch.Tensor) -> torch.Tensor:
    return x / x.norm(dim=-1, keepdim=True)


def make(g: torch.Generator, lead: tuple[int, ...], H: int, K: int, V: int, gated: bool, init: bool,
         beta_max: float, dtype: torch.dtype, q_lead: tuple[int, ...]) -> dict:
    B = lead[0]
    case = {
        "q": unit(torch.randn(*q_lead, H, K, generator=g, dtype=F64)),
        "k": unit(torch.randn(*lead, H, K, generator=g, dtype=F64)),
        "v": torch.randn(*lead, H, V, generator=g, dtype=F64),
        "beta": beta_max * torch.rand(*lead, H, generator=g, dtype=F64),
        "log_gate": -1.5 * torch.rand(*q_lead, H, generator=g, dtype=F64) if gated else None,
        "initial_state": torch.randn(B, H, K, V, generator=g, dtype=F64) if init else None,
    }
    return {name: (None if x is None else x.to(dtype)) for name, x in case.items()}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(2502)
    rule = []
    for B, T, H, K, V, C, gated, init, bmax, dtype in RULE:
        rule.append({**make(g, (B, T), H, K, V, gated, init, bmax, dtype, (B, T)), "chunk_size": C})
    product = []
    for B, L, n_h, H, K, V, C, gated, init, bmax, dtype in PRODUCT:
        product.append({**make(g, (B, L, n_h), H, K, V, gated, init, bmax, dtype, (B, L)), "chunk_size": C})
    torch.save(rule, out / "rule_cases.pt")
    torch.save(product, out / "product_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
