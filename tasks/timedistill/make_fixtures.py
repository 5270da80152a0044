"""Regenerate tests/fixtures for the timedistill task from the reference multi_scale_downsample.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of ``timedistill-forecast/`` with the golden file applied.
Saves inputs only (series, marks, options and the cotangents that weight each level in the gradient test): the
reference's outputs are computed by the probe and stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

DT = torch.float64


def case(gen, batch, length, channels, num_scales, window, n_mark=0, scale=1.0):
    x = torch.randn(batch, length, channels, generator=gen, dtype=DT) * scale
    x_mark = torch.randn(batch, length, n_mark, generator=gen, dtype=DT) if n_mark else None
    lengths = [length]
    for _ in range(num_scales):  # T_m = floor(T_{m-1} / window), as documented
        lengths.append(lengths[-1] // window)
    cotangents = [torch.randn((batch, t, channels), generator=gen, dtype=DT) for t in lengths]
    return {"x": x, "x_mark": x_mark, "num_scales": num_scales, "window": window, "cotangents": cotangents}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator().manual_seed(2502)
    cases = [
        case(gen, 2, 16, 3, 2, 2, n_mark=4),          # divisible by window^M
        case(gen, 3, 17, 2, 2, 2, n_mark=2),          # odd length: last step dropped
        case(gen, 1, 23, 1, 2, 3, n_mark=3),          # batch of one, one channel, 23 -> 7 -> 2
        case(gen, 2, 10, 4, 3, 2),                    # 10 -> 5 -> 2 -> 1
        case(gen, 4, 12, 2, 1, 4, n_mark=1),
        case(gen, 2, 9, 3, 0, 2, n_mark=2),           # no downsampling
        case(gen, 2, 8, 2, 3, 1, n_mark=2),           # window 1: every level equals x
        case(gen, 1, 27, 2, 3, 3),                    # 27 -> 9 -> 3 -> 1
        case(gen, 3, 31, 5, 2, 5, n_mark=2),          # 31 -> 6 -> 1
        case(gen, 2, 14, 3, 2, 2, scale=1e6),         # large values
        case(gen, 2, 48, 7, 3, 2, n_mark=4),          # look-back sized
    ]
    for _ in range(10):  # random configurations
        window = int(torch.randint(1, 5, (1,), generator=gen))
        num_scales = int(torch.randint(0, 4, (1,), generator=gen))
        min_len = window**num_scales
        length = min_len + int(torch.randint(0, 3 * min_len + 3, (1,), generator=gen))
        batch, channels = (int(v) for v in torch.randint(1, 4, (2,), generator=gen))
        n_mark = int(torch.randint(0, 3, (1,), generator=gen))
        cases.append(case(gen, batch, length, channels, num_scales, window, n_mark=n_mark))
    torch.save(cases, out / "pyramid_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
