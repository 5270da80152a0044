"""Trusted checks for spin/1 (never enter the sandbox): hand-checked values and the paper's properties, on the
outputs probe_spin_loss.py emitted. Inputs are read from the reference's run (`ref`).

`aclose` is the old tests' `assert_close`: a tensor of want's shape, |got - want| <= atol + rtol * |want| in float64
(dtype not compared), and, like torch.isclose, NaN never matches. `approx` is pytest.approx on a scalar:
|got - want| <= max(rel * |want|, abs), abs defaulting to 1e-12 when only rel is given."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, equal, expect, finite

TRIPLE = ("losses", "real_rewards", "generated_rewards")


def aclose(out, key: str, want, rtol: float, atol: float, what: str = "") -> None:
    expect(isinstance(out.get(key), np.ndarray) and f"{key}#dtype" in out, f"{what or key}: expected a tensor")
    vclose(out[key], want, rtol, atol, what or key)


def vclose(got: np.ndarray, want, rtol: float, atol: float, what: str) -> None:
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


def shape(out, key: str) -> tuple | None:
    """A shape the probe emitted as a tuple of ints (`KEY` is ("seq", n), its items `KEY.0`, ...)."""
    marker = out.get(key)
    if not (isinstance(marker, tuple) and marker[0] == "seq"):
        return None
    return tuple(out.get(f"{key}.{i}") for i in range(marker[1]))


def arr(out, key: str) -> np.ndarray:
    value = out.get(key)
    expect(isinstance(value, np.ndarray), f"{key}: expected a tensor")
    return value.astype(np.float64)


def inputs(ref) -> tuple[np.ndarray, ...]:
    return tuple(ref[f"inputs.{i}"] for i in range(4))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---------------------------------------------------------------- differential: also finite


@check("matches_reference?*")
def finite_outputs(out, ref):
    expect(out["is_tuple"] is True, "spin_loss must return a tuple (losses, real_rewards, generated_rewards)")
    for i, name in enumerate(TRIPLE):
        finite(out[f"outputs.{i}"], name)


# ---------------------------------------------------------------- values checked by hand


@check("hand_checked_values")
def hand_checked_values(out, ref):
    # log p_theta(y) = -2, log p_theta(y') = -5, log p_opp(y) = log p_opp(y') = -3, lambda = 0.5:
    # real log-ratio +1, generated log-ratio -2, argument t = 0.5 * (1 - (-2)) = 1.5.
    # logistic: log(1 + e^-1.5) = 0.2014132779827524; hinge: max(0, 1 - 1.5) = 0.
    # rewards: 0.5 * 1 = 0.5 and 0.5 * -2 = -1.0.
    approx(out, "logistic", 0.2014132779827524, rel=1e-12)
    approx(out, "real_reward", 0.5, rel=1e-12)
    approx(out, "generated_reward", -1.0, rel=1e-12)
    approx(out, "hinge_lam0.5", 0.0, abs_=1e-15)
    # lambda = 0.2: t = 0.6; hinge 1 - 0.6 = 0.4
    approx(out, "hinge_lam0.2", 0.4, rel=1e-12)
    # real and generated swapped: t = -1.5, logistic log(1 + e^1.5) = 1.7014132779827524, hinge 2.5
    approx(out, "swapped_logistic", 1.7014132779827524, rel=1e-12)
    approx(out, "swapped_hinge", 2.5, rel=1e-12)


@check("start_of_iteration_model_equals_opponent")
def start_of_iteration(out, ref):
    # At the start of each SPIN iteration p_theta = p_{theta_t}: every log-ratio is 0, so t = 0:
    # logistic loss log 2 with gradient -lambda/2 on log p_theta(y) and +lambda/2 on log p_theta(y');
    # hinge loss 1 with gradient -lambda / +lambda.
    for loss_type, value, slope in (("logistic", math.log(2.0), 0.5), ("hinge", 1.0, 1.0)):
        aclose(out, f"{loss_type}.losses", np.full(5, value), 1e-12, 1e-12, loss_type)
        expect(bool(np.all(arr(out, f"{loss_type}.real_rewards") == 0)), f"{loss_type}: real rewards not 0")
        expect(bool(np.all(arr(out, f"{loss_type}.generated_rewards") == 0)), f"{loss_type}: generated rewards not 0")
        aclose(out, f"{loss_type}.d_real", np.full(5, -0.3 * slope), 1e-12, 1e-12)
        aclose(out, f"{loss_type}.d_gen", np.full(5, 0.3 * slope), 1e-12, 1e-12)


@check("extreme_arguments_are_stable")
def extreme_arguments(out, ref):
    # t = +-1000: log(1 + e^-1000) ~ 0 and log(1 + e^1000) = 1000 in double precision.
    finite(arr(out, "losses"), "losses")
    aclose(out, "losses", [0.0, 1000.0], 1e-12, 1e-12)
    aclose(out, "grad", [0.0, -0.5], 1e-12, 1e-12)  # -lam * sigmoid(-t): 0 and -0.5


# ---------------------------------------------------------------- properties from the paper


@check("only_log_ratios_matter?*")
def only_log_ratios(out, ref):
    for i, name in enumerate(TRIPLE):
        aclose(out, f"shifted.{i}", out.get(f"base.{i}"), 1e-9, 1e-9, f"shifted: {name}")


@check("logistic_loss_is_softplus_of_minus_lambda_margin")
def logistic_softplus(out, ref):
    # l(t) = log(1 + exp(-t)) with t = lam * (real log-ratio - generated log-ratio);
    # so l(t) - l(-t) = -t when real and generated are swapped.
    pr, pg, orl, og = inputs(ref)
    lam = 0.35
    margin = (pr - orl) - (pg - og)
    vclose(arr(out, "fwd") - arr(out, "rev"), -lam * margin, 1e-9, 1e-9, "fwd - rev")
    aclose(out, "fwd", np.log1p(np.exp(-lam * margin)), 1e-10, 1e-12)


@check("hinge_loss_and_its_flat_region")
def hinge(out, ref):
    # hinge: max(0, 1 - t); pairs with t >= 1 cost nothing and get no gradient, the others get -lam / +lam.
    pr, pg, orl, og = inputs(ref)
    lam = 0.4
    targ = lam * ((pr - orl) - (pg - og))
    active = targ < 1
    expect(5 < int(active.sum()) < 35, "both regimes are exercised")
    aclose(out, "losses", np.maximum(1 - targ, 0), 1e-12, 1e-12)
    aclose(out, "d_real", -lam * active.astype(np.float64), 1e-12, 1e-12)
    aclose(out, "d_gen", lam * active.astype(np.float64), 1e-12, 1e-12)


@check("logistic_gradient_weights")
def logistic_gradient(out, ref):
    # d loss / d log p_theta(y) = -lam * sigmoid(-t), d loss / d log p_theta(y') = +lam * sigmoid(-t):
    # the model raises the human response and lowers its opponent's, most where it errs most.
    pr, pg, orl, og = inputs(ref)
    lam = 0.7
    w = sigmoid(-lam * ((pr - orl) - (pg - og)))
    aclose(out, "d_real", -lam * w, 1e-10, 1e-13)
    aclose(out, "d_gen", lam * w, 1e-10, 1e-13)


@check("opponent_that_matches_the_data_gives_no_net_update")
def no_net_update(out, ref):
    # If the opponent already produces the data distribution, a sampled y' can coincide with y. For such a
    # pair the two terms cancel: t = 0 and the pushes on log p_theta(y) and log p_theta(y') are equal and
    # opposite, so their total effect on the model is zero (SPIN's stationary point p_theta = p_data).
    for loss_type in ("logistic", "hinge"):
        total = arr(out, f"{loss_type}.total_gradient")
        aclose(out, f"{loss_type}.total_gradient", np.zeros_like(total), 0, 1e-15)
        aclose(out, f"{loss_type}.real_rewards", out.get(f"{loss_type}.generated_rewards"), 0, 0)
        losses = arr(out, f"{loss_type}.losses")
        aclose(out, f"{loss_type}.losses", np.full_like(losses, math.log(2.0) if loss_type == "logistic" else 1.0),
               1e-12, 1e-12)


@check("small_lambda_limit")
def small_lambda(out, ref):
    # log(1 + e^-t) = log 2 - t/2 + t^2/8 + O(t^4): lam -> 0 gives log 2 with slope -margin/2.
    pr, pg, orl, og = inputs(ref)
    lam = 1e-5
    margin = (pr - orl) - (pg - og)
    aclose(out, "losses", math.log(2.0) - lam * margin / 2 + (lam * margin) ** 2 / 8, 0, 1e-12)


@check("rewards_detached_losses_differentiable_and_per_pair")
def rewards_detached(out, ref):
    pr, pg, orl, og = inputs(ref)
    for loss_type in ("logistic", "hinge"):
        k = loss_type
        expect(shape(out, f"{k}.losses_shape") == (10,), f"{k}: losses shape is not (10,)")
        equal(out.get(f"{k}.losses_requires_grad"), True, what=f"{k}: losses require grad")
        equal(out.get(f"{k}.real_requires_grad"), False, what=f"{k}: real rewards detached")
        equal(out.get(f"{k}.generated_requires_grad"), False, what=f"{k}: generated rewards detached")
        aclose(out, f"{k}.real_rewards", 0.1 * (pr - orl), 1e-12, 1e-12)
        aclose(out, f"{k}.generated_rewards", 0.1 * (pg - og), 1e-12, 1e-12)
        for i, name in enumerate(TRIPLE):
            expect(shape(out, f"{k}.single_shapes.{i}") == (1,), f"{k}: batch of one: {name} shape is not (1,)")
            aclose(out, f"{k}.single.{i}", arr(out, f"{k}.{name}")[4:5], 1e-12, 1e-12, f"{k}: batch of one: {name}")
