"""Trusted checks for diff-transformer/1 (never enter the sandbox): hand-checked values and the properties the
method description states, on the outputs probe_diff.py emitted. The default comparison with the reference's
outputs has already passed. Parameters of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-4, atol=2e-5)


def lambda_init(layer: int) -> float:
    """Eq. (3)."""
    return 0.8 - 0.6 * math.exp(-0.3 * (layer - 1))


def rotary(x: np.ndarray, base: float) -> np.ndarray:
    """difft.layers.apply_rotary at positions 0 .. T-1 for x (..., T, D): feature j pairs with j + D/2."""
    t, dim = x.shape[-2], x.shape[-1]
    half = dim // 2
    angles = np.arange(t)[:, None] * base ** (-np.arange(half) * 2 / dim)[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    x1, x2 = x[..., :half], x[..., half:]
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


def softmax_causal(scores: np.ndarray) -> np.ndarray:
    t = scores.shape[-1]
    scores = np.where(np.triu(np.ones((t, t), dtype=bool), 1), -np.inf, scores)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def diff_attention(x: np.ndarray, state: dict, layer: int, cfg: dict) -> tuple[np.ndarray, float]:
    """Eqs. (1) to (4) head by head, with the repository's layout and rotary convention (docstring)."""
    h, d = cfg["n_heads"], cfg["head_dim"]
    lam = (math.exp(state["lambda_q1"] @ state["lambda_k1"]) - math.exp(state["lambda_q2"] @ state["lambda_k2"])
           + lambda_init(layer))  # Eq. (2)
    q = x @ state["q_proj.weight"].T
    k = x @ state["k_proj.weight"].T
    v = x @ state["v_proj.weight"].T
    heads = []
    for i in range(h):
        maps = []
        for half in (0, 1):
            cols = slice((2 * i + half) * d, (2 * i + half + 1) * d)
            qi, ki = rotary(q[..., cols], cfg["rope_base"]), rotary(k[..., cols], cfg["rope_base"])
            maps.append(softmax_causal(qi @ np.swapaxes(ki, -1, -2) / math.sqrt(d)))
        head = (maps[0] - lam * maps[1]) @ v[..., 2 * i * d:2 * (i + 1) * d]  # Eq. (1)
        normed = head / np.sqrt((head**2).mean(axis=-1, keepdims=True) + cfg["norm_eps"]) * state["head_norm.weight"]
        heads.append((1 - lambda_init(layer)) * normed)  # Eq. (4)
    return np.concatenate(heads, axis=-1) @ state["out_proj.weight"].T, lam


def sub(out: dict, name: str) -> dict:
    return {k[len(name) + 1:]: v for k, v in out.items() if k.startswith(name + ".") and "#" not in k}


def key_of(out: dict, name: str) -> str:
    return f"f32.{name}" if f"f32.{name}" in out else name


def tol_of(key: str) -> dict:
    return F32 if key.startswith("f32.") else F64


@check("lambda_init_values")
def lambda_init_values(out, ref):
    # Eq. (3): l = 1 -> 0.8 - 0.6 = 0.2; l = 2 -> 0.8 - 0.6 e^-0.3 = 0.35550906759...; grows towards 0.8
    want = [lambda_init(layer) for layer in range(1, 13)]
    got = [out[f"values.{i}"] for i in range(12)]
    close(got, want, rtol=1e-14, atol=1e-15, what="Eq. (3)")
    close(got[0], 0.2, rtol=1e-14, what="first layer")
    close(got[1], 0.8 - 0.6 * math.exp(-0.3), rtol=1e-14, what="second layer")
    close([out["attribute.0"], out["attribute.1"], out["attribute.2"]], [want[0], want[1], want[5]], rtol=1e-14,
          what="DiffAttention.lambda_init")
    equal([out[f"layer_attribute.{i}"] for i in range(3)], [1, 2, 6], what="DiffAttention.layer")


@check("layer_matches_reference[*]")
def layer_is_eqs_1_to_4(out, ref):
    key = key_of(out, "out")
    want, lam = diff_attention(ref["x"], sub(ref, "state"), ref["layer"], sub(ref, "config"))
    close(out[key].astype(np.float64), want, **tol_of(key), what="Eqs. (1) to (4)")
    close(float(out[key_of(out, "lambda")]), lam, **tol_of(key), what="lambda of Eq. (2)")
    for name in ("lambda_q1", "lambda_k1", "lambda_q2", "lambda_k2", "head_norm.weight"):
        g = out[key_of(out, f"grad.{name}")]
        expect(np.abs(g).max() > 0, f"no gradient reaches {name}")


@check("layer_cache_matches_full[*]")
def layer_cache(out, ref):
    key = key_of(out, "full")
    close(out[key_of(out, "chunked")], out[key], **tol_of(key), what="chunked with the cache vs full")
    lengths = [out[f"lengths.{i}"] for i in range(len(sub(out, "lengths")))]
    equal(lengths, [ref[f"lengths.{i}"] for i in range(len(lengths))], what="cache lengths after each chunk")


@check("lambda_hand_value")
def lambda_hand_value(out, ref):
    # q1 . k1 = 0.2 - 0.5 + 0 + 0.5 = 0.2; q2 . k2 = 0 + 0.1 - 0.3 + 0 = -0.2; layer 3: 0.8 - 0.6 e^-0.6
    lam = math.exp(0.2) - math.exp(-0.2) + 0.8 - 0.6 * math.exp(-0.6)
    close(out["lambda"], lam, rtol=1e-12, what="Eq. (2)")
    # d lambda / d q1 = exp(q1 . k1) k1; d lambda / d k2 = -exp(q2 . k2) q2
    close(out["grad_q1"], math.exp(0.2) * np.array([0.2, -1.0, 3.0, 0.25]), rtol=1e-12, atol=1e-13, what="d/dq1")
    close(out["grad_k2"], -math.exp(-0.2) * np.array([0.0, 1.0, 1.0, 0.0]), rtol=1e-12, atol=1e-13, what="d/dk2")


@check("identical_maps_cancel")
def identical_maps_cancel(out, ref):
    # Q_2 = Q_1, K_2 = K_1 and lambda = 1: the two maps of Eq. (1) cancel, every head is 0, RMSNorm(0) = 0
    # (up to rounding: lambda is 1 to ~1e-16, and the per-head RMSNorm amplifies the residue by up to 1/sqrt(eps))
    close(out["lambda_one"], np.zeros_like(out["lambda_one"]), rtol=0, atol=1e-9, what="cancelled maps")
    # lambda = 0.5 halves each head before the per-head RMSNorm of Eq. (4), which removes the factor (up to eps)
    close(out["lambda_half"], out["lambda_zero"], rtol=1e-3, atol=1e-4, what="per-head normalisation")


@check("causality")
def causality(out, ref):
    close(out["changed_future"][:, :4], out["base"][:, :4], rtol=1e-12, atol=1e-13, what="positions before 4")
    expect(np.abs(out["changed_future"][:, 4:] - out["base"][:, 4:]).max() > 1e-6, "later positions changed")


@check("model_cache_matches_full[*]")
def model_cache(out, ref):
    key = key_of(out, "full")
    close(out[key_of(out, "chunked")], out[key], **tol_of(key), what="chunked decoding vs full forward")
    equal(out["cache_length"], ref["cache_length"], what="tokens in the cache")
    equal(out["generated_cached"], out["generated_recomputed"], what="greedy decoding with and without the cache")
