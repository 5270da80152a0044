"""Trusted checks for llmlingua/1 (never enter the sandbox): hand-checked values and the method's properties, on
the outputs probe_lingua.py emitted. The default comparison with the reference's outputs has already passed.
Parameters of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-11, atol=1e-12)


def seq(values: dict, name: str) -> list:
    """The list output `name` (flattened by the probe runner to name.0, name.1, ...)."""
    items = []
    while f"{name}.{len(items)}" in values:
        items.append(values[f"{name}.{len(items)}"])
    return items


def unigram_nll(bias: np.ndarray, tokens) -> np.ndarray:
    """-log softmax(bias)[token]: the next-token loss of a model whose only non-zero weight is the output bias."""
    top = bias.max()
    return top + math.log(np.exp(bias - top).sum()) - bias[np.asarray(tokens)]


def keep_count(length: int, rate: float) -> int:
    """lingua.prompt.keep_count: round-half-up of rate * length, clamped to [0, length]."""
    return min(length, max(0, math.floor(rate * length + 0.5)))


def segments(length: int, size: int) -> list[slice]:
    """CompressionConfig.segment_size: consecutive segments of `size` tokens from the start of a part."""
    return [slice(start, min(start + size, length)) for start in range(0, length, size)]


def expected_budget(ppl: np.ndarray, len_ins: int, lens: np.ndarray, len_que: int, cfg: dict) -> dict:
    """Eq. (2), Algorithm 1 (descending perplexity, stop at the first demonstration that would exceed the budget
    k tau_dems L_dems), Eq. (3), and the token-level rates of the `Budget` docstring."""
    len_dems = int(lens.sum())
    total = len_ins + len_dems + len_que
    tau_dems = (cfg["rate"] * total - cfg["instruction_rate"] * len_ins - cfg["question_rate"] * len_que) / len_dems
    budget = cfg["granularity"] * tau_dems * len_dems
    kept, used = [], 0
    for i in np.argsort(-ppl, kind="stable"):
        if used + lens[i] > budget:
            break
        kept.append(int(i))
        used += int(lens[i])
    delta = (budget - used) / (len_ins + len_que)
    return {"demonstration_rate": tau_dems, "kept": sorted(kept), "delta": delta,
            "instruction_rate": cfg["instruction_rate"] + delta, "question_rate": cfg["question_rate"] + delta,
            "kept_demonstration_rate": tau_dems * len_dems / used if kept else 0.0}


def check_segment_counts(masks: list, rates: list, size: int) -> None:
    for p, (mask, rate) in enumerate(zip(masks, rates)):
        for s in segments(len(mask), size):
            equal(int(np.asarray(mask[s]).sum()), keep_count(s.stop - s.start, rate),
                  what=f"tokens kept in part {p}, segment {s.start}:{s.stop} at rate {rate}")


# ---------------------------------------------------------------- token_nll


@check("nll_matches_reference[*]")
def nll_is_a_loss(out, ref):
    finite(out["nll"], "nll")
    expect(bool(np.all(out["nll"] > 0)), "a negative log-probability of a token is positive")


@check("nll_chain_rule")
def nll_chain_rule(out, ref):
    # -log p(t_i | c, t_<i) does not depend on how the sequence is split between context and tokens
    close(out["whole"], np.concatenate([out["first"], out["rest"]]), **F64, what="split at token 8")


@check("nll_uniform_model")
def nll_uniform_model(out, ref):
    # every weight zero: every next-token distribution is uniform over the vocabulary, -log(1/V) = log V
    close(out["nll"], np.full(4, math.log(ref["vocab_size"])), **F64, what="log V")


@check("nll_unigram_model")
def nll_unigram_model(out, ref):
    want = unigram_nll(ref["bias"], ref["tokens"])
    close(out["nll"], want, **F64, what="-log softmax(bias)[token]")
    close(out["empty_context"], want, **F64, what="-log softmax(bias)[token], no context")


# ---------------------------------------------------------------- demonstration_perplexities


@check("perplexities_match_reference[*]")
def perplexity_is_exp_mean_nll(out, ref):
    # paper.md Section 2: exp of the mean negative log-likelihood; docstring: each demonstration on its own
    close(out["perplexities"], out["alone"], **F64, what="exp(mean nll) of each demonstration alone")
    expect(bool(np.all(out["perplexities"] >= 1.0)), "a perplexity is at least 1")


@check("perplexities_hand_values")
def perplexities_hand_values(out, ref):
    close(out["uniform"], np.full(3, float(ref["vocab_size"])), **F64, what="uniform model: perplexity V")
    bias = ref["bias"]
    want = [math.exp(unigram_nll(bias, d).mean()) for d in ([3, 4, 5], [9], [10, 10, 11, 12])]
    close(out["unigram"], want, **F64, what="unigram model: exp(mean -log softmax(bias)[token])")


# ---------------------------------------------------------------- control_budget


@check("budget_matches_reference[*]")
def budget_is_algorithm_1(out, ref):
    cfg = {k: ref[f"config.{k}"] for k in ("rate", "instruction_rate", "question_rate", "granularity")}
    want = expected_budget(ref["perplexities"], ref["lengths.instruction"], ref["lengths.demonstrations"],
                           ref["lengths.question"], cfg)
    equal(list(out["kept"]), want["kept"], what="demonstration set D (Algorithm 1)")
    for name in ("demonstration_rate", "delta", "instruction_rate", "question_rate", "kept_demonstration_rate"):
        close(out[name], want[name], **F64, what=name)


@check("budget_hand_values")
def budget_hand_values(out, ref):
    # L_ins = L_que = 10, demonstrations of 10, 20, 30, 40 tokens (L_dems = 100, L = 120), whose perplexities
    # increase with their index (demonstration i repeats the (4 - i)-th most surprising token).
    # Eq. (2): tau_dems = (0.5 * 120 - 0.8 * 10 - 0.9 * 10) / 100 = 0.43; budget k tau_dems L_dems = 86.
    # Algorithm 1: #3 (40) -> 40; #2 (30) -> 70; #1 (20) would make 90 > 86: stop. D = {2, 3}, L_D = 70.
    # Eq. (3): delta = (86 - 70) / 20 = 0.8 -> instruction 1.6, question 1.7; demonstrations of D: 43 / 70.
    equal(list(out["kept"]), [2, 3], what="D")
    close(out["demonstration_rate"], 0.43, **F64, what="tau_dems")
    close(out["delta"], 0.8, **F64, what="delta tau")
    close(out["instruction_rate"], 1.6, **F64, what="instruction rate")
    close(out["question_rate"], 1.7, **F64, what="question rate")
    close(out["kept_demonstration_rate"], 43 / 70, **F64, what="rate of the kept demonstrations")
    nll = unigram_nll(ref["bias"], ref["tokens"])  # the four most surprising tokens, most surprising first
    close(out["perplexities"], np.exp(nll[::-1]), **F64, what="perplexities")


# ---------------------------------------------------------------- compress_tokens


@check("tokens_match_reference[*]")
def tokens_kept_per_segment(out, ref):
    masks = seq(out, "masks")
    equal([len(m) for m in masks], [len(m) for m in seq(ref, "masks")], what="mask lengths")
    check_segment_counts(masks, seq(ref, "rates"), ref["segment_size"])


@check("tokens_unigram_model[*]")
def tokens_unigram_model(out, ref):
    # a context-free model: each segment keeps its keep_count most surprising tokens (earlier first on ties)
    bias, size = ref["bias"], ref["segment_size"]
    for p, (part, rate, mask) in enumerate(zip(seq(ref, "parts"), seq(ref, "rates"), seq(out, "masks"))):
        want = np.zeros(len(part), dtype=bool)
        for s in segments(len(part), size):
            nll = unigram_nll(bias, part[s])
            order = np.argsort(-nll, kind="stable")[:keep_count(s.stop - s.start, rate)]
            want[s.start + order] = True
        equal(np.asarray(mask), want, what=f"kept tokens of part {p}")


# ---------------------------------------------------------------- end to end


@check("compress_end_to_end[*]")
def compressed_prompt_is_consistent(out, ref):
    parts, masks = seq(ref, "parts"), seq(out, "masks")
    kept = list(ref["budget.kept"])
    equal(len(parts), len(kept) + 2, what="parts: instruction, the demonstrations of D, question")
    expect(kept == sorted(kept), "D in prompt order")
    ids = np.concatenate([p[np.asarray(m, dtype=bool)] for p, m in zip(parts, masks)])
    equal(out["ids"], ids, what="compressed ids = kept tokens of every part, in order")
    b = {k: ref[f"budget.{k}"] for k in ("instruction_rate", "question_rate", "kept_demonstration_rate")}
    rates = [b["instruction_rate"], *[b["kept_demonstration_rate"]] * len(kept), b["question_rate"]]
    check_segment_counts(masks, rates, ref["segment_size"])
