"""Trusted checks for hf-kgw-watermark/1 (never enter the sandbox).

The hash from a context to a green list is the candidate's choice: nothing here pins a green list. What is
checked is what the paper (paper.md) and the masked package decide: a green list of `gamma |V|` tokens, `delta`
added to green logits and nothing else changed (Algorithm 2), which tokens a LeftHash green list depends on, the
SelfHash rule "a candidate is green when it lies in its own green list" over all candidates, greedy generation
being the argmax of the biased logits, and the detector's counts, z-score, one-sided p-value and prediction
agreeing with the candidate's own green lists (the z-test section; repeated n-grams section)."""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from lmrbench.checks import check, close, equal, expect

TOL = 1e-9


def _arr(x, dtype=np.float64):
    return np.asarray(x, dtype=dtype)


def _green_masks(delta, bias, what):
    """Each row of `delta` must hold only 0 and `bias`; return the boolean green masks."""
    delta = _arr(delta)
    is_zero = np.abs(delta) < TOL
    is_bias = np.abs(delta - bias) < TOL
    expect(bool((is_zero | is_bias).all()), f"{what}: the processor changed logits by something other than 0 or "
           f"the bias {bias} (Algorithm 2 adds delta to green logits only); changes seen: "
           f"{sorted(set(np.round(delta[~(is_zero | is_bias)], 6).tolist()))[:6]}")
    return is_bias


# ---------------------------------------------------------------- green lists


@check("greenlist_lefthash[*]")
def greenlist_lefthash(out, ref):
    bias, gamma, vocab = float(ref["bias"]), float(ref["gamma"]), int(ref["vocab"])
    masks = _green_masks(out["delta"], bias, "LeftHash")
    # gamma |V| green tokens per row (64 * 0.25 = 16, 64 * 0.5 = 32: integers, no rounding question)
    equal(masks.sum(axis=1).tolist(), [round(gamma * vocab)] * masks.shape[0], what="green tokens per row")
    # the green list depends on the previous token only (context width 1), not on earlier tokens or the logits
    for a, b, why in ((3, 16, "same last token, other earlier tokens"), (5, 17, "same tokens, other logits"),
                      (7, 18, "same last token, repeated"), (0, 19, "same last token, other earlier tokens")):
        equal(masks[b].tolist(), masks[a].tolist(), what=f"green list of row {b} vs row {a} ({why})")
    distinct = len({tuple(m) for m in masks[:16].tolist()})
    expect(distinct >= 14, f"16 different previous tokens gave only {distinct} different green lists: the green "
           f"list must be drawn afresh from each context")
    # the same key gives the same lists in a fresh instance (what a detector relies on)
    fresh = _green_masks(out["delta_fresh"], bias, "LeftHash, fresh instance")
    equal(fresh.tolist(), masks.tolist(), what="green lists of a fresh processor with the same key")
    other = _green_masks(out["delta_other_key"], bias, "LeftHash, other key")
    same = sum(bool((other[i] == masks[i]).all()) for i in range(16))
    expect(same <= 4, f"another hashing key gave the same green list for {same} of 16 contexts: the key must seed "
           f"the green lists")


@check("greenlist_selfhash[*]")
def greenlist_selfhash(out, ref):
    bias = float(ref["bias"])
    masks = _green_masks(out["delta"], bias, "SelfHash")
    # all 40 candidates are examined (the processor's docstring: it "considers all possible next tokens"), so the
    # set that gets the bias is the set of self-green tokens, whatever the logits
    other = _green_masks(out["delta_other_scores"], bias, "SelfHash, other logits")
    equal(other.tolist(), masks.tolist(), what="SelfHash green tokens under other logits (vocabulary of 40)")
    fresh = _green_masks(out["delta_fresh"], bias, "SelfHash, fresh instance")
    equal(fresh.tolist(), masks.tolist(), what="SelfHash green tokens of a fresh processor with the same key")
    per_row = masks.sum(axis=1)
    expect(bool(((per_row >= 1) & (per_row <= masks.shape[1] - 1)).all()),
           f"self-green tokens per row {per_row.tolist()}: expected some but not all of 40 (about gamma * 40)")
    total = int(per_row.sum())
    expect(30 <= total <= 130, f"{total} self-green tokens over 8 rows of 40 candidates with gamma = 0.25 "
           f"(expected about 80)")
    # with a context width of 1 the window may hold the candidate alone (then one set for every context); wider
    # windows hold the previous token, which differs between the 8 rows
    if int(ref["context_width"]) >= 2:
        distinct = len({tuple(m) for m in masks.tolist()})
        expect(distinct >= 6, f"8 different contexts gave only {distinct} different sets of self-green tokens")


# ---------------------------------------------------------------- generation


@check("generate_greedy[*]")
def generate_greedy(out, ref):
    seq, seq_dict = _arr(out["sequences"], np.int64), _arr(out["sequences_dict"], np.int64)
    equal(seq.shape, _arr(ref["sequences"]).shape, what="generated shape")
    equal(seq_dict.tolist(), seq.tolist(), what="tokens with the config given as a dict vs as a WatermarkingConfig")
    steps, checked, consistent = int(ref["steps"]), int(out["checked"]), int(out["consistent"])
    expect(checked >= 0.75 * steps, f"only {checked} of {steps} steps had a clear argmax of the biased logits")
    equal(consistent, checked, what="greedy tokens that are the argmax of plain logits + bias on the green list")


