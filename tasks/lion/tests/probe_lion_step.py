"""Probe for lion/1: Lion.step. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_lion_step.py add hand-checked values and the update rule's properties."""

from __future__ import annotations

from pathlib import Path

import torch

from lion.optimizer import Lion
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
TRAJ = torch.load(FIXTURES / "trajectories.pt", weights_only=True)
CLOSURE = torch.load(FIXTURES / "closure_run.pt", weights_only=True)
F64_TRAJ = sorted(n for n in TRAJ if TRAJ[n]["init"][0].dtype != torch.float32)
F32_TRAJ = sorted(n for n in TRAJ if TRAJ[n]["init"][0].dtype == torch.float32)


def tensor(x):
    """The candidate's value if it is a tensor, else a NaN scalar that fails every comparison (the harness
    cannot compare None or another object with the reference's array)."""
    return x if isinstance(x, torch.Tensor) else torch.tensor(float("nan"))


def replay(traj: dict) -> dict:
    """Run the optimizer over a fixture's gradients; every parameter and moving average after every step.

    The moving averages are compared in the check file (their tolerance scales with the reference's values)."""
    params = [p.clone().requires_grad_(True) for p in traj["init"]]
    opt = Lion([{"params": [params[i] for i in idx], **hp} for idx, hp in traj["groups"]])
    out = {}
    for t, step in enumerate(traj["steps"]):
        for p, g in zip(params, step["grads"]):
            p.grad = None if g is None else g.clone()
        out[f"step{t}.returned_none"] = opt.step() is None
        for i, p in enumerate(params):
            out[f"step{t}.param{i}"] = p.detach().clone()
            out[f"step{t}.has_state{i}"] = "exp_avg" in opt.state[p]
            if out[f"step{t}.has_state{i}"]:
                out[f"step{t}.exp_avg{i}"] = tensor(opt.state[p]["exp_avg"]).detach().clone()
    return out


def random_problem(seed: int, n: int = 3):
    gen = torch.Generator().manual_seed(seed)
    params = [torch.randn(4, 3, generator=gen, dtype=DT).requires_grad_(True) for _ in range(n)]
    grads = [[torch.randn(4, 3, generator=gen, dtype=DT) for _ in range(n)] for _ in range(6)]
    return params, grads


def run(params, grads, **hp):
    opt = Lion(params, **hp)
    history = []
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = g.clone()
        opt.step()
        history.append([p.detach().clone() for p in params])
    return opt, history


# ---------------------------------------------------------------- trajectories (the reference's outputs)


@case(params=F64_TRAJ, ids=F64_TRAJ, rtol=1e-12, atol=1e-12, outputs={"*.exp_avg*": {"compare": "none"}})
def trajectory_matches_reference(name):
    return replay(TRAJ[name])


@case(params=F32_TRAJ, ids=F32_TRAJ, rtol=1e-6, atol=1e-6, outputs={"*.exp_avg*": {"compare": "none"}})
def trajectory_matches_reference_f32(name):
    return replay(TRAJ[name])


# ---------------------------------------------------------------- by hand (check file)


@case(rtol=0, atol=1e-14)
def hand_computed_three_steps():
    p = torch.tensor([1.0], dtype=DT, requires_grad=True)
    opt = Lion([p], lr=0.1, betas=(0.9, 0.99), weight_decay=0.5)
    out = {}
    for t, g in enumerate((0.5, -0.2, 0.0)):
        p.grad = torch.tensor([g], dtype=DT)
        opt.step()
        out[f"theta{t + 1}"] = p.detach().clone()
        out[f"m{t + 1}"] = tensor(opt.state[p]["exp_avg"]).detach().clone()
    return out


# ---------------------------------------------------------------- properties (check file)


@case(compare="exact")
def every_coordinate_moves_by_exactly_lr_without_decay():
    params, grads = random_problem(0)
    before = [p.detach().clone() for p in params]
    _, history = run(params, grads[:1], lr=0.125, betas=(0.9, 0.99))
    return {"before": before, "grads": grads[0], "after": history[0]}


