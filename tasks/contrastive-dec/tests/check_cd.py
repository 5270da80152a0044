"""Trusted checks for contrastive-dec/1 (never enter the sandbox): Eqs. (2)-(3) recomputed in numpy from the
fixtures' logits, hand-derived values, and the structure of the search of Section 3.3 (beams ordered by total
score, every hypothesis extends one of the previous beam, the best is the first of the last beam). Inputs are read
from the fixtures and from `ref`, never from `out`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

TOL = dict(rtol=1e-9, atol=1e-12)


def seq(out: dict, key: str) -> list:
    marker = out[key]
    expect(isinstance(marker, tuple) and marker[0] == "seq", f"{key} is not a list")
    return [out[f"{key}.{i}"] for i in range(marker[1])]


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


@check("plausible_hand")
def plausible_values(out, ref):
    # p = (.5, .3, .15, .05): alpha .2 -> p >= .1; alpha .7 -> p >= .35; alpha 1 -> the maximum only
    equal(np.asarray(out["a02"]).tolist(), [True, True, True, False], what="alpha = .2")
    equal(np.asarray(out["a07"]).tolist(), [True, False, False, False], what="alpha = .7")
    equal(np.asarray(out["a1"]).tolist(), [True, False, False, False], what="alpha = 1")
    equal(np.asarray(out["batched"]).tolist(), [[True, True, False, False], [False, False, True, True]],
          what="per row, alpha = .5")


@check("scores_hand")
def score_values(out, ref):
    # Eq. (3): log p_exp - log p_ama on V_head = {p_exp >= .06} = first three tokens
    want = [math.log(0.6 / 0.5), math.log(0.3 / 0.1), math.log(0.08 / 0.2)]
    close(out["s"][:3], want, **TOL, what="log-ratio on the plausible tokens")
    expect(out["s"][3] == -math.inf, "the implausible token scores -inf")
    # temperature .5: amateur probabilities p^2 / sum p^2, sum = .25 + .01 + .04 + .04 = .34
    want_t = [math.log(0.6 * 0.34 / 0.25), math.log(0.3 * 0.34 / 0.01), math.log(0.08 * 0.34 / 0.04)]
    close(out["s_t"][:3], want_t, **TOL, what="amateur temperature .5")
    equal(out["s_f32#dtype"], "float64", what="float64 scores")
    close(out["s_f32"][:3], want, rtol=1e-6, what="from float32 logits")


@check("scores_random[*]")
def score_recomputed(out, ref):
    c = CASES["logits"][ref["case"]]
    e = log_softmax(np.asarray(c["expert"], dtype=np.float64))
    a = log_softmax(np.asarray(c["amateur"], dtype=np.float64) / c["amateur_temperature"])
    p = np.exp(e)
    mask = p >= c["alpha"] * p.max(axis=-1, keepdims=True)
    equal(np.asarray(out["finite"]).tolist(), mask.tolist(), what="V_head, Eq. (2)")
    close(out["s"], np.where(mask, e - a, 0.0), **TOL, what="Eq. (3)")
    close(np.where(mask[0], out["row0"], 0.0), np.where(mask[0], e[0] - a[0], 0.0), **TOL, what="one row")


@check("search_tiny[*]")
def search_structure(out, ref):
    c = CASES["searches"][ref["case"]]
    steps = seq(out, "beam_tokens")
    equal(len(steps), c["max_new_tokens"], what="one beam per step")
    prev: list = [[]]
    for s in range(len(steps)):
        hyps = [seq(out, f"beam_tokens.{s}.{j}") for j in range(out[f"beam_tokens.{s}"][1])]
        scores = [out[f"beam_scores.{s}.{j}"] for j in range(len(hyps))]
        expect(1 <= len(hyps) <= c["beam_size"], f"step {s}: at most beam_size hypotheses")
        expect(all(len(h) == s + 1 for h in hyps), f"step {s}: hypotheses of length {s + 1}")
        expect(all(scores[j] >= scores[j + 1] for j in range(len(scores) - 1)), f"step {s}: best first")
        expect(all(h[:-1] in prev for h in hyps), f"step {s}: every hypothesis extends one of the previous beam")
        expect(len({tuple(h) for h in hyps}) == len(hyps), f"step {s}: no duplicate hypotheses")
        prev = hyps
    equal(seq(out, "best_tokens"), prev[0], what="the best is the first of the last beam")
    close(out["best_score"], out[f"beam_scores.{len(steps) - 1}.0"], **TOL, what="its score")
    expect(out["finite"] is True, "every kept hypothesis has a finite score")
    if c["alpha"] == 1.0:
        # only the expert's argmax is plausible: the search is the expert's greedy decoding, one hypothesis
        expect(all(out[f"beam_tokens.{s}"][1] == 1 for s in range(len(steps))), "alpha = 1 keeps one hypothesis")
