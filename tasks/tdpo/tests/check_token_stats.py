"""Trusted checks for tdpo/1 (never enter the sandbox): hand-checked values and properties, on the outputs
probe_token_stats.py emitted. The default comparison with the reference's outputs has already passed.

Patterns end in "*", not "[*]": fnmatch reads "[*]" as a character class matching a literal "*"."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite


@check("matches_reference*")
def returns_a_pair(out, ref):
    equal(out["is_tuple"], True, what="returns a tuple")
    for key, value in out.items():
        if isinstance(value, np.ndarray):
            finite(value, key)


# ---------------------------------------------------------------- values checked by hand


@check("hand_checked_values")
def hand_checked_values(out, ref):
    # log-ratio of the response token: log(1/2) - log(1/4) = log 2 = 0.6931471805599453
    equal(np.shape(out["margin"]), (1,), what="margin shape")
    equal(np.shape(out["kl"]), (1,), what="kl shape")
    close(out["margin"], [0.6931471805599453], rtol=1e-12, what="margin")
    # KL(ref || policy) = 3/4 log((3/4)/(1/2)) + 1/4 log((1/4)/(1/2)) = 0.75 log 1.5 - 0.25 log 2 = 0.13081203594113697
    # (the other direction, KL(policy || ref) = 0.14384103622589042, is wrong)
    close(out["kl"], [0.13081203594113697], rtol=1e-12, what="kl")


@check("hand_checked_gradient")
def hand_checked_gradient(out, ref):
    # d KL(ref || pi) / d policy logits = softmax(policy) - softmax(ref) = (1/2 - 3/4, 1/2 - 1/4) = (-1/4, 1/4)
    # d log pi(y=1) / d policy logits = onehot(1) - softmax(policy) = (-1/2, 1/2); the last position gets 0.
    close(out["grad_kl"], [[[-0.25, 0.25], [0.0, 0.0]]], rtol=1e-12, atol=1e-14, what="KL gradient")
    close(out["grad_margin"], [[[-0.5, 0.5], [0.0, 0.0]]], rtol=1e-12, atol=1e-14, what="log-ratio gradient")


# ---------------------------------------------------------------- properties


@check("policy_equal_to_reference_gives_zeros")
def policy_equal_to_reference(out, ref):
    close(out["margin"], np.zeros(4), rtol=0, atol=1e-12, what="margin")
    close(out["kl"], np.zeros(4), rtol=0, atol=1e-12, what="kl")


@check("kl_is_nonnegative_and_logits_shift_invariant")
def kl_nonnegative_shift_invariant(out, ref):
    expect(bool(np.all(out["kl"] > 0)), "a sequential KL is not positive")
    # adding any constant to all logits of one position leaves every distribution unchanged
    close(out["shifted_margin"], out["margin"], rtol=1e-10, atol=1e-10, what="shifted margin")
    close(out["shifted_kl"], out["kl"], rtol=1e-10, atol=1e-10, what="shifted kl")


@check("unscored_positions_do_not_matter")
def unscored_positions(out, ref):
    close(out["noised_margin"], out["margin"], rtol=1e-12, atol=1e-12, what="margin with noised unused logits")
    close(out["noised_kl"], out["kl"], rtol=1e-12, atol=1e-12, what="kl with noised unused logits")
    # a row without any scored token has zero log-ratio and zero KL
    equal(out["empty_row_margin"], 0.0, what="margin of a row with nothing scored")
    equal(out["empty_row_kl"], 0.0, what="kl of a row with nothing scored")


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@check("gradient_of_sequential_kl")
def gradient_of_sequential_kl(out, ref):
    # d/d z_t KL(softmax(r_t) || softmax(z_t)) = softmax(z_t) - softmax(r_t) at every scored position
    # (the logits one step before a scored token), zero elsewhere.
    policy, reference, labels = ref["policy"], ref["reference"], ref["labels"]  # inputs from the trusted run
    batch, seq_len, vocab = policy.shape
    scored_next = np.zeros((batch, seq_len, 1))
    scored_next[:, :-1, 0] = labels[:, 1:] != -100
    p, r = _softmax(policy), _softmax(reference)
    close(out["grad_kl"], scored_next * (p - r), rtol=1e-10, atol=1e-13, what="KL gradient")
    onehot = np.zeros_like(p)
    onehot[:, :-1] = np.eye(vocab)[np.clip(labels[:, 1:], 0, None)]
    close(out["grad_margin"], scored_next * (onehot - p), rtol=1e-10, atol=1e-13, what="log-ratio gradient")


@check("custom_ignore_index_and_batch_independence")
def custom_ignore_index(out, ref):
    for k in range(2):
        close(out[f"other.{k}"], out[f"base.{k}"], rtol=1e-12, atol=1e-12, what=f"ignore_index=-7, output {k}")
        equal(np.shape(out[f"single.{k}"]), (1,), what=f"batch of one, output {k} shape")
        close(out[f"single.{k}"], out[f"base.{k}"][1:2], rtol=1e-12, atol=1e-12, what=f"batch of one, output {k}")
