"""Hidden tests for simpo/1: `simpo_loss` in simpo/objective.py."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from simpo.objective import simpo_loss

FIXTURES = Path(__file__).parent / "fixtures"
CASES = torch.load(FIXTURES / "simpo_loss_cases.pt", weights_only=True)


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
    return dict(rtol=1e-9, atol=1e-10) if dtype == torch.float64 else dict(rtol=2e-5, atol=2e-5)


def t(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def case_id(i: int) -> str:
    c = CASES[i]
    lp = c["chosen_token_logps"]
    return f"{i}-b{c['beta']}-g{c['gamma']}-{tuple(lp.shape)}x{c['rejected_token_logps'].shape[1]}-{str(c['chosen_mask'].dtype)[6:]}-{str(lp.dtype)[6:]}"


def call(case: dict, chosen=None, rejected=None):
    return simpo_loss(
        case["chosen_token_logps"] if chosen is None else chosen,
        case["chosen_mask"],
        case["rejected_token_logps"] if rejected is None else rejected,
        case["rejected_mask"],
        beta=case["beta"],
        gamma=case["gamma"],
    )


# ---------------------------------------------------------------- differential (reference fixtures)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_matches_reference(i):
    case = CASES[i]
    dtype = case["chosen_token_logps"].dtype
    outputs = call(case)
    assert isinstance(outputs, tuple) and len(outputs) == 3
    for name, got in zip(("losses", "chosen_rewards", "rejected_rewards"), outputs):
        want = case[name]
        assert got.shape == want.shape, f"{name}: shape {tuple(got.shape)} != {tuple(want.shape)} (one value per pair)"
        assert got.dtype == dtype, f"{name}: dtype {got.dtype} != {dtype}"
        assert torch.isfinite(got).all(), f"{name}: non-finite values"
        assert_close(got, want, **tol(dtype), what=name)


@pytest.mark.parametrize("i", range(len(CASES)), ids=case_id)
def test_gradients_match_reference(i):
    case = CASES[i]
    dtype = case["chosen_token_logps"].dtype
    c = case["chosen_token_logps"].clone().requires_grad_(True)
    r = case["rejected_token_logps"].clone().requires_grad_(True)
    losses, _, _ = call(case, c, r)
    gc, gr = torch.autograd.grad(losses.sum(), (c, r))
    assert_close(gc, case["grad_chosen"], **tol(dtype), what="d loss / d chosen_token_logps")
    assert_close(gr, case["grad_rejected"], **tol(dtype), what="d loss / d rejected_token_logps")


# ---------------------------------------------------------------- values checked by hand


def test_hand_checked_value():
    # y_w has 3 tokens with log-probs -1, -2, -3 (average -2) followed by one padding slot;
    # y_l has 2 tokens with log-probs -4, -6 (average -5). beta = 2, gamma = 1.
    # rewards: 2 * -2 = -4 and 2 * -5 = -10; z = -4 - (-10) - 1 = 5; loss = log(1 + e^-5) = 0.006715348489118068
    chosen = t(-1.0, -2.0, -3.0, -9.0)[None]
    chosen_mask = torch.tensor([[True, True, True, False]])
    rejected = t(-4.0, -6.0)[None]
    rejected_mask = torch.tensor([[True, True]])
    losses, rc, rr = simpo_loss(chosen, chosen_mask, rejected, rejected_mask, beta=2.0, gamma=1.0)
    assert losses.shape == (1,)
    assert losses.item() == pytest.approx(0.006715348489118068, rel=1e-12)
    assert rc.item() == pytest.approx(-4.0, rel=1e-12)
    assert rr.item() == pytest.approx(-10.0, rel=1e-12)
    # equal average log-probs: z = -gamma = -1, loss = log(1 + e^1) = 1.3132616875182228
    losses, _, _ = simpo_loss(t(-2.0, -2.0)[None], torch.ones(1, 2, dtype=torch.bool), t(-2.0)[None],
                              torch.ones(1, 1, dtype=torch.bool), beta=2.0, gamma=1.0)
    assert losses.item() == pytest.approx(1.3132616875182228, rel=1e-12)


def test_extreme_reward_gaps_are_stable():
    # average log-probs -0.5 vs -10.5 with beta = 100, gamma = 0: z = +-1000.
    # -log sigmoid(1000) ~ 0 and -log sigmoid(-1000) = 1000 (to double precision).
    good, bad = t(-0.5, -0.5)[None], t(-10.5)[None]
    m2, m1 = torch.ones(1, 2, dtype=torch.bool), torch.ones(1, 1, dtype=torch.bool)
    losses, _, _ = simpo_loss(good, m2, bad, m1, beta=100.0, gamma=0.0)
    assert losses.item() == pytest.approx(0.0, abs=1e-300)
    losses, _, _ = simpo_loss(bad, m1, good, m2, beta=100.0, gamma=0.0)
    assert losses.item() == pytest.approx(1000.0, rel=1e-12)


# ---------------------------------------------------------------- properties from the paper


def random_batch(seed: int, batch: int = 6, lw: int = 7, ll: int = 5):
    g = torch.Generator().manual_seed(seed)
    cw = -3 * torch.rand(batch, lw, generator=g, dtype=torch.float64)
    cl = -3 * torch.rand(batch, ll, generator=g, dtype=torch.float64)
    nw = torch.randint(1, lw + 1, (batch,), generator=g)
    nl = torch.randint(1, ll + 1, (batch,), generator=g)
    nw[0], nl[1] = lw, 1
    mw = torch.arange(lw)[None] < nw[:, None]
    ml = torch.arange(ll)[None] < nl[:, None]
    return cw, mw, cl, ml


def test_padding_values_and_extra_padding_do_not_matter():
    cw, mw, cl, ml = random_batch(1)
    base = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=0.5)
    junk_w = torch.where(mw, cw, torch.full_like(cw, -1e4))
    junk_l = torch.where(ml, cl, torch.full_like(cl, 37.0))
    junk = simpo_loss(junk_w, mw, junk_l, ml, beta=2.0, gamma=0.5)
    for a, b in zip(base, junk):
        assert_close(b, a, rtol=1e-12, atol=1e-12, what="garbage in padding")
    # three more padding columns on the chosen side
    wider_w = torch.cat([cw, torch.full((cw.shape[0], 3), -5.0, dtype=torch.float64)], dim=1)
    wider_m = torch.cat([mw, torch.zeros(mw.shape[0], 3, dtype=torch.bool)], dim=1)
    wider = simpo_loss(wider_w, wider_m, cl, ml, beta=2.0, gamma=0.5)
    for a, b in zip(base, wider):
        assert_close(b, a, rtol=1e-12, atol=1e-12, what="extra padding columns")


def test_reward_is_length_normalised():
    # Repeating a response's tokens (same per-token average) leaves its reward unchanged:
    # r = beta / |y| * sum_i log p_i is an average, not a sum.
    tokens = t(-0.2, -1.4, -0.9)
    once = simpo_loss(tokens[None], torch.ones(1, 3, dtype=torch.bool), t(-1.0)[None], torch.ones(1, 1, dtype=torch.bool),
                      beta=2.5, gamma=0.3)
    thrice = simpo_loss(tokens.repeat(3)[None], torch.ones(1, 9, dtype=torch.bool), t(-1.0, -1.0)[None],
                        torch.ones(1, 2, dtype=torch.bool), beta=2.5, gamma=0.3)
    for a, b in zip(once, thrice):
        assert_close(b, a, rtol=1e-12, atol=1e-12)
    # the reward is beta times the mean over real tokens: 2.5 * (-2.5 / 3) = -2.0833333333333335
    assert once[1].item() == pytest.approx(-2.0833333333333335, rel=1e-12)


def test_shifting_every_token_logprob_only_shifts_rewards():
    # Adding c to every token log-prob adds beta*c to both rewards, whatever the lengths: the loss is unchanged.
    cw, mw, cl, ml = random_batch(2)
    base_loss, base_rc, base_rr = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=1.0)
    loss, rc, rr = simpo_loss(cw - 0.7, mw, cl - 0.7, ml, beta=2.0, gamma=1.0)
    assert_close(loss, base_loss, rtol=1e-10, atol=1e-12)
    assert_close(rc, base_rc - 1.4, rtol=1e-10, atol=1e-12)
    assert_close(rr, base_rr - 1.4, rtol=1e-10, atol=1e-12)


def test_rewards_are_beta_times_mean_and_detached():
    cw, mw, cl, ml = random_batch(3)
    cw.requires_grad_(True)
    losses, rc, rr = simpo_loss(cw, mw, cl, ml, beta=2.5, gamma=0.3)
    assert losses.requires_grad
    assert not rc.requires_grad and not rr.requires_grad
    want_c = 2.5 * (cw.detach() * mw).sum(-1) / mw.sum(-1)
    want_l = 2.5 * (cl * ml).sum(-1) / ml.sum(-1)
    assert_close(rc, want_c, rtol=1e-12, atol=1e-12)
    assert_close(rr, want_l, rtol=1e-12, atol=1e-12)
    # the loss is -log sigmoid(r_w - r_l - gamma)
    assert_close(losses, torch.nn.functional.softplus(-(want_c - want_l - 0.3)), rtol=1e-12, atol=1e-12)


def test_gradient_spreads_evenly_over_real_tokens():
    # d loss / d log p(y_w,i) = -sigma(-z) * beta / |y_w| on real tokens and 0 on padding;
    # d loss / d log p(y_l,i) = +sigma(-z) * beta / |y_l|.
    cw, mw, cl, ml = random_batch(4)
    cw.requires_grad_(True)
    cl.requires_grad_(True)
    beta, gamma = 2.0, 0.8
    losses, rc, rr = simpo_loss(cw, mw, cl, ml, beta=beta, gamma=gamma)
    gw, gl = torch.autograd.grad(losses.sum(), (cw, cl))
    weight = torch.sigmoid(-(rc - rr - gamma))
    want_w = -(weight * beta / mw.sum(-1))[:, None] * mw
    want_l = (weight * beta / ml.sum(-1))[:, None] * ml
    assert_close(gw, want_w, rtol=1e-10, atol=1e-14, what="chosen gradient")
    assert_close(gl, want_l, rtol=1e-10, atol=1e-14, what="rejected gradient")


def test_gamma_is_a_margin_in_reward_units():
    # loss(gamma) = softplus(-(r_w - r_l - gamma)): increasing in gamma, and gamma acts exactly like
    # lowering the chosen reward by gamma (not by beta * gamma).
    cw, mw, cl, ml = random_batch(5)
    l0, rc, rr = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=0.0)
    l1, _, _ = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=1.5)
    assert torch.all(l1 > l0)
    assert_close(l1, torch.nn.functional.softplus(-(rc - rr - 1.5)), rtol=1e-12, atol=1e-12)


def test_small_beta_limit():
    # beta -> 0: both rewards vanish and the loss tends to -log sigmoid(-gamma) = log(1 + e^gamma);
    # gamma = 0.5: log(1 + e^0.5) = 0.9740769841801067
    cw, mw, cl, ml = random_batch(6)
    losses, _, _ = simpo_loss(cw, mw, cl, ml, beta=1e-12, gamma=0.5)
    assert_close(losses, torch.full_like(losses, 0.9740769841801067), rtol=0, atol=1e-10)


def test_mask_dtype_does_not_matter_and_pairs_are_independent():
    cw, mw, cl, ml = random_batch(7)
    base = simpo_loss(cw, mw, cl, ml, beta=2.0, gamma=1.0)
    as_float = simpo_loss(cw, mw.double(), cl, ml.long(), beta=2.0, gamma=1.0)
    for a, b in zip(base, as_float):
        assert_close(b, a, rtol=1e-12, atol=1e-12, what="mask dtype")
    single = simpo_loss(cw[2:3], mw[2:3], cl[2:3], ml[2:3], beta=2.0, gamma=1.0)
    for a, b in zip(base, single):
        assert b.shape == (1,)
        assert_close(b, a[2:3], rtol=1e-12, atol=1e-12, what="batch of one")
