"""Trusted checks for simpo/1 (never enter the sandbox): hand-checked values and the paper's properties, on the
outputs probe_simpo_loss.py emitted. Inputs are read from the reference's run (`ref`).

`aclose` is the old tests' `assert_close`: a tensor of want's shape, |got - want| <= atol + rtol * |want| in float64
(dtype not compared), and, like torch.isclose, NaN never matches. `approx` is pytest.approx on a scalar:
|got - want| <= max(rel * |want|, abs), abs defaulting to 1e-12 when only rel is given."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, equal, expect, finite

TRIPLE = ("losses", "chosen_rewards", "rejected_rewards")


def aclose(out, key: str, want, rtol: float, atol: float, what: str = "") -> None:
    what = what or key
    got = out.get(key)
    expect(isinstance(got, np.ndarray) and f"{key}#dtype" in out, f"{what}: expected a tensor")
    w = np.asarray(want, dtype=np.float64)
    equal(list(got.shape), list(w.shape), what=f"{what} shape")
    g = got.astype(np.float64)
    ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=False)
    if not bool(ok.all()):
        at = tuple(int(i) for i in np.argwhere(~ok)[0])
        expect(False, f"{what}: {int((~ok).sum())} mismatched values, e.g. at {list(at)}: got {g[at]!r}, want {w[at]!r}")


def approx(out, key: str, want: float, rel: float | None = None, abs_: float | None = None) -> None:
    got = out.get(key)
    expect(isinstance(got, float), f"{key}: not a number ({type(got).__name__})")
    tol = abs_ if rel is None else max(rel * abs(want), 1e-12 if abs_ is None else abs_)
    expect(abs(got - want) <= tol, f"{key}: got {got!r}, want {want!r} within {tol!r}")


def pairs(out, a: str, b: str, rtol: float, atol: float, what: str) -> None:
    """Each of the three outputs of `b` close to the same output of `a` (zip over the returned triples)."""
    for i, name in enumerate(TRIPLE):
        aclose(out, f"{b}.{i}", out.get(f"{a}.{i}"), rtol, atol, f"{what}: {name}")


def shape(out, key: str) -> tuple | None:
    """A shape the probe emitted as a tuple of ints (`KEY` is ("seq", n), its items `KEY.0`, ...)."""
    marker = out.get(key)
    if not (isinstance(marker, tuple) and marker[0] == "seq"):
        return None
    return tuple(out.get(f"{key}.{i}") for i in range(marker[1]))


def softplus(x):
    return np.logaddexp(0.0, x)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---------------------------------------------------------------- differential: also finite


@check("matches_reference?*")
def finite_outputs(out, ref):
    expect(out["is_tuple"] is True, "simpo_loss must return a tuple (losses, chosen_rewards, rejected_rewards)")
    for i, name in enumerate(TRIPLE):
        finite(out[f"outputs.{i}"], name)


# ---------------------------------------------------------------- values checked by hand


@check("hand_checked_value")
def hand_checked_value(out, ref):
    # y_w has 3 tokens with log-probs -1, -2, -3 (average -2) followed by one padding slot;
    # y_l has 2 tokens with log-probs -4, -6 (average -5). beta = 2, gamma = 1.
    # rewards: 2 * -2 = -4 and 2 * -5 = -10; z = -4 - (-10) - 1 = 5; loss = log(1 + e^-5) = 0.006715348489118068
    expect(shape(out, "losses_shape") == (1,), f"losses: shape {shape(out, 'losses_shape')} is not (1,)")
    approx(out, "loss", 0.006715348489118068, rel=1e-12)
    approx(out, "chosen_reward", -4.0, rel=1e-12)
    approx(out, "rejected_reward", -10.0, rel=1e-12)
    # equal average log-probs: z = -gamma = -1, loss = log(1 + e^1) = 1.3132616875182228
    approx(out, "equal_averages_loss", 1.3132616875182228, rel=1e-12)


@check("extreme_reward_gaps_are_stable")
def extreme_reward_gaps(out, ref):
    # average log-probs -0.5 vs -10.5 with beta = 100, gamma = 0: z = +-1000.
    # -log sigmoid(1000) ~ 0 and -log sigmoid(-1000) = 1000 (to double precision).
    approx(out, "right_order", 0.0, abs_=1e-300)
    approx(out, "wrong_order", 1000.0, rel=1e-12)


# ---------------------------------------------------------------- properties from the paper


@check("padding_values_and_extra_padding_do_not_matter")
def padding(out, ref):
    pairs(out, "base", "junk", 1e-12, 1e-12, "garbage in padding")
    pairs(out, "base", "wider", 1e-12, 1e-12, "extra padding columns")


@check("reward_is_length_normalised")
def length_normalised(out, ref):
    # Repeating a response's tokens (same per-token average) leaves its reward unchanged:
    # r = beta / |y| * sum_i log p_i is an average, not a sum.
    pairs(out, "once", "thrice", 1e-12, 1e-12, "tokens repeated")
    # the reward is beta times the mean over real tokens: 2.5 * (-2.5 / 3) = -2.0833333333333335
    approx(out, "once_chosen_reward", -2.0833333333333335, rel=1e-12)


@check("shifting_every_token_logprob_only_shifts_rewards")
def shift(out, ref):
    # Adding c to every token log-prob adds beta*c to both rewards, whatever the lengths: the loss is unchanged.
    aclose(out, "shifted.0", out.get("base.0"), 1e-10, 1e-12, "loss")
    aclose(out, "shifted.1", np.asarray(out.get("base.1")) - 1.4, 1e-10, 1e-12, "chosen reward")
    aclose(out, "shifted.2", np.asarray(out.get("base.2")) - 1.4, 1e-10, 1e-12, "rejected reward")


@check("rewards_are_beta_times_mean_and_detached")
def rewards(out, ref):
    equal(out["losses_requires_grad"], True, what="losses require grad")
    equal(out["chosen_requires_grad"], False, what="chosen rewards detached")
    equal(out["rejected_requires_grad"], False, what="rejected rewards detached")
    cw, mw, cl, ml = (ref[f"inputs.{i}"] for i in range(4))
    want_c = 2.5 * (cw * mw).sum(-1) / mw.sum(-1)
    want_l = 2.5 * (cl * ml).sum(-1) / ml.sum(-1)
    aclose(out, "chosen_rewards", want_c, 1e-12, 1e-12)
    aclose(out, "rejected_rewards", want_l, 1e-12, 1e-12)
    # the loss is -log sigmoid(r_w - r_l - gamma)
    aclose(out, "losses", softplus(-(want_c - want_l - 0.3)), 1e-12, 1e-12)


@check("gradient_spreads_evenly_over_real_tokens")
def gradient(out, ref):
    # d loss / d log p(y_w,i) = -sigma(-z) * beta / |y_w| on real tokens and 0 on padding;
    # d loss / d log p(y_l,i) = +sigma(-z) * beta / |y_l|.
    beta, gamma = 2.0, 0.8
    mw, ml = ref["masks.0"], ref["masks.1"]
    weight = sigmoid(-(np.asarray(out["chosen_rewards"]) - np.asarray(out["rejected_rewards"]) - gamma))
    want_w = -(weight * beta / mw.sum(-1))[:, None] * mw
    want_l = (weight * beta / ml.sum(-1))[:, None] * ml
    aclose(out, "grad_chosen", want_w, 1e-10, 1e-14, "chosen gradient")
    aclose(out, "grad_rejected", want_l, 1e-10, 1e-14, "rejected gradient")


@check("gamma_is_a_margin_in_reward_units")
def gamma_margin(out, ref):
    # loss(gamma) = softplus(-(r_w - r_l - gamma)): increasing in gamma, and gamma acts exactly like
    # lowering the chosen reward by gamma (not by beta * gamma).
    expect(bool(np.all(np.asarray(out["l1"]) > np.asarray(out["l0"]))), "the loss does not increase with gamma")
    rc, rr = np.asarray(out["chosen_rewards"]), np.asarray(out["rejected_rewards"])
    aclose(out, "l1", softplus(-(rc - rr - 1.5)), 1e-12, 1e-12)


@check("small_beta_limit")
def small_beta(out, ref):
    # beta -> 0: both rewards vanish and the loss tends to -log sigmoid(-gamma) = log(1 + e^gamma);
    # gamma = 0.5: log(1 + e^0.5) = 0.9740769841801067
    losses = out["losses"]
    expect(isinstance(losses, np.ndarray), "losses: expected a tensor")
    aclose(out, "losses", np.full(losses.shape, 0.9740769841801067), 0, 1e-10)


@check("mask_dtype_does_not_matter_and_pairs_are_independent")
def mask_dtype_and_independence(out, ref):
    pairs(out, "base", "as_float", 1e-12, 1e-12, "mask dtype")
    for i, name in enumerate(TRIPLE):
        expect(shape(out, f"single_shapes.{i}") == (1,), f"batch of one: {name} shape is not (1,)")
        aclose(out, f"single.{i}", np.asarray(out.get(f"base.{i}"))[2:3], 1e-12, 1e-12, f"batch of one: {name}")
