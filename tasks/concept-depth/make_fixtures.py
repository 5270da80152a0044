"""Regenerate tests/fixtures: python make_fixtures.py OUT_DIR (cwd = repo with reference).

Inputs and options only: the reference's outputs are computed by the probe and stored outside the sandbox, in
tests/expected/."""
import sys
from pathlib import Path

import torch

from conceptdepth.data import concept_dataset

L2S = [1e-3, 1e-2, 0.1, 1.0]


def fit_case(i: int, g: torch.Generator) -> dict:
    r = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=g))  # noqa: E731
    n, d = r(6, 60), r(1, 10)
    X = torch.randn(n, d, generator=g, dtype=torch.float64) * (0.5 + 3 * torch.rand(d, generator=g, dtype=torch.float64))
    X = X + torch.randn(d, generator=g, dtype=torch.float64)  # features are not centred
    if i % 3 == 0:
        y = (X @ torch.randn(d, generator=g, dtype=torch.float64) > 0).long()  # linearly separable
    else:
        y = (torch.rand(n, generator=g) < 0.4).long()
    y[0], y[1] = 0, 1  # both classes present
    l2 = L2S[i % 4]
    max_iter = [50, 1, 2, 3][i % 4] if i >= 8 else 50
    if i % 5 == 4:
        X = X.float()  # float32 input
    return {"X": X, "y": y, "l2": l2, "max_iter": max_iter}


def probe_case(i: int, g: torch.Generator) -> dict:
    r = lambda lo, hi: int(torch.randint(lo, hi + 1, (1,), generator=g))  # noqa: E731
    L, n, d = r(1, 5), r(20, 80), r(2, 8)
    if i % 2 == 0:
        ds = concept_dataset("fixture", n, L, d, depth=r(0, L - 1), strength=float(1 + 3 * torch.rand(1, generator=g)), seed=100 + i)
        h, y = ds.hidden_states, ds.labels
    else:
        h = torch.randn(L, n, d, generator=g, dtype=torch.float64) * 2 + 1
        y = (torch.rand(n, generator=g) < (0.3 if i % 4 == 1 else 0.5)).long()
        h = h + 1.5 * y[None, :, None] * torch.randn(L, 1, d, generator=g, dtype=torch.float64)
    y[0], y[1], y[2], y[3] = 0, 1, 0, 1
    if i % 3 == 0:
        h[:, :, -1] = 2.5  # a constant feature
    if i % 4 == 2:
        h = h.float()  # float32 hidden states
    as_list = i % 2 == 1
    frac = [0.2, 0.25, 0.3, 0.5][i % 4]
    seed, l2 = r(0, 1000), L2S[i % 4]
    return {"hidden": h, "labels": y, "as_list": as_list, "test_fraction": frac, "seed": seed, "l2": l2}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(404)
    fits = [fit_case(i, g) for i in range(16)]
    probes = [probe_case(i, g) for i in range(12)]
    torch.save(fits, out / "fit_cases.pt")
    torch.save(probes, out / "probe_cases.pt")
    print(f"wrote {len(fits)} fit cases and {len(probes)} probe cases")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
