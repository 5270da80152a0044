"""Probe for sophia/1: SophiaG.update_hessian and SophiaG.step (sophia/optimizer.py). Runs in the sandbox; emits
outputs only, never compares.

The trajectories and the closure run are compared with the reference's outputs (tests/expected/, outside the
sandbox) at the old tolerances; the optimizer state of the trajectories (whose old tolerance scaled with the
reference's values), the hand-computed steps and the properties are judged by the trusted checks in
check_sophia.py. Random gradients are emitted too (compared with the reference's exactly) when a check needs them."""

from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from sophia.optimizer import SophiaG

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
TRAJ = torch.load(FIXTURES / "trajectories.pt", weights_only=True)
CLOSURE = torch.load(FIXTURES / "closure_run.pt", weights_only=True)
F32 = [n for n in sorted(TRAJ) if TRAJ[n]["init"][0].dtype == torch.float32]
F64 = [n for n in sorted(TRAJ) if n not in F32]
STATE_ONLY_CHECKS = {"e*.state*": {"compare": "none"}}
EXACT = {"compare": "exact"}


def _state(opt, p, i: int, n: int) -> dict:
    """Which state entries exist for parameter i after event n, and their values (reading, as the old test did)."""
    out = {}
    for key in ("exp_avg", "hessian"):
        present = key in opt.state[p]
        out[f"e{n}.has{i}.{key}"] = present
        if present:
            out[f"e{n}.state{i}.{key}"] = opt.state[p][key]
    return out


def trajectory(name: str) -> dict:
    traj = TRAJ[name]
    params = [p.clone().requires_grad_(True) for p in traj["init"]]
    opt = SophiaG([{"params": [params[i] for i in idx], **hp} for idx, hp in traj["groups"]])
    out = {}
    for n, ev in enumerate(traj["events"]):
        for p, g in zip(params, ev["grads"]):
            p.grad = None if g is None else g.clone()
        if ev["kind"] == "step":
            out[f"e{n}.returned_none"] = opt.step() is None
        else:
            opt.update_hessian(ev["batch_size"])
        for i, p in enumerate(params):
            out[f"e{n}.p{i}"] = p.detach().clone()
            out.update(_state(opt, p, i, n))
    return out


case(name="trajectory_matches_reference", params=F64, ids=F64, rtol=1e-12, atol=1e-12,
     outputs=STATE_ONLY_CHECKS)(trajectory)
case(name="trajectory_matches_reference", params=F32, ids=F32, rtol=1e-6, atol=1e-6,
     outputs=STATE_ONLY_CHECKS)(trajectory)


# ---------------------------------------------------------------- values computed by hand (check file)


@case(compare="none")
def hand_computed_steps():
    p = torch.tensor([1.0], dtype=DT, requires_grad=True)
    opt = SophiaG([p], lr=0.1, betas=(0.5, 0.8), rho=0.5, weight_decay=0.2, eps=1e-12)
    out = {}
    p.grad = torch.tensor([2.0], dtype=DT)
    opt.step()
    out["p1"] = p.detach().clone()
    p.grad = torch.tensor([1.5], dtype=DT)
    opt.update_hessian(4)
    out["h_after_update"] = opt.state[p]["hessian"].clone()
    out["p_after_update"] = p.detach().clone()
    p.grad = torch.tensor([-0.6], dtype=DT)
    opt.step()
    out["m2"], out["p2"] = opt.state[p]["exp_avg"].clone(), p.detach().clone()
    p.grad = torch.tensor([-3.0], dtype=DT)
    opt.step()
    out["m3"], out["p3"] = opt.state[p]["exp_avg"].clone(), p.detach().clone()
    out["h_final"] = opt.state[p]["hessian"].clone()
    return out


# ---------------------------------------------------------------- properties (check file)


def fresh(seed: int, shape=(5, 4), **hp):
    gen = torch.Generator().manual_seed(seed)
    p = torch.randn(shape, generator=gen, dtype=DT).requires_grad_(True)
    return p, SophiaG([p], **hp), gen


@case(compare="none", outputs={"g*": EXACT})
def without_curvature_the_update_is_sign_momentum():
    p, opt, gen = fresh(0, lr=0.02, betas=(0.9, 0.99), rho=0.04, weight_decay=0.5)
    out = {}
    for t in range(4):
        g = torch.randn(p.shape, generator=gen, dtype=DT)
        out[f"g{t}"] = g.clone()
        out[f"before{t}"] = p.detach().clone()
        p.grad = g
        opt.step()
        out[f"after{t}"] = p.detach().clone()
    return out


