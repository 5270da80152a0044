"""Trusted checks for blt-patching/1 (never enter the sandbox): hand-checked values and the properties the method
description states, on the outputs probe_blt.py emitted. The default comparison with the reference's outputs has
already passed."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

TOL = dict(rtol=1e-10, atol=1e-12)
HAND = dict(rtol=1e-12, atol=1e-12)


@check("*matches_reference[*]")
def finite_outputs(out, ref):
    for key, value in out.items():
        if isinstance(value, np.ndarray):
            finite(value, key)


@check("entropy_hand_values")
def entropy_hand_values(out, ref):
    # Eq. (1) in nats. Uniform over 256 bytes: H = ln 256.
    close(out["uniform"], [[math.log(256.0)]], **HAND, what="uniform")
    # logits (0, ln 3): p = (1/4, 3/4), H = -(1/4 ln 1/4 + 3/4 ln 3/4) = ln 4 - (3/4) ln 3
    close(out["two"], [[math.log(4.0) - 0.75 * math.log(3.0)]], **HAND, what="two outcomes")
    # all mass on one byte up to e^-500 or less: H = 0 to double precision (and finite, not 0 * log 0)
    close(out["peaked"], [[0.0, 0.0]], **HAND, what="peaked")


@check("starts_hand_values")
def starts_hand_values(out, ref):
    # Eq. (2), theta_g = 2: byte 0 always starts; then H > 2 strictly (2.0 itself does not start a patch)
    #   (3.0, 1.0, 2.5, 2.0, 0.5, 4.0)   -> 1 0 1 0 0 1
    #   (1.0, 2.25, 1.5, 1.75, 3.0, 0.0) -> 1 1 0 0 1 0
    equal(out["global"], np.array([[1, 0, 1, 0, 0, 1], [1, 1, 0, 0, 1, 0]], dtype=bool), what="global")
    # Eq. (3), theta_r = 1: H_t - H_{t-1} > 1 strictly
    #   (1.0, 3.0, 3.5, 1.0, 2.5, 3.5): differences 2, .5, -2.5, 1.5, 1.0 -> 1 1 0 0 1 0
    #   (4.0, 0.5, 2.0, 2.0, 3.25, 0.0): differences -3.5, 1.5, 0, 1.25, -3.25 -> 1 0 1 0 1 0
    equal(out["monotonic"], np.array([[1, 1, 0, 0, 1, 0], [1, 0, 1, 0, 1, 0]], dtype=bool), what="monotonic")


@check("starts_monotonic_ignores_the_level")
def monotonic_level(out, ref):
    # Eq. (3) depends on differences of consecutive entropies only (values are multiples of 1/8: exact)
    equal(out["shifted"], out["base"], what="entropies + 2")


@check("layout_hand_values")
def layout_hand_values(out, ref):
    # starts 1 0 0 1 1 0 -> patches {0,1,2} {3} {4,5};  starts 1 1 0 0 0 0 -> {0} {1..5}
    equal(out["patch_ids"], np.array([[0, 0, 0, 1, 2, 2], [0, 1, 1, 1, 1, 1]]), what="patch_ids")
    equal(out["n_patches"], np.array([3, 2]), what="n_patches")
    equal(out["lengths"], np.array([[3, 1, 2], [1, 5, 0]]), what="lengths (0 for the padding slot)")


@check("compute_patches_matches_reference[*]")
def compute_patches_incremental(out, ref):
    # Eq. (4): the patching of a prefix is the prefix of the patching
    cut = int(ref["cut"])
    equal(out["prefix.patch_ids"], out["patch_ids"][:, :cut], what="prefix patch ids")
    equal(out["prefix.n_patches"], out["patch_ids"][:, cut - 1] + 1, what="prefix patch counts")
    # lengths agree with the patch ids and cover every byte
    for b, ids in enumerate(out["patch_ids"]):
        counts = np.bincount(ids, minlength=out["lengths"].shape[1])
        equal(out["lengths"][b], counts, what=f"lengths of sequence {b}")


@check("ngram_ids_hand_values")
def ngram_hand_values(out, ref):
    # Eqs. (5)-(8), a = 1_000_000_007, pad byte 0 unless stated.
    # n = 1, table 13: b mod 13 -> 3, 200 - 195 = 5, 17 - 13 = 4
    equal(out["unigram"], np.array([[3, 5, 4]]), what="unigram")
    # n = 2, table 2^31: (0, 1) -> 0 * a + 1 = 1; (1, 2) -> a + 2 = 1_000_000_009 (< 2^31)
    equal(out["bigram"], np.array([[1, 1_000_000_009]]), what="bigram")
    # n = 3, pad 7, table 1000, a mod 1000 = 7: (7, 7, 5) -> 7 * 49 + 7 * 7 + 5 = 397
    equal(out["padded_trigram"], np.array([[397]]), what="padded trigram")
    # n = 3, table 100, a mod 100 = 7, tokens 4 2 9 1:
    #   (0,0,4) -> 4; (0,4,2) -> 28 + 2 = 30; (4,2,9) -> 196 + 14 + 9 = 219 -> 19; (2,9,1) -> 98 + 63 + 1 = 162 -> 62
    equal(out["trigram"], np.array([[4, 30, 19, 62]]), what="trigram")


@check("embedding_hand_values")
def embedding_hand_values(out, ref):
    # Eq. (6): byte rows (0.5 b, -b); table n=1 row k = (k, 0), table n=2 row k = (0, k), table size 1000,
    # a mod 1000 = 7. Tokens 3 7: unigram ids 3, 7; bigram ids (0,3) -> 3, (3,7) -> 3 * 7 + 7 = 28.
    #   e_0 = (1.5, -3) + (3, 0) + (0, 3) = (4.5, 0);  e_1 = (3.5, -7) + (7, 0) + (0, 28) = (10.5, 21)
    close(out["embedding"], [[[4.5, 0.0], [10.5, 21.0]]], **HAND, what="embedding")


@check("pool_hand_values[0]")
def pool_max(out, ref):
    # patches {1, 5} {2} {-3, 4} and {-2, -1, 6, .5, 0} + two padding slots (zero)
    close(out["pooled"][..., 0], [[5.0, 2.0, 4.0], [6.0, 0.0, 0.0]], **HAND, what="max pooling")


@check("pool_hand_values[1]")
def pool_mean(out, ref):
    # means 3, 2, 0.5 and 3.5 / 5 = 0.7; padding slots zero
    close(out["pooled"][..., 0], [[3.0, 2.0, 0.5], [0.7, 0.0, 0.0]], **HAND, what="mean pooling")


@check("cross_attention_sees_only_its_patch")
def cross_locality(out, ref):
    # masked cross-attention: patch j reads the bytes of patch j only. Sequence 0 has patches {0,1,2} {3,4} {5,6,7}.
    base, changed, permuted = out["base"], out["changed"], out["permuted"]
    close(changed[0, [0, 2]], base[0, [0, 2]], **TOL, what="other patches after changing patch 1's bytes")
    close(changed[1], base[1], **TOL, what="other sequence")
    expect(not np.allclose(changed[0, 1], base[0, 1]), "patch 1 does not depend on its own bytes")
    # no positional embedding in the cross-attention: the order of the bytes inside a patch does not matter
    close(permuted, base, **TOL, what="bytes of a patch reordered")


@check("cross_attention_single_byte_patches")
def cross_single(out, ref):
    # one byte per patch: the softmax weight is 1, so P_l = P_{l-1} + W_o(W_v(LN(h_i))) (Eq. 10)
    close(out["out"], out["direct"], **TOL, what="single-byte patches")


@check("encoder_byte_path_and_causality")
def encoder_paths(out, ref):
    # Eq. (12): the byte states returned are h_{l_E}, the embeddings through the encoder layers
    close(out["states"], out["layers_only"], **TOL, what="byte states")
    # patch 0 of sequence 0 reads only bytes up to its last byte (causal layers, n-grams look back)
    close(out["reps_later"][0, 0], out["reps"][0, 0], **TOL, what="patch 0 after changing later bytes")
    close(out["reps_later"][1], out["reps"][1], **TOL, what="other sequence")
    expect(not np.allclose(out["reps_later"][0, 1:], out["reps"][0, 1:]), "later patches ignore their bytes")


@check("model_end_to_end[*]")
def end_to_end(out, ref):
    finite(out["losses"], "losses")
    expect(out["losses"].shape == (3,), "three training steps")
