"""Trusted checks for gspo/1 (never enter the sandbox): the paper's equations recomputed in numpy (float64) from
the inputs the probe echoed, hand-checked values, and the properties paper.md states. The default comparison with
the reference's outputs has already passed. Parameters of a case are read from `ref`, never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-12, atol=1e-14)
F32 = dict(rtol=1e-5, atol=2e-6)


def tol_of(key: str) -> dict:
    return F32 if key.startswith("f32") else F64


def key_of(out: dict, suffix: str) -> str:
    return next(k for k in out if k.endswith(suffix) and not k.endswith("#dtype"))


def eq8_log(logprobs, old, mask):
    """log s_i of Eq. (8): the mean over the response's tokens of the token log-ratios."""
    diff = np.where(mask, logprobs - old, 0.0)
    return diff.sum(-1) / mask.sum(-1)


def eq6(logprobs, old, adv, mask, eps_low, eps_high):
    """Minus Eq. (6) averaged over the N queries, and its gradient w.r.t. log pi_theta (Eq. (9) with clipping:
    a response whose clipped term is the strict minimum gives no gradient)."""
    s = np.exp(eq8_log(logprobs, old, mask))
    clipped = np.clip(s, 1 - eps_low, 1 + eps_high)
    loss = -np.mean(np.minimum(s * adv, clipped * adv))
    active = ~(((adv > 0) & (s > 1 + eps_high)) | ((adv < 0) & (s < 1 - eps_low)))
    grad = -(s * adv * active / mask.sum(-1))[..., None] * mask / adv.size
    return loss, grad


def eq11(logprobs, old, adv, mask, eps_low, eps_high):
    """Minus Eq. (11) with s_{i,t} of Eq. (12), and its gradient (Eq. (13) with clipping, token by token)."""
    s = np.exp(eq8_log(logprobs, old, mask))[..., None]
    clipped = np.clip(s, 1 - eps_low, 1 + eps_high)
    per_token = np.where(mask, np.minimum(s * adv, clipped * adv), 0.0)
    lengths = mask.sum(-1)
    n_resp = lengths.size
    loss = -np.mean(per_token.sum(-1) / lengths)
    active = ~(((adv > 0) & (s > 1 + eps_high)) | ((adv < 0) & (s < 1 - eps_low)))
    grad = -(s * adv * active) * mask / lengths[..., None] / n_resp
    return loss, grad


def grpo(logprobs, old, adv, mask, eps):
    """Minus Eq. (3), token-level ratios (2), and its gradient (Eq. (10) with clipping)."""
    w = np.exp(logprobs - old)
    a = adv[..., None]
    per_token = np.where(mask, np.minimum(w * a, np.clip(w, 1 - eps, 1 + eps) * a), 0.0)
    lengths = mask.sum(-1)
    loss = -np.mean(per_token.sum(-1) / lengths)
    active = ~(((a > 0) & (w > 1 + eps)) | ((a < 0) & (w < 1 - eps)))
    grad = -(w * a * active) * mask / lengths[..., None] / lengths.size
    return loss, grad


# ---------------------------------------------------------------- group_advantages


@check("advantages_match_reference[*]")
def advantages_are_eq7(out, ref):
    key = key_of(out, ".advantages")
    tol = tol_of(key)
    adv, rewards = out[key].astype(np.float64), ref["rewards"]
    finite(adv, "advantages")
    ddof = 1 if ref["unbiased"] else 0
    mean = rewards.mean(axis=1, keepdims=True)
    std = rewards.std(axis=1, ddof=ddof, keepdims=True)
    close(adv, (rewards - mean) / (std + ref["eps"]), **tol, what="Eq. (7), std + eps in the denominator")
    close(adv.mean(axis=1), np.zeros(rewards.shape[0]), rtol=0, atol=10 * tol["atol"], what="zero mean per group")


