"""Trusted checks for moba/1 (never enter the sandbox): hand-checked values and the properties the method
description states, on the outputs probe_moba.py emitted. The default comparison with the reference's outputs
has already passed."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

TOL = dict(rtol=1e-10, atol=1e-12)
E = math.e


@check("*matches_reference[*]")
def finite_outputs(out, ref):
    for key, value in out.items():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            finite(value, key)


def gate_rules(selected: np.ndarray, block_size: int, top_k: int) -> None:
    """Eqs. (5), (7) and the current-block rule: own block always, no future block, exactly min(top_k, own + 1)."""
    t, n = selected.shape[-2], selected.shape[-1]
    equal(n, -(-t // block_size), what="number of blocks")
    own = np.arange(t) // block_size
    blocks = np.arange(n)
    future = blocks[None, :] > own[:, None]
    expect(not selected[..., future].any(), "a query selected a future block")
    expect(bool(selected[..., np.arange(t), own].all()), "a query did not select its current block")
    counts = selected.sum(axis=-1)
    wanted = np.minimum(top_k, own + 1)
    equal(counts.tolist(), np.broadcast_to(wanted, counts.shape).tolist(), what="blocks per query")


@check("select_matches_reference[*]")
def select_rules(out, ref):
    gate_rules(out["selected"], int(ref["block_size"]), int(ref["top_k"]))


@check("hand_values[*]")
def hand_values(out, ref):
    # q = (1, 1, 1, 1, 1, -1), k = (1, 1, -1, -1, 0, 0), v = (1, ..., 6), blocks of 2, top_k = 2, scale 1.
    # Eq. (6): block means (1, -1, 0).
    close(out["pooled"].ravel(), [1.0, -1.0, 0.0], rtol=1e-12, what="block means")
    # keys (1, 3 | -1, -1 | 4): the last block holds one key, its mean is 4
    close(out["pooled_partial"].ravel(), [2.0, -1.0, 4.0], rtol=1e-12, what="block means, last block shorter")
    # Gate: t = 0, 1 have only their own block 0; t = 2, 3 (block 1) take blocks 0 and 1 (two eligible, k = 2);
    # t = 4 (q = 1) scores block 0 at 1 > block 1 at -1 -> {0, 2}; t = 5 (q = -1) scores -1 < 1 -> {1, 2}.
    want = [[1, 0, 0], [1, 0, 0], [1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]]
    equal(out["selected"].reshape(6, 3).astype(int).tolist(), want, what="selected blocks")
    # Eq. (2) over the selected keys, causal inside the current block; scores q * k_j:
    #   t0: key 0 (score 1) -> 1, lse 1
    #   t1: keys 0, 1 (1, 1) -> 1.5, lse log 2e
    #   t2: keys 0, 1, 2 (1, 1, -1) -> (e + 2e + 3/e) / (2e + 1/e)
    #   t3: keys 0..3 (1, 1, -1, -1) -> (3e + 7/e) / (2e + 2/e)
    #   t4: keys 0, 1, 4 (1, 1, 0) -> (3e + 5) / (2e + 1)
    #   t5: keys 2, 3, 4, 5 (1, 1, 0, 0) -> (7e + 11) / (2e + 2)
    outs = [1.0, 1.5, (3 * E + 3 / E) / (2 * E + 1 / E), (3 * E + 7 / E) / (2 * E + 2 / E),
            (3 * E + 5) / (2 * E + 1), (7 * E + 11) / (2 * E + 2)]
    lses = [1.0, math.log(2 * E), math.log(2 * E + 1 / E), math.log(2 * E + 2 / E), math.log(2 * E + 1),
            math.log(2 * E + 2)]
    close(out["out"].ravel(), outs, rtol=1e-12, what="outputs")
    close(out["lse"].ravel(), lses, rtol=1e-12, what="log normalisers")


@check("top_k_covering_all_blocks_is_full_attention[*]")
def covers_all(out, ref):
    # k >= n: every past block and the current block are selected, Eq. (2) becomes Eq. (1) with the causal mask
    close(out["moba"], out["full"], **TOL, what="k = 5 >= 5 blocks")
    close(out["moba_scaled"], out["full_scaled"], **TOL, what="k = 4 >= 4 blocks, scale 0.4")


@check("top_1_is_causal_attention_within_blocks[*]")
def top_1(out, ref):
    # k = 1: the current block only, with the causal mask (default scale 1/sqrt(4) = 0.5)
    close(out["moba"], out["local"], **TOL, what="outputs")
    close(out["moba_lse"], out["local_lse"], **TOL, what="log normalisers")


@check("is_causal[*]")
def causal(out, ref):
    cut = int(ref["cut"])
    close(out["changed"][:, :, : cut + 1], out["base"][:, :, : cut + 1], **TOL, what="outputs up to cut")
    close(out["changed_lse"][:, :, : cut + 1], out["base_lse"][:, :, : cut + 1], **TOL, what="lse up to cut")
    expect(not np.allclose(out["changed"][:, :, cut + 1:], out["base"][:, :, cut + 1:]),
           "later positions do not depend on their inputs")


@check("heads_and_batch_are_independent[*]")
def independent(out, ref):
    close(out["single"], out["full"][2:3, 1:2], **TOL, what="one sequence, one head")


@check("varlen_agrees_with_naive")
def agree(out, ref):
    close(out["varlen"], out["naive"], **TOL, what="outputs")
    close(out["varlen_lse"], out["naive_lse"], **TOL, what="log normalisers")


def layout_rules(out) -> None:
    """VarlenLayout docstring: rows of block g = (b H + h) n + j are the queries that selected block j, other than
    block j's own queries, in increasing order of r = (b H + h) T + t."""
    selected = out["selected"]
    b, h, t, n = selected.shape
    own = np.arange(t) // int(out["block_size"])
    routed = selected & (np.arange(n)[None, :] != own[:, None])
    cu = out["cu_seqlens"]
    equal(len(cu), b * h * n + 1, what="cu_seqlens length")
    equal(int(cu[0]), 0, what="cu_seqlens[0]")
    rows = out["query_rows"]
    equal(int(cu[-1]), len(rows), what="cu_seqlens[-1]")
    for g in range(b * h * n):
        seq, j = divmod(g, n)
        want = [seq * t + pos for pos in range(t) if routed.reshape(b * h, t, n)[seq, pos, j]]
        equal(rows[cu[g]:cu[g + 1]].tolist(), want, what=f"rows of key block {g}")


@check("route_matches_reference[*]")
def route_rules(out, ref):
    layout_rules(out)


@check("route_of_the_gate")
def route_gate(out, ref):
    gate_rules(out["selected"], 3, 3)
    layout_rules(out)


@check("model_end_to_end[*]")
def end_to_end(out, ref):
    finite(out["logits"], "logits")
    finite(out["train_losses"], "training losses")
    equal(list(out["logits"].shape), [2, 14, 16], what="logits shape")
    expect(abs(float(out["loss"]) - float(ref["log_vocab"])) < 1.0, "initial loss far from log(vocab)")
