"""Trusted checks for spec-decoding/1 (never enter the sandbox): verification recomputed from Algorithm 1 and
Section 3.1 with independent code (plain Python lists), hand-derived values, the analysis formulas of Sections
3.3-3.5, and the properties the paper proves (the emitted token follows the target distribution; with argmax
decoding the output equals the target's greedy output; the target runs once per step). Inputs are read from the
fixtures and from `ref`, never from `out`."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

TOL = dict(rtol=1e-12, atol=1e-14)


def seq(out: dict, key: str) -> list:
    """A list output, read back from its flattened keys."""
    marker = out[key]
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key} is not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def inverse_cdf(weights, u: float) -> int:
    # the repository's sample_index: smallest i with cumulative weight > u * total
    total = sum(weights)
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        if acc > u * total and w > 0:
            return i
    return max(i for i, w in enumerate(weights) if w > 0)


def algorithm1(p, q, drafted, r, u):
    # accept x_i while r_i <= p_i(x_i) / q_i(x_i); then sample from norm(max(0, p_n - q_n)), or from p_gamma
    n = 0
    for i, x in enumerate(drafted):
        if r[i] > p[i][x] / q[i][x]:
            break
        n += 1
    if n < len(drafted):
        return n, inverse_cdf([max(0.0, a - b) for a, b in zip(p[n], q[n])], u)
    return n, inverse_cdf(p[len(drafted)], u)


@check("analysis_hand")
def analysis_values(out, ref):
    # beta = sum_x min(p, q): row 0: .25 + .3 + .2 = .75; row 1: .2 + .2 + .2 = .6
    close(out["beta"], [0.75, 0.6], **TOL, what="beta = sum of min(p, q)")
    close(out["beta_same"], [1.0, 1.0], **TOL, what="beta(p, p) = 1")
    equal(out["beta_f32#dtype"], "float32", what="dtype of p and q")
    # Eq. (1): (1 - .8^5) / (1 - .8) = (1 - .32768) / .2 = 3.3616
    close(out["tokens_08_4"], 3.3616, **TOL, what="expected tokens at alpha .8, gamma 4")
    close(out["tokens_0"], 1.0, **TOL, what="alpha 0: one token per step")
    close(out["tokens_1"], 4.0, **TOL, what="alpha 1: gamma + 1 tokens per step")
    close(out["tokens_05_1"], 1.5, **TOL, what="(1 - .25) / .5")
    # Theorem 3.8: 3.3616 / (4 * .1 + 1) = 2.4011428571...
    close(out["speedup"], 3.3616 / 1.4, **TOL, what="wall-time factor")
    # c = 0: (1 - .6^3) / .4 = .784 / .4 = 1.96
    close(out["speedup_c0"], 1.96, **TOL, what="wall-time factor with a free draft model")


@check("acceptance_rate_batched")
def acceptance_batched(out, ref):
    equal(list(out["beta"].shape), [2, 3], what="one beta per pair of distributions")
    expect(bool(np.all((out["beta"] > 0) & (out["beta"] <= 1))), "beta lies in (0, 1]")


@check("verify_hand")
def verify_values(out, ref):
    # drafted [0, 2]; ratios p0(0)/q0(0) = .5 and p1(2)/q1(2) = 1/3
    # r = (.4, .5): accept 0, reject 2 -> residual max(0, p1 - q1) = (.4, 0, 0) -> token 0
    equal(seq(out, "second_rejected"), [1, 0], what="accepted one, corrected token 0")
    # r0 = .6 > .5: reject at once -> residual (0, .2, .05), normalised (0, .8, .2): u = .5 -> 1, u = .9 -> 2
    equal(seq(out, "first_rejected_u05"), [0, 1], what="u = .5 on (0, .8, .2)")
    equal(seq(out, "first_rejected_u09"), [0, 2], what="u = .9 on (0, .8, .2)")
    # r = (.1, .2): both accepted -> the extra token from p2 = (.1, .1, .8) with u = .85 -> 2
    equal(seq(out, "all_accepted"), [2, 2], what="all accepted, extra token from the last row")
    # drafted [1, 0]: ratios .5/.3 > 1 and .6/.2 > 1 -> always accepted; extra token from p2 with u = .05 -> 0
    equal(seq(out, "ratio_above_one"), [2, 0], what="p >= q is always accepted")


@check("verify_random[*]")
def verify_recomputed(out, ref):
    c = CASES["verify"][ref["case"]]
    n, token = algorithm1(c["p"], c["q"], c["drafted"], c["r"], c["u"])
    equal(int(out["n"]), n, what="accepted drafted tokens")
    equal(int(out["token"]), token, what="the emitted token")


@check("verify_one_hot")
def verify_greedy(out, ref):
    # one-hot models: a drafted token is accepted iff it is the target's argmax; the correction is that argmax
    equal(seq(out, "agree_then_differ"), [1, 0], what="accept 2, reject 3, emit the target's 0")
    equal(seq(out, "agree_all"), [1, 0], what="accept 2, extra token = argmax of p1 = 0")


@check("verify_preserves_target")
def target_distribution(out, ref):
    # Section 3.1: the first emitted token is distributed as p. The grids make the acceptance masses exact
    # (ratios .25 and .8 are multiples of 1/40) and the corrected token's split (6/7, 1/7) within 1/40
    close(out["freq"], [0.1, 0.4, 0.3, 0.2], rtol=0, atol=0.35 / 40 + 1e-12, what="emitted token ~ p")
    close(float(np.sum(out["freq"])), 1.0, rtol=1e-12, what="a distribution")


@check("step_tiny[*]")
def step_structure(out, ref):
    c = CASES["steps"][ref["case"]]
    g = c["gamma"]
    drafted, tokens, n = seq(out, "drafted"), seq(out, "tokens"), int(out["num_accepted"])
    equal(len(drafted), g, what="gamma drafted tokens")
    expect(0 <= n <= g, "accepted count within [0, gamma]")
    equal(tokens[:n], drafted[:n], what="the accepted tokens are a prefix of the drafted ones")
    equal(len(tokens), n + 1, what="accepted tokens plus one")
    equal(int(out["numbers_used"]), 2 * g + 1, what="2 gamma + 1 random numbers per step")
    equal(int(out["target_calls"]), 1, what="one target pass per step")
    equal(int(out["draft_calls"]), g, what="one draft pass per drafted token")


@check("generate_tiny[*]")
def generation_structure(out, ref):
    c = CASES["generations"][ref["case"]]
    tokens = seq(out, "tokens")
    steps = out["accepted"][1]
    equal(len(tokens), c["max_new_tokens"], what="exactly max_new_tokens tokens")
    flat = [t for k in range(steps) for t in seq(out, f"step_tokens.{k}")]
    equal(flat[: len(tokens)], tokens, what="the steps' tokens in order")
    expect(len(flat) - len(tokens) < len(seq(out, f"step_tokens.{steps - 1}")),
           "the generation stops after the step that reaches max_new_tokens")
    equal(int(out["target_calls"]), steps, what="one target pass per step")
    equal(int(out["draft_calls"]), steps * c["gamma"], what="gamma draft passes per step")
    equal(int(out["numbers_used"]), steps * (2 * c["gamma"] + 1), what="2 gamma + 1 numbers per step")
    if c["temperature"] == 0:
        equal(tokens, seq(out, "greedy"), what="argmax speculative decoding = the target's greedy output")
