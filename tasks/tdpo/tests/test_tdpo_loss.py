"""Hidden tests for tdpo/2: `tdpo_loss` in tdpo/objective.py."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from tdpo.objective import tdpo_loss

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "tdpo_loss_cases.pt", weights_only=True)


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
    return dict(rtol=1e-9, atol=1e-10) if dtype == torch.float64 else dict(rtol=1e-4, atol=1e-5)


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def grads_of(losses: torch.Tensor, leaves) -> list[torch.Tensor]:
    gs = torch.autograd.grad(losses.sum(), leaves, allow_unused=True)
    return [torch.zeros_like(x) if g is None else g for g, x in zip(gs, leaves)]


def case_id(i: int) -> str:
    c = CASES[i]
    v = "tdpo2" if c["use_tdpo2"] else "tdpo1"
    return f"{i}-{v}-b{c['beta']}-a{c['alpha']}-n{c['inputs'][0].numel()}-{str(c['inputs'][0].dtype)[6:]}"


def call(case, inputs=None):
    return tdpo_loss(*(case["inputs"] if inputs is None else inputs), beta=case["beta"], alpha=case["alpha"],
                     use_tdpo2=case["use_tdpo2"])


INPUT_NAMES = ("chosen_logps_margin", "rejected_logps_margin", "chosen_seq_kl", "rejected_seq_kl")

# ---------------------------------------------------------------- differential (reference fixtures)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_matches_reference(i):
    case = CASES[i]
    dtype = case["inputs"][0].dtype
    out = call(case)
    assert isinstance(out, tuple) and len(out) == 3
    for name, got in zip(("losses", "chosen_rewards", "rejected_rewards"), out):
        want = case[name]
        assert got.shape == want.shape, f"{name}: shape {tuple(got.shape)} != {tuple(want.shape)} (no reduction)"
        assert got.dtype == dtype, f"{name}: dtype {got.dtype} != {dtype}"
        assert torch.isfinite(got).all(), f"{name}: non-finite values"
        assert_close(got, want, **tol(dtype), what=name)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_gradients_match_reference(i):
    # includes the stop-gradient: with TDPO2 the chosen sequential KL receives no gradient
    case = CASES[i]
    dtype = case["inputs"][0].dtype
    leaves = [x.clone().requires_grad_(True) for x in case["inputs"]]
    losses, _, _ = call(case, leaves)
    for name, got, want in zip(INPUT_NAMES, grads_of(losses, leaves), case["grads"]):
        assert_close(got, want, **tol(dtype), what=f"d loss / d {name}")


# ---------------------------------------------------------------- values checked by hand


def test_hand_checked_values():
    # log-ratio sums: chosen +1, rejected -1; sequential KLs: chosen 0.5, rejected 2.5; beta = 0.5, alpha = 0.5.
    # TDPO1: beta * [(1 - (-1)) - (2.5 - 0.5)] = 0.5 * 0 = 0            -> loss log 2 = 0.6931471805599453
    # TDPO2: beta * [(1 - (-1)) - 0.5 * (2.5 - 0.5)] = 0.5 * 1 = 0.5     -> loss log(1 + e^-0.5) = 0.4740769841801067
    # rewards: beta * margins = 0.5 and -0.5
    args = (t(1.0), t(-1.0), t(0.5), t(2.5))
    l1, rc, rr = tdpo_loss(*args, beta=0.5, alpha=0.5, use_tdpo2=False)
    assert l1.item() == pytest.approx(0.6931471805599453, rel=1e-12)
    assert rc.item() == pytest.approx(0.5, rel=1e-12) and rr.item() == pytest.approx(-0.5, rel=1e-12)
    l2, _, _ = tdpo_loss(*args, beta=0.5, alpha=0.5, use_tdpo2=True)
    assert l2.item() == pytest.approx(0.4740769841801067, rel=1e-12)


def test_hand_checked_gradients():
    # Same pair. With z the argument of the sigmoid, d loss / d z = -sigmoid(-z).
    # TDPO1, z = 0: sigmoid(0) = 1/2; dz/d(chosen KL) = +beta, dz/d(rejected KL) = -beta
    #   -> grads (margins, KLs) = (-0.25, +0.25, -0.25, +0.25)
    # TDPO2, z = 0.5: s = sigmoid(-0.5) = 0.3775406687981454; dz/d(rejected KL) = -alpha*beta = -0.25, chosen KL
    #   is behind the stop-gradient -> grads = (-0.5 s, +0.5 s, 0, +0.25 s)
    leaves = [x.requires_grad_(True) for x in (t(1.0), t(-1.0), t(0.5), t(2.5))]
    g1 = grads_of(tdpo_loss(*leaves, beta=0.5, alpha=0.5, use_tdpo2=False)[0], leaves)
    assert_close(torch.cat(g1), t(-0.25, 0.25, -0.25, 0.25), rtol=1e-12, atol=1e-14, what="TDPO1")
    s = 0.3775406687981454
    g2 = grads_of(tdpo_loss(*leaves, beta=0.5, alpha=0.5, use_tdpo2=True)[0], leaves)
    assert_close(torch.cat(g2), t(-0.5 * s, 0.5 * s, 0.0, 0.25 * s), rtol=1e-12, atol=1e-14, what="TDPO2")


def test_extreme_arguments_are_stable():
    # z = beta * (margin gap - KL gap) = -+2000 -> losses 2000 and ~0 (no inf / nan)
    args = (t(-1000.0, 1000.0), t(1000.0, -1000.0), t(0.0, 0.0), t(0.0, 0.0))
    for use_tdpo2 in (False, True):
        losses, _, _ = tdpo_loss(*args, beta=1.0, alpha=0.5, use_tdpo2=use_tdpo2)
        assert torch.isfinite(losses).all()
        assert_close(losses, t(2000.0, 0.0), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- properties


def random_inputs(seed: int, batch: int = 9):
    g = torch.Generator().manual_seed(seed)
    cm, rm = 4 * torch.randn(2, batch, generator=g, dtype=torch.float64)
    ckl, rkl = 6 * torch.rand(2, batch, generator=g, dtype=torch.float64)
    return cm, rm, ckl, rkl


def test_zero_kl_or_zero_alpha_reduces_to_dpo():
    # Without the KL terms both variants are the DPO loss -log sigmoid(beta * (margin_w - margin_l)).
    cm, rm, ckl, rkl = random_inputs(1)
    dpo = torch.nn.functional.softplus(-0.3 * (cm - rm))
    zeros = torch.zeros_like(ckl)
    for use_tdpo2 in (False, True):
        losses, _, _ = tdpo_loss(cm, rm, zeros, zeros, beta=0.3, alpha=0.5, use_tdpo2=use_tdpo2)
        assert_close(losses, dpo, rtol=1e-12, atol=1e-12)
    losses, _, _ = tdpo_loss(cm, rm, ckl, rkl, beta=0.3, alpha=0.0, use_tdpo2=True)
    assert_close(losses, dpo, rtol=1e-12, atol=1e-12)


def test_tdpo1_ignores_alpha_and_tdpo2_with_alpha_one_has_tdpo1_values():
    cm, rm, ckl, rkl = random_inputs(2)
    a, _, _ = tdpo_loss(cm, rm, ckl, rkl, beta=0.2, alpha=0.1, use_tdpo2=False)
    b, _, _ = tdpo_loss(cm, rm, ckl, rkl, beta=0.2, alpha=3.0, use_tdpo2=False)
    c, _, _ = tdpo_loss(cm, rm, ckl, rkl, beta=0.2, alpha=1.0, use_tdpo2=True)
    assert_close(a, b, rtol=0, atol=0, what="alpha must not matter for TDPO1")
    assert_close(c, a, rtol=1e-12, atol=1e-12, what="TDPO2 with alpha = 1 has the TDPO1 value")


def test_kl_direction_of_the_penalty():
    # The KL term enters as -(KL_l - KL_w) inside the sigmoid: a larger sequential KL on the rejected
    # response raises the loss (minimising it keeps pi_theta close to pi_ref on y_l), a larger one on the
    # chosen response lowers it. Values only: TDPO2's stop-gradient does not change the value.
    cm, rm, ckl, rkl = random_inputs(3)
    for use_tdpo2 in (False, True):
        base, _, _ = tdpo_loss(cm, rm, ckl, rkl, beta=0.5, alpha=0.5, use_tdpo2=use_tdpo2)
        more_l, _, _ = tdpo_loss(cm, rm, ckl, rkl + 1.0, beta=0.5, alpha=0.5, use_tdpo2=use_tdpo2)
        more_w, _, _ = tdpo_loss(cm, rm, ckl + 1.0, rkl, beta=0.5, alpha=0.5, use_tdpo2=use_tdpo2)
        assert torch.all(more_l > base) and torch.all(more_w < base)


def test_stop_gradient_in_tdpo2():
    # TDPO2: the loss has the same value with or without the stop-gradient, but no gradient reaches the
    # chosen response's sequential KL; the rejected KL gets alpha * beta * sigmoid(-z).
    cm, rm, ckl, rkl = random_inputs(4)
    beta, alpha = 0.4, 0.7
    leaves = [x.clone().requires_grad_(True) for x in (cm, rm, ckl, rkl)]
    losses, _, _ = tdpo_loss(*leaves, beta=beta, alpha=alpha, use_tdpo2=True)
    g_cm, g_rm, g_ckl, g_rkl = grads_of(losses, leaves)
    z = beta * ((cm - rm) - alpha * (rkl - ckl))
    w = torch.sigmoid(-z)
    assert_close(losses, torch.nn.functional.softplus(-z), rtol=1e-12, atol=1e-12, what="value")
    assert torch.all(g_ckl == 0), "the chosen sequential KL must be behind a stop-gradient in TDPO2"
    assert_close(g_rkl, alpha * beta * w, rtol=1e-10, atol=1e-14, what="rejected KL gradient")
    assert_close(g_cm, -beta * w, rtol=1e-10, atol=1e-14, what="chosen margin gradient")
    assert_close(g_rm, beta * w, rtol=1e-10, atol=1e-14, what="rejected margin gradient")


def test_no_stop_gradient_in_tdpo1():
    cm, rm, ckl, rkl = random_inputs(5)
    beta = 0.25
    leaves = [x.clone().requires_grad_(True) for x in (cm, rm, ckl, rkl)]
    losses, _, _ = tdpo_loss(*leaves, beta=beta, alpha=0.5, use_tdpo2=False)
    g_cm, g_rm, g_ckl, g_rkl = grads_of(losses, leaves)
    w = torch.sigmoid(-beta * ((cm - rm) - (rkl - ckl)))
    assert_close(g_ckl, -beta * w, rtol=1e-10, atol=1e-14, what="chosen KL gradient")
    assert_close(g_rkl, beta * w, rtol=1e-10, atol=1e-14, what="rejected KL gradient")
    assert_close(g_cm, -beta * w, rtol=1e-10, atol=1e-14)
    assert_close(g_rm, beta * w, rtol=1e-10, atol=1e-14)


def test_rewards_detached_and_per_pair():
    cm, rm, ckl, rkl = random_inputs(6)
    cm.requires_grad_(True)
    rm.requires_grad_(True)
    for use_tdpo2 in (False, True):
        losses, rc, rr = tdpo_loss(cm, rm, ckl, rkl, beta=0.1, alpha=0.5, use_tdpo2=use_tdpo2)
        assert losses.shape == (9,) and losses.requires_grad
        assert not rc.requires_grad and not rr.requires_grad
        assert_close(rc, 0.1 * cm, rtol=1e-12, atol=1e-12)
        assert_close(rr, 0.1 * rm, rtol=1e-12, atol=1e-12)
        single = tdpo_loss(cm[2:3], rm[2:3], ckl[2:3], rkl[2:3], beta=0.1, alpha=0.5, use_tdpo2=use_tdpo2)
        for a, b in zip((losses, rc, rr), single):
            assert b.shape == (1,)
            assert_close(b, a[2:3], rtol=1e-12, atol=1e-12)


def test_policy_equal_to_reference_gives_log_two():
    zeros = torch.zeros(5, dtype=torch.float64)
    for use_tdpo2 in (False, True):
        losses, rc, rr = tdpo_loss(zeros, zeros, zeros, zeros, beta=0.1, alpha=0.5, use_tdpo2=use_tdpo2)
        assert_close(losses, torch.full((5,), math.log(2.0), dtype=torch.float64), rtol=1e-12, atol=1e-12)
