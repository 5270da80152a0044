"""Trusted checks for nsa/1 (never enter the sandbox): hand-checked values, plain causal attention and the
method's properties, on the outputs probe_nsa_attention.py emitted. The default comparison with the
reference's outputs has already passed."""

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

ATOL, RTOL = 1e-9, 1e-7


def causal_attention(q, k, v, scale, window=None):
    """Plain causal softmax attention with GQA (h -> kv head h // (H / G)), optional sliding window."""
    seq_len, heads, _ = q.shape
    group = heads // k.shape[1]
    kk = np.repeat(k, group, axis=1)
    vv = np.repeat(v, group, axis=1)
    logits = scale * np.einsum("thd,shd->hts", q, kk)
    t = np.arange(seq_len)
    allowed = t[None, :] <= t[:, None]
    if window is not None:
        allowed &= t[None, :] > t[:, None] - window
    logits = np.where(allowed, logits, -np.inf)
    p = np.exp(logits - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("hts,shd->thd", p, vv)


# ---------------------------------------------------------------- differential


@check("default_return_is_output_only")
def default_return_is_output_only(out, ref):
    equal(out["is_tensor"], True, what="nsa_attention without return_selection returns a tensor")


# ---------------------------------------------------------------- values checked by hand


@check("hand_checked_small_sequence")
def hand_checked_small_sequence(out, ref):
    # T = 4, one head, dk = dv = 1, q_t = 1, scale 1, l = d = l' = 2, n = 1, w = 2, no forced blocks.
    # compressed block 0 = positions {0,1} (visible from t = 1), block 1 = {2,3} (visible at t = 3)
    # t=0: cmp none -> 0; slc block 0, keys {0} -> 1; win {0} -> 2.      0.25*1 + 0.125*2            = 0.5
    # t=1: cmp block 0 -> 4; slc keys {0,1}, weights (1/4, 3/4) -> 4; win {0,1} equal -> 3
    #                                                                   0.5*4 + 0.25*4 + 0.125*3     = 3.375
    # t=2: cmp block 0 -> 4; block scores (1, 0) -> block 0, keys {0,1} -> 4; win {1,2} (1/5, 4/5) -> 5.6
    #                                                                   0.5*4 + 0.25*4 + 0.125*5.6   = 3.7
    # t=3: cmp (1/4, 3/4) -> 7; scores (1/4, 3/4) -> block 1, keys {2,3} (1/3, 2/3) -> 5;
    #      win {2,3} (4/5, 1/5) -> 6.4                                  0.5*7 + 0.25*5 + 0.125*6.4   = 5.55
    close(out["output"], [0.5, 3.375, 3.7, 5.55], atol=1e-12, rtol=0, what="output")
    equal(out["sel_head0"].tolist(), [[True, False], [True, False], [True, False], [False, True]], what="selection")


@check("hand_checked_overlap_weighted_block_scores")
def hand_checked_overlap_weighted_block_scores(out, ref):
    # l = 4, d = 2, l' = 4, T = 12, one head, q_t = 1, scale 1: compressed block i covers [2i, 2i+4) and
    # overlaps selection block j = 0, 1, 2 ([0,4), [4,8), [8,12)) by (4, 2, 0), ... positions, i.e. weights
    # overlap/d:  j=0: 2 p0 + p1;  j=1: p1 + 2 p2 + p3;  j=2: p3 + 2 p4 (+ p5, never visible here).
    # Compressed logits log(5, 1, 1, 1, 1.6) make p proportional to (5, 1, 1, 1, 1.6).
    # t = 11: all five compressed blocks visible (2i + 3 <= 11); scores (11, 4, 4.2)/9.6 -> blocks {0, 2}
    # (an unweighted sum would give (6, 3, 2.6) -> {0, 1}).
    equal(out["sel_t11"].tolist(), [True, False, True], what="selection at t = 11")
    # t = 9: blocks 0..3 visible, p = (5, 1, 1, 1)/8; scores (11, 4, 1)/8 -> blocks {0, 1}
    equal(out["sel_t9"].tolist(), [True, True, False], what="selection at t = 9")
    # t = 11 output: cmp = sum p_i v_i = 5/9.6 * 9.6 = 5; slc = mean of positions {0..3, 8..11} = 44/8 = 5.5
    expect(abs(float(np.ravel(out["out_t11"])[0]) - 10.5) < 1e-12, "output at t = 11 is not 10.5")
    # t = 9 output: cmp = 5/8 * 9.6 = 6; slc = mean of positions 0..7 = 3.5
    expect(abs(float(np.ravel(out["out_t9"])[0]) - 9.5) < 1e-12, "output at t = 9 is not 9.5")


# ---------------------------------------------------------------- properties of the method


@check("causal")
def causal(out, ref):
    base = out["base"]
    for cut in (0, 5, 6, 13):
        changed = out[f"cut{cut}"]
        close(changed[: cut + 1], base[: cut + 1], atol=1e-12, rtol=0, what=f"outputs up to t = {cut}")
        expect(np.abs(changed[cut + 1 :] - base[cut + 1 :]).max() > 1e-3,
               f"outputs after t = {cut} do not change when the inputs there do")


@check("window_branch_with_long_window_is_full_causal_attention")
def window_branch_is_causal_attention(out, ref):
    scale = 1 / math.sqrt(3)
    q, k, v = ref["q"], ref["k_win"], ref["v_win"]
    close(out["window14"], causal_attention(q, k, v, scale), atol=ATOL, rtol=RTOL, what="window 14")
    close(out["window3"], causal_attention(q, k, v, scale, window=3), atol=ATOL, rtol=RTOL, what="window 3")


@check("selection_of_every_block_is_full_causal_attention")
def selection_of_every_block(out, ref):
    want = causal_attention(ref["q"], ref["k_slc"], ref["v_slc"], 0.5)
    close(out["output"], want, atol=ATOL, rtol=RTOL, what="output")


@check("compressed_branch_is_zero_before_first_complete_block")
def compressed_branch_is_zero_before_first_complete_block(out, ref):
    o = out["output"]
    # block 0 = positions 0..3 completes at t = 3
    expect(np.count_nonzero(o[:3]) == 0, "output before t = 3 is not zero")
    expect(bool((np.abs(o[3:]).max(axis=(1, 2)) > 0).all()), "output is zero at some t >= 3")
    # at t = 3, exactly one block is visible: the output is its value
    close(o[3], np.broadcast_to(ref["v_cmp"][0], (2, ref["v_cmp"].shape[-1])), atol=ATOL, rtol=RTOL, what="t = 3")


@check("gates_mix_the_branches_linearly")
def gates_mix_the_branches_linearly(out, ref):
    gates = ref["gates"]
    parts = [out[f"parts.{b}"] for b in range(3)]
    mixed = sum(gates[..., b : b + 1] * parts[b] for b in range(3))
    close(out["total"], mixed, atol=ATOL, rtol=RTOL, what="gated sum of the one-branch outputs")
    expect(all(np.abs(p).max() > 0 for p in parts), "a branch's output is zero")


@check("shifting_all_keys_changes_nothing")
def shifting_all_keys_changes_nothing(out, ref):
    # q . (k + c) = q . k + q . c: the same shift for every key of a query leaves each softmax unchanged
    equal(out["shifted_sel"], out["base_sel"], what="selection")
    close(out["shifted"], out["base"], atol=ATOL, rtol=RTOL, what="output")


@check("query_heads_use_their_group_only")
def query_heads_use_their_group_only(out, ref):
    # with G groups the result equals running each group (its H/G query heads, its kv head) separately
    full, sel = out["full"], out["full_sel"]
    for g in range(3):
        close(out[f"group{g}"], full[:, 2 * g : 2 * g + 2], atol=ATOL, rtol=RTOL, what=f"group {g}")
        equal(out[f"group{g}_sel"][:, 0], sel[:, g], what=f"selection of group {g}")


@check("selection_mask_respects_forced_blocks_budget_and_causality")
def selection_mask(out, ref):
    seq_len, lp = 26, 2
    sel = out["sel"]
    equal(list(sel.shape), [seq_len, 2, 13], what="selection shape")
    for t in range(seq_len):
        current = t // lp
        forced = {0, 1, current, current - 1} & set(range(current + 1))
        for g in range(2):
            chosen = {int(j) for j in np.flatnonzero(sel[t, g])}
            expect(forced <= chosen, f"t={t}, g={g}: forced blocks {sorted(forced - chosen)} not selected")
            expect(max(chosen) <= current, f"t={t}, g={g}: a future block was selected")
            expect(len(chosen) == min(current + 1, 5), f"t={t}, g={g}: {len(chosen)} blocks selected")


@check("no_gradient_flows_through_block_selection")
def no_gradient_flows_through_block_selection(out, ref):
    # selection is a discrete top-n: with the compressed gate off, compressed keys/values get no gradient
    expect(out["k_cmp.is_none"] is True or np.count_nonzero(out["k_cmp.grad"]) == 0,
           "compressed keys get a gradient through the selection")
    for name in ("q", "k_slc"):
        expect(out[f"{name}.is_none"] is False and np.abs(out[f"{name}.grad"]).max() > 0, f"no gradient reaches {name}")


@check("extreme_logits_stay_finite")
def extreme_logits_stay_finite(out, ref):
    expect(bool(np.isfinite(out["output"]).all()), "non-finite output with logits ~1e4")
