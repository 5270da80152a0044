"""Hidden tests for dpo/1: `dpo_loss` in dpo/losses.py."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from dpo.losses import dpo_loss

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "dpo_loss_cases.pt", weights_only=True)


def tol(dtype: torch.dtype) -> dict:
    return dict(rtol=1e-9, atol=1e-10) if dtype == torch.float64 else dict(rtol=1e-4, atol=1e-4)


def assert_close(got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float, what: str = "") -> None:
    """|got - want| <= atol + rtol * |want| elementwise, same shape (torch.testing is slow to import)."""
    assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got)}"
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    got, want = got.detach().to(torch.float64), want.detach().to(torch.float64)
    ok = torch.isclose(got, want, rtol=rtol, atol=atol)
    if not bool(ok.all()):
        bad = (~ok).nonzero()[0].tolist()
        raise AssertionError(f"{what}: {int((~ok).sum())} mismatched values, e.g. at {bad}: got {got[tuple(bad)].item()!r}, want {want[tuple(bad)].item()!r}")


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def call(case: dict, inputs=None):
    return dpo_loss(
        *(inputs if inputs is not None else case["inputs"]),
        beta=case["beta"],
        label_smoothing=case["label_smoothing"],
        loss_type=case["loss_type"],
    )


def case_id(i: int) -> str:
    c = CASES[i]
    return f"{i}-{c['loss_type']}-b{c['beta']}-ls{c['label_smoothing']}-n{c['inputs'][0].numel()}-{str(c['inputs'][0].dtype)[6:]}"


# ---------------------------------------------------------------- differential (reference fixtures)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_matches_reference(i):
    case = CASES[i]
    dtype = case["inputs"][0].dtype
    losses, chosen_rewards, rejected_rewards = call(case)
    for name, got in (("losses", losses), ("chosen_rewards", chosen_rewards), ("rejected_rewards", rejected_rewards)):
        want = case[name]
        assert got.shape == want.shape, f"{name}: shape {tuple(got.shape)} != {tuple(want.shape)} (no reduction)"
        assert got.dtype == dtype, f"{name}: dtype {got.dtype} != input dtype {dtype}"
        assert torch.isfinite(got).all(), f"{name}: non-finite values"
        assert_close(got, want, **tol(dtype), what=name)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_gradients_match_reference(i):
    case = CASES[i]
    dtype = case["inputs"][0].dtype
    pol_c, pol_r, ref_c, ref_r = (x.clone() for x in case["inputs"])
    pol_c.requires_grad_(True)
    pol_r.requires_grad_(True)
    losses, _, _ = call(case, (pol_c, pol_r, ref_c, ref_r))
    grad_c, grad_r = torch.autograd.grad(losses.sum(), (pol_c, pol_r))
    assert_close(grad_c, case["grad_policy_chosen"], **tol(dtype))
    assert_close(grad_r, case["grad_policy_rejected"], **tol(dtype))


# ---------------------------------------------------------------- values checked by hand


def test_hand_checked_values():
    # One pair: log pi(y_w)=-1, log pi(y_l)=-3, log pi_ref(y_w)=log pi_ref(y_l)=-2, beta=0.5.
    # chosen log-ratio = +1, rejected log-ratio = -1, margin h = 2, beta*h = 1.
    # DPO: -log sigmoid(1) = log(1 + e^-1) = 0.31326168751822286.
    # rewards: 0.5 * (+1) = 0.5 and 0.5 * (-1) = -0.5.
    args = (t(-1.0), t(-3.0), t(-2.0), t(-2.0))
    losses, rc, rr = dpo_loss(*args, beta=0.5)
    assert losses.item() == pytest.approx(0.31326168751822286, rel=1e-12)
    assert rc.item() == pytest.approx(0.5, rel=1e-12)
    assert rr.item() == pytest.approx(-0.5, rel=1e-12)
    # conservative DPO, eps=0.25: 0.75*log(1+e^-1) + 0.25*log(1+e^1)
    #   = 0.75*a + 0.25*(1 + a) with a = 0.31326168751822286  ->  a + 0.25 = 0.56326168751822286
    losses, _, _ = dpo_loss(*args, beta=0.5, label_smoothing=0.25)
    assert losses.item() == pytest.approx(0.56326168751822286, rel=1e-12)
    # IPO: (h - 1/(2 beta))^2; beta=0.5 -> (2 - 1)^2 = 1; beta=0.25 -> (2 - 2)^2 = 0; beta=1 -> 1.5^2 = 2.25
    assert dpo_loss(*args, beta=0.5, loss_type="ipo")[0].item() == pytest.approx(1.0, rel=1e-12)
    assert dpo_loss(*args, beta=0.25, loss_type="ipo")[0].item() == pytest.approx(0.0, abs=1e-12)
    assert dpo_loss(*args, beta=1.0, loss_type="ipo")[0].item() == pytest.approx(2.25, rel=1e-12)


def test_policy_equal_to_reference_gives_log_two():
    # h = 0 for every pair: -log sigmoid(0) = log 2 whatever beta and eps; rewards are 0.
    g = torch.Generator().manual_seed(0)
    ref_c, ref_r = -10 * torch.rand(2, 7, generator=g, dtype=torch.float64)
    for beta, eps in ((0.1, 0.0), (3.0, 0.3)):
        losses, rc, rr = dpo_loss(ref_c.clone(), ref_r.clone(), ref_c, ref_r, beta=beta, label_smoothing=eps)
        assert_close(losses, torch.full((7,), math.log(2.0), dtype=torch.float64), rtol=1e-12, atol=1e-12)
        assert torch.all(rc == 0) and torch.all(rr == 0)
    # IPO at h = 0: (0 - 1/(2*0.1))^2 = 25
    losses, _, _ = dpo_loss(ref_c.clone(), ref_r.clone(), ref_c, ref_r, beta=0.1, loss_type="ipo")
    assert_close(losses, torch.full((7,), 25.0, dtype=torch.float64), rtol=1e-12, atol=1e-12)


def test_extreme_margins_are_stable():
    # beta*h = -1000: -log sigmoid(-1000) = 1000 + log(1 + e^-1000) = 1000 (to double precision);
    # beta*h = +1000: -log sigmoid(1000) = log(1 + e^-1000) ~ 0.
    args = (t(-1.0, -2001.0), t(-2001.0, -1.0), t(-1001.0, -1001.0), t(-1001.0, -1001.0))
    losses, rc, rr = dpo_loss(*args, beta=1.0)
    assert torch.isfinite(losses).all()
    assert_close(losses, t(0.0, 2000.0), rtol=1e-12, atol=1e-12)
    # with eps = 0.1 the saturated pair costs eps*|beta*h|: 0.1*2000 = 200; the other 0.9*2000 = 1800
    losses, _, _ = dpo_loss(*args, beta=1.0, label_smoothing=0.1)
    assert_close(losses, t(200.0, 1800.0), rtol=1e-12, atol=1e-12)
    # gradient of the saturated wrong pair is exactly -beta / +beta (sigmoid(-beta h) = 1)
    pc = args[0].clone().requires_grad_(True)
    losses, _, _ = dpo_loss(pc, args[1], args[2], args[3], beta=1.0)
    (grad,) = torch.autograd.grad(losses.sum(), pc)
    assert_close(grad, t(0.0, -1.0), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- properties from the paper


def random_pairs(batch: int = 11, seed: int = 1):
    g = torch.Generator().manual_seed(seed)
    ref = -(1 + 40 * torch.rand(2, batch, generator=g, dtype=torch.float64))
    pol = ref + 3 * torch.randn(2, batch, generator=g, dtype=torch.float64)
    return pol[0], pol[1], ref[0], ref[1]


@pytest.mark.parametrize("loss_type", ["sigmoid", "ipo"])
def test_loss_depends_only_on_log_ratios(loss_type):
    # Adding c to log pi(y) and log pi_ref(y) of the same response leaves log(pi/pi_ref) and so
    # everything unchanged; adding one constant to the policy's two responses (or the reference's)
    # leaves the margin unchanged too.
    pc, pr, rc, rr = random_pairs()
    base = dpo_loss(pc, pr, rc, rr, beta=0.3, label_smoothing=0.1, loss_type=loss_type)
    c = torch.linspace(-5, 5, pc.numel(), dtype=torch.float64)
    shifted = dpo_loss(pc + c, pr, rc + c, rr, beta=0.3, label_smoothing=0.1, loss_type=loss_type)
    for a, b in zip(base, shifted):
        assert_close(a, b, rtol=1e-9, atol=1e-9)
    losses_shift, _, _ = dpo_loss(pc + 7.0, pr + 7.0, rc, rr, beta=0.3, label_smoothing=0.1, loss_type=loss_type)
    assert_close(losses_shift, base[0], rtol=1e-9, atol=1e-9)


def test_swapping_chosen_and_rejected():
    # With margin h: -log s(bh) - (-log s(-bh)) = -bh, and with smoothing eps the difference is -(1-2 eps) b h.
    pc, pr, rc, rr = random_pairs(seed=2)
    h = (pc - rc) - (pr - rr)
    for beta, eps in ((0.2, 0.0), (0.7, 0.2)):
        fwd, c1, r1 = dpo_loss(pc, pr, rc, rr, beta=beta, label_smoothing=eps)
        rev, c2, r2 = dpo_loss(pr, pc, rr, rc, beta=beta, label_smoothing=eps)
        assert_close(fwd - rev, -(1 - 2 * eps) * beta * h, rtol=1e-9, atol=1e-9)
        assert_close(c1, r2, rtol=1e-12, atol=1e-12)
        assert_close(r1, c2, rtol=1e-12, atol=1e-12)
    # eps = 0.5: the labels carry no information, the loss is symmetric in h
    fwd, _, _ = dpo_loss(pc, pr, rc, rr, beta=0.4, label_smoothing=0.5)
    rev, _, _ = dpo_loss(pr, pc, rr, rc, beta=0.4, label_smoothing=0.5)
    assert_close(fwd, rev, rtol=1e-12, atol=1e-12)


def test_small_beta_limit():
    # -log sigmoid(x) = log 2 - x/2 + x^2/8 + O(x^4): as beta -> 0 the loss tends to log 2 with slope -h/2.
    pc, pr, rc, rr = random_pairs(seed=3)
    h = (pc - rc) - (pr - rr)
    beta = 1e-5
    losses, _, _ = dpo_loss(pc, pr, rc, rr, beta=beta)
    expected = math.log(2.0) - beta * h / 2 + (beta * h) ** 2 / 8
    assert_close(losses, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 0.3])
def test_gradient_is_the_weighted_likelihood_gradient(eps):
    # d loss / d log pi(y_w) = -beta [ (1-eps) sigmoid(-beta h) - eps sigmoid(beta h) ]
    # d loss / d log pi(y_l) = - d loss / d log pi(y_w): the DPO update raises y_w and lowers y_l, weighted
    # by how wrongly the implicit reward model ranks the pair (sigmoid(r_l - r_w) when eps = 0).
    pc, pr, rc, rr = random_pairs(seed=4)
    pc.requires_grad_(True)
    pr.requires_grad_(True)
    beta = 0.25
    losses, _, _ = dpo_loss(pc, pr, rc, rr, beta=beta, label_smoothing=eps)
    gc, gr = torch.autograd.grad(losses.sum(), (pc, pr))
    with torch.no_grad():
        h = (pc - rc) - (pr - rr)
        want = -beta * ((1 - eps) * torch.sigmoid(-beta * h) - eps * torch.sigmoid(beta * h))
    assert_close(gc, want, rtol=1e-10, atol=1e-12)
    assert_close(gr, -want, rtol=1e-10, atol=1e-12)


def test_ipo_gradient_and_minimum():
    # IPO: (h - 1/(2 beta))^2, gradient 2 (h - 1/(2 beta)) w.r.t. log pi(y_w); zero exactly at h = 1/(2 beta).
    pc, pr, rc, rr = random_pairs(seed=5)
    pc.requires_grad_(True)
    beta = 0.4
    losses, _, _ = dpo_loss(pc, pr, rc, rr, beta=beta, loss_type="ipo")
    (gc,) = torch.autograd.grad(losses.sum(), pc)
    h = ((pc - rc) - (pr - rr)).detach()
    assert_close(gc, 2 * (h - 1 / (2 * beta)), rtol=1e-10, atol=1e-10)
    at_min, _, _ = dpo_loss(rr + 1 / (2 * beta) + rc - rr, rr, rc, rr, beta=beta, loss_type="ipo")
    assert_close(at_min, torch.zeros_like(at_min), rtol=0, atol=1e-20)
    # the label smoothing value is not used by the IPO loss
    with_eps, _, _ = dpo_loss(pc.detach(), pr, rc, rr, beta=beta, label_smoothing=0.3, loss_type="ipo")
    assert_close(with_eps, losses.detach(), rtol=0, atol=0)


def test_rewards_are_detached_and_loss_is_differentiable():
    pc, pr, rc, rr = random_pairs(seed=6)
    pc.requires_grad_(True)
    pr.requires_grad_(True)
    for loss_type in ("sigmoid", "ipo"):
        losses, chosen_rewards, rejected_rewards = dpo_loss(pc, pr, rc, rr, beta=0.1, loss_type=loss_type)
        assert losses.requires_grad
        assert not chosen_rewards.requires_grad and not rejected_rewards.requires_grad
        assert_close(chosen_rewards, 0.1 * (pc - rc).detach(), rtol=1e-12, atol=1e-12)
        assert_close(rejected_rewards, 0.1 * (pr - rr).detach(), rtol=1e-12, atol=1e-12)


def test_pairs_are_independent():
    # one loss per pair: permuting the batch permutes the outputs; a batch of one equals its row
    pc, pr, rc, rr = random_pairs(seed=7)
    perm = torch.randperm(pc.numel(), generator=torch.Generator().manual_seed(0))
    base = dpo_loss(pc, pr, rc, rr, beta=0.2, label_smoothing=0.05)
    permuted = dpo_loss(pc[perm], pr[perm], rc[perm], rr[perm], beta=0.2, label_smoothing=0.05)
    for a, b in zip(base, permuted):
        assert_close(a[perm], b, rtol=1e-12, atol=1e-12)
    single = dpo_loss(pc[3:4], pr[3:4], rc[3:4], rr[3:4], beta=0.2, label_smoothing=0.05)
    for a, b in zip(base, single):
        assert b.shape == (1,)
        assert_close(a[3:4], b, rtol=1e-12, atol=1e-12)


def test_descending_the_loss_separates_the_pair():
    # Gradient descent on free log-probabilities: the loss falls every step and the chosen implicit
    # reward ends above the rejected one.
    pc = torch.tensor([-5.0, -2.0], dtype=torch.float64, requires_grad=True)
    pr = torch.tensor([-3.0, -1.0], dtype=torch.float64, requires_grad=True)
    rc, rr = t(-4.0, -2.0), t(-4.0, -2.0)
    previous = math.inf
    for _ in range(30):
        losses, chosen_rewards, rejected_rewards = dpo_loss(pc, pr, rc, rr, beta=0.5)
        loss = losses.mean()
        assert loss.item() < previous
        previous = loss.item()
        grad_c, grad_r = torch.autograd.grad(loss, (pc, pr))
        with torch.no_grad():  # plain gradient descent, learning rate 1
            pc -= grad_c
            pr -= grad_r
    assert torch.all(chosen_rewards > rejected_rewards)


def test_unknown_loss_type_raises():
    pc, pr, rc, rr = random_pairs(seed=8)
    with pytest.raises(ValueError):
        dpo_loss(pc, pr, rc, rr, beta=0.1, loss_type="hinge")
