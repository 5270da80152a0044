"""Hidden tests for spin/1: `spin_loss` in spin/loss.py."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from spin.loss import spin_loss

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "spin_loss_cases.pt", weights_only=True)


def assert_close(got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float, what: str = "") -> None:
    """|got - want| <= atol + rtol * |want| elementwise, same shape (torch.testing is slow to import)."""
    assert isinstance(got, torch.Tensor), f"{what}: expected a tensor, got {type(got)}"
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    got, want = got.detach().to(torch.float64), want.detach().to(torch.float64)
    ok = torch.isclose(got, want, rtol=rtol, atol=atol)
    if not bool(ok.all()):
        bad = (~ok).nonzero()[0].tolist()
        raise AssertionError(
            f"{what}: {int((~ok).sum())} mismatched values, e.g. at {bad}: "
            f"got {got[tuple(bad)].item()!r}, want {want[tuple(bad)].item()!r}"
        )


def tol(dtype: torch.dtype) -> dict:
    return dict(rtol=1e-9, atol=1e-10) if dtype == torch.float64 else dict(rtol=1e-4, atol=1e-4)


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def case_id(i: int) -> str:
    c = CASES[i]
    return f"{i}-{c['loss_type']}-lam{c['lam']}-n{c['inputs'][0].numel()}-{str(c['inputs'][0].dtype)[6:]}"


def call(case, inputs=None):
    return spin_loss(*(case["inputs"] if inputs is None else inputs), lam=case["lam"], loss_type=case["loss_type"])


# ---------------------------------------------------------------- differential (reference fixtures)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_matches_reference(i):
    case = CASES[i]
    dtype = case["inputs"][0].dtype
    outputs = call(case)
    assert isinstance(outputs, tuple) and len(outputs) == 3
    for name, got in zip(("losses", "real_rewards", "generated_rewards"), outputs):
        want = case[name]
        assert got.shape == want.shape, f"{name}: shape {tuple(got.shape)} != {tuple(want.shape)} (no reduction)"
        assert got.dtype == dtype, f"{name}: dtype {got.dtype} != {dtype}"
        assert torch.isfinite(got).all(), f"{name}: non-finite values"
        assert_close(got, want, **tol(dtype), what=name)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_gradients_match_reference(i):
    case = CASES[i]
    dtype = case["inputs"][0].dtype
    pr, pg, orl, og = (x.clone() for x in case["inputs"])
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    losses, _, _ = call(case, (pr, pg, orl, og))
    gr, gg = torch.autograd.grad(losses.sum(), (pr, pg))
    assert_close(gr, case["grad_policy_real"], **tol(dtype), what="d loss / d log p_theta(y)")
    assert_close(gg, case["grad_policy_generated"], **tol(dtype), what="d loss / d log p_theta(y')")


# ---------------------------------------------------------------- values checked by hand


def test_hand_checked_values():
    # log p_theta(y) = -2, log p_theta(y') = -5, log p_opp(y) = log p_opp(y') = -3, lambda = 0.5:
    # real log-ratio +1, generated log-ratio -2, argument t = 0.5 * (1 - (-2)) = 1.5.
    # logistic: log(1 + e^-1.5) = 0.2014132779827524; hinge: max(0, 1 - 1.5) = 0.
    # rewards: 0.5 * 1 = 0.5 and 0.5 * -2 = -1.0.
    args = (t(-2.0), t(-5.0), t(-3.0), t(-3.0))
    losses, real_r, gen_r = spin_loss(*args, lam=0.5)
    assert losses.item() == pytest.approx(0.2014132779827524, rel=1e-12)
    assert real_r.item() == pytest.approx(0.5, rel=1e-12)
    assert gen_r.item() == pytest.approx(-1.0, rel=1e-12)
    assert spin_loss(*args, lam=0.5, loss_type="hinge")[0].item() == pytest.approx(0.0, abs=1e-15)
    # lambda = 0.2: t = 0.6; hinge 1 - 0.6 = 0.4
    assert spin_loss(*args, lam=0.2, loss_type="hinge")[0].item() == pytest.approx(0.4, rel=1e-12)
    # real and generated swapped: t = -1.5, logistic log(1 + e^1.5) = 1.7014132779827524, hinge 2.5
    swapped = (t(-5.0), t(-2.0), t(-3.0), t(-3.0))
    assert spin_loss(*swapped, lam=0.5)[0].item() == pytest.approx(1.7014132779827524, rel=1e-12)
    assert spin_loss(*swapped, lam=0.5, loss_type="hinge")[0].item() == pytest.approx(2.5, rel=1e-12)


def test_start_of_iteration_model_equals_opponent():
    # At the start of each SPIN iteration p_theta = p_{theta_t}: every log-ratio is 0, so t = 0:
    # logistic loss log 2 with gradient -lambda/2 on log p_theta(y) and +lambda/2 on log p_theta(y');
    # hinge loss 1 with gradient -lambda / +lambda.
    g = torch.Generator().manual_seed(0)
    opp = -20 * torch.rand(2, 5, generator=g, dtype=torch.float64)
    for loss_type, value, slope in (("logistic", math.log(2.0), 0.5), ("hinge", 1.0, 1.0)):
        pr = opp[0].clone().requires_grad_(True)
        pg = opp[1].clone().requires_grad_(True)
        losses, rr, gr = spin_loss(pr, pg, opp[0], opp[1], lam=0.3, loss_type=loss_type)
        assert_close(losses, torch.full((5,), value, dtype=torch.float64), rtol=1e-12, atol=1e-12, what=loss_type)
        assert torch.all(rr == 0) and torch.all(gr == 0)
        d_real, d_gen = torch.autograd.grad(losses.sum(), (pr, pg))
        assert_close(d_real, torch.full((5,), -0.3 * slope, dtype=torch.float64), rtol=1e-12, atol=1e-12)
        assert_close(d_gen, torch.full((5,), 0.3 * slope, dtype=torch.float64), rtol=1e-12, atol=1e-12)


def test_extreme_arguments_are_stable():
    # t = +-1000: log(1 + e^-1000) ~ 0 and log(1 + e^1000) = 1000 in double precision.
    args = (t(-1.0, -2001.0), t(-2001.0, -1.0), t(-1001.0, -1001.0), t(-1001.0, -1001.0))
    losses, _, _ = spin_loss(*args, lam=0.5)
    assert torch.isfinite(losses).all()
    assert_close(losses, t(0.0, 1000.0), rtol=1e-12, atol=1e-12)
    pr = args[0].clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(spin_loss(pr, *args[1:], lam=0.5)[0].sum(), pr)
    assert_close(grad, t(0.0, -0.5), rtol=1e-12, atol=1e-12)  # -lam * sigmoid(-t): 0 and -0.5


# ---------------------------------------------------------------- properties from the paper


def random_inputs(seed: int, batch: int = 10, spread: float = 4.0):
    g = torch.Generator().manual_seed(seed)
    opp = -(1 + 30 * torch.rand(2, batch, generator=g, dtype=torch.float64))
    pol = opp + spread * torch.randn(2, batch, generator=g, dtype=torch.float64)
    return pol[0], pol[1], opp[0], opp[1]


@pytest.mark.parametrize("loss_type", ["logistic", "hinge"])
def test_only_log_ratios_matter(loss_type):
    pr, pg, orl, og = random_inputs(1)
    base = spin_loss(pr, pg, orl, og, lam=0.2, loss_type=loss_type)
    c = torch.linspace(-6, 6, pr.numel(), dtype=torch.float64)
    shifted = spin_loss(pr + c, pg - 2 * c, orl + c, og - 2 * c, lam=0.2, loss_type=loss_type)
    for a, b in zip(base, shifted):
        assert_close(b, a, rtol=1e-9, atol=1e-9)


def test_logistic_loss_is_softplus_of_minus_lambda_margin():
    # l(t) = log(1 + exp(-t)) with t = lam * (real log-ratio - generated log-ratio);
    # so l(t) - l(-t) = -t when real and generated are swapped.
    pr, pg, orl, og = random_inputs(2)
    lam = 0.35
    margin = (pr - orl) - (pg - og)
    fwd, _, _ = spin_loss(pr, pg, orl, og, lam=lam)
    rev, _, _ = spin_loss(pg, pr, og, orl, lam=lam)
    assert_close(fwd - rev, -lam * margin, rtol=1e-9, atol=1e-9)
    assert_close(fwd, torch.log1p(torch.exp(-lam * margin)), rtol=1e-10, atol=1e-12)


def test_hinge_loss_and_its_flat_region():
    # hinge: max(0, 1 - t); pairs with t >= 1 cost nothing and get no gradient, the others get -lam / +lam.
    pr, pg, orl, og = random_inputs(3, batch=40)
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    lam = 0.4
    losses, _, _ = spin_loss(pr, pg, orl, og, lam=lam, loss_type="hinge")
    d_real, d_gen = torch.autograd.grad(losses.sum(), (pr, pg))
    with torch.no_grad():
        targ = lam * ((pr - orl) - (pg - og))
    active = targ < 1
    assert 5 < int(active.sum()) < 35  # both regimes are exercised
    assert_close(losses, torch.clamp(1 - targ, min=0), rtol=1e-12, atol=1e-12)
    assert_close(d_real, -lam * active.to(torch.float64), rtol=1e-12, atol=1e-12)
    assert_close(d_gen, lam * active.to(torch.float64), rtol=1e-12, atol=1e-12)


def test_logistic_gradient_weights():
    # d loss / d log p_theta(y) = -lam * sigmoid(-t), d loss / d log p_theta(y') = +lam * sigmoid(-t):
    # the model raises the human response and lowers its opponent's, most where it errs most.
    pr, pg, orl, og = random_inputs(4)
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    lam = 0.7
    losses, _, _ = spin_loss(pr, pg, orl, og, lam=lam)
    d_real, d_gen = torch.autograd.grad(losses.sum(), (pr, pg))
    with torch.no_grad():
        w = torch.sigmoid(-lam * ((pr - orl) - (pg - og)))
    assert_close(d_real, -lam * w, rtol=1e-10, atol=1e-13)
    assert_close(d_gen, lam * w, rtol=1e-10, atol=1e-13)


def test_opponent_that_matches_the_data_gives_no_net_update():
    # If the opponent already produces the data distribution, a sampled y' can coincide with y. For such a
    # pair the two terms cancel: t = 0 and the pushes on log p_theta(y) and log p_theta(y') are equal and
    # opposite, so their total effect on the model is zero (SPIN's stationary point p_theta = p_data).
    pr, _, orl, _ = random_inputs(5)
    pr = pr.clone().requires_grad_(True)
    for loss_type in ("logistic", "hinge"):
        losses, rr, gr = spin_loss(pr, pr, orl, orl, lam=0.25, loss_type=loss_type)
        (total,) = torch.autograd.grad(losses.sum(), pr)
        assert_close(total, torch.zeros_like(total), rtol=0, atol=1e-15)
        assert_close(rr, gr, rtol=0, atol=0)
        assert_close(losses, torch.full_like(losses, math.log(2.0) if loss_type == "logistic" else 1.0),
                     rtol=1e-12, atol=1e-12)


def test_small_lambda_limit():
    # log(1 + e^-t) = log 2 - t/2 + t^2/8 + O(t^4): lam -> 0 gives log 2 with slope -margin/2.
    pr, pg, orl, og = random_inputs(6)
    lam = 1e-5
    margin = (pr - orl) - (pg - og)
    losses, _, _ = spin_loss(pr, pg, orl, og, lam=lam)
    assert_close(losses, math.log(2.0) - lam * margin / 2 + (lam * margin) ** 2 / 8, rtol=0, atol=1e-12)


def test_rewards_detached_losses_differentiable_and_per_pair():
    pr, pg, orl, og = random_inputs(7)
    pr.requires_grad_(True)
    pg.requires_grad_(True)
    for loss_type in ("logistic", "hinge"):
        losses, rr, gr = spin_loss(pr, pg, orl, og, lam=0.1, loss_type=loss_type)
        assert losses.shape == (10,) and losses.requires_grad
        assert not rr.requires_grad and not gr.requires_grad
        assert_close(rr, 0.1 * (pr - orl), rtol=1e-12, atol=1e-12)
        assert_close(gr, 0.1 * (pg - og), rtol=1e-12, atol=1e-12)
        single = spin_loss(pr[4:5], pg[4:5], orl[4:5], og[4:5], lam=0.1, loss_type=loss_type)
        for a, b in zip((losses, rr, gr), single):
            assert b.shape == (1,)
            assert_close(b, a[4:5], rtol=1e-12, atol=1e-12)


def test_unknown_loss_type_raises():
    pr, pg, orl, og = random_inputs(8)
    with pytest.raises(ValueError):
        spin_loss(pr, pg, orl, og, lam=0.1, loss_type="sigmoid-ish")
