"""Regenerate tests/fixtures for the lion task from the reference Lion.step.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of ``lion-lm/`` with the golden file applied.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from lion.optimizer import Lion

DT = torch.float64


def trajectory(seed: int, shapes, groups, n_steps: int, dtype=DT, grad_scale=1.0, skip=None, zero_frac=0.0):
    """Run Lion for n_steps on tensors of the given shapes with random gradients; record everything.

    groups: list of (indices of params, hyper-parameter dict). skip: {step: set of param indices without grad}.
    """
    gen = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=gen, dtype=DT).to(dtype).requires_grad_(True) for s in shapes]
    init = [p.detach().clone() for p in params]
    opt = Lion([{"params": [params[i] for i in idx], **hp} for idx, hp in groups])
    steps = []
    for t in range(n_steps):
        grads = []
        for i, p in enumerate(params):
            if skip and i in skip.get(t, ()):
                p.grad = None
                grads.append(None)
                continue
            g = torch.randn(p.shape, generator=gen, dtype=DT) * grad_scale * (0.5 + t)
            if zero_frac:
                g = torch.where(torch.rand(p.shape, generator=gen, dtype=DT) < zero_frac, torch.zeros_like(g), g)
            p.grad = g.to(dtype)
            grads.append(p.grad.clone())
        opt.step()
        steps.append({
            "grads": grads,
            "params": [p.detach().clone() for p in params],
            "exp_avg": [opt.state[p]["exp_avg"].clone() if "exp_avg" in opt.state[p] else None for p in params],
        })
    return {"shapes": [list(s) for s in shapes], "groups": [(list(idx), hp) for idx, hp in groups],
            "dtype": str(dtype), "init": init, "steps": steps}


def closure_run() -> dict:
    """Least squares with a closure: checks the closure is called and its loss returned."""
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(16, 3, generator=gen, dtype=DT)
    y = x @ torch.tensor([1.5, -2.0, 0.5], dtype=DT) + 0.1 * torch.randn(16, generator=gen, dtype=DT)
    w = torch.zeros(3, dtype=DT, requires_grad=True)
    b = torch.zeros(1, dtype=DT, requires_grad=True)
    opt = Lion([w, b], lr=0.05, betas=(0.9, 0.99), weight_decay=0.2)
    losses, ws, bs = [], [], []
    for _ in range(12):
        def closure():
            opt.zero_grad()
            loss = ((x @ w + b - y) ** 2).mean()
            loss.backward()
            return loss
        losses.append(opt.step(closure).detach().clone())
        ws.append(w.detach().clone())
        bs.append(b.detach().clone())
    return {"x": x, "y": y, "losses": losses, "w": ws, "b": bs}


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
