"""Regenerate tests/fixtures for jumprelu-sae/1 (inputs and options only; the reference's outputs go to
tests/expected/).

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/activation_cases.pt and OUT_DIR/sae_cases.pt. Deterministic.

Every pre-activation is kept at least MARGIN * bandwidth away from the threshold and from the edges of the
kernel's window (u = (z - theta) / bandwidth = -1/2, 0, 1/2), so that rounding (float32, another summation
order) never moves an entry across a discontinuity; and every threshold exceeds bandwidth / 2, so that
JumpReLU's window never reaches z <= 0.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

MARGIN = 0.02
EDGES = (-0.5, 0.0, 0.5)


def clear_of_edges(u: torch.Tensor) -> torch.Tensor:
    """u moved (away from zero, by 2 * MARGIN) wherever it lies within MARGIN of an edge."""
    near = torch.zeros_like(u, dtype=torch.bool)
    for edge in EDGES:
        near |= (u - edge).abs() < MARGIN
    push = torch.where(u >= 0, 2 * MARGIN, -2 * MARGIN).to(u.dtype)
    return torch.where(near, u + push, u)


def is_clear(u: torch.Tensor) -> bool:
    return all(bool(((u - edge).abs() >= MARGIN).all()) for edge in EDGES)


def activation_cases(g: torch.Generator) -> list[dict]:
    """Inputs of JumpReLU and Step: z (..., d), threshold (d,), bandwidth, an upstream gradient."""
    cases = []
    specs = (((6, 5), 0.5, torch.float64), ((3, 4, 5), 0.3, torch.float64), ((1, 7), 0.2, torch.float32),
             ((7,), 1.0, torch.float64), ((64, 8), 0.1, torch.float32), ((2, 1, 3, 6), 0.05, torch.float64),
             ((5, 9), 0.4, torch.float32), ((40, 3), 0.25, torch.float64))
    for shape, eps, dtype in specs:
        d = shape[-1]
        theta = (eps / 2 + 0.05) + 0.8 * torch.rand(d, generator=g, dtype=torch.float64)
        near = theta + eps * (3 * torch.rand(shape, generator=g, dtype=torch.float64) - 1.5)
        far = torch.randn(shape, generator=g, dtype=torch.float64)
        z = torch.where(torch.rand(shape, generator=g) < 0.6, near, far)
        z = theta + eps * clear_of_edges((z - theta) / eps)
        grad = torch.randn(shape, generator=g, dtype=torch.float64)
        cases.append({"z": z.to(dtype), "threshold": theta.to(dtype), "bandwidth": eps, "grad": grad.to(dtype)})
    return cases


def sae_params(g: torch.Generator, d_model: int, d_sae: int, eps: float) -> dict:
    directions = torch.randn(d_sae, d_model, generator=g, dtype=torch.float64)
    directions = directions / directions.norm(dim=1, keepdim=True)
    theta = (eps / 2 + 0.05) + 0.5 * torch.rand(d_sae, generator=g, dtype=torch.float64)
    return {"W_enc": directions.T.contiguous() + 0.3 * torch.randn(d_model, d_sae, generator=g, dtype=torch.float64),
            "b_enc": 0.2 * torch.randn(d_sae, generator=g, dtype=torch.float64),
            "W_dec": directions,
            "b_dec": 0.1 * torch.randn(d_model, generator=g, dtype=torch.float64),
            "log_threshold": theta.log()}


def clear_batch(g: torch.Generator, params: dict, rows: int, eps: float, dtype: torch.dtype) -> torch.Tensor:
    """(rows, d_model) activations whose pre-activations (in `dtype`) keep clear of every edge."""
    p = {k: v.to(dtype).double() for k, v in params.items()}
    d_model = p["W_enc"].shape[0]
    kept: list[torch.Tensor] = []
    while len(kept) < rows:
        x = 0.8 * torch.randn(d_model, generator=g, dtype=torch.float64)
        u = (x.to(dtype).double() @ p["W_enc"] + p["b_enc"] - p["log_threshold"].exp()) / eps
        if is_clear(u):
            kept.append(x)
    return torch.stack(kept)


def sae_cases(g: torch.Generator) -> list[dict]:
    """Inputs of the SAE: parameters, a batch, lambda, the bandwidth and the dtype."""
    cases = []
    specs = ((4, 12, 8, 0.3, 0.5, "float64"), (6, 10, 1, 0.5, 2.0, "float64"), (5, 16, 32, 0.2, 0.1, "float32"),
             (3, 7, 5, 0.4, 0.0, "float64"), (8, 20, 16, 0.1, 1.0, "float64"), (4, 9, 6, 0.6, 0.3, "float32"))
    for d_model, d_sae, batch, eps, lam, dtype_name in specs:
        dtype = getattr(torch, dtype_name)
        params = sae_params(g, d_model, d_sae, eps)
        x = clear_batch(g, params, batch, eps, dtype)
        cases.append({"params": {k: v.to(dtype) for k, v in params.items()}, "x": x.to(dtype),
                      "d_model": d_model, "d_sae": d_sae, "bandwidth": eps, "sparsity_coefficient": lam,
                      "dtype": dtype_name, "lr": 0.05 * (1 + len(cases) % 3)})
    return cases


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(20240719)
    torch.save(activation_cases(g), out / "activation_cases.pt")
    torch.save(sae_cases(g), out / "sae_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
