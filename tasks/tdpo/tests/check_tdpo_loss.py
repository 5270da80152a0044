"""Trusted checks for tdpo/2 (never enter the sandbox): hand-checked values and properties, on the outputs
probe_tdpo_loss.py emitted. The default comparison with the reference's outputs has already passed.

Patterns end in "*", not "[*]": fnmatch reads "[*]" as a character class matching a literal "*"."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

INPUT_NAMES = ("chosen_logps_margin", "rejected_logps_margin", "chosen_seq_kl", "rejected_seq_kl")


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


@check("matches_reference*")
def returns_three_finite_outputs(out, ref):
    equal(out["is_tuple"], True, what="returns a tuple")
    for key, value in out.items():
        if isinstance(value, np.ndarray):
            finite(value, key)


# ---------------------------------------------------------------- values checked by hand


@check("hand_checked_values")
def hand_checked_values(out, ref):
    # log-ratio sums: chosen +1, rejected -1; sequential KLs: chosen 0.5, rejected 2.5; beta = 0.5, alpha = 0.5.
    # TDPO1: beta * [(1 - (-1)) - (2.5 - 0.5)] = 0.5 * 0 = 0            -> loss log 2 = 0.6931471805599453
    # TDPO2: beta * [(1 - (-1)) - 0.5 * (2.5 - 0.5)] = 0.5 * 1 = 0.5     -> loss log(1 + e^-0.5) = 0.4740769841801067
    # rewards: beta * margins = 0.5 and -0.5
    close(out["tdpo1"], 0.6931471805599453, rtol=1e-12, what="TDPO1 loss")
    close(out["chosen"], 0.5, rtol=1e-12, what="chosen reward")
    close(out["rejected"], -0.5, rtol=1e-12, what="rejected reward")
    close(out["tdpo2"], 0.4740769841801067, rtol=1e-12, what="TDPO2 loss")


@check("hand_checked_gradients")
def hand_checked_gradients(out, ref):
    # Same pair. With z the argument of the sigmoid, d loss / d z = -sigmoid(-z).
    # TDPO1, z = 0: sigmoid(0) = 1/2; dz/d(chosen KL) = +beta, dz/d(rejected KL) = -beta
    #   -> grads (margins, KLs) = (-0.25, +0.25, -0.25, +0.25)
    # TDPO2, z = 0.5: s = sigmoid(-0.5) = 0.3775406687981454; dz/d(rejected KL) = -alpha*beta = -0.25, chosen KL
    #   is behind the stop-gradient -> grads = (-0.5 s, +0.5 s, 0, +0.25 s)
    close(out["tdpo1"], [-0.25, 0.25, -0.25, 0.25], rtol=1e-12, atol=1e-14, what="TDPO1")
    s = 0.3775406687981454
    close(out["tdpo2"], [-0.5 * s, 0.5 * s, 0.0, 0.25 * s], rtol=1e-12, atol=1e-14, what="TDPO2")


@check("extreme_arguments_are_stable")
def extreme_arguments(out, ref):
    # z = beta * (margin gap - KL gap) = -+2000 -> losses 2000 and ~0 (no inf / nan)
    for name in ("tdpo1", "tdpo2"):
        finite(out[name], name)
        close(out[name], [2000.0, 0.0], rtol=1e-12, atol=1e-12, what=name)


# ---------------------------------------------------------------- properties


@check("zero_kl_or_zero_alpha_reduces_to_dpo")
def reduces_to_dpo(out, ref):
    # Without the KL terms both variants are the DPO loss -log sigmoid(beta * (margin_w - margin_l)).
    dpo = _softplus(-0.3 * (ref["chosen_margin"] - ref["rejected_margin"]))  # inputs from the trusted run
    for key in ("zero_kl_tdpo1", "zero_kl_tdpo2", "zero_alpha_tdpo2"):
        close(out[key], dpo, rtol=1e-12, atol=1e-12, what=key)


@check("tdpo1_ignores_alpha_and_tdpo2_with_alpha_one_has_tdpo1_values")
def alpha(out, ref):
    close(out["tdpo1_alpha3"], out["tdpo1_alpha0.1"], rtol=0, atol=0, what="alpha must not matter for TDPO1")
    close(out["tdpo2_alpha1"], out["tdpo1_alpha0.1"], rtol=1e-12, atol=1e-12,
          what="TDPO2 with alpha = 1 has the TDPO1 value")


@check("kl_direction_of_the_penalty")
def kl_direction(out, ref):
    # The KL term enters as -(KL_l - KL_w) inside the sigmoid: a larger sequential KL on the rejected
    # response raises the loss (minimising it keeps pi_theta close to pi_ref on y_l), a larger one on the
    # chosen response lowers it. Values only: TDPO2's stop-gradient does not change the value.
    for name in ("tdpo1", "tdpo2"):
        base = out[f"{name}.base"]
        expect(bool(np.all(out[f"{name}.more_rejected_kl"] > base)), f"{name}: more rejected KL must raise the loss")
        expect(bool(np.all(out[f"{name}.more_chosen_kl"] < base)), f"{name}: more chosen KL must lower the loss")


@check("stop_gradient_in_tdpo2")
def stop_gradient(out, ref):
    # TDPO2: the loss has the same value with or without the stop-gradient, but no gradient reaches the
    # chosen response's sequential KL; the rejected KL gets alpha * beta * sigmoid(-z).
    cm, rm, ckl, rkl = (ref[f"inputs.{k}"] for k in range(4))  # inputs from the trusted run
    beta, alpha = 0.4, 0.7
    g_cm, g_rm, g_ckl, g_rkl = (out[f"grads.{name}"] for name in INPUT_NAMES)
    z = beta * ((cm - rm) - alpha * (rkl - ckl))
    w = _sigmoid(-z)
    close(out["losses"], _softplus(-z), rtol=1e-12, atol=1e-12, what="value")
    expect(bool(np.all(g_ckl == 0)), "the chosen sequential KL must be behind a stop-gradient in TDPO2")
    close(g_rkl, alpha * beta * w, rtol=1e-10, atol=1e-14, what="rejected KL gradient")
    close(g_cm, -beta * w, rtol=1e-10, atol=1e-14, what="chosen margin gradient")
    close(g_rm, beta * w, rtol=1e-10, atol=1e-14, what="rejected margin gradient")


@check("no_stop_gradient_in_tdpo1")
def no_stop_gradient(out, ref):
    cm, rm, ckl, rkl = (ref[f"inputs.{k}"] for k in range(4))  # inputs from the trusted run
    beta = 0.25
    g_cm, g_rm, g_ckl, g_rkl = (out[f"grads.{name}"] for name in INPUT_NAMES)
    w = _sigmoid(-beta * ((cm - rm) - (rkl - ckl)))
    close(g_ckl, -beta * w, rtol=1e-10, atol=1e-14, what="chosen KL gradient")
    close(g_rkl, beta * w, rtol=1e-10, atol=1e-14, what="rejected KL gradient")
    close(g_cm, -beta * w, rtol=1e-10, atol=1e-14, what="chosen margin gradient")
    close(g_rm, beta * w, rtol=1e-10, atol=1e-14, what="rejected margin gradient")


@check("rewards_detached_and_per_pair")
def rewards_detached(out, ref):
    cm, rm = ref["chosen_margin"], ref["rejected_margin"]  # inputs from the trusted run
    for name in ("tdpo1", "tdpo2"):
        equal(np.shape(out[f"{name}.losses"]), (9,), what=f"{name}: losses shape")
        equal(out[f"{name}.losses_requires_grad"], True, what=f"{name}: losses require grad")
        equal(out[f"{name}.chosen_requires_grad"], False, what=f"{name}: chosen rewards detached")
        equal(out[f"{name}.rejected_requires_grad"], False, what=f"{name}: rejected rewards detached")
        close(out[f"{name}.chosen"], 0.1 * cm, rtol=1e-12, atol=1e-12, what=f"{name}: chosen rewards")
        close(out[f"{name}.rejected"], 0.1 * rm, rtol=1e-12, atol=1e-12, what=f"{name}: rejected rewards")
        for k, key in enumerate(("losses", "chosen", "rejected")):
            single = out[f"{name}.single.{k}"]
            equal(np.shape(single), (1,), what=f"{name}: batch of one, {key} shape")
            close(single, out[f"{name}.{key}"][2:3], rtol=1e-12, atol=1e-12, what=f"{name}: batch of one, {key}")


@check("policy_equal_to_reference_gives_log_two")
def log_two(out, ref):
    for name in ("tdpo1", "tdpo2"):
        close(out[name], np.full(5, math.log(2.0)), rtol=1e-12, atol=1e-12, what=name)
