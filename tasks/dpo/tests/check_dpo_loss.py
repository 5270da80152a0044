"""Trusted checks for dpo/1 (never enter the sandbox): hand-checked values and the paper's properties, on the
outputs probe_dpo_loss.py emitted. The default comparison with the reference's outputs has already passed."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite


@check("matches_reference[*]")
def finite_outputs(out, ref):
    for key, value in out.items():
        if isinstance(value, np.ndarray):
            finite(value, key)


@check("hand_values")
def hand_values(out, ref):
    # One pair: log pi(y_w)=-1, log pi(y_l)=-3, log pi_ref(y_w)=log pi_ref(y_l)=-2, beta=0.5.
    # chosen log-ratio = +1, rejected log-ratio = -1, margin h = 2, beta*h = 1.
    # DPO: -log sigmoid(1) = log(1 + e^-1) = 0.31326168751822286; rewards 0.5*(+1) and 0.5*(-1).
    close(out["dpo"], [0.31326168751822286], rtol=1e-12, what="dpo")
    close(out["chosen"], [0.5], rtol=1e-12, what="chosen")
    close(out["rejected"], [-0.5], rtol=1e-12, what="rejected")
    # conservative DPO, eps=0.25: 0.75*log(1+e^-1) + 0.25*log(1+e^1) = a + 0.25 with a as above
    close(out["conservative"], [0.56326168751822286], rtol=1e-12, what="conservative")
    # IPO: (h - 1/(2 beta))^2; beta=0.5 -> 1; beta=0.25 -> 0; beta=1 -> 1.5^2 = 2.25
    close(out["ipo_b0.5"], [1.0], rtol=1e-12, what="ipo beta=0.5")
    close(out["ipo_b0.25"], [0.0], atol=1e-12, what="ipo beta=0.25")
    close(out["ipo_b1"], [2.25], rtol=1e-12, what="ipo beta=1")


@check("policy_equal_to_reference")
def zero_margin(out, ref):
    # h = 0 for every pair: -log sigmoid(0) = log 2 whatever beta and eps; rewards are 0; IPO: (0 - 1/0.2)^2 = 25
    for beta in (0.1, 3.0):
        close(out[f"b{beta}.losses"], np.full(7, math.log(2.0)), rtol=1e-12, atol=1e-12, what=f"beta={beta}")
        equal(out[f"b{beta}.chosen"], np.zeros(7), what="chosen rewards")
        equal(out[f"b{beta}.rejected"], np.zeros(7), what="rejected rewards")
    close(out["ipo"], np.full(7, 25.0), rtol=1e-12, atol=1e-12, what="ipo")


@check("extreme_margins")
def extreme_margins(out, ref):
    # beta*h = +1000 -> loss ~ 0; beta*h = -1000 -> 1000 + log(1 + e^-1000) = 1000 (double precision)... per pair
    # margins are +2000 and -2000 here: losses 0 and 2000; with eps = 0.1: 0.1*2000 = 200 and 0.9*2000 = 1800;
    # the gradient of the saturated wrong pair is exactly -beta (sigmoid(-beta h) = 1).
    close(out["losses"], [0.0, 2000.0], rtol=1e-12, atol=1e-12, what="losses")
    close(out["smoothed"], [200.0, 1800.0], rtol=1e-12, atol=1e-12, what="smoothed")
    close(out["grad"], [0.0, -1.0], rtol=1e-12, atol=1e-12, what="grad")


@check("log_ratio_invariance[*]")
def invariance(out, ref):
    # adding c to log pi(y) and log pi_ref(y) of one response, or one constant to both policy log-probs,
    # leaves every margin and so every output unchanged
    for i in range(3):
        close(out[f"shifted.{i}"], out[f"base.{i}"], rtol=1e-9, atol=1e-9, what=f"shifted output {i}")
    close(out["policy_shift"], out["base.0"], rtol=1e-9, atol=1e-9, what="policy shift")


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


@check("swapping_chosen_and_rejected")
def swap(out, ref):
    # -log s(bh) - (-log s(-bh)) = -bh; with smoothing eps the difference is -(1 - 2 eps) b h; rewards swap
    h = out["margin"]
    for beta, eps in ((0.2, 0.0), (0.7, 0.2), (0.4, 0.5)):
        fwd, rev = f"{beta}_{eps}.fwd", f"{beta}_{eps}.rev"
        close(out[f"{fwd}.0"] - out[f"{rev}.0"], -(1 - 2 * eps) * beta * h, rtol=1e-9, atol=1e-9, what="difference")
        close(out[f"{fwd}.1"], out[f"{rev}.2"], rtol=1e-12, atol=1e-12, what="chosen <-> rejected")
        close(out[f"{fwd}.2"], out[f"{rev}.1"], rtol=1e-12, atol=1e-12, what="rejected <-> chosen")


@check("small_beta_limit")
def small_beta(out, ref):
    # -log sigmoid(x) = log 2 - x/2 + x^2/8 + O(x^4)
    x = 1e-5 * out["margin"]
    close(out["losses"], math.log(2.0) - x / 2 + x**2 / 8, rtol=0, atol=1e-12, what="losses")


@check("gradient_is_weighted_likelihood_gradient[*]")
def weighted_gradient(out, ref):
    # d loss / d log pi(y_w) = -beta [ (1-eps) sigmoid(-beta h) - eps sigmoid(beta h) ] = - d loss / d log pi(y_l)
    h, beta, eps = out["margin"], 0.25, ref["eps"]  # parameters are read from the trusted reference run
    want = -beta * ((1 - eps) * _sigmoid(-beta * h) - eps * _sigmoid(beta * h))
    close(out["grad_chosen"], want, rtol=1e-10, atol=1e-12, what="grad chosen")
    close(out["grad_rejected"], -want, rtol=1e-10, atol=1e-12, what="grad rejected")


@check("ipo_gradient_and_minimum")
def ipo(out, ref):
    # IPO: (h - 1/(2 beta))^2, gradient 2 (h - 1/(2 beta)); zero at h = 1/(2 beta); smoothing unused
    h, beta = out["margin"], 0.4
    close(out["grad"], 2 * (h - 1 / (2 * beta)), rtol=1e-10, atol=1e-10, what="grad")
    close(out["at_min"], np.zeros_like(out["at_min"]), rtol=0, atol=1e-20, what="at the minimum")
    close(out["with_eps"], out["losses"], rtol=0, atol=0, what="label smoothing unused")


@check("rewards_detached_loss_differentiable[*]")
def detached(out, ref):
    equal(out["losses_requires_grad"], True, what="losses require grad")
    equal(out["chosen_requires_grad"], False, what="chosen rewards detached")
    equal(out["rejected_requires_grad"], False, what="rejected rewards detached")
    close(out["chosen"], 0.1 * out["chosen_log_ratio"], rtol=1e-12, atol=1e-12, what="chosen reward")
    close(out["rejected"], 0.1 * out["rejected_log_ratio"], rtol=1e-12, atol=1e-12, what="rejected reward")


@check("pairs_are_independent")
def independent(out, ref):
    perm = out["perm"].astype(int)
    for i in range(3):
        close(out[f"base.{i}"][perm], out[f"permuted.{i}"], rtol=1e-12, atol=1e-12, what=f"permuted {i}")
        close(out[f"base.{i}"][3:4], out[f"single.{i}"], rtol=1e-12, atol=1e-12, what=f"batch of one {i}")


@check("descending_the_loss_separates_the_pair")
def descent(out, ref):
    traj = out["trajectory"]
    expect(bool(np.all(np.diff(traj) < 0)), "the mean loss does not fall every step")
    expect(bool(np.all(out["chosen"] > out["rejected"])), "chosen reward not above rejected after descent")