@case(rtol=1e-12, atol=1e-12)
def invariant_to_gradient_scale():
    params, grads = random_problem(1)
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    _, h1 = run(params, grads, lr=0.01, betas=(0.9, 0.99), weight_decay=0.3)
    _, h2 = run(params2, [[8.0 * g for g in gs] for gs in grads], lr=0.01, betas=(0.9, 0.99), weight_decay=0.3)
    return {"unscaled": h1, "scaled": h2}


@case(rtol=1e-12, atol=1e-12)
def beta1_zero_is_signsgd_with_decoupled_decay():
    params, grads = random_problem(2, n=1)
    start = params[0].detach().clone()
    _, history = run(params, grads, lr=0.02, betas=(0.0, 0.99), weight_decay=0.5)
    return {"start": start, "grads": [gs[0] for gs in grads], "history": [h[0] for h in history]}


@case(compare="exact")
def beta1_one_uses_only_the_previous_average():
    params, grads = random_problem(3, n=1)
    start = params[0].detach().clone()
    _, history = run(params, grads[:2], lr=0.05, betas=(1.0, 0.9))
    return {"start": start, "grad0": grads[0][0], "history": [h[0] for h in history]}


@case(rtol=1e-12, atol=1e-12)
def moving_average_uses_beta2():
    params, grads = random_problem(4, n=1)
    opt, _ = run(params, grads, lr=0.01, betas=(0.3, 0.8), weight_decay=0.1)
    return {"grads": [gs[0] for gs in grads], "exp_avg": tensor(opt.state[params[0]]["exp_avg"]).detach().clone()}


@case(rtol=0, atol=1e-15)
def zero_gradient_only_decays():
    p = torch.tensor([2.0, -4.0, 0.0], dtype=DT, requires_grad=True)
    opt = Lion([p], lr=0.1, weight_decay=0.25)
    p.grad = torch.zeros(3, dtype=DT)
    opt.step()
    return {"param": p.detach().clone(), "exp_avg": tensor(opt.state[p]["exp_avg"]).detach().clone()}


@case(compare="exact")
def parameters_without_gradient_are_untouched():
    a = torch.ones(3, dtype=DT, requires_grad=True)
    b = torch.ones(2, dtype=DT, requires_grad=True)
    opt = Lion([a, b], lr=0.1, weight_decay=1.0)
    a.grad = torch.tensor([1.0, -1.0, 2.0], dtype=DT)
    for _ in range(3):
        opt.step()
    return {"a": a.detach().clone(), "b": b.detach().clone(), "b_state_len": len(opt.state[b])}


@case(rtol=1e-12, atol=1e-12)
def closure_is_called_and_its_loss_returned():
    d = CLOSURE
    w = torch.zeros(3, dtype=DT, requires_grad=True)
    b = torch.zeros(1, dtype=DT, requires_grad=True)
    opt = Lion([w, b], lr=0.05, betas=(0.9, 0.99), weight_decay=0.2)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = ((d["x"] @ w + b - d["y"]) ** 2).mean()
        loss.backward()
        return loss

    out = {}
    for t in range(d["steps"]):
        loss = opt.step(closure)
        out[f"step{t}.calls"] = len(calls)
        out[f"step{t}.loss"] = tensor(loss).detach().clone()
        out[f"step{t}.w"] = w.detach().clone()
        out[f"step{t}.b"] = b.detach().clone()
    return out


@case(compare="exact")
def gradients_are_not_modified():
    params, grads = random_problem(5, n=2)
    opt = Lion(params, lr=0.01, weight_decay=0.5)
    for p, g in zip(params, grads[0]):
        p.grad = g.clone()
    opt.step()
    opt.step()
    return {"given": grads[0], "after": [tensor(p.grad).clone() for p in params]}
