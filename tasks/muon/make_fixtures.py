"""Regenerate tests/fixtures for muon/1 (inputs and options only, never outputs).

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied (it must be
on PYTHONPATH). Writes OUT_DIR/ortho_cases.pt, muon_cases.pt and adamw_cases.pt. Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

F64, F32 = torch.float64, torch.float32

# shape, dtype, steps, eps, scale of the entries
ORTHO = [
    ((4, 4), F64, 5, 1e-7, 1.0),
    ((6, 3), F64, 5, 1e-7, 1.0),  # tall: more rows than columns
    ((3, 6), F64, 5, 1e-7, 1.0),  # wide
    ((1, 5), F64, 5, 1e-7, 1.0),  # a single row
    ((5, 1), F64, 5, 1e-7, 1.0),  # a single column
    ((2, 3, 4), F64, 5, 1e-7, 1.0),  # a batch of matrices
    ((2, 2, 7, 3), F64, 5, 1e-7, 1.0),  # a 2-D batch of tall matrices
    ((8, 8), F64, 1, 1e-7, 1.0),
    ((5, 9), F64, 3, 1e-7, 1.0),
    ((9, 5), F64, 0, 1e-7, 1.0),  # normalisation only
    ((6, 6), F64, 10, 1e-7, 1.0),
    ((4, 7), F64, 5, 0.0, 1.0),  # no eps
    ((4, 7), F64, 5, 0.5, 1.0),  # a large eps
    ((3, 5), F64, 5, 1e-7, 1e-4),  # tiny entries: eps matters
    ((3, 5), F64, 5, 1e-7, 1e3),
    ((17, 9), F32, 5, 1e-7, 1.0),
    ((32, 96), F32, 5, 1e-7, 1.0),
    ((3, 16, 8), F32, 5, 1e-7, 1.0),
]

# shape, dtype, n_steps, lr, weight_decay, momentum, nesterov, ns_steps, rms_scale
MUON = [
    ((4, 4), F64, 3, 0.02, 0.1, 0.95, True, 5, 0.2),
    ((6, 3), F64, 3, 0.02, 0.1, 0.95, True, 5, 0.2),
    ((3, 6), F64, 3, 0.02, 0.1, 0.95, True, 5, 0.2),
    ((5, 8), F64, 4, 0.05, 0.0, 0.9, False, 5, 0.2),
    ((8, 5), F64, 4, 0.01, 0.3, 0.5, True, 3, 0.3),
    ((1, 6), F64, 3, 0.02, 0.1, 0.95, True, 5, 0.2),
    ((7, 7), F64, 5, 0.1, 0.05, 0.0, True, 5, 0.2),  # no momentum
    ((12, 4), F64, 3, 0.02, 0.2, 0.8, False, 1, 1.0),
    ((16, 48), F32, 3, 0.02, 0.1, 0.95, True, 5, 0.2),
    ((10, 6), F32, 4, 0.01, 0.1, 0.9, False, 5, 0.2),
]

# shapes, dtype, n_steps, lr, weight_decay, betas, eps
ADAMW = [
    ([(5,), (3, 4)], F64, 4, 0.01, 0.1, (0.9, 0.95), 1e-8),
    ([(7,), (2, 3, 2)], F64, 3, 0.1, 0.0, (0.8, 0.99), 1e-3),
    ([(4, 4)], F64, 5, 0.05, 0.5, (0.0, 0.9), 1e-8),
    ([(6,), (2, 5)], F32, 4, 0.01, 0.1, (0.9, 0.95), 1e-8),
]


def ortho_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for shape, dtype, steps, eps, scale in ORTHO:
        G = scale * torch.randn(*shape, generator=g, dtype=F64)
        cases.append({"G": G.to(dtype), "steps": steps, "eps": eps})
    # rank-deficient: a rank-2 (6, 5) matrix
    low = torch.randn(6, 2, generator=g, dtype=F64) @ torch.randn(2, 5, generator=g, dtype=F64)
    cases.append({"G": low, "steps": 5, "eps": 1e-7})
    # badly conditioned: singular values from 1 to 1e-3
    u, _ = torch.linalg.qr(torch.randn(5, 5, generator=g, dtype=F64))
    v, _ = torch.linalg.qr(torch.randn(4, 4, generator=g, dtype=F64))
    sigma = torch.zeros(5, 4, dtype=F64)
    sigma[range(4), range(4)] = torch.tensor([1.0, 0.1, 0.01, 0.001], dtype=F64)
    cases.append({"G": u @ sigma @ v.T, "steps": 5, "eps": 1e-7})
    return cases


def muon_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for shape, dtype, n, lr, wd, mu, nesterov, ns_steps, rms in MUON:
        w0 = torch.randn(*shape, generator=g, dtype=F64)
        grads = torch.randn(n, *shape, generator=g, dtype=F64) * torch.linspace(1.0, 0.3, n, dtype=F64).view(
            n, *([1] * len(shape)))
        cases.append({"w0": w0.to(dtype), "grads": grads.to(dtype), "lr": lr, "weight_decay": wd, "momentum": mu,
                      "nesterov": nesterov, "ns_steps": ns_steps, "rms_scale": rms})
    return cases


def adamw_cases(g: torch.Generator) -> list[dict]:
    cases = []
    for shapes, dtype, n, lr, wd, betas, eps in ADAMW:
        w0 = [torch.randn(*s, generator=g, dtype=F64).to(dtype) for s in shapes]
        grads = [torch.randn(n, *s, generator=g, dtype=F64).to(dtype) for s in shapes]
        cases.append({"w0": w0, "grads": grads, "lr": lr, "weight_decay": wd, "betas": list(betas), "eps": eps})
    return cases


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(2502)
    torch.save(ortho_cases(g), out / "ortho_cases.pt")
    torch.save(muon_cases(g), out / "muon_cases.pt")
    torch.save(adamw_cases(g), out / "adamw_cases.pt")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
