"""Write tests/fixtures for simclr/1 from the reference NT-Xent implementation.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference
``simclr/losses.py`` in place (and on PYTHONPATH). Deterministic. Inputs and options only: the reference's
outputs are computed by the probe and stored outside the sandbox, in tests/expected/.
"""
import sys
from pathlib import Path

import torch

DT = torch.float64


def pair(g, n, d, kind):
    """Two views ``(z1, z2)`` of ``n`` examples with rows of very different norms."""
    scale1 = 10 ** (2 * torch.rand(n, 1, generator=g, dtype=DT) - 1)      # norms from 0.1 to 10
    scale2 = 10 ** (2 * torch.rand(n, 1, generator=g, dtype=DT) - 1)
    base = torch.randn(n, d, generator=g, dtype=DT)
    if kind == "independent":
        other = torch.randn(n, d, generator=g, dtype=DT)
    elif kind == "aligned":        # the second view is a slightly perturbed copy of the first
        other = base + 0.2 * torch.randn(n, d, generator=g, dtype=DT)
    else:                          # "clustered": few directions, many near-duplicates
        centres = torch.randn(3, d, generator=g, dtype=DT)
        base = centres[torch.randint(0, 3, (n,), generator=g)] + 0.1 * torch.randn(n, d, generator=g, dtype=DT)
        other = base + 0.3 * torch.randn(n, d, generator=g, dtype=DT)
    return base * scale1, other * scale2


def main(out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(2002)
    specs = [
        # n, d, kind, temperature, reduction
        (1, 4, "independent", 0.5, "mean"),      # batch of one: the positive is the only candidate
        (2, 3, "independent", 1.0, "none"),
        (4, 8, "aligned", 0.5, "mean"),
        (5, 2, "independent", 0.1, "sum"),
        (8, 16, "clustered", 0.2, "none"),
        (16, 8, "aligned", 0.07, "mean"),
        (7, 64, "independent", 2.0, "mean"),
        (12, 5, "clustered", 0.5, "sum"),
        (6, 6, "aligned", 0.01, "none"),         # very small temperature (large logits)
        (33, 4, "independent", 0.3, "mean"),
    ]
    cases = []
    for n, d, kind, tau, red in specs:
        z1, z2 = pair(g, n, d, kind)
        cases.append({"z1": z1, "z2": z2, "temperature": tau, "reduction": red})

    # float32 inputs at a tiny temperature; the probe also runs the same numbers in float64, whose loss in the
    # reference's run is what the float32 loss is checked against
    z1, z2 = pair(g, 10, 8, "aligned")
    z1, z2 = z1.float(), z2.float()
    f32 = {"z1": z1, "z2": z2, "temperature": 0.01}
    torch.save({"cases": cases, "float32": f32}, out / "nt_xent_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