@check("advantages_hand_values")
def advantages_hand_values(out, ref):
    # [1, 0, 0, 1]: mean 1/2, deviations +-1/2, sum of squares 1: Bessel std sqrt(1/3) -> +-sqrt(3)/2;
    # population std 1/2 -> +-1.
    # [1, 0, 0, 0]: mean 1/4, deviations 3/4, -1/4 x3, sum of squares 3/4: Bessel std 1/2 -> 3/2, -1/2;
    # population std sqrt(3/16) -> sqrt(3), -1/sqrt(3).
    h = math.sqrt(3) / 2
    close(out["unbiased"], [[h, -h, -h, h], [1.5, -0.5, -0.5, -0.5]], **F64, what="Bessel-corrected std")
    r3 = 1 / math.sqrt(3)
    close(out["population"], [[1, -1, -1, 1], [math.sqrt(3), -r3, -r3, -r3]], **F64, what="population std")
    close(out["constant_group"], [0.0, 0.0, 0.0, 0.0], rtol=0, atol=0, what="equal rewards")
    # population std 1/2, eps 1/2 -> +-(1/2)/1
    close(out["with_eps"], [[0.5, -0.5, -0.5, 0.5]], **F64, what="eps = 0.5")
    # defaults: eps 1e-6 added to the Bessel std sqrt(1/3)
    d = 0.5 / (math.sqrt(1 / 3) + 1e-6)
    close(out["defaults"], [[d, -d, -d, d]], **F64, what="default eps and unbiased std")


# ---------------------------------------------------------------- sequence_log_ratio


@check("ratio_matches_reference[*]")
def ratio_is_eq8(out, ref):
    key = key_of(out, ".log_ratio")
    tol = tol_of(key)
    mask = ref["mask"]
    close(out[key].astype(np.float64), eq8_log(ref["logprobs"], ref["old_logprobs"], mask), **tol,
          what="Eq. (8): mean token log-ratio")
    gkey = key_of(out, ".grad")
    want = ref["cot"][..., None] * mask / mask.sum(-1)[..., None]
    close(out[gkey].astype(np.float64), want, **tol, what="gradient: 1/|y_i| on each token, 0 on padding")


@check("ratio_hand_values")
def ratio_hand_values(out, ref):
    # token ratios 2, 1/2, 4: product 4 over 3 tokens -> s = 4^(1/3), log s = ln(4)/3; one token of ratio 3 -> 3
    close(out["log_ratio"], [math.log(4) / 3, math.log(3)], **F64, what="log s_i")
    close(out["ratio"], [4 ** (1 / 3), 3.0], **F64, what="s_i")


# ---------------------------------------------------------------- gspo_loss


@check("loss_matches_reference[*]")
def loss_is_eq6(out, ref):
    loss, grad = eq6(ref["logprobs"], ref["old_logprobs"], ref["advantages"], ref["mask"], ref["eps_low"],
                     ref["eps_high"])
    lkey, gkey = key_of(out, ".loss"), key_of(out, ".grad")
    tol = tol_of(lkey)
    close(np.float64(out[lkey]), loss, **tol, what="minus Eq. (6)")
    close(out[gkey].astype(np.float64), grad, **tol, what="gradient, Eq. (9) with sequence-level clipping")


@check("loss_hand_values")
def loss_hand_values(out, ref):
    # eps_low 0.2, eps_high 0.05: clip to [0.8, 1.05].
    # q1 y1: ratios 1.21, 1 -> s = 1.1, A = 1: min(1.1, 1.05) = 1.05 (clipped, no gradient)
    # q1 y2: one token (the second is padding), ratio 1/4 -> s = 0.25, A = -1: min(-0.25, -0.8) = -0.8 (clipped)
    # q2 y1: ratios 1.21, 1 -> s = 1.1, A = -0.5: min(-0.55, -0.525) = -0.55 (unclipped)
    # q2 y2: ratios 0.81, 1 -> s = 0.9, A = 0.5: 0.45 either way
    # objective (1.05 - 0.8 - 0.55 + 0.45) / 4 = 0.0375 -> loss -0.0375
    close(np.float64(out["loss"]), -0.0375, **F64, what="hand-computed loss")
    # gradient per token of an unclipped response: -(1/4) s A / |y|: q2 y1 -(1/4)(1.1)(-0.5)/2 = 0.06875;
    # q2 y2 -(1/4)(0.9)(0.5)/2 = -0.05625
    want = [[[0.0, 0.0], [0.0, 0.0]], [[0.06875, 0.06875], [-0.05625, -0.05625]]]
    close(out["grad"], want, **F64, what="hand-computed gradient")


