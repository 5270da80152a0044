"""Trusted checks for gated-attn/1 (never enter the sandbox): the paper's equations recomputed in numpy (float64)
from the inputs the probe echoed, hand-checked values, and the properties the paper states. Parameters of a case
are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=2e-4, atol=2e-5)


def tol(dtype: str) -> dict:
    return F32 if dtype == "float32" else F64


def config(ref: dict) -> dict:
    return {k[len("config."):]: v for k, v in ref.items() if k.startswith("config.")}


def state(ref: dict) -> dict:
    return {k[len("state."):]: v for k, v in ref.items() if k.startswith("state.")}


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gate_eq(cfg: dict, st: dict, x: np.ndarray) -> np.ndarray:
    """Eqs. (4)/(5): sigma(X W_theta) (+ bias), read as (B, T, n_groups, group_dim): one group per gated head when
    head-specific, one group when head-shared; head_dim values per group when elementwise, one when headwise."""
    z = x @ st["gate_proj.weight"].T
    if "gate_proj.bias" in st:
        z = z + st["gate_proj.bias"]
    s = sigmoid(z) if cfg["gate_activation"] == "sigmoid" else z * sigmoid(z)
    heads = cfg["n_kv_heads"] if cfg["gate_position"] in ("key", "value") else cfg["n_heads"]
    groups = heads if cfg["gate_sharing"] == "head_specific" else 1
    width = cfg["head_dim"] if cfg["gate_granularity"] == "elementwise" else 1
    return s.reshape(*x.shape[:-1], groups, width)


def combine(y: np.ndarray, s: np.ndarray, how: str) -> np.ndarray:
    """Eq. (4) (multiply) or Eq. (6) (add), the scores broadcast over heads / elements."""
    return y * s if how == "multiply" else y + s


def layer_eq(cfg: dict, st: dict, x: np.ndarray):
    """Eqs. (1)-(3) with GQA (consecutive query heads share a key/value head), causal mask, the gate at its
    position (Section 3.2). Returns out, probs, gate scores."""
    b, t, _ = x.shape
    h, hkv, d = cfg["n_heads"], cfg["n_kv_heads"], cfg["head_dim"]
    pos = cfg["gate_position"]
    g = gate_eq(cfg, st, x) if pos != "none" else None
    q = (x @ st["q_proj.weight"].T).reshape(b, t, h, d)
    k = (x @ st["k_proj.weight"].T).reshape(b, t, hkv, d)
    v = (x @ st["v_proj.weight"].T).reshape(b, t, hkv, d)
    how = cfg["gate_combine"]
    if pos == "query":
        q = combine(q, g, how)
    if pos == "key":
        k = combine(k, g, how)
    if pos == "value":
        v = combine(v, g, how)
    rep = h // hkv
    probs = np.zeros((b, h, t, t))
    heads = np.zeros((b, t, h, d))
    for i in range(h):
        j = i // rep
        s = np.einsum("btd,bsd->bts", q[:, :, i], k[:, :, j]) / np.sqrt(d)
        s = np.where(np.triu(np.ones((t, t), bool), 1), -np.inf, s)
        e = np.exp(s - s.max(-1, keepdims=True))
        a = e / e.sum(-1, keepdims=True)
        probs[:, i] = a
        heads[:, :, i] = np.einsum("bts,bsd->btd", a, v[:, :, j])
    if pos == "sdpa":
        heads = combine(heads, g, how)
    out = heads.reshape(b, t, h * d) @ st["o_proj.weight"].T
    if pos == "dense":
        out = combine(out.reshape(b, t, h, d), g, how).reshape(b, t, -1)
    return out, probs, g


# ---------------------------------------------------------------- first_token_attention


@check("first_token_hand_values")
def first_token_hand(out, ref):
    # head 0 column 0: 1, 0.5, 0.2; head 1: 1, 0.9, 0.0 -> sum 3.6 over 6 (head, query) pairs = 0.6 (Eq. (11))
    close(out["hand"], 0.6, rtol=1e-12, what="mean first-token weight by hand")
    close(out["f32"], 0.6, rtol=1e-6, what="float32")
    expect(out["f32#dtype"] == "float32", "dtype of probs")
    close(out["random"], ref["random_probs"][..., 0].mean(), rtol=1e-12, what="Eq. (11) on random weights")


# ---------------------------------------------------------------- apply_gate


@check("apply_gate_matches_reference[*]")
def apply_is_eq4_or_6(out, ref):
    close(out["out"], combine(ref["y"], ref["scores"], ref["combine"]), rtol=1e-12, atol=1e-14,
          what="Eq. (4)/(6) with broadcasting")


# ---------------------------------------------------------------- gate_scores


@check("gate_scores_matches_reference[*]")
def gate_is_eq4(out, ref):
    key = "f32.scores" if "f32.scores" in ref else "scores"
    t = F32 if key.startswith("f32") else F64
    want = gate_eq(config(ref), state(ref), ref["x"])
    close(out[key].astype(np.float64), want, **t, what="gate scores sigma(X W_theta)")
    if config(ref)["gate_activation"] == "sigmoid":
        expect(np.all((out[key] > 0) & (out[key] < 1)), "sigmoid scores lie in (0, 1)")


# ---------------------------------------------------------------- the layer


@check("layer_matches_reference[*]")
def layer_is_eqs(out, ref):
    cfg = config(ref)
    p = "f32." if ref["dtype"] == "float32" else ""
    t = tol(ref["dtype"])
    o, probs, g = layer_eq(cfg, state(ref), ref["x"])
    close(out[p + "out"].astype(np.float64), o, **t, what="layer output")
    close(out[p + "probs"].astype(np.float64), probs, **t, what="attention weights")
    close(out[p + "probs"].astype(np.float64).sum(-1), 1.0, **t, what="rows of the weights sum to one")
    if g is None:
        expect(out.get(p + "gate") is None, "no gate scores without a gate")
    else:
        close(out[p + "gate"].astype(np.float64), g, **t, what="gate scores returned by forward")
    equal(out["is_tuple"], True, what="AttentionOutput")


@check("layer_causality[*]")
def layer_is_causal(out, ref):
    close(out["a"], out["b"], **tol(ref["dtype"]), what="earlier outputs ignore later tokens")
    close(out["a"], ref["a"], **tol(ref["dtype"]), what="output")


@check("layer_cache_matches_full[*]")
def cache_matches_full(out, ref):
    t = tol(ref["dtype"])
    chunks = [int(n) for n in ref["chunks"]]
    close(out["full"], ref["full"], **t, what="the full pass")
    close(out["chunked"], out["full"], **t, what="chunked pass through the cache equals the full pass")
    equal(np.asarray(out["lengths"]).tolist(), np.cumsum(chunks).tolist(), what="cache.length after each call")
    total = sum(chunks)
    close(out["last_probs"], ref["full_probs"][:, :, total - chunks[-1]:], **t,
          what="weights of the last chunk over all positions")
    close(out["first_probs"], ref["full_probs"][:, :, :chunks[0], :chunks[0]], **t,
          what="weights of the first chunk")


@check("model_decoding[*]")
def decoding_matches_full(out, ref):
    p = "f32." if ref["dtype"] == "float32" else ""
    t = tol(ref["dtype"])
    close(out[p + "stepped"].astype(np.float64), ref[p + "full"], **t, what="cached decoding equals the full pass")
    equal(out["generated"], out["generated_no_cache"], what="greedy tokens with and without the cache")


@check("model_matches_reference[*]")
def model_diagnostics(out, ref):
    p = "f32." if p_is_f32(ref) else ""
    t = F32 if p else F64
    n = len([k for k in ref if k.startswith(p + "probs.") and "#" not in k])
    first = [out[f"{p}probs.{i}"].astype(np.float64)[..., 0].mean() for i in range(n)]
    close(out[p + "first_token"], first, **t, what="first-token attention per layer (Eq. (11))")
    maxes = [np.abs(out[f"{p}hidden.{i}"].astype(np.float64)).max() for i in range(n)]
    close(out[p + "max_activation"], maxes, **t, what="max activation per layer (Eq. (12))")


def p_is_f32(ref: dict) -> bool:
    return "f32.logits" in ref
