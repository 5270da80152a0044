"""Trusted checks for mta/1 (never enter the sandbox): the paper's equations recomputed in numpy (float64) from the
inputs the probe echoed, hand-checked values, and the properties the paper states. Parameters of a case are read
from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=2e-4, atol=2e-5)


def tol(dtype: str) -> dict:
    return F32 if dtype == "float32" else F64


def conv_eq4(scores: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Eq. (4) without the indicator: sum over i' in [0, c_q), j' in [-(c_k // 2), ceil(c_k / 2)) of
    theta_{i', j'} scores[i - i', j - j'], terms outside the map absent; kernel[h, i', j' + c_k // 2]."""
    _, h, tq, tk = scores.shape
    cq, ck = kernel.shape[1:]
    out = np.zeros_like(scores)
    for i in range(tq):
        for j in range(tk):
            for a in range(cq):
                for jp in range(-(ck // 2), math.ceil(ck / 2)):
                    if 0 <= i - a and 0 <= j - jp < tk:
                        out[:, :, i, j] += kernel[None, :, a, jp + ck // 2] * scores[:, :, i - a, j - jp]
    return out


def mix_eq7(maps: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Eq. (7)/(8): head a of group g becomes sum_b w_ab (head b of group g); groups of consecutive heads."""
    out = np.zeros_like(maps)
    n_groups, ch, _ = kernel.shape
    for g in range(n_groups):
        for a in range(ch):
            for b in range(ch):
                out[:, g * ch + a] += kernel[g, a, b] * maps[:, g * ch + b]
    return out


def future(tq: int, tk: int, first: int) -> np.ndarray:
    """(tq, tk) True where key position j > query position first + row."""
    return np.arange(tk)[None, :] > (first + np.arange(tq))[:, None]


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def weights_eq(scores, first, kq_conv, kq_kernel, head_conv, head_kernel, kq_first=True):
    """Eqs. (5), (6), (8), (10): the weights for the placements; `kq_first` orders two convolutions placed on the
    same side of the softmax (paper.md leaves it open: both orders are accepted)."""
    tq, tk = scores.shape[-2:]
    fut = future(tq, tk, first)

    def convs(x, side):
        ops = [("kq", kq_conv), ("head", head_conv)]
        for name, placement in (ops if kq_first else ops[::-1]):
            if placement == side:
                x = conv_eq4(x, kq_kernel) if name == "kq" else mix_eq7(x, head_kernel)
                if side == "post":
                    x = np.where(fut, 0.0, x)
        return x

    logits = convs(np.where(fut, 0.0, scores), "pre")
    return convs(softmax(np.where(fut, -np.inf, logits)), "post")


# ---------------------------------------------------------------- mask, convolutions


@check("mask_values[*]")
def mask_is_causal(out, ref):
    value = float(ref["value"])
    scores = ref["scores"]
    for key, s, first in (("offset_rows", scores, 3), ("square", scores[..., :4], 0), ("f32", scores, 3),
                            ("three_d", scores[0], 3)):
        fut = future(s.shape[-2], s.shape[-1], first)
        got = out[key].astype(np.float64)
        expect(np.array_equal(np.isneginf(got), np.isneginf(ref[key])), f"{key}: -inf entries")
        expect(np.allclose(np.where(fut, 0, got), np.where(fut, 0, s.astype(out[key].dtype)), rtol=0, atol=0),
               f"{key}: past and present entries unchanged")
        filled = got[..., fut]
        expect(np.all(filled == filled.flat[0]), f"{key}: one value in the future entries")
        expect(filled.flat[0] == value, f"{key}: the fill value")
    equal(out["input_untouched"], True, what="the input is not modified")


@check("conv_matches_reference[*]")
def conv_is_eq4(out, ref):
    key = next(k for k in ref if k.endswith("out"))
    t = F32 if key.startswith("f32") else F64
    close(out[key].astype(np.float64), conv_eq4(ref["scores"], ref["kernel"]), **t, what="Eq. (4) convolution")


@check("conv_hand_values")
def conv_hand(out, ref):
    # kernel [[a, b], [c, d]] = theta_{0,-1}, theta_{0,0}, theta_{1,-1}, theta_{1,0} (c_k = 2: j' in {-1, 0});
    # out[i, j] = a S[i, j+1] + b S[i, j] + c S[i-1, j+1] + d S[i-1, j], S = [[1, 2], [3, 4]], (a, b, c, d) =
    # (1, 10, 100, 1000): out[0,0] = 2 + 10 = 12, out[0,1] = 20, out[1,0] = 4 + 30 + 200 + 1000 = 1234,
    # out[1,1] = 40 + 2000 = 2040
    close(out["two_by_two"], [[[[12.0, 20.0], [1234.0, 2040.0]]]], rtol=1e-12, atol=0, what="2x2 by hand")
    # a unit impulse S at (1, 2) of a 3x5 map, 3x3 kernel k[i', j' + 1] = 1 .. 9: the term theta_{i',j'} S[i-i', j-j']
    # is 1 * theta_{i',j'} at i = 1 + i', j = 2 + j' -> row 1: cols 1, 2, 3 get k[0, 0], k[0, 1], k[0, 2] = 1, 2, 3;
    # row 2: 4, 5, 6; row 0 stays 0 (no later query enters an earlier row)
    want = np.zeros((1, 1, 3, 5))
    want[0, 0, 1, 1:4] = [1.0, 2.0, 3.0]
    want[0, 0, 2, 1:4] = [4.0, 5.0, 6.0]
    close(out["impulse"], want, rtol=0, atol=1e-12, what="impulse response by hand")


@check("mix_matches_reference[*]")
def mix_is_eq7(out, ref):
    key = next(k for k in ref if k.endswith("out"))
    t = F32 if key.startswith("f32") else F64
    close(out[key].astype(np.float64), mix_eq7(ref["maps"], ref["kernel"]), **t, what="Eq. (7) head mixing")


@check("mix_hand_values")
def mix_hand(out, ref):
    # group 0: heads (1, 2) -> (1*1 + 10*2, 100*1 + 1000*2) = (21, 2100); group 1: heads (3, 4) ->
    # (0.5*3 - 1*4, 2*3 + 0*4) = (-2.5, 6)
    close(out["out"].reshape(-1), [21.0, 2100.0, -2.5, 6.0], rtol=1e-12, atol=0, what="head mixing by hand")


# ---------------------------------------------------------------- attention_weights


def check_weights(out, ref, orders):
    key = next(k for k in ref if k.endswith("weights"))
    t = F32 if key.startswith("f32") else F64
    got = out[key].astype(np.float64)
    args = (ref["scores"], int(ref["first"]), ref["kq_conv"], ref["kq_kernel"], ref["head_conv"], ref["head_kernel"])
    errors = []
    for kq_first in orders:
        want = weights_eq(*args, kq_first=kq_first)
        try:
            close(got, want, **t, what=f"Eqs. (5)-(8) ({'key-query' if kq_first else 'head'} convolution first)")
            break
        except AssertionError as exc:
            errors.append(str(exc))
    else:
        raise AssertionError("; ".join(errors))
    fut = future(got.shape[-2], got.shape[-1], int(ref["first"]))
    close(np.where(fut, got, 0.0), np.zeros_like(got), rtol=0, atol=0, what="no weight on future keys")
    if "post" not in (ref["kq_conv"], ref["head_conv"]):
        close(got.sum(-1), np.ones(got.shape[:-1]), rtol=0, atol=10 * t["atol"], what="rows sum to one")


@check("weights_matches_reference[*]")
def weights_are_eqs(out, ref):
    check_weights(out, ref, (True,))


@check("weights_both_same_side[*]")
def weights_either_order(out, ref):
    check_weights(out, ref, (True, False))


@check("weights_ignore_unused_kernels")
def weights_plain(out, ref):
    close(out["none_none"], ref["softmax"], **F64, what="no convolution: Eq. (2)")


# ---------------------------------------------------------------- MTAttention


def rms(x: np.ndarray, weight: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * weight


def layer_eq(ref, kq_first=True):
    """Eq. (10) through the whole layer, in float64, from the echoed rotary queries, keys and values."""
    q, k, v = ref["q"], ref["k"], ref["v"]
    state = {key[len("state."):]: value for key, value in ref.items() if key.startswith("state.")}
    b, h, t, d = q.shape
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(d)
    kq_conv = ref["kq_conv"] if ref["use_kq"] else "none"
    w = weights_eq(scores, 0, kq_conv, state["kq_kernel"], ref["head_conv"], state["head_kernel"], kq_first)
    heads = w @ v
    if ref["group_norm"]:
        lambda_init = 0.8 - 0.6 * math.exp(-0.3 * (int(ref["layer"]) - 1))  # Eq. (9)
        heads = rms(heads, state["head_norm.weight"], float(ref["norm_eps"])) * (1 - lambda_init)
    return np.swapaxes(heads, 1, 2).reshape(b, t, h * d) @ state["out_proj.weight"].T


def check_layer(out, ref, orders):
    key = next(k for k in ref if k.endswith("out"))
    t = F32 if key.startswith("f32") else F64
    errors = []
    for kq_first in orders:
        try:
            close(out[key].astype(np.float64), layer_eq(ref, kq_first), **t, what="the MTA layer, Eqs. (5)-(10)")
            return
        except AssertionError as exc:
            errors.append(str(exc))
    raise AssertionError("; ".join(errors))


@check("layer_matches_reference[*]")
def layer_is_eq10(out, ref):
    check_layer(out, ref, (True,))


@check("layer_both_same_side[*]")
def layer_either_order(out, ref):
    check_layer(out, ref, (True, False))
    finite = all(np.isfinite(v).all() for k, v in out.items() if "grad" in k and isinstance(v, np.ndarray))
    expect(finite, "finite gradients")


@check("layer_cache_matches_full[*]")
def cache_matches_full(out, ref):
    t = tol(ref["dtype"])
    close(out["chunked"], out["full"], rtol=t["rtol"], atol=t["atol"], what="incremental = full pass")
    equal(out["lengths"].tolist(), np.cumsum(ref["chunks"]).tolist(), what="cache length after each call")


@check("layer_causality[*]")
def layer_is_causal(out, ref):
    t = tol(ref["dtype"])
    close(out["a"], out["b"], rtol=t["rtol"], atol=t["atol"], what="outputs before a change of later inputs")


@check("layer_at_initialisation")
def init_is_standard_attention(out, ref):
    # Section 3.4: identity kernels make MTA standard attention (with the group normalisation)
    close(out["mta"], out["plain"], **F64, what="identity kernels")


# ---------------------------------------------------------------- the model


def check_model(out, ref):
    t = tol(ref["dtype"])
    logits = next(k for k in ref if k.endswith("logits"))
    stepped = next(k for k in ref if k.endswith("stepped"))
    close(out[stepped].astype(np.float64), out[logits].astype(np.float64), rtol=t["rtol"], atol=t["atol"] * 10,
          what="token-by-token decoding through the cache = full pass")
    close(out["prefix_a"], out["prefix_b"], rtol=t["rtol"], atol=t["atol"] * 10,
          what="logits before a change of later tokens")
    equal(out["cache_length"], 12, what="cache length")
    equal(out["generated"].tolist(), out["generated_no_cache"].tolist(), what="greedy generation with/without cache")


@check("model_matches_reference[*]")
def model_properties_fixed(out, ref):
    check_model(out, ref)


@check("model_properties[*]")
def model_properties_either(out, ref):
    check_model(out, ref)


@check("train_script_run")
def train_runs(out, ref):
    expect(np.isfinite(out["losses"]).all(), "finite losses")
    expect(0.0 <= out["accuracy"] <= 1.0, "accuracy in [0, 1]")
