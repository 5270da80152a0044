"""Regenerate tests/fixtures from the reference mixing layers.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied.
Saves inputs only (configuration, weights, input series, the cotangents that weight the outputs in the gradient
tests): the reference's outputs are computed by the probes and stored outside the sandbox, in tests/expected/.
"""

import sys
from pathlib import Path

import torch

from timemixer.layers.mixing import MultiScaleSeasonMixing, MultiScaleTrendMixing

# (seq_len, window, num_downsamplings, batch, d_model, input scale)
CONFIGS = [
    (16, 2, 2, 3, 4, 1.0),
    (32, 2, 3, 2, 5, 1.0),
    (12, 3, 1, 4, 2, 1.0),
    (24, 2, 1, 1, 3, 1.0),  # batch of one, a single down-sampling step
    (27, 3, 2, 2, 3, 1.0),
    (10, 2, 2, 2, 3, 1.0),  # 10 -> 5 -> 2: lengths not divisible by the window
    (8, 2, 3, 1, 1, 1.0),  # lengths down to 1, one channel
    (16, 2, 2, 2, 3, 1e3),  # large inputs: GELU in its linear / zero regimes
    (16, 4, 1, 3, 2, 1e-3),  # tiny inputs, window 4
]


def make_cases(cls, seed: int) -> list[dict]:
    cases = []
    for i, (seq_len, window, m, batch, d_model, scale) in enumerate(CONFIGS):
        torch.manual_seed(seed + i)
        module = cls(seq_len, window, m).double()
        # widen the weights so the GELU non-linearity is exercised away from its linear regime
        with torch.no_grad():
            for p in module.parameters():
                p.mul_(2.0)
        lengths = module.lengths
        inputs = [scale * torch.randn(batch, t, d_model, dtype=torch.float64) for t in lengths]
        cotangents = [torch.randn(batch, t, d_model, dtype=torch.float64) for t in lengths]
        cases.append(
            {
                "config": [seq_len, window, m, batch, d_model],
                "state_dict": {k: v.detach().clone() for k, v in module.state_dict().items()},
                "inputs": inputs,
                "cotangents": cotangents,
            }
        )
    return cases


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(make_cases(MultiScaleSeasonMixing, 1000), out / "season_cases.pt")
    torch.save(make_cases(MultiScaleTrendMixing, 2000), out / "trend_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
