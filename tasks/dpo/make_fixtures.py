"""Regenerate tests/fixtures for dpo/1 from the reference implementation.

Run with the reference applied, from the repository root (it must be on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/dpo_loss_cases.pt: a list of cases (inputs and options only: the reference's outputs
are computed by the probe and stored outside the sandbox, in tests/expected/). Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch



def make_inputs(g: torch.Generator, batch: int, spread: float, dtype: torch.dtype, scale: float = 60.0):
    """Summed log-probs: reference ~ -U(1, scale); policy = reference + N(0, spread)."""
    ref_c = -(1.0 + (scale - 1.0) * torch.rand(batch, generator=g, dtype=torch.float64))
    ref_r = -(1.0 + (scale - 1.0) * torch.rand(batch, generator=g, dtype=torch.float64))
    pol_c = ref_c + spread * torch.randn(batch, generator=g, dtype=torch.float64)
    pol_r = ref_r + spread * torch.randn(batch, generator=g, dtype=torch.float64)
    return [t.to(dtype) for t in (pol_c, pol_r, ref_c, ref_r)]


def run_case(inputs, beta, label_smoothing, loss_type):
    return {
        "inputs": [t.detach().clone() for t in inputs],
        "beta": beta,
        "label_smoothing": label_smoothing,
        "loss_type": loss_type,
    }


def build_cases() -> list[dict]:
    g = torch.Generator().manual_seed(20230529)
    cases = []
    # the grid: several batch sizes (incl. a batch of one), betas, smoothing values, both losses
    for batch in (1, 4, 17):
        for beta in (0.01, 0.1, 0.5, 2.0):
            for label_smoothing in (0.0, 0.15, 0.4):
                inputs = make_inputs(g, batch, spread=4.0, dtype=torch.float64)
                cases.append(run_case(inputs, beta, label_smoothing, "sigmoid"))
            inputs = make_inputs(g, batch, spread=4.0, dtype=torch.float64)
            cases.append(run_case(inputs, beta, 0.0, "ipo"))
    # IPO with a (documented as unused) smoothing value
    cases.append(run_case(make_inputs(g, 6, 3.0, torch.float64), 0.3, 0.25, "ipo"))
    # extreme margins: |beta * margin| up to thousands (saturated sigmoid)
    for beta, ls in ((1.0, 0.0), (5.0, 0.0), (3.0, 0.2)):
        inputs = make_inputs(g, 12, spread=800.0, dtype=torch.float64, scale=2000.0)
        cases.append(run_case(inputs, beta, ls, "sigmoid"))
    # policy identical to the reference (zero margins, zero rewards)
    inputs = make_inputs(g, 5, spread=0.0, dtype=torch.float64)
    cases.append(run_case(inputs, 0.1, 0.0, "sigmoid"))
    cases.append(run_case(inputs, 0.1, 0.0, "ipo"))
    # float32 inputs, moderate magnitudes
    for beta, ls, lt in ((0.1, 0.0, "sigmoid"), (0.5, 0.1, "sigmoid"), (0.5, 0.0, "ipo")):
        inputs = make_inputs(g, 9, spread=2.0, dtype=torch.float32, scale=20.0)
        cases.append(run_case(inputs, beta, ls, lt))
    return cases


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.save(build_cases(), out / "dpo_loss_cases.pt")


if __name__ == "__main__":
    main()
