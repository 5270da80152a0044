"""Write tests/fixtures for ergo/1: the inputs and options of the differential cases.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of the repository with the reference
``ergo/losses.py`` in place (and on PYTHONPATH). Deterministic. Inputs only: the reference's losses and
gradients are computed by the probe and stored outside the sandbox, in tests/expected/.
"""
import sys
from pathlib import Path

import torch

DT = torch.float64


def main(out_dir):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    g = torch.Generator().manual_seed(1010)
    specs = [
        # shape, logit scale, target dtype, alpha, gamma, reduction, mask kind, with gradient
        ((7,), 3.0, "long", 0.25, 2.0, "mean", None, True),
        ((1,), 2.0, "float", 0.25, 2.0, "mean", None, True),             # a single pair
        ((4, 5), 2.0, "float", 0.75, 1.0, "sum", None, True),
        ((3, 6), 4.0, "bool", None, 2.0, "none", None, True),
        ((2, 3, 4), 1.5, "long", 0.5, 0.0, "mean", None, True),          # gamma = 0: weighted CE
        ((16,), 3.0, "long", 0.25, 5.0, "mean", "random", True),
        ((5, 8), 3.0, "float", 0.9, 2.0, "none", "random", True),
        ((6, 4), 3.0, "long", 0.3, 3.0, "sum", "random", True),
        ((9,), 2.0, "long", 0.0, 2.0, "mean", None, True),               # alpha = 0
        ((9,), 2.0, "long", 1.0, 2.0, "mean", None, True),               # alpha = 1
        ((3, 5), 2.5, "long", 0.25, 0.5, "mean", "single", True),        # one valid element
        ((4, 3), 2.5, "long", 0.25, 2.0, "mean", "empty", False),        # no valid element
        ((12,), 60.0, "long", 0.25, 2.0, "none", None, False),           # extreme logits
        ((3, 4), 100.0, "float", 0.6, 1.0, "mean", "random", False),
    ]
    cases = []
    for shape, scale, tdtype, alpha, gamma, red, mask_kind, with_grad in specs:
        logits = scale * torch.randn(*shape, generator=g, dtype=DT)
        t = torch.rand(*shape, generator=g) < 0.35
        targets = {"long": t.long(), "float": t.to(DT), "bool": t}[tdtype]
        if mask_kind is None:
            mask = None
        elif mask_kind == "random":
            mask = torch.rand(*shape, generator=g) < 0.7
        elif mask_kind == "single":
            mask = torch.zeros(*shape, dtype=torch.bool)
            mask.view(-1)[int(torch.randint(0, mask.numel(), (1,), generator=g))] = True
        else:
            mask = torch.zeros(*shape, dtype=torch.bool)
        cases.append({"logits": logits, "targets": targets, "mask": mask,
                      "kwargs": {"alpha": alpha, "gamma": gamma, "reduction": red}, "with_grad": with_grad})
    torch.save(cases, out / "focal_cases.pt")


if __name__ == "__main__":
    main(sys.argv[1])