@check("loss_on_policy[*]")
def loss_on_policy(out, ref):
    lkey, gkey = key_of(out, ".loss"), key_of(out, ".grad")
    tol = tol_of(lkey)
    adv, lengths = ref["advantages"], ref["lengths"]
    mask = np.arange(6) < lengths[..., None]
    # s_i = 1: the objective is the mean advantage; Eq. (9): each token gets s_i A_i / |y_i| / (N G)
    close(np.float64(out[lkey]), -adv.mean(), **tol, what="loss at ratio 1")
    close(out[gkey].astype(np.float64), -(adv / lengths)[..., None] * mask / adv.size, **tol,
          what="equal weight for every token of a response (Eq. (9))")


@check("loss_length_normalised")
def loss_length_normalised(out, ref):
    c = np.array([[0.1, -0.1, 0.02], [0.0, 0.3, -0.02]])
    for t in (1, 9):
        close(out[f"t{t}.log_ratio"], c, **F64, what=f"log s_i with T = {t}")
    close(np.float64(out["t9.loss"]), np.float64(out["t1.loss"]), **F64, what="loss independent of the lengths")


@check("loss_ignores_padding")
def loss_ignores_padding(out, ref):
    close(np.float64(out["moved.loss"]), np.float64(out["base.loss"]), **F64, what="loss with other padding")
    close(out["moved.grad"], out["base.grad"], **F64, what="gradient with other padding")
    equal(bool(np.all(out["base.grad"][~ref["mask"]] == 0)), True, what="no gradient on padding")


@check("clip_fraction_matches_reference[*]")
def clip_fraction_counts_clipped_tokens(out, ref):
    mask, adv = ref["mask"], ref["advantages"]
    s = np.exp(eq8_log(ref["logprobs"], ref["old_logprobs"], mask))
    # Section 5.2: the share of all response tokens excluded from the gradient by clipping; a response is excluded
    # when its ratio has left the band in the direction its advantage pushes (Section 4.1)
    clipped = ((adv > 0) & (s > 1 + ref["eps_high"])) | ((adv < 0) & (s < 1 - ref["eps_low"]))
    lengths = mask.sum(-1)
    key = key_of(out, ".fraction")
    close(np.float64(out[key]), (lengths * clipped).sum() / lengths.sum(), **tol_of(key), what="clipped tokens")


@check("clip_fraction_hand_values")
def clip_fraction_hand_values(out, ref):
    # loss_hand_values: q1 y1 (2 tokens) and q1 y2 (1 token) are clipped, q2 y1 and q2 y2 (2 tokens each) are
    # not: 3 of 7 tokens. Flipped advantages: q1 y1 (s = 1.1 > 1.05, A = -1) and q1 y2 (s = 0.25 < 0.8, A = 1)
    # are no longer clipped; q2 y1 (s = 1.1, A = 0.5) is; q2 y2 (s = 0.9) is inside the band: 2 of 7.
    close(np.float64(out["fraction"]), 3 / 7, **F64, what="hand-computed fraction")
    close(np.float64(out["flipped"]), 2 / 7, **F64, what="hand-computed fraction, advantages flipped")
    close(np.float64(out["on_policy"]), 0.0, rtol=0, atol=0, what="nothing clipped at ratio 1")


# ---------------------------------------------------------------- gspo_token_loss


