"""Regenerate tests/fixtures for the sophia task from the reference SophiaG.

Run as ``python make_fixtures.py OUT_DIR`` from a copy of ``sophia-gpt/`` with the golden file applied.
Inputs only (initial parameters, gradients, options): the reference's parameters, state and losses are computed by
the probe and stored outside the sandbox, in tests/expected/.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

from sophia.optimizer import SophiaG

DT = torch.float64


def trajectory(seed, shapes, groups, n_steps, k, batch_sizes, *, dtype=DT, g_scale=1.0, h_scale=2.0,
               skip=None, hess_skip=None):
    """Interleave step() and, every k steps, update_hessian(); record the gradients given to every call.

    skip / hess_skip: {step: set of param indices without a gradient at that step() / update_hessian()}.
    """
    gen = torch.Generator().manual_seed(seed)
    params = [torch.randn(s, generator=gen, dtype=DT).to(dtype).requires_grad_(True) for s in shapes]
    init = [p.detach().clone() for p in params]
    events = []

    def set_grads(scale, missing):
        grads = []
        for i, p in enumerate(params):
            if i in missing:
                p.grad = None
                grads.append(None)
            else:
                p.grad = (torch.randn(p.shape, generator=gen, dtype=DT) * scale).to(dtype)
                grads.append(p.grad.clone())
        return grads

    def snapshot(kind, grads, batch_size=None):
        events.append({"kind": kind, "batch_size": batch_size, "grads": grads})

    n_hess = 0
    for t in range(n_steps):
        grads = set_grads(g_scale, (skip or {}).get(t, set()))
        snapshot("step", grads)
        if t % k == k - 1:
            grads = set_grads(h_scale, (hess_skip or {}).get(t, set()))
            bs = batch_sizes[n_hess % len(batch_sizes)]
            n_hess += 1
            snapshot("hessian", grads, bs)
    return {"groups": [(list(idx), hp) for idx, hp in groups], "init": init, "events": events}


def closure_run() -> dict:
    """Least squares with a closure (and a Gauss-Newton-style Hessian from a second backward pass).

    Saves the data and the number of steps; runs the reference only to make sure the loss falls over the run
    (the old hidden test asserted it of the stored reference losses)."""
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(32, 4, generator=gen, dtype=DT)
    y = x @ torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=DT) + 0.1 * torch.randn(32, generator=gen, dtype=DT)
    w = torch.zeros(4, dtype=DT, requires_grad=True)
    opt = SophiaG([w], lr=0.1, betas=(0.9, 0.95), rho=0.05, weight_decay=0.01)
    losses = []
    for t in range(12):
        def closure():
            opt.zero_grad()
            loss = ((x @ w - y) ** 2).mean()
            loss.backward()
            return loss
        losses.append(opt.step(closure).detach().clone())
        if t % 2 == 1:
            opt.zero_grad()
            noise = torch.randn(32, generator=gen, dtype=DT)
            ((x @ w) * noise).mean().backward()  # gradient of a sampled-residual loss
            opt.update_hessian(32)
    if not losses[-1] < losses[0]:
        raise SystemExit("closure run: the reference's loss does not fall")
    return {"x": x, "y": y, "steps": len(losses)}


def main(out_dir: str) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    trajectories = {
        "two_groups": trajectory(
            1, [(4, 3), (5,), (2, 3, 2)],
            [([0, 2], {"lr": 0.01, "betas": (0.9, 0.95), "rho": 0.05, "weight_decay": 0.1, "eps": 1e-12}),
             ([1], {"lr": 0.02, "betas": (0.965, 0.99), "rho": 0.02, "weight_decay": 0.0})],
            n_steps=10, k=3, batch_sizes=(8, 16, 32)),
        "defaults": trajectory(2, [(6,)], [([0], {})], n_steps=8, k=2, batch_sizes=(64,), h_scale=0.5),
        "large_eps": trajectory(3, [(5, 4)], [([0], {"lr": 0.05, "betas": (0.8, 0.9), "rho": 0.1,
                                                     "weight_decay": 0.2, "eps": 0.05})],
                                n_steps=7, k=1, batch_sizes=(4, 2), g_scale=0.1, h_scale=0.3),
        "every_step": trajectory(4, [(3, 3)], [([0], {"lr": 0.03, "betas": (0.5, 0.6), "rho": 1.0,
                                                      "weight_decay": 0.5, "eps": 1e-9})],
                                 n_steps=6, k=1, batch_sizes=(3,), g_scale=1.0, h_scale=1.5),
        "no_hessian_yet": trajectory(5, [(7,)], [([0], {"lr": 0.01, "betas": (0.9, 0.99), "rho": 0.04,
                                                         "weight_decay": 0.1})],
                                     n_steps=4, k=100, batch_sizes=(1,)),
        "missing_grads": trajectory(6, [(3,), (2, 2), (4,)],
                                    [([0, 1, 2], {"lr": 0.05, "betas": (0.7, 0.9), "rho": 0.1,
                                                  "weight_decay": 0.3, "eps": 1e-10})],
                                    n_steps=8, k=2, batch_sizes=(5, 10),
                                    skip={0: {1}, 2: {2}, 5: {0, 1}}, hess_skip={1: {0}, 5: {2}}),
        "float32": trajectory(7, [(4, 4)], [([0], {"lr": 0.01, "betas": (0.9, 0.95), "rho": 0.05,
                                                   "weight_decay": 0.1})],
                              n_steps=6, k=2, batch_sizes=(16,), dtype=torch.float32),
    }
    torch.save(trajectories, out / "trajectories.pt")
    torch.save(closure_run(), out / "closure_run.pt")


if __name__ == "__main__":
    main(sys.argv[1])
