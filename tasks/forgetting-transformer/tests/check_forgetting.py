"""Trusted checks for forgetting-transformer/1 (never enter the sandbox): hand-checked values and the properties
the method description states, on the outputs probe_forgetting.py emitted. The default comparison with the
reference's outputs has already passed."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

TOL = dict(rtol=1e-10, atol=1e-12)


@check("*matches_reference[*]")
def finite_outputs(out, ref):
    for key, value in out.items():
        if isinstance(value, np.ndarray):
            finite(value, key)


@check("attention_hand_values")
def attention_hand_values(out, ref):
    # Eq. (5)-(6), scale 1, keys 0 so exp(q.k) = 1: weight of j for query i is F_ij = prod_{l=j+1..i} f_l.
    # f = (0.5, 0.5, 0.25), v = (1, 2, 4):
    #   i=1: v1 = 1
    #   i=2: F_21 = f2 = 0.5, F_22 = 1: (0.5*1 + 2) / 1.5 = 5/3
    #   i=3: F_31 = f2 f3 = 0.125, F_32 = f3 = 0.25, F_33 = 1: (0.125 + 0.5 + 4) / 1.375 = 37/11
    close(out["zero_keys"].ravel(), [1.0, 5 / 3, 37 / 11], rtol=1e-12, what="zero keys")
    # q = (0, 1), k = (ln 3, 0), v = (1, -1), f2 = 0.5: query 2 weighs j=1 by f2 * e^{ln 3} = 1.5 and j=2 by 1:
    #   i=1: 1;  i=2: (1.5 * 1 + 1 * (-1)) / 2.5 = 0.2  (f1 = 0.3 never enters)
    close(out["with_logits"].ravel(), [1.0, 0.2], rtol=1e-12, what="with logits")
    # D = 4, default scale 1/2: q.k1 = 4 * 0.5 = 2 -> logit 1, q.k2 = 0; no forgetting; v = (1, 0):
    #   i=2: e / (e + 1)
    close(out["default_scale"].ravel(), [1.0, math.e / (math.e + 1)], rtol=1e-12, what="default scale")


@check("attention_without_forgetting_is_softmax_attention")
def no_forgetting(out, ref):
    # f_t = 1 for all t: D = 0 on and below the diagonal, Eq. (7) is causal softmax attention
    close(out["fox"], out["softmax"], **TOL, what="log f = 0")
    close(out["fox_scaled"], out["softmax_scaled"], **TOL, what="log f = 0, scale 0.3")


@check("attention_is_causal")
def attention_causal(out, ref):
    cut = int(ref["cut"])
    close(out["changed"][:, :, : cut + 1], out["base"][:, :, : cut + 1], **TOL, what="positions <= cut")
    expect(not np.allclose(out["changed"][:, :, cut + 1:], out["base"][:, :, cut + 1:]),
           "later positions do not depend on their inputs")


@check("attention_ignores_the_first_gate")
def first_gate(out, ref):
    # F_ij multiplies f_{j+1} ... f_i: f_1 appears in no product
    close(out["first_changed"], out["base"], **TOL, what="f_1 changed")


@check("attention_full_forgetting_keeps_the_current_value")
def full_forgetting(out, ref):
    # f -> 0: F_ij -> 0 for j < i and F_ii = 1, so o_i -> v_i (here F_ij <= e^-200)
    close(out["out"], out["v"], **TOL, what="o_i = v_i")


@check("attention_heads_and_batch_are_independent")
def independent(out, ref):
    close(out["single"], out["full"][1:2, 2:3], **TOL, what="one sequence, one head")


@check("shift_hand_values")
def shift_hand_values(out, ref):
    # Eq. (10): alpha_t * x_{t-1} + (1 - alpha_t) * x_t, x_0 = 0; x = (1, 2, 3), alpha = (0.5, 0.25, 1):
    #   0.5*0 + 0.5*1 = 0.5;  0.25*1 + 0.75*2 = 1.75;  1*2 + 0*3 = 2
    close(out["out"].ravel(), [0.5, 1.75, 2.0], rtol=1e-12, what="hand values")
    # alpha = 0: no shift; alpha = 1: the previous step, zero at t = 1
    close(out["alpha0"], out["y"], rtol=1e-12, atol=1e-12, what="alpha = 0")
    shifted = np.concatenate([np.zeros_like(out["y"][:, :1]), out["y"][:, :-1]], axis=1)
    close(out["alpha1"], shifted, rtol=1e-12, atol=1e-12, what="alpha = 1")


@check("layer_is_causal[*]")
def layer_causal(out, ref):
    cut = int(ref["cut"])
    close(out["changed"][:, : cut + 1], out["base"][:, : cut + 1], **TOL, what="positions <= cut")
    expect(not np.allclose(out["changed"][:, cut + 1:], out["base"][:, cut + 1:]),
           "later positions do not depend on their inputs")


@check("layer_without_forgetting_is_the_baseline")
def layer_baseline(out, ref):
    # "llama" FoX layer with f_t = 1 and no positional embedding = the softmax baseline without RoPE
    close(out["fox"], out["baseline"], **TOL, what="f = 1")


@check("model_end_to_end[*]")
def end_to_end(out, ref):
    finite(out["logits"], "logits")
    finite(out["train_losses"], "training losses")
    equal(list(out["logits"].shape), [2, 12, 16], what="logits shape")
