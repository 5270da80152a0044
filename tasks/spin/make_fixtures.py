"""Regenerate tests/fixtures for spin/1 from the reference implementation.

Run from the repository root with the reference applied (repository on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/spin_loss_cases.pt: inputs and options only (the reference's outputs and gradients are computed
by the probe and stored outside the sandbox, in tests/expected/). Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch


def make_inputs(g, batch, spread, dtype, scale=40.0):
    """Opponent log-probs ~ -U(1, scale); the model's = opponent's + N(0, spread)."""
    opp_real = -(1 + (scale - 1) * torch.rand(batch, generator=g, dtype=torch.float64))
    opp_gen = -(1 + (scale - 1) * torch.rand(batch, generator=g, dtype=torch.float64))
    pol_real = opp_real + spread * torch.randn(batch, generator=g, dtype=torch.float64)
    pol_gen = opp_gen + spread * torch.randn(batch, generator=g, dtype=torch.float64)
    return [x.to(dtype) for x in (pol_real, pol_gen, opp_real, opp_gen)]


def run_case(inputs, lam, loss_type):
    return {"inputs": [x.detach().clone() for x in inputs], "lam": lam, "loss_type": loss_type}


def build_cases() -> list[dict]:
    g = torch.Generator().manual_seed(20240102)
    cases = []
    for batch in (1, 5, 16):
        for lam in (0.01, 0.1, 1.0, 5.0):
            for loss_type in ("logistic", "hinge"):
                cases.append(run_case(make_inputs(g, batch, 4.0, torch.float64), lam, loss_type))
    # the first step of an iteration: model == opponent
    same = make_inputs(g, 6, 0.0, torch.float64)
    cases.append(run_case(same, 0.1, "logistic"))
    cases.append(run_case(same, 0.1, "hinge"))
    # huge log-ratio gaps (|lam * t| in the thousands)
    for lam in (1.0, 4.0):
        cases.append(run_case(make_inputs(g, 12, 700.0, torch.float64, scale=1500.0), lam, "logistic"))
    cases.append(run_case(make_inputs(g, 12, 700.0, torch.float64, scale=1500.0), 1.0, "hinge"))
    # float32
    for lam, loss_type in ((0.1, "logistic"), (0.5, "hinge")):
        cases.append(run_case(make_inputs(g, 9, 3.0, torch.float32, scale=20.0), lam, loss_type))
    return cases


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.save(build_cases(), out / "spin_loss_cases.pt")


if __name__ == "__main__":
    main()
