"""Trusted checks for dapo/1 (never enter the sandbox): hand-checked values and the paper's properties, on the
outputs probe_dapo.py emitted. The default comparison with the reference's outputs has already passed.
Parameters of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-12, atol=1e-14)
F32 = dict(rtol=1e-5, atol=2e-6)


def eq11(lengths, max_len: int, buffer_len: int) -> np.ndarray:
    """Eq. (11), written case by case."""
    y = np.asarray(lengths, dtype=np.float64)
    start = max_len - buffer_len
    return np.where(y <= start, 0.0, np.where(y <= max_len, (start - y) / buffer_len, -1.0))


# ---------------------------------------------------------------- overlong_penalty and shaped_rewards


@check("penalty_matches_reference[*]")
def penalty_is_eq11(out, ref):
    tol = F64 if out["penalty#dtype"] == "float64" else F32
    close(out["penalty"], eq11(ref["lengths"], ref["max_len"], ref["buffer_len"]), **tol, what="Eq. (11)")


@check("penalty_hand_values")
def penalty_hand_values(out, ref):
    # L_max = 10, L_cache = 4: no penalty up to 6 tokens; (6 - |y|)/4 from 7 to 10 tokens; -1 beyond.
    want = [0, 0, 0, 0, 0, 0, 0, -0.25, -0.5, -0.75, -1.0, -1.0, -1.0]
    close(out["penalty"], want, **F64, what="L_max=10, L_cache=4")
    # the paper's setting, L_max = 20480 and L_cache = 4096: free up to 16384 tokens;
    # 17408 -> -1024/4096 = -0.25; 18432 -> -0.5; 20480 -> -1; 20481 -> -1
    close(out["paper_setting"], [0.0, -0.25, -0.5, -1.0, -1.0], **F64, what="L_max=20480, L_cache=4096")


@check("rewards_match_reference[*]")
def rewards_are_outcome_plus_penalty(out, ref):
    outcome = np.where(ref["correct"], 1.0, -1.0)  # Eq. (6)
    tol = F64 if out["rewards#dtype"] == "float64" else F32
    close(out["rewards"], outcome + eq11(ref["lengths"], ref["max_len"], ref["buffer_len"]), **tol,
          what="Eq. (6) + Eq. (11)")


@check("rewards_follow_the_default_dtype")
def rewards_in_float64(out, ref):
    # L_max = 12, L_cache = 5: penalties in steps of 1/5, not exact in float32
    equal(out["penalty#dtype"], "float64", what="penalty dtype under a float64 default")
    equal(out["rewards#dtype"], "float64", what="rewards dtype under a float64 default")
    penalty = eq11(ref["lengths"], 12, 5)
    close(out["penalty"], penalty, **F64, what="Eq. (11)")
    close(out["rewards"], np.where(ref["correct"], 1.0, -1.0) + penalty, **F64, what="Eq. (6) + Eq. (11)")


@check("rewards_hand_values")
def rewards_hand_values(out, ref):
    # L_max = 10, L_cache = 4; lengths 3, 3, 7, 7, 12, 12 -> penalties 0, 0, -0.25, -0.25, -1, -1;
    # outcome +1 (right) / -1 (wrong), alternating right, wrong
    close(out["rewards"], [1.0, -1.0, 0.75, -1.25, 0.0, -2.0], **F64, what="shaped rewards")


# ---------------------------------------------------------------- group_advantages


@check("advantages_match_reference[*]")
def advantages_properties(out, ref):
    key = next(k for k in out if k.endswith(".advantages"))
    tol = F32 if key.startswith("f32") else F64
    adv, rewards = out[key].astype(np.float64), ref["rewards"]
    finite(adv, "advantages")
    g = rewards.shape[1]
    mean = rewards.mean(axis=1, keepdims=True)
    std = np.sqrt(((rewards - mean) ** 2).sum(axis=1, keepdims=True) / (g - 1 if ref["unbiased"] else g))
    # Eq. (8), with the denominator std + eps of the docstring
    close(adv, (rewards - mean) / (std + ref["eps"]), **tol, what="Eq. (8)")
    close(adv.mean(axis=1), np.zeros(rewards.shape[0]), rtol=0, atol=10 * tol["atol"], what="zero mean per group")


@check("advantages_hand_values")
def advantages_hand_values(out, ref):
    # [1, -1, -1, 1]: mean 0; Bessel std sqrt(4/3) -> +-sqrt(3)/2; population std 1 -> +-1.
    # [1, -1, -1, -1]: mean -0.5, deviations 1.5, -0.5 x3, sum of squares 3: Bessel std 1 -> the deviations;
    # population std sqrt(3/4) -> 1.5/sqrt(0.75) = sqrt(3) and -0.5/sqrt(0.75) = -1/sqrt(3).
    h = math.sqrt(3) / 2
    close(out["unbiased"], [[h, -h, -h, h], [1.5, -0.5, -0.5, -0.5]], **F64, what="Bessel-corrected std")
    r3 = 1 / math.sqrt(3)
    close(out["population"], [[1, -1, -1, 1], [math.sqrt(3), -r3, -r3, -r3]], **F64, what="population std")
    # equal rewards: zero deviations over eps
    close(out["constant_group"], [0.0, 0.0, 0.0, 0.0], rtol=0, atol=0, what="equal rewards")
    # population std 1, eps 0.5 -> +-1/1.5
    close(out["with_eps"], [[2 / 3, -2 / 3, -2 / 3, 2 / 3]], **F64, what="eps = 0.5")
    # defaults: eps 1e-6 added to the Bessel std sqrt(4/3)
    d = 1 / (math.sqrt(4 / 3) + 1e-6)
    close(out["defaults"], [[d, -d, -d, d]], **F64, what="default eps and unbiased std")


@check("advantages_affine_invariance[*]")
def advantages_invariances(out, ref):
    # a positive scale a of the rewards scales mean and std alike: exact for eps = 0, relative change of about
    # eps * (a - 1) / std otherwise (std ~ 1 here); a per-group shift and a permutation change nothing
    scale_tol = dict(rtol=1e-9, atol=1e-9) if ref["eps"] == 0.0 else dict(rtol=1e-5, atol=1e-5)
    close(out["affine"], out["base"], **scale_tol, what="3 R - 2")
    close(out["per_group_shift"], out["base"], rtol=1e-9, atol=1e-9, what="shift per group")
    close(out["permuted"], out["base"][[2, 0, 3, 1]][:, [5, 4, 3, 2, 1, 0]], rtol=1e-12, atol=1e-12, what="permuted")


# ---------------------------------------------------------------- dynamic_sampling


@check("dynamic_sampling_matches_reference[*]")
def sampled_groups_are_informative(out, ref):
    expect(out["calls"] <= ref["max_rounds"], "more generation rounds than max_rounds")
    if ref["raised"]:
        equal(out["raised"], "RuntimeError", what="exception when the rounds run out")
        equal(out["calls"], ref["max_rounds"], what="rounds drawn before giving up")
        return
    equal(out["is_rollout_batch"], True, what="returns a RolloutBatch")
    right = out["correct"].sum(axis=1)
    # Eq. (9): 0 < |{o_i right}| < G for every kept group
    expect(bool(np.all((right > 0) & (right < out["correct"].shape[1]))), "a kept group is all right or all wrong")
    equal(out["prompts"].shape[0], ref["prompts"].shape[0], what="batch size")


@check("dynamic_sampling_in_the_trainer[*]")
def trainer_groups_are_informative(out, ref):
    right = out["correct"].sum(axis=1)
    expect(bool(np.all((right > 0) & (right < out["correct"].shape[1]))), "a kept group is all right or all wrong")
    equal(out["prompts"].shape[0], ref["prompts"].shape[0], what="batch size")


# ---------------------------------------------------------------- dapo_policy_loss


def eq7(ratio, adv, mask, eps_low, eps_high):
    """Minus Eq. (7) averaged over the N groups, and its gradient with respect to log pi_theta (d r / d log pi = r)."""
    a = adv[..., None]
    clipped = np.clip(ratio, 1 - eps_low, 1 + eps_high)
    per_token = np.minimum(ratio * a, clipped * a) * mask
    tokens = mask.sum(axis=(1, 2))
    n = ratio.shape[0]
    loss = -np.mean(per_token.sum(axis=(1, 2)) / tokens)
    # the unclipped term is the minimum (so it carries the gradient) unless the clip binds against the advantage
    active = ~(((a > 0) & (ratio > 1 + eps_high)) | ((a < 0) & (ratio < 1 - eps_low)))
    grad = -(ratio * a * active * mask) / tokens[:, None, None] / n
    return loss, grad


@check("loss_matches_reference[*]")
def loss_is_eq7(out, ref):
    prefix = "f32" if "f32.loss" in ref else "f64"
    tol = F32 if prefix == "f32" else F64
    loss, grad = eq7(ref["ratio"], ref["advantages"], ref["mask"], ref["eps_low"], ref["eps_high"])
    close(out[f"{prefix}.loss"], loss, **tol, what="loss")
    close(out[f"{prefix}.grad"], grad, **tol, what="gradient")


@check("loss_hand_values")
def loss_hand_values(out, ref):
    # eps_low = 0.2, eps_high = 0.28, clip range [0.8, 1.28].
    # group 1 (A = +1, -1; 2 + 1 tokens): min(1.25, 1.25) = 1.25; min(1.5, 1.28) = 1.28; min(-0.5, -0.8) = -0.8
    #   -> (1.25 + 1.28 - 0.8) / 3 = 0.57666...
    # group 2 (A = -0.5, +0.5; 2 + 2 tokens): -0.5; min(-0.35, -0.4) = -0.4; 0.45; 0.55 -> 0.1 / 4 = 0.025
    # loss = -(0.57666... + 0.025) / 2
    close(out["loss"], -(1.73 / 3 + 0.025) / 2, **F64, what="loss")
    # gradient wrt log pi: -(1/N)(1/tokens) r A on unclipped tokens, 0 where the clipped term is the minimum
    want = np.array([[[-1.25 / 6, 0.0], [0.0, 0.0]], [[0.5 / 8, 0.0], [-0.45 / 8, -0.55 / 8]]])
    close(out["grad"], want, **F64, what="gradient")


@check("loss_on_policy[*]")
def loss_on_policy(out, ref):
    # r = 1 everywhere: J_g = sum_i A_i |o_i| / sum_i |o_i|; d(-J)/d log pi = -A_i / (N sum_i |o_i|) per token
    prefix = "f32" if "f32.loss" in ref else "f64"
    tol = F32 if prefix == "f32" else F64
    adv, lengths = ref["advantages"], ref["lengths"].astype(np.float64)
    tokens = lengths.sum(axis=1)
    n = adv.shape[0]
    close(out[f"{prefix}.loss"], -np.mean((adv * lengths).sum(axis=1) / tokens), **tol, what="loss at r = 1")
    t = out[f"{prefix}.grad"].shape[2]
    mask = np.arange(t) < ref["lengths"][..., None]
    close(out[f"{prefix}.grad"], -(adv / tokens[:, None] / n)[..., None] * mask, **tol, what="gradient at r = 1")


@check("loss_ignores_padding")
def loss_ignores_padding(out, ref):
    close(out["moved.loss"], out["base.loss"], rtol=1e-12, atol=1e-14, what="loss with other padding values")
    close(out["moved.grad"], out["base.grad"], rtol=1e-12, atol=1e-14, what="gradient with other padding values")
    equal(out["base.grad"][~ref["mask"]], np.zeros(int((~ref["mask"]).sum())), what="zero gradient at padding")


@check("loss_permutation_invariance")
def loss_permutation_invariance(out, ref):
    close(out["permuted.loss"], out["base.loss"], rtol=1e-12, atol=1e-14, what="groups and responses permuted")
    close(out["permuted.grad"], out["base.grad_permuted"], rtol=1e-12, atol=1e-14, what="gradient permuted")


@check("loss_token_level_weighting")
def loss_token_level_weighting(out, ref):
    # r = 1; one group with a 1-token and a 4-token response, 5 tokens in all (Eq. (10)):
    # A = (+1, -1): J = (1 - 4) / 5 = -0.6 -> loss 0.6; A = (-1, +1): loss -0.6; each token's gradient -A/5
    close(out["short_positive.loss"], 0.6, **F64, what="loss, short response rewarded")
    close(out["long_positive.loss"], -0.6, **F64, what="loss, long response rewarded")
    close(out["short_positive.grad"], [[[-0.2, 0, 0, 0], [0.2, 0.2, 0.2, 0.2]]], **F64, what="gradient")
    close(out["long_positive.grad"], [[[0.2, 0, 0, 0], [-0.2, -0.2, -0.2, -0.2]]], **F64, what="gradient")


# ---------------------------------------------------------------- end to end


@check("trainer_steps_*")
def trainer_steps(out, ref):
    finite(out["losses"], "losses")
    finite(out["params"], "parameters")
    steps = len(ref["mean_reward"])
    for s in range(steps):
        # dynamic sampling: every group of the batch has right and wrong answers
        expect(0.0 < out[f"accuracy.{s}"] < 1.0, f"step {s}: accuracy {out[f'accuracy.{s}']} in a dynamic batch")
        expect(out[f"rounds.{s}"] >= 1, f"step {s}: no generation round")
    # rewards lie in [-2, 1]: outcome +-1 plus a penalty in [-1, 0]
    expect(bool(np.all((out["mean_reward"] >= -2.0) & (out["mean_reward"] <= 1.0))), "mean reward out of [-2, 1]")


@check("trainer_sampling_budget_exhausted")
def sampling_budget(out, ref):
    equal(out["raised"], "RuntimeError", what="exception when max_sampling_rounds cannot fill the batch")
    equal(out["rounds"], 3, what="generation rounds drawn (max_sampling_rounds = 3)")