@case(compare="none", outputs={"g*": EXACT})
def large_curvature_gives_the_unclipped_newton_step():
    p, opt, gen = fresh(1, lr=0.05, betas=(0.5, 0.7), rho=0.1, weight_decay=0.0)
    p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * 10
    g_hat = p.grad.clone()
    opt.update_hessian(100)  # h = 0.3 * 100 * g_hat^2, large
    h = opt.state[p]["hessian"].clone()
    g = torch.randn(p.shape, generator=gen, dtype=DT) * 0.01
    before = p.detach().clone()
    p.grad = g
    opt.step()
    return {"g_hat": g_hat, "h": h, "g": g.clone(), "before": before, "after": p.detach().clone()}


@case(compare="none")
def each_coordinate_moves_at_most_lr_beyond_the_decay():
    p, opt, gen = fresh(2, shape=(50,), lr=0.01, betas=(0.9, 0.95), rho=0.05, weight_decay=0.3)
    out = {}
    for t in range(8):
        out[f"before{t}"] = p.detach().clone()
        p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * 3
        opt.step()
        out[f"after{t}"] = p.detach().clone()
        if t % 2 == 1:
            p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * 2
            opt.update_hessian(8)
    return out


@case(compare="none")
def eps_is_a_floor_not_an_offset():
    p = torch.zeros(2, dtype=DT, requires_grad=True)
    opt = SophiaG([p], lr=1.0, betas=(0.0, 0.0), rho=1.0, weight_decay=0.0, eps=0.1)
    p.grad = torch.tensor([2.0, 0.1], dtype=DT)
    opt.update_hessian(1)  # beta2 = 0: h = 1 * g^2
    h = opt.state[p]["hessian"].clone()
    p.grad = torch.tensor([0.4, 0.05], dtype=DT)
    opt.step()  # beta1 = 0: m = g
    return {"h": h, "p": p.detach().clone()}


@case(compare="none", outputs={"g_hat*": EXACT})
def gnb_scaling_and_hessian_moving_average():
    p, opt, gen = fresh(3, lr=0.01, betas=(0.9, 0.75), rho=0.05)
    out = {}
    for bs in (1, 7, 32):
        g_hat = torch.randn(p.shape, generator=gen, dtype=DT)
        out[f"g_hat{bs}"] = g_hat.clone()
        p.grad = g_hat
        out[f"before{bs}"] = p.detach().clone()
        opt.update_hessian(bs)
        out[f"hessian{bs}"] = opt.state[p]["hessian"].clone()
        out[f"after{bs}"] = p.detach().clone()
        out[f"grad{bs}"] = p.grad.clone()
        out[f"exp_avg{bs}"] = opt.state[p]["exp_avg"].clone()
    return out


@case(compare="none")
def invariant_to_loss_scale_with_rescaled_rho_and_eps():
    out = {}
    for s in (1.0, 4.0):
        p, opt, _ = fresh(4, lr=0.02, betas=(0.8, 0.9), rho=0.08 / s, weight_decay=0.1, eps=1e-3 * s)
        gen = torch.Generator().manual_seed(40)
        for t in range(6):
            p.grad = s * torch.randn(p.shape, generator=gen, dtype=DT)
            opt.step()
            if t % 2 == 0:
                p.grad = s * torch.randn(p.shape, generator=gen, dtype=DT) * 0.7
                opt.update_hessian(16)
        out[f"s{int(s)}"] = p.detach().clone()
    return out


@case(compare="none")
def parameters_without_gradient_are_untouched():
    a = torch.ones(3, dtype=DT, requires_grad=True)
    b = torch.ones(2, dtype=DT, requires_grad=True)
    opt = SophiaG([a, b], lr=0.1, weight_decay=1.0)
    for _ in range(3):
        a.grad = torch.tensor([1.0, -1.0, 2.0], dtype=DT)
        opt.step()
        opt.update_hessian(4)
    return {"b": b.detach().clone(), "b_state_entries": len(opt.state[b])}


@case(rtol=1e-12, atol=1e-12)
def closure_is_called_and_its_loss_returned():
    d = CLOSURE
    w = torch.zeros(4, dtype=DT, requires_grad=True)
    opt = SophiaG([w], lr=0.1, betas=(0.9, 0.95), rho=0.05, weight_decay=0.01)
    gen = torch.Generator().manual_seed(11)
    torch.randn(32, 4, generator=gen, dtype=DT)  # replay the generator as in make_fixtures
    torch.randn(32, generator=gen, dtype=DT)
    out = {}
    for t in range(d["steps"]):
        def closure():
            opt.zero_grad()
            loss = ((d["x"] @ w - d["y"]) ** 2).mean()
            loss.backward()
            return loss
        loss = opt.step(closure)
        out[f"loss{t}"] = loss.detach()
        out[f"loss{t}.shape"] = tuple(loss.shape)  # the probe runner sends a 0-d tensor as shape [1]
        out[f"w{t}"] = w.detach().clone()
        if t % 2 == 1:
            opt.zero_grad()
            noise = torch.randn(32, generator=gen, dtype=DT)
            ((d["x"] @ w) * noise).mean().backward()
            opt.update_hessian(32)
    return out
