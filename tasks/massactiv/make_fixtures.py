"""Regenerate tests/fixtures: python make_fixtures.py OUT_DIR (cwd = repo with reference).

Inputs only (hidden states, thresholds, masks): the probe runs the detector and the reference's records are
stored outside the sandbox, in tests/expected/."""
import sys
from pathlib import Path

import torch

DTYPES = [torch.float32, torch.float64, torch.bfloat16]
ABS = [100.0, 50.0, 20.0, 1000.0]
RATIO = [1000.0, 100.0, 10.0, 300.0]


def make_case(i: int, g: torch.Generator) -> dict:
    r = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=g))  # noqa: E731
    L, B, T, D = r(1, 5), r(1, 3), r(1, 10), r(2, 40)
    if i == 0:
        L, B, T, D = 1, 1, 1, 7  # a single token of a single sequence
    # every sequence and layer has its own noise scale, so medians differ between them
    scales = 10.0 ** (torch.rand(L, B, 1, 1, generator=g, dtype=torch.float64) * 3 - 2)
    h = torch.randn(L, B, T, D, generator=g, dtype=torch.float64) * scales
    for _ in range(r(0, 8)):
        l, b, t, d = r(0, L - 1), r(0, B - 1), r(0, T - 1), r(0, D - 1)
        sign = 1.0 if torch.rand(1, generator=g) < 0.5 else -1.0
        h[l, b, t, d] = sign * 10.0 ** (1 + 4 * float(torch.rand(1, generator=g)))
    # a column of moderately large values: above the absolute threshold in some cases only
    if i % 3 == 1:
        h[:, :, 0, r(0, D - 1)] = 150.0
    abs_t, ratio_t = ABS[i % 4], RATIO[(i // 4) % 4]
    mask = None
    if i % 5 in (2, 3):
        mask = torch.ones(B, T, dtype=torch.long)
        for b in range(B):
            n_pad = r(0, T - 1)
            if n_pad:
                if i % 5 == 2:
                    mask[b, T - n_pad:] = 0  # right padding
                else:
                    mask[b, :n_pad] = 0  # left padding
        if B > 1 and i % 2 == 0:
            mask[B - 1] = 0  # an entirely padded sequence
        # padded positions hold garbage that must be ignored
        h = torch.where(mask.bool()[None, :, :, None], h, torch.full_like(h, 5000.0))
    dtype = DTYPES[i % 3]
    h = h.to(dtype)
    return {
        "hidden": h,
        "as_list": i % 2 == 0,
        "abs_threshold": abs_t,
        "ratio_threshold": ratio_t,
        "mask": mask if mask is not None else torch.zeros(0),
        "has_mask": mask is not None,
    }


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(1234)
    cases = [make_case(i, g) for i in range(30)]
    torch.save(cases, out / "massive_cases.pt")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
