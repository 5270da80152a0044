"""Trusted checks for kimi-k15/1 (never enter the sandbox): hand-checked values and the properties the method
description states, on the outputs probe_kimi.py emitted. The default comparison with the reference's outputs
has already passed (except for compare="none" cases). Parameters of a case are read from `ref`, never `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-4, atol=1e-6)


def key_of(out: dict, name: str) -> str:
    return f"f32.{name}" if f"f32.{name}" in out else name


def tol_of(key: str) -> dict:
    return F32 if key.startswith("f32.") else F64


def eq9(lengths: np.ndarray, correct: np.ndarray) -> np.ndarray:
    """Eq. (9) of paper.md, one group (row) at a time."""
    out = np.zeros(lengths.shape)
    for n in range(lengths.shape[0]):
        lo, hi = lengths[n].min(), lengths[n].max()
        if hi == lo:
            continue  # all lengths equal: zero length reward
        lam = 0.5 - (lengths[n] - lo) / (hi - lo)
        out[n] = np.where(correct[n], lam, np.minimum(0.0, lam))
    return out


def tau_log_z(rewards: np.ndarray, tau: float, estimate: str) -> np.ndarray:
    """Eq. (7) (mean_reward) or Eq. (6) (log_mean_exp), per problem (row)."""
    if estimate == "mean_reward":
        return rewards.mean(axis=1)
    top = rewards.max(axis=1, keepdims=True)
    return top[:, 0] + tau * np.log(np.exp((rewards - top) / tau).mean(axis=1))


def eq5(logprobs, ref, lengths, rewards, tau, estimate) -> tuple[float, np.ndarray]:
    """The loss of Eq. (5) with tau log Z estimated per problem, and its gradient w.r.t. the token log-probs."""
    mask = np.arange(logprobs.shape[-1]) < lengths[..., None]
    rho = np.where(mask, logprobs - ref, 0.0).sum(axis=-1)  # log pi_theta(y, z | x) - log pi_ref(y, z | x)
    res = rewards - tau_log_z(rewards, tau, estimate)[:, None] - tau * rho
    n, k = rewards.shape
    grad = np.where(mask, (-2.0 * tau * res / (n * k))[..., None], 0.0)
    return float((res**2).mean()), grad


# ---------------------------------------------------------------- length reward, shaped rewards


@check("length_penalty_matches_reference[*]")
def length_penalty_is_eq9(out, ref):
    key = key_of(out, "reward")
    want = eq9(ref["lengths"], ref["correct"])
    close(out[key], want, **tol_of(key), what="Eq. (9)")
    # incorrect responses never get a positive length reward
    expect(bool(np.all(out[key][~ref["correct"]] <= 0)), "a positive length reward for an incorrect response")


@check("length_penalty_hand_values")
def length_penalty_hand(out, ref):
    # row 0: min 2, max 10: lambda = 0.5 - (0, 2, 4, 8) / 8 = 0.5, 0.25, 0, -0.5; incorrect ones clipped at 0
    # row 1: all lengths equal -> 0; row 2: min 1, max 7: lambda = -0.5, 0.5, 0, 0.5 -> -0.5, 0 (incorrect), 0, 0.5
    close(out["reward"], [[0.5, 0.0, 0.0, -0.5], [0.0, 0.0, 0.0, 0.0], [-0.5, 0.0, 0.0, 0.5]], rtol=0, atol=1e-15,
          what="Eq. (9) by hand")
    equal(out["reward#dtype"], "float64", what="default dtype")


@check("shaped_rewards_around_warmup[*]")
def shaped_rewards_rule(out, ref):
    # correctness reward plus the weighted length reward, once `length_warmup_iters` iterations (from 0) are done
    on = ref["iteration"] >= ref["warmup"]
    want = ref["correct"].astype(np.float64) + (ref["weight"] * eq9(ref["lengths"], ref["correct"]) if on else 0.0)
    close(out["rewards"], want, **F64, what="correctness + weight * length reward")
    close(out["f32.rewards"], want, **F32, what="float32 rewards")
    equal(out["f32.rewards#dtype"], "float32", what="dtype")


# ---------------------------------------------------------------- tau log Z


@check("log_partition_matches_reference[*]")
def log_partition_is_eq6_or_7(out, ref):
    key = key_of(out, "log_z")
    r = ref["rewards"]
    want = tau_log_z(r, ref["tau"], ref["estimate"])
    close(out[key], want, **tol_of(key), what=ref["estimate"])
    slack = 1e-5 if key.startswith("f32.") else 1e-12
    # Jensen: the mean <= tau log mean exp(r / tau) <= the max
    expect(bool(np.all(out[key] >= r.mean(axis=1) - slack)), "below the mean reward")
    expect(bool(np.all(out[key] <= r.max(axis=1) + slack)), "above the largest reward")


@check("log_partition_hand_values")
def log_partition_hand(out, ref):
    close(out["mean"], [0.5, 0.5], rtol=0, atol=1e-15, what="mean reward")
    # tau = 1: log((e + 1) / 2); equal rewards give the reward itself
    close(out["lme"], [math.log((math.e + 1) / 2), 0.5], rtol=1e-12, atol=1e-14, what="log mean exp")
    # tau = 0.01: 0.01 log((e^100 + 1) / 2) = 1 - 0.01 log 2 (+ 0.01 log(1 + e^-100), negligible): near the max
    close(out["lme_small_tau"], [1 - 0.01 * math.log(2), 0.5], rtol=1e-12, atol=1e-14, what="small tau")
    # tau = 1e3: tau log((e^(1/tau) + 1) / 2) = mean + var / (2 tau) + O(tau^-3) = 0.5 + 0.25 / 2e3 (the
    # tau^-2 term is the third cumulant, 0 here; the next is below 1e-11): close to the mean reward, Eq. (7)
    close(out["lme_large_tau"], [1e3 * math.log((math.exp(1e-3) + 1) / 2), 0.5], rtol=1e-10, atol=1e-12,
          what="large tau")
    close(out["lme_large_tau"], [0.5 + 0.125e-3, 0.5], rtol=0, atol=1e-10, what="large tau -> mean reward")


# ---------------------------------------------------------------- the loss


@check("loss_matches_reference[*]")
def loss_is_eq5(out, ref):
    key = key_of(out, "loss")
    loss, grad = eq5(ref["logprobs"], ref["ref"], ref["lengths"], ref["rewards"], ref["tau"], ref["estimate"])
    close(out[key], loss, **tol_of(key), what="Eq. (5)")
    gkey = key_of(out, "grad")
    close(out[gkey], grad, **tol_of(gkey), what="gradient of Eq. (5)")


@check("loss_at_reference[*]")
def loss_at_reference(out, ref):
    loss_is_eq5(out, ref)
    # log-ratio 0: the loss is mean (r - tau log Z)^2 and the gradient of each token of response j is
    # -2 tau (r_j - tau log Z) / (N k): Eq. (8)'s policy-gradient term with the baseline, times -2 tau
    r = ref["rewards"]
    base = r - tau_log_z(r, ref["tau"], ref["estimate"])[:, None]
    key = key_of(out, "loss")
    close(out[key], (base**2).mean(), **tol_of(key), what="loss at the reference")
    mask = np.arange(ref["ref"].shape[-1]) < ref["lengths"][..., None]
    n, k = r.shape
    close(out[key_of(out, "grad")], np.where(mask, (-2 * ref["tau"] * base / (n * k))[..., None], 0.0),
          **tol_of(key), what="Eq. (8) at the reference")


@check("loss_hand_values")
def loss_hand(out, ref):
    # rho_1 = (-0.8 + 1) + (-2.1 + 2) = 0.1 (the third token is padding); rho_2 = -0.9 + 0.5 = -0.4
    # mean reward 0.5, tau 0.5: residuals 1 - 0.5 - 0.05 = 0.45 and 0 - 0.5 + 0.2 = -0.3
    # loss = (0.45^2 + 0.3^2) / 2 = 0.14625; d loss / d logprob = -tau * residual on the response's tokens
    close(out["loss"], 0.14625, rtol=1e-12, atol=1e-14, what="loss by hand")
    close(out["grad"], [[[-0.225, -0.225, 0.0], [0.15, 0.0, 0.0]]], rtol=1e-12, atol=1e-14, what="gradient by hand")
    # log_mean_exp: tau log Z = 0.5 log((e^2 + 1) / 2)
    b = 0.5 * math.log((math.exp(2.0) + 1) / 2)
    r1, r2 = 1 - b - 0.05, -b + 0.2
    close(out["lme_loss"], (r1**2 + r2**2) / 2, rtol=1e-12, atol=1e-14, what="loss by hand, Eq. (6)")
    close(out["lme_grad"], [[[-0.5 * r1, -0.5 * r1, 0.0], [-0.5 * r2, 0.0, 0.0]]], rtol=1e-12, atol=1e-14,
          what="gradient by hand, Eq. (6)")


# ---------------------------------------------------------------- prioritised sampler


@check("sampler_bookkeeping")
def sampler_bookkeeping(out, ref):
    close(out["fresh_rates"], np.zeros(4), rtol=0, atol=0, what="no outcome recorded")
    close(out["fresh_probs"], np.full(4, 0.25), rtol=1e-12, atol=0, what="uniform before any outcome")
    # update 1 (k = 3): problem 0: 2 of 3; problem 2 twice: 1 + 3 of 6; problem 5: 0 of 3
    # update 2 (k = 3): problem 2: 0 of 3 more (4 of 9); problem 1: 3 of 3
    rates = [2 / 3, 1.0, 4 / 9, 0.0, 0.0, 0.0]
    close(out["rates"], rates, rtol=1e-12, atol=1e-15, what="success rates")
    # Eq. (10): weights 1 - s = 1/3, 0, 5/9, 1, 1, 1; sum 35/9
    close(out["probs"], np.array([3, 0, 5, 9, 9, 9]) / 35, rtol=1e-12, atol=1e-15, what="Eq. (10)")
    # pool {4, 1, 2}: weights 1, 0, 5/9 -> 9/14 and 5/14
    close(out["pool_probs"], [0, 0, 5 / 14, 0, 9 / 14, 0], rtol=1e-12, atol=1e-15, what="Eq. (10) in a pool")
    # one problem, 1 of 2 correct: s = 0.5, total weight 0.5, probability 1
    close(out["one_rates"], [0.5], rtol=1e-12, atol=0, what="one problem")
    close(out["one_probs"], [1.0], rtol=1e-12, atol=0, what="one problem")
    # k = 1: one response each, problem 0 right, problem 2 wrong, problem 1 never seen
    close(out["k1_rates"], [1.0, 0.0, 0.0], rtol=0, atol=0, what="k = 1 success rates")
    close(out["k1_probs"], [0.0, 0.5, 0.5], rtol=1e-12, atol=0, what="k = 1 probabilities")
    # pool {0, 3}: weights 1/3 and 1 -> 1/4, 3/4
    close(out["pool0_probs"], [0.25, 0, 0, 0.75, 0, 0], rtol=1e-12, atol=1e-15, what="pool with problem 0")
    equal(out["rejected"], "ValueError", what="out-of-range id")
    close(out["after_bad_update"], rates, rtol=1e-12, atol=1e-15, what="nothing recorded by a rejected update")
    # update 3 (k = 2 this time): problem 3: 1 of 2; problem 2: 4 + 2 of 9 + 2 = 6/11 (per response, not per row)
    rates3 = [2 / 3, 1.0, 6 / 11, 0.5, 0.0, 0.0]
    close(out["restored_rates"], rates3, rtol=1e-12, atol=1e-15, what="restored sampler continues")
    close(out["continued_rates"], rates3, rtol=1e-12, atol=1e-15, what="original sampler continues")
    # weights 1/3, 0, 5/11, 1/2, 1, 1 = (22, 0, 30, 33, 66, 66) / 66; sum 217/66
    close(out["restored_probs"], np.array([22, 0, 30, 33, 66, 66]) / 217, rtol=1e-12, atol=1e-15,
          what="restored probabilities")


def frequencies_agree(draws: np.ndarray, probs: np.ndarray, what: str) -> None:
    counts = np.bincount(draws, minlength=len(probs)) / len(draws)
    # independent draws: each frequency within 5 standard deviations of its probability
    sd = np.sqrt(probs * (1 - probs) / len(draws))
    expect(bool(np.all(np.abs(counts - probs) <= 5 * sd + 1e-12)), f"{what}: frequencies {counts} vs {probs}")


@check("sampler_draws")
def sampler_draws(out, ref):
    probs = np.array([3, 0, 5, 9, 9, 9]) / 35
    pool_probs = np.array([0, 0, 5 / 14, 0, 9 / 14, 0])
    close(out["probs"], probs, rtol=1e-12, atol=1e-15, what="probabilities")
    close(out["pool_probs"], pool_probs, rtol=1e-12, atol=1e-15, what="pool probabilities")
    for name, n in (("draws", 6000), ("pool_draws", 3000), ("single", 200)):
        equal(out[f"{name}#dtype"], "int64", what=f"{name} dtype")
        equal(list(out[name].shape), [n], what=f"{name} shape")
        expect(bool(np.all((out[name] >= 0) & (out[name] < 6))), f"{name}: id out of range")
    frequencies_agree(out["draws"], probs, "draws")
    frequencies_agree(out["pool_draws"], pool_probs, "pool draws")
    expect(bool(np.all(out["single"] != 1)), "a problem with success rate 1 was drawn")


# ---------------------------------------------------------------- the update and whole runs


@check("update_matches_reference[*]")
def update_properties(out, ref):
    equal(out["n_losses"], ref["steps"], what="one loss per inner step")
    equal(out["loss_type"], "float", what="losses are Python floats")
    # at entry the trained policy is the reference: the first loss has log-ratio 0
    r = ref["rewards"]
    base = r - tau_log_z(r, ref["tau"], ref["estimate"])[:, None]
    close(out["losses"][0], (base**2).mean(), rtol=1e-9, atol=1e-12, what="first loss at the reference")
    if np.any(np.abs(base) > 1e-12):
        expect(bool(np.any(out["params"] != ref["before"])), "the policy was not updated")
    else:  # k = 1: r = tau log Z and log-ratio 0, so the gradient is 0 and Adam leaves the policy alone
        close(out["params"], ref["before"], rtol=0, atol=1e-15, what="zero gradient, no update")


@check("train_run_*")
def run_properties(out, ref):
    finite(out["params"], "parameters")
    finite(out["losses"], "losses")
    equal(list(out["losses"].shape), [2, 2], what="losses per iteration and inner step")
    expect(bool(np.all((out["rates"] >= 0) & (out["rates"] <= 1))), "success rates outside [0, 1]")
    expect(bool(np.all((out["ids"] >= 0) & (out["ids"] < 12))), "problem id out of range")


@check("iteration_matches_reference[*]")
def iteration_properties(out, ref):
    # a fresh sampler records the iteration's k responses per drawn row: problem i drawn c_i times has
    # s_i = successes_i / (c_i k), so sum_i c_i s_i / N is the fraction of correct responses (the accuracy)
    counts = np.bincount(ref["ids"], minlength=len(out["rates"]))
    close(float((counts * out["rates"]).sum() / len(ref["ids"])), ref["accuracy"], rtol=1e-12, atol=1e-12,
          what="success rates recorded from the iteration's outcomes")
    expect(bool(np.all(out["rates"][counts == 0] == 0)), "a success rate for a problem not drawn")
    equal(len(out["losses"]), 2, what="one loss per inner step")
