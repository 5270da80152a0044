"""Regenerate tests/fixtures for simpo/1 from the reference implementation.

Run from the repository root with the reference applied (repository on PYTHONPATH):
    python make_fixtures.py OUT_DIR
Writes OUT_DIR/simpo_loss_cases.pt: padded per-token log-probs with masks (padding holds garbage) and
options: inputs only (the reference's outputs and gradients are computed by the probe and stored outside the
sandbox, in tests/expected/). Deterministic.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch


def make_side(g: torch.Generator, batch: int, width: int, dtype: torch.dtype, mask_kind: str, scale: float):
    lengths = torch.randint(1, width + 1, (batch,), generator=g)
    lengths[0] = width  # at least one row without padding, so the padded width is really used
    if batch > 1:
        lengths[-1] = 1  # and a one-token response
    mask = torch.arange(width)[None, :] < lengths[:, None]
    logps = -scale * torch.rand(batch, width, generator=g, dtype=torch.float64) ** 2
    garbage = -60.0 + 70.0 * torch.rand(batch, width, generator=g, dtype=torch.float64)  # finite junk on padding
    logps = torch.where(mask, logps, garbage).to(dtype)
    if mask_kind == "float":
        mask = mask.to(dtype)
    elif mask_kind == "double":  # a float64 mask with float32 log-probs: outputs must stay float32
        mask = mask.double()
    elif mask_kind == "long":
        mask = mask.long()
    return logps, mask


def run_case(chosen, chosen_mask, rejected, rejected_mask, beta, gamma):
    return {
        "chosen_token_logps": chosen, "chosen_mask": chosen_mask,
        "rejected_token_logps": rejected, "rejected_mask": rejected_mask,
        "beta": beta, "gamma": gamma,
    }


def build_cases() -> list[dict]:
    g = torch.Generator().manual_seed(20240523)
    cases = []
    shapes = [(1, 1, 1), (1, 6, 3), (4, 5, 5), (7, 3, 9), (16, 12, 8)]
    settings = [(2.0, 1.0), (2.5, 0.3), (0.5, 0.0), (10.0, 1.6)]
    k = 0
    for batch, lw, ll in shapes:
        for beta, gamma in settings:
            mask_kind = ("bool", "float", "long")[k % 3]
            k += 1
            chosen, cm = make_side(g, batch, lw, torch.float64, mask_kind, scale=6.0)
            rejected, rm = make_side(g, batch, ll, torch.float64, mask_kind, scale=6.0)
            cases.append(run_case(chosen, cm, rejected, rm, beta, gamma))
    # large reward gaps (|z| in the hundreds): needs a stable log-sigmoid
    for beta, gamma in ((60.0, 0.5), (1000.0, 2.0)):
        chosen, cm = make_side(g, 10, 6, torch.float64, "bool", scale=15.0)
        rejected, rm = make_side(g, 10, 7, torch.float64, "bool", scale=15.0)
        cases.append(run_case(chosen, cm, rejected, rm, beta, gamma))
    # float32 log-probs, with masks of several dtypes
    for beta, gamma, kinds in ((2.0, 1.0, ("bool", "float")), (2.5, 0.5, ("double", "long")), (2.0, 0.3, ("long", "double"))):
        chosen, cm = make_side(g, 9, 10, torch.float32, kinds[0], scale=5.0)
        rejected, rm = make_side(g, 9, 4, torch.float32, kinds[1], scale=5.0)
        cases.append(run_case(chosen, cm, rejected, rm, beta, gamma))
    return cases


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    torch.save(build_cases(), out / "simpo_loss_cases.pt")


if __name__ == "__main__":
    main()
