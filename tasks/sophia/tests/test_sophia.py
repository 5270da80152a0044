"""Hidden tests for sophia/1: SophiaG.update_hessian and SophiaG.step."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from sophia.optimizer import SophiaG

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
TRAJ = torch.load(FIXTURES / "trajectories.pt", weights_only=True)
CLOSURE = torch.load(FIXTURES / "closure_run.pt", weights_only=True)


def close(a: torch.Tensor, b: torch.Tensor, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    torch.testing.assert_close(a, b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(TRAJ))
def test_trajectory_matches_reference(name: str) -> None:
    traj = TRAJ[name]
    params = [p.clone().requires_grad_(True) for p in traj["init"]]
    opt = SophiaG([{"params": [params[i] for i in idx], **hp} for idx, hp in traj["groups"]])
    f32 = params[0].dtype == torch.float32
    tol = 1e-6 if f32 else 1e-12
    for n, ev in enumerate(traj["events"]):
        for p, g in zip(params, ev["grads"]):
            p.grad = None if g is None else g.clone()
        if ev["kind"] == "step":
            assert opt.step() is None
        else:
            opt.update_hessian(ev["batch_size"])
        for i, p in enumerate(params):
            where = f"event {n} ({ev['kind']}), param {i}"
            close(p.detach(), ev["params"][i], rtol=tol, atol=tol)
            for key in ("exp_avg", "hessian"):
                ref = ev[key][i]
                if ref is None:
                    assert key not in opt.state[p], f"{where}: state created without a gradient"
                else:
                    got = opt.state[p][key]
                    assert got.shape == p.shape, where
                    scale = max(1.0, float(ref.abs().max()))
                    close(got, ref, rtol=tol, atol=tol * scale)


def test_hand_computed_steps() -> None:
    # lr = 0.1, betas = (0.5, 0.8), rho = 0.5, weight_decay = 0.2, eps = 1e-12, theta_0 = 1.
    # step g=2:     m = 0.5*2 = 1; h = 0 -> denominator eps -> clip(+huge) = 1; theta = 1*0.98 - 0.1 = 0.88.
    # hessian g^=1.5, B=4: h_hat = 4*2.25 = 9;  h = 0.2*9 = 1.8.
    # step g=-0.6:  m = 0.5 - 0.3 = 0.2; max(0.5*1.8, eps) = 0.9; ratio 0.2/0.9 (not clipped);
    #               theta = 0.88*0.98 - 0.1*0.2/0.9 = 0.8624 - 0.0222222... = 0.8401777777...
    # step g=-3:    m = 0.1 - 1.5 = -1.4; ratio -1.4/0.9 -> clipped to -1; theta = 0.84017777...*0.98 + 0.1
    #               = 0.9233742222...
    p = torch.tensor([1.0], dtype=DT, requires_grad=True)
    opt = SophiaG([p], lr=0.1, betas=(0.5, 0.8), rho=0.5, weight_decay=0.2, eps=1e-12)
    p.grad = torch.tensor([2.0], dtype=DT)
    opt.step()
    close(p.detach(), torch.tensor([0.88], dtype=DT), rtol=0, atol=1e-14)
    p.grad = torch.tensor([1.5], dtype=DT)
    opt.update_hessian(4)
    close(opt.state[p]["hessian"], torch.tensor([1.8], dtype=DT), rtol=0, atol=1e-14)
    h_after_update = opt.state[p]["hessian"].clone()
    close(p.detach(), torch.tensor([0.88], dtype=DT), rtol=0, atol=1e-14)
    p.grad = torch.tensor([-0.6], dtype=DT)
    opt.step()
    close(opt.state[p]["exp_avg"], torch.tensor([0.2], dtype=DT), rtol=0, atol=1e-14)
    close(p.detach(), torch.tensor([0.84017777777777778], dtype=DT), rtol=0, atol=1e-14)
    p.grad = torch.tensor([-3.0], dtype=DT)
    opt.step()
    close(opt.state[p]["exp_avg"], torch.tensor([-1.4], dtype=DT), rtol=0, atol=1e-14)
    close(p.detach(), torch.tensor([0.92337422222222222], dtype=DT), rtol=0, atol=1e-14)
    assert torch.equal(opt.state[p]["hessian"], h_after_update)  # step never touches h


def fresh(seed: int, shape=(5, 4), **hp):
    gen = torch.Generator().manual_seed(seed)
    p = torch.randn(shape, generator=gen, dtype=DT).requires_grad_(True)
    return p, SophiaG([p], **hp), gen


def test_without_curvature_the_update_is_sign_momentum() -> None:
    # h = 0 (no Hessian estimate yet): max(rho*h, eps) = eps, every ratio is clipped: -lr * sign(m).
    p, opt, gen = fresh(0, lr=0.02, betas=(0.9, 0.99), rho=0.04, weight_decay=0.5)
    m = torch.zeros_like(p)
    for _ in range(4):
        g = torch.randn(p.shape, generator=gen, dtype=DT)
        before = p.detach().clone()
        p.grad = g
        opt.step()
        m = 0.9 * m + 0.1 * g
        close(p.detach(), before * (1 - 0.02 * 0.5) - 0.02 * m.sign())


def test_large_curvature_gives_the_unclipped_newton_step() -> None:
    # With a large h every ratio is inside (-1, 1) and the step is exactly -lr * m / (rho * h).
    p, opt, gen = fresh(1, lr=0.05, betas=(0.5, 0.7), rho=0.1, weight_decay=0.0)
    p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * 10
    opt.update_hessian(100)  # h = 0.3 * 100 * g_hat^2, large
    h = opt.state[p]["hessian"].clone()
    close(h, 0.3 * 100 * p.grad**2)
    g = torch.randn(p.shape, generator=gen, dtype=DT) * 0.01
    before = p.detach().clone()
    p.grad = g
    opt.step()
    m = 0.5 * g
    assert torch.all((m / (0.1 * h)).abs() < 1)
    close(p.detach(), before - 0.05 * m / (0.1 * h))


def test_each_coordinate_moves_at_most_lr_beyond_the_decay() -> None:
    p, opt, gen = fresh(2, shape=(50,), lr=0.01, betas=(0.9, 0.95), rho=0.05, weight_decay=0.3)
    for t in range(8):
        before = p.detach().clone()
        p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * 3
        opt.step()
        step = p.detach() - before * (1 - 0.01 * 0.3)
        assert float(step.abs().max()) <= 0.01 * (1 + 1e-12)
        if t % 2 == 1:
            p.grad = torch.randn(p.shape, generator=gen, dtype=DT) * 2
            opt.update_hessian(8)
    # both regimes occurred on this run: some coordinates at the bound, some strictly inside
    assert float(step.abs().max()) == pytest.approx(0.01, rel=1e-12)
    assert float(step.abs().min()) < 0.01 * 0.99


def test_eps_is_a_floor_not_an_offset() -> None:
    # rho*h above eps: ratio m/(rho*h); below eps: ratio m/eps (max, not rho*h + eps).
    p = torch.zeros(2, dtype=DT, requires_grad=True)
    opt = SophiaG([p], lr=1.0, betas=(0.0, 0.0), rho=1.0, weight_decay=0.0, eps=0.1)
    p.grad = torch.tensor([2.0, 0.1], dtype=DT)
    opt.update_hessian(1)  # beta2 = 0: h = 1 * g^2 = [4, 0.01]
    close(opt.state[p]["hessian"], torch.tensor([4.0, 0.01], dtype=DT))
    p.grad = torch.tensor([0.4, 0.05], dtype=DT)
    opt.step()  # beta1 = 0: m = g. ratios: 0.4/max(4, 0.1) = 0.1 and 0.05/max(0.01, 0.1) = 0.5
    close(p.detach(), torch.tensor([-0.1, -0.5], dtype=DT), rtol=0, atol=1e-15)


def test_gnb_scaling_and_hessian_moving_average() -> None:
    p, opt, gen = fresh(3, lr=0.01, betas=(0.9, 0.75), rho=0.05)
    h = torch.zeros_like(p)
    for bs in (1, 7, 32):
        g_hat = torch.randn(p.shape, generator=gen, dtype=DT)
        p.grad = g_hat
        before = p.detach().clone()
        opt.update_hessian(bs)
        h = 0.75 * h + 0.25 * bs * g_hat * g_hat
        close(opt.state[p]["hessian"], h)
        assert torch.equal(p.detach(), before)
        assert torch.equal(p.grad, g_hat)
        assert torch.count_nonzero(opt.state[p]["exp_avg"]) == 0


def test_invariant_to_loss_scale_with_rescaled_rho_and_eps() -> None:
    # g -> s g and g_hat -> s g_hat give m -> s m and h -> s^2 h; with rho -> rho/s and eps -> s eps the
    # updates are unchanged (s = 4 keeps the arithmetic exact).
    runs = []
    for s in (1.0, 4.0):
        p, opt, _ = fresh(4, lr=0.02, betas=(0.8, 0.9), rho=0.08 / s, weight_decay=0.1, eps=1e-3 * s)
        gen = torch.Generator().manual_seed(40)
        for t in range(6):
            p.grad = s * torch.randn(p.shape, generator=gen, dtype=DT)
            opt.step()
            if t % 2 == 0:
                p.grad = s * torch.randn(p.shape, generator=gen, dtype=DT) * 0.7
                opt.update_hessian(16)
        runs.append(p.detach().clone())
    close(runs[0], runs[1], rtol=1e-14, atol=1e-15)


def test_parameters_without_gradient_are_untouched() -> None:
    a = torch.ones(3, dtype=DT, requires_grad=True)
    b = torch.ones(2, dtype=DT, requires_grad=True)
    opt = SophiaG([a, b], lr=0.1, weight_decay=1.0)
    for _ in range(3):
        a.grad = torch.tensor([1.0, -1.0, 2.0], dtype=DT)
        opt.step()
        opt.update_hessian(4)
    assert torch.equal(b.detach(), torch.ones(2, dtype=DT))
    assert len(opt.state[b]) == 0


def test_closure_is_called_and_its_loss_returned() -> None:
    d = CLOSURE
    w = torch.zeros(4, dtype=DT, requires_grad=True)
    opt = SophiaG([w], lr=0.1, betas=(0.9, 0.95), rho=0.05, weight_decay=0.01)
    gen = torch.Generator().manual_seed(11)
    torch.randn(32, 4, generator=gen, dtype=DT)  # replay the generator as in make_fixtures
    torch.randn(32, generator=gen, dtype=DT)
    for t in range(len(d["losses"])):
        def closure():
            opt.zero_grad()
            loss = ((d["x"] @ w - d["y"]) ** 2).mean()
            loss.backward()
            return loss
        loss = opt.step(closure)
        close(loss.detach(), d["losses"][t])
        close(w.detach(), d["w"][t])
        if t % 2 == 1:
            opt.zero_grad()
            noise = torch.randn(32, generator=gen, dtype=DT)
            ((d["x"] @ w) * noise).mean().backward()
            opt.update_hessian(32)
    assert d["losses"][-1] < d["losses"][0]