@check("token_loss_matches_reference[*]")
def token_loss_is_eq11(out, ref):
    loss, grad = eq11(ref["logprobs"], ref["old_logprobs"], ref["advantages"], ref["mask"], ref["eps_low"],
                      ref["eps_high"])
    lkey, gkey = key_of(out, ".loss"), key_of(out, ".grad")
    tol = tol_of(lkey)
    close(np.float64(out[lkey]), loss, **tol, what="minus Eq. (11)")
    close(out[gkey].astype(np.float64), grad, **tol, what="gradient, Eq. (13) with clipping")


@check("token_loss_with_shared_advantages[*]")
def token_equals_sequence(out, ref):
    close(np.float64(out["token.loss"]), np.float64(out["gspo.loss"]), rtol=1e-12, atol=1e-14,
          what="GSPO-token = GSPO when A_{i,t} = A_i")
    close(out["token.grad"], out["gspo.grad"], rtol=1e-10, atol=1e-14, what="same gradient")


@check("token_loss_hand_values")
def token_loss_hand_values(out, ref):
    # eps_low 0.2, eps_high 0.1: clip to [0.8, 1.1]; one query, G = 2.
    # y1 (2 tokens): ratios 1.44, 1 -> s = 1.2; A = 1: min(1.2, 1.1) = 1.1 (clipped); A = -2: min(-2.4, -2.2) = -2.4
    #   mean (1.1 - 2.4) / 2 = -0.65 (the padded slot's advantage 9 is ignored)
    # y2 (3 tokens): ratios 1, 1, 1/8 -> s = 1/2; A = 0.5: min(0.25, 0.4) = 0.25; A = -1: min(-0.5, -0.8) = -0.8
    #   (clipped); A = 3: min(1.5, 2.4) = 1.5; mean 0.95 / 3
    # objective (-0.65 + 0.95/3) / 2 = -1/6 -> loss 1/6
    close(np.float64(out["loss"]), 1 / 6, **F64, what="hand-computed loss")
    # gradient -(1/G) s A_{i,t} / |y_i| on unclipped tokens: y1 t2: -(1/2)(1.2)(-2)/2 = 0.6;
    # y2 t1: -(1/2)(0.5)(0.5)/3 = -1/24; y2 t3: -(1/2)(0.5)(3)/3 = -0.25
    close(out["grad"], [[[0.0, 0.6, 0.0], [-1 / 24, 0.0, -0.25]]], **F64, what="hand-computed gradient")


# ---------------------------------------------------------------- policy_loss and optimise_on_batch


@check("policy_loss_on_rollouts[*]")
def policy_loss_is_the_selected_objective(out, ref):
    args = (ref["logprobs"], ref["old_logprobs"])
    adv, mask = ref["advantages"], ref["mask"]
    losses = {
        "gspo": eq6(*args, adv, mask, 0.02, 0.03),
        "gspo_token": eq11(*args, np.broadcast_to(adv[..., None], mask.shape), mask, 0.02, 0.03),
        "grpo": grpo(*args, adv, mask, 0.2),
    }
    name = ref["loss_type"]
    loss, grad = losses[name]
    close(np.float64(out["loss"]), loss, rtol=1e-10, atol=1e-12, what=f"{name} loss")
    close(out["grad"], grad, rtol=1e-10, atol=1e-12, what=f"{name} gradient")


@check("updates_on_rollouts[*]")
def updates_structure(out, ref):
    events = out["events"].split(",")
    steps = events.count("step")
    equal(steps, len(ref["losses"]), what="one optimiser step per gradient update")
    # every step follows a fresh evaluation of the policy since the previous step, and the gradients are reset
    # between consecutive steps
    since, seen_step = [], False
    for e in events:
        if e == "step":
            expect("logprobs" in since, "a step without evaluating the current policy since the previous one")
            expect(not seen_step or "zero_grad" in since, "gradients not reset between updates")
            since, seen_step = [], True
        else:
            since.append(e)
    finite(out["params"], "parameters")