# ---------------------------------------------------------------- detection


def _windows(text, n, start):
    """(n-gram, position of its last token) for every window of length n ending at a position >= start."""
    return [(tuple(text[j - n + 1: j + 1]), j) for j in range(max(start, n - 1), len(text))]


def _expected_counts(text, flags, n, unique):
    """T and G for scoring windows of length n (the scored token last); G_unknown counts windows whose flag the
    probe could not read (a window ending before the context width: only under SelfHash's shorter reading)."""
    wins = _windows(text, n, n - 1)
    if unique:
        first = {}
        for w, j in wins:
            known = flags[j] >= 0
            if w not in first or (first[w] < 0 and known):
                first[w] = flags[j] if known else -1
        vals = list(first.values())
    else:
        vals = [flags[j] for _, j in wins]
    return len(vals), sum(v for v in vals if v > 0), sum(1 for v in vals if v < 0)


def _one_text(out, ref, i, unique):
    text = _arr(ref["texts"], np.int64)[i].tolist()
    flags = _arr(out[f"flags{i}"], np.int64).tolist()
    cw, selfhash = int(ref["context_width"]), bool(ref["selfhash"])
    T, G = float(_arr(out["num_tokens_scored"])[i]), float(_arr(out["num_green_tokens"])[i])
    # LeftHash: a token is scored with the h tokens before it (n = h + 1); SelfHash's window holds the token
    # itself with its context, read as h tokens in all or h before it: both accepted
    readings = [cw + 1] if not selfhash else [cw + 1, cw]
    options = {n: _expected_counts(text, flags, n, unique) for n in readings}
    match = [n for n, (t, _, _) in options.items() if t == T]
    expect(bool(match), f"text {i}: {T:g} tokens scored; expected {sorted({t for t, _, _ in options.values()})} "
           f"(context width {cw}, {'distinct n-grams' if unique else 'every token after its context'})")
    ok = [n for n in match if options[n][1] <= G <= options[n][1] + options[n][2]]
    _, g, unknown = options[match[0]]
    expect(bool(ok), f"text {i}: {G:g} green tokens counted, but the processor's own green lists give "
           f"{g}{f' (+ up to {unknown})' if unknown else ''} over the scored tokens")
    return T, G


def _detect(out, ref, unique):
    gamma = float(ref["gamma"])
    counts = [_one_text(out, ref, i, unique) for i in range(3)]
    T = _arr([c[0] for c in counts])
    G = _arr([c[1] for c in counts])
    # paper: z = (|s|_G - gamma T) / sqrt(T gamma (1 - gamma)); one-sided p = 1 - Phi(z); green fraction G / T
    z_want = (G - gamma * T) / np.sqrt(T * gamma * (1 - gamma))
    close(out["z_score"], z_want, rtol=1e-9, atol=1e-12, what="z-score from the counts")
    close(out["dict.z_score"], z_want, rtol=1e-9, atol=1e-12, what="z-score with the config given as a dict")
    close(out["thr45.z_score"], z_want, rtol=1e-9, atol=1e-12, what="z-score (threshold 4.5)")
    close(out["p_value"], norm.sf(z_want), rtol=1e-6, atol=1e-12, what="one-sided p-value")
    close(out["green_fraction"], G / T, rtol=1e-12, what="green fraction")
    for key, thr in (("", 3.0), ("thr45.", 4.5)):
        for name in ("prediction", "prediction_plain"):
            got = _arr(out[key + name], bool)
            equal(got.shape, (3,), what=f"{key}{name} shape")
            for i in range(3):
                if abs(z_want[i] - thr) > 1e-9:
                    equal(bool(got[i]), bool(z_want[i] > thr), what=f"{key}{name}[{i}] (z = {z_want[i]:.4f}, "
                          f"threshold {thr})")
    # watermarked text (bias 60): all its scored tokens are green (SelfHash's shorter window may also score the
    # last prompt token); uniform random text: no evidence of a watermark
    expect(G[0] >= T[0] - 1 and (bool(ref["selfhash"]) or G[0] == T[0]),
           f"watermarked text: {G[0]:g} of {T[0]:g} scored tokens green")
    expect(abs(z_want[1]) < 4.5, f"random text: z = {z_want[1]:.2f}")


@check("detect[*_all]")
def detect_all(out, ref):
    _detect(out, ref, unique=False)


@check("detect[*_unique]")
def detect_unique(out, ref):
    _detect(out, ref, unique=True)


@check("detect_too_short[*]")
def detect_too_short(out, ref):
    z = float(out["z_score"])
    expect(bool(out["raised"]) or float(out["num_tokens_scored"]) == 0 or not math.isfinite(z),
           f"a text with no scorable token was scored: {out['num_tokens_scored']} tokens, z = {z}")
