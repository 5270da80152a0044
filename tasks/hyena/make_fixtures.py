"""Regenerate tests/fixtures from the reference HyenaOperator.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference applied.
Inputs only (configuration, weights, input, cotangent): the reference's outputs are computed by the probe
and stored outside the sandbox, in tests/expected/.
"""

import sys
from pathlib import Path

import torch

from hyena.operator import HyenaOperator

# d_model, order, L, batch, short_filter_size, l_max, filter_order, emb_dim, input scale
CONFIGS = [
    (4, 2, 16, 2, 3, 32, 8, 5, 1.0),
    (3, 1, 10, 3, 3, 16, 8, 3, 1.0),
    (2, 3, 12, 2, 3, 16, 8, 5, 1.0),  # order 3
    (5, 2, 1, 1, 3, 8, 8, 3, 1.0),  # a single step, a batch of one
    (3, 2, 33, 2, 4, 40, 8, 5, 1.0),  # odd length, short filter of 4 taps
    (4, 2, 7, 2, 1, 8, 8, 3, 1.0),  # short filter of 1 tap (no padding)
    (2, 4, 20, 1, 3, 20, 8, 5, 1.0),  # order 4, L = l_max
    (3, 2, 24, 2, 2, 64, 16, 7, 5.0),  # large inputs
    (6, 2, 9, 2, 3, 12, 8, 5, 0.01),  # small inputs
]


def make_case(i: int, cfg: tuple) -> dict:
    d_model, order, seq_len, batch, short, l_max, filter_order, emb_dim, scale = cfg
    torch.manual_seed(500 + i)
    op = HyenaOperator(d_model, l_max, order=order, filter_order=filter_order, short_filter_size=short,
                       emb_dim=emb_dim).double()
    u = scale * torch.randn(batch, seq_len, d_model, dtype=torch.float64)
    cotangent = torch.randn(batch, seq_len, d_model, dtype=torch.float64)  # the output's shape
    return {
        "config": [d_model, order, seq_len, batch, short, l_max, filter_order, emb_dim],
        "state_dict": {k: v.detach().clone() for k, v in op.state_dict().items()},
        "u": u,
        "cotangent": cotangent,
    }


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    torch.save([make_case(i, cfg) for i, cfg in enumerate(CONFIGS)], out / "operator_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
