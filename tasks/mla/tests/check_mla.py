"""Trusted checks for mla/1 (never enter the sandbox): hand-checked values and the properties the method
description states, on the outputs probe_mla.py emitted. The default comparison with the reference's outputs has
already passed."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

TOL = dict(rtol=1e-10, atol=1e-12)


@check("*matches_reference[*]")
def finite_outputs(out, ref):
    for key, value in out.items():
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            finite(value, key)


@check("hand_values")
def hand_values(out, ref):
    # d = 2, one head, d_h = 1, d_h^R = 2, d_c = d_c' = 1, RMSNorm without epsilon (a 1-d vector x -> x / |x|).
    # h_1 = (1, 1), h_2 = (1, -1).  c^Q = norm(h[0]) = 1 for both; c^KV = norm(h[1]) = (1, -1) (Eqs. 9, 12).
    # q^C = k^C... : q^C = 1, k^C_j = v^C_j = c^KV_j (Eqs. 10, 11, 13).
    # q^R = RoPE((c^Q, 0)) = (cos p, sin p), k^R = RoPE((h[0], 0)) = (cos p, sin p) at position p (Eqs. 14, 15).
    # Token 1 (p = 0) sees only itself: o = v_1 = 1.
    # Token 2 (p = 1), Eq. (18) with scale 1 / sqrt(d_h + d_h^R) = 1 / sqrt(3):
    #   key 1: (1 * 1 + (cos 1, sin 1) . (1, 0)) / sqrt 3 = (1 + cos 1) / sqrt 3 = s
    #   key 2: (1 * (-1) + 1) / sqrt 3 = 0
    #   o = (e^s * 1 + 1 * (-1)) / (e^s + 1) = tanh(s / 2).   W^O maps o to (o, 0) (Eq. 19).
    s = (1.0 + math.cos(1.0)) / math.sqrt(3.0)
    want = [[1.0, 0.0], [math.tanh(s / 2), 0.0]]
    for key in ("forward", "decode", "decode_absorbed"):
        close(out[key].reshape(2, 2), want, rtol=1e-12, atol=1e-12, what=key)
    # the cache: the latents (1, -1) and the rotated shared keys (1, 0), (cos 1, sin 1)
    close(out["cache_latent"].ravel(), [1.0, -1.0], rtol=1e-12, atol=1e-12, what="cached latents")
    close(out["cache_k_rope"].reshape(2, 2), [[1.0, 0.0], [math.cos(1.0), math.sin(1.0)]], rtol=1e-12,
          atol=1e-12, what="cached rotary keys")


@check("single_token_output_is_projected_value[*]")
def single_token(out, ref):
    # Eq. (18) with t = 1: the softmax over one key is 1, so o_{1,i} = v^C_{1,i} and u = W^O W^UV c^KV
    close(out["out"], out["direct"], **TOL, what="one token")


@check("is_causal[*]")
def causal(out, ref):
    cut = int(ref["cut"])
    close(out["changed"][:, : cut + 1], out["base"][:, : cut + 1], **TOL, what="positions <= cut")
    expect(not np.allclose(out["changed"][:, cut + 1:], out["base"][:, cut + 1:]),
           "later positions do not depend on their inputs")


def tol(key: str) -> dict:
    return dict(rtol=2e-4, atol=5e-5) if key.startswith("f32.") else TOL


@check("decode_*_matches_reference[*]")
def decode_cache(out, ref):
    # the cache passed in is left unchanged, and the new cache starts with it
    n = int(ref["prefix"])
    for p in ("", "f32."):
        if f"{p}out" not in out:
            continue
        equal(out[f"{p}cache_latent"].shape[1], n + out[f"{p}out"].shape[1], what="new cache length")
        close(out[f"{p}cache_latent"][:, :n], out[f"{p}old_latent"], **tol(p), what="cached latents kept")
        close(out[f"{p}cache_k_rope"][:, :n], out[f"{p}old_k_rope"], **tol(p), what="cached rotary keys kept")


@check("chunked_decode_equals_forward[*]")
def chunked(out, ref):
    # Section 2.2: caching c^KV and k^R suffices; decoding chunk by chunk reproduces the whole-sequence output,
    # with the up-projections absorbed or not
    for key in out:
        if key.endswith("decode_explicit") or key.endswith("decode_absorbed"):
            p = "f32." if key.startswith("f32.") else ""
            close(out[key], out[f"{p}forward"], **tol(p), what=key)
    for p in ("", "f32."):
        if f"{p}cache_explicit" in out:
            close(out[f"{p}cache_absorbed"], out[f"{p}cache_explicit"], **tol(p), what="latents")
            close(out[f"{p}k_rope_absorbed"], out[f"{p}k_rope_explicit"], **tol(p), what="rotary keys")


@check("absorbed_decode_uses_only_the_absorbed_weights[*]")
def absorbed_only(out, ref):
    # decode docstring: with absorbed weights, W^UQ, W^UK, W^UV and W^O are not used
    close(out["after"], out["before"], **TOL, what="after changing w_uq, w_uk, w_uv, w_o")


@check("model_end_to_end")
def end_to_end(out, ref):
    finite(out["logits"], "logits")
    finite(out["train_losses"], "training losses")
    close(out["decoded"], out["logits"], rtol=1e-9, atol=1e-10, what="cached absorbed decoding")
    close(out["decoded_explicit"], out["logits"], rtol=1e-9, atol=1e-10, what="cached explicit decoding")
    equal(int(out["cache_length"]), 10, what="cache length")
    equal(int(out["cache_elements"]), 6 + 4, what="cached elements per token: d_c + d_h^R")
    equal(out["generated"].tolist(), out["uncached"].tolist(), what="cached greedy generation")
    expect(abs(float(out["loss"]) - float(ref["log_vocab"])) < 1.0, "initial loss far from log(vocab)")
