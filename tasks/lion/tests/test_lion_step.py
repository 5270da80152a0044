"""Hidden tests for lion/1: Lion.step."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from lion.optimizer import Lion

FIXTURES = Path(__file__).parent / "fixtures"
DT = torch.float64
TRAJ = torch.load(FIXTURES / "trajectories.pt", weights_only=True)
CLOSURE = torch.load(FIXTURES / "closure_run.pt", weights_only=True)


def close(a: torch.Tensor, b: torch.Tensor, rtol: float = 1e-12, atol: float = 1e-12) -> None:
    torch.testing.assert_close(a, b, rtol=rtol, atol=atol)


def replay(traj: dict):
    params = [p.clone().requires_grad_(True) for p in traj["init"]]
    opt = Lion([{"params": [params[i] for i in idx], **hp} for idx, hp in traj["groups"]])
    for step in traj["steps"]:
        for p, g in zip(params, step["grads"]):
            p.grad = None if g is None else g.clone()
        yield params, opt, step


@pytest.mark.parametrize("name", sorted(TRAJ))
def test_trajectory_matches_reference(name: str) -> None:
    traj = TRAJ[name]
    f32 = traj["init"][0].dtype == torch.float32
    tol = dict(rtol=1e-6, atol=1e-6) if f32 else {}
    for t, (params, opt, step) in enumerate(replay(traj)):
        assert opt.step() is None
        for i, p in enumerate(params):
            close(p.detach(), step["params"][i], **tol)
            if step["exp_avg"][i] is None:
                assert "exp_avg" not in opt.state[p], f"param {i} has state before its first gradient"
            else:
                m = opt.state[p]["exp_avg"]
                assert m.shape == p.shape and m.dtype == p.dtype
                scale = max(1.0, float(step["exp_avg"][i].abs().max()))
                close(m, step["exp_avg"][i], rtol=tol.get("rtol", 1e-12), atol=tol.get("atol", 1e-12) * scale)


def test_hand_computed_three_steps() -> None:
    # lr = 0.1, beta1 = 0.9, beta2 = 0.99, weight_decay = 0.5, theta_0 = 1, m_0 = 0.
    # t=1, g=0.5:  c = 0.1*0.5 = 0.05 > 0;  theta = 1*(1 - 0.05) - 0.1 = 0.85;  m = 0.01*0.5 = 0.005.
    # t=2, g=-0.2: c = 0.9*0.005 - 0.02 = -0.0155 < 0;  theta = 0.85*0.95 + 0.1 = 0.9075;
    #              m = 0.99*0.005 - 0.002 = 0.00295.
    # t=3, g=0.0:  c = 0.9*0.00295 = 0.002655 > 0;  theta = 0.9075*0.95 - 0.1 = 0.762125;  m = 0.0029205.
    p = torch.tensor([1.0], dtype=DT, requires_grad=True)
    opt = Lion([p], lr=0.1, betas=(0.9, 0.99), weight_decay=0.5)
    expected = [(0.85, 0.005), (0.9075, 0.00295), (0.762125, 0.0029205)]
    for g, (theta, m) in zip((0.5, -0.2, 0.0), expected):
        p.grad = torch.tensor([g], dtype=DT)
        opt.step()
        close(p.detach(), torch.tensor([theta], dtype=DT), rtol=0, atol=1e-14)
        close(opt.state[p]["exp_avg"], torch.tensor([m], dtype=DT), rtol=0, atol=1e-14)


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


def test_every_coordinate_moves_by_exactly_lr_without_decay() -> None:
    params, grads = random_problem(0)
    before = [p.detach().clone() for p in params]
    opt, history = run(params, grads[:1], lr=0.125, betas=(0.9, 0.99))
    for p0, p1, g in zip(before, history[0], grads[0]):
        # first step: m = 0, so c = (1 - beta1) g and the update is -lr * sign(g)
        close(p1, p0 - 0.125 * g.sign(), rtol=0, atol=0)


def test_invariant_to_gradient_scale() -> None:
    # sign(c) does not change when every gradient is multiplied by s > 0 (a power of two keeps it exact).
    params, grads = random_problem(1)
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    _, h1 = run(params, grads, lr=0.01, betas=(0.9, 0.99), weight_decay=0.3)
    opt2, h2 = run(params2, [[8.0 * g for g in gs] for gs in grads], lr=0.01, betas=(0.9, 0.99), weight_decay=0.3)
    for a, b in zip(h1, h2):
        for x, y in zip(a, b):
            assert torch.equal(x, y)


def test_beta1_zero_is_signsgd_with_decoupled_decay() -> None:
    params, grads = random_problem(2, n=1)
    prev = params[0].detach().clone()
    _, history = run(params, grads, lr=0.02, betas=(0.0, 0.99), weight_decay=0.5)
    for gs, cur in zip(grads, history):
        close(cur[0], prev * (1 - 0.02 * 0.5) - 0.02 * gs[0].sign())
        prev = cur[0]


def test_beta1_one_uses_only_the_previous_average() -> None:
    # beta1 = 1: c_t = m_{t-1}. The first step has m_0 = 0, so nothing moves; the second moves by -lr*sign(g_1).
    params, grads = random_problem(3, n=1)
    start = params[0].detach().clone()
    _, history = run(params, grads[:2], lr=0.05, betas=(1.0, 0.9))
    close(history[0][0], start, rtol=0, atol=0)
    close(history[1][0], start - 0.05 * grads[0][0].sign(), rtol=0, atol=0)


def test_moving_average_uses_beta2() -> None:
    # m_t = sum_k (1 - beta2) beta2^(t-k) g_k  (geometric average with beta2, independent of beta1).
    params, grads = random_problem(4, n=1)
    opt, _ = run(params, grads, lr=0.01, betas=(0.3, 0.8), weight_decay=0.1)
    t = len(grads)
    expected = sum((1 - 0.8) * 0.8 ** (t - 1 - k) * gs[0] for k, gs in enumerate(grads))
    close(opt.state[params[0]]["exp_avg"], expected)


def test_zero_gradient_only_decays() -> None:
    p = torch.tensor([2.0, -4.0, 0.0], dtype=DT, requires_grad=True)
    opt = Lion([p], lr=0.1, weight_decay=0.25)
    p.grad = torch.zeros(3, dtype=DT)
    opt.step()  # sign(0) = 0: only the decay acts, theta * (1 - 0.025)
    close(p.detach(), torch.tensor([1.95, -3.9, 0.0], dtype=DT), rtol=0, atol=1e-15)
    assert torch.count_nonzero(opt.state[p]["exp_avg"]) == 0


def test_parameters_without_gradient_are_untouched() -> None:
    a = torch.ones(3, dtype=DT, requires_grad=True)
    b = torch.ones(2, dtype=DT, requires_grad=True)
    opt = Lion([a, b], lr=0.1, weight_decay=1.0)
    a.grad = torch.tensor([1.0, -1.0, 2.0], dtype=DT)
    for _ in range(3):
        opt.step()
    assert torch.equal(b.detach(), torch.ones(2, dtype=DT))  # no weight decay without a gradient
    assert len(opt.state[b]) == 0


def test_closure_is_called_and_its_loss_returned() -> None:
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

    for t in range(len(d["losses"])):
        loss = opt.step(closure)
        assert len(calls) == t + 1
        close(loss.detach(), d["losses"][t])
        close(w.detach(), d["w"][t])
        close(b.detach(), d["b"][t])
    assert d["losses"][-1] < d["losses"][0]


def test_gradients_are_not_modified() -> None:
    params, grads = random_problem(5, n=2)
    opt = Lion(params, lr=0.01, weight_decay=0.5)
    for p, g in zip(params, grads[0]):
        p.grad = g.clone()
    opt.step()
    opt.step()
    for p, g in zip(params, grads[0]):
        assert torch.equal(p.grad, g)
