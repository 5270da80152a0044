"""Regenerate tests/fixtures for the lion task.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of ``lion-lm/`` with the golden file applied.
Inputs only (initial parameters, gradients, hyper-parameters, least-squares data): the probe runs the
optimizer and the reference's outputs are stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

DT = torch.float64


def trajectory(seed: int, shapes, groups, n_steps: int, dtype=DT, grad_scale=1.0, skip=None, zero_frac=0.0):
    """Initial values and n_steps of random gradients for tensors of the given shapes.

    groups: list of (indices of params, hyper-parameter dict). skip: {step: set of param indices without grad}.
    """
    gen = torch.Generator().manual_seed(seed)
    init = [torch.randn(s, generator=gen, dtype=DT).to(dtype) for s in shapes]
    steps = []
    for t in range(n_steps):
        grads = []
        for i, p in enumerate(init):
            if skip and i in skip.get(t, ()):
                grads.append(None)
                continue
            g = torch.randn(p.shape, generator=gen, dtype=DT) * grad_scale * (0.5 + t)
            if zero_frac:
                g = torch.where(torch.rand(p.shape, generator=gen, dtype=DT) < zero_frac, torch.zeros_like(g), g)
            grads.append(g.to(dtype))
        steps.append({"grads": grads})
    return {"shapes": [list(s) for s in shapes], "groups": [(list(idx), hp) for idx, hp in groups],
            "dtype": str(dtype), "init": init, "steps": steps}


def closure_run() -> dict:
    """Least-squares data for the closure case (the probe minimises it with Lion and a closure)."""
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(16, 3, generator=gen, dtype=DT)
    y = x @ torch.tensor([1.5, -2.0, 0.5], dtype=DT) + 0.1 * torch.randn(16, generator=gen, dtype=DT)
    return {"x": x, "y": y, "steps": 12}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    trajectories = {
        "two_groups": trajectory(
            1, [(4, 3), (5,), (2, 2, 3)],
            [([0, 2], {"lr": 0.01, "betas": (0.9, 0.99), "weight_decay": 0.1}),
             ([1], {"lr": 0.003, "betas": (0.8, 0.95), "weight_decay": 0.0})], n_steps=8),
        "defaults": trajectory(2, [(6,)], [([0], {})], n_steps=5),
        "large_decay": trajectory(3, [(3, 3), (1,)], [([0, 1], {"lr": 0.1, "betas": (0.95, 0.98), "weight_decay": 1.5})],
                                  n_steps=6),
        "zeros_and_extremes": trajectory(4, [(5, 4)], [([0], {"lr": 0.02, "betas": (0.5, 0.9), "weight_decay": 0.3})],
                                         n_steps=6, grad_scale=1e20, zero_frac=0.3),
        "tiny_gradients": trajectory(5, [(7,)], [([0], {"lr": 0.02, "betas": (0.9, 0.99), "weight_decay": 0.0})],
                                     n_steps=4, grad_scale=1e-20),
        "missing_grads": trajectory(6, [(3,), (2, 2), (4,)],
                                    [([0, 1, 2], {"lr": 0.05, "betas": (0.7, 0.9), "weight_decay": 0.4})],
                                    n_steps=6, skip={0: {1}, 1: {2}, 3: {1, 2}}),
        "float32": trajectory(8, [(4, 4)], [([0], {"lr": 0.01, "betas": (0.9, 0.99), "weight_decay": 0.05})],
                              n_steps=5, dtype=torch.float32),
        "beta1_equals_beta2": trajectory(9, [(3, 2)], [([0], {"lr": 0.01, "betas": (0.9, 0.9), "weight_decay": 0.0})],
                                         n_steps=5),
    }
    torch.save(trajectories, out / "trajectories.pt")
    torch.save(closure_run(), out / "closure_run.pt")


if __name__ == "__main__":
    main(sys.argv[1])
