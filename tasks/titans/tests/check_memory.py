"""Trusted checks for titans/1 (never enter the sandbox): hand-checked values and the equations of Section 3 of
paper.md, re-derived here in numpy from the inputs the probe echoed, on top of the default comparison with the
reference's outputs. Case parameters come from `ref`, never from `out`."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-4, atol=1e-5)


def listed(d: dict, name: str) -> list:
    items, i = [], 0
    while f"{name}.{i}" in d:
        items.append(d[f"{name}.{i}"])
        i += 1
    return items


def key(out: dict, name: str) -> str:
    return f"f32.{name}" if f"f32.{name}.0" in out or f"f32.{name}" in out else name


def tol(k: str) -> dict:
    return F32 if k.startswith("f32.") else F64


def inputs(ref: dict) -> dict:
    return {n: listed(ref, f"in.{n}") if n in ("weights", "momentum") else ref[f"in.{n}"]
            for n in ("weights", "momentum", "k", "v", "q", "alpha", "eta", "theta")}


def silu(x):
    return x / (1 + np.exp(-x))


def forward(ws, x):
    h = x
    for i, w in enumerate(ws):
        if i > 0:
            h = silu(h)
        h = h @ w
    return h


def grad_one(ws, k, v):
    """Gradient of ||M(k) - v||^2 (summed over features) for one token, backpropagation written out."""
    pre, h = [], k
    for i, w in enumerate(ws):
        inp = silu(h) if i > 0 else h
        pre.append((h, inp))
        h = inp @ w
    delta = 2 * (h - v)
    grads = [None] * len(ws)
    for i in reversed(range(len(ws))):
        h_prev, inp = pre[i]
        grads[i] = np.outer(inp, delta)
        delta = ws[i] @ delta
        if i > 0:
            s = 1 / (1 + np.exp(-h_prev))
            delta = delta * s * (1 + h_prev * (1 - s))
    return grads


def memory_run(c: dict, chunk: int):
    """Eqs. (9)-(10) token by token with each token's surprise taken at the weights the chunk started with
    (chunk = 1: the sequential form; chunk > 1: the mini-batch form of Section 3.2)."""
    B, T = c["k"].shape[:2]
    L = len(c["weights"])
    states = [np.zeros((B, T) + w.shape[1:]) for w in c["weights"]]
    moms = [np.zeros_like(s) for s in states]
    for b in range(B):
        w = [x[b].copy() for x in c["weights"]]
        s = [x[b].copy() for x in c["momentum"]]
        for start in range(0, T, chunk):
            w0 = [x.copy() for x in w]
            for t in range(start, min(start + chunk, T)):
                g = grad_one(w0, c["k"][b, t], c["v"][b, t])
                for i in range(L):
                    s[i] = c["eta"][b, t] * s[i] - c["theta"][b, t] * g[i]
                    w[i] = (1 - c["alpha"][b, t]) * w[i] + s[i]
                    states[i][b, t], moms[i][b, t] = w[i], s[i]
    return states, moms


@check("token_gradients_match[*]")
def gradients_by_backprop(out, ref):
    c, k = inputs(ref), key(out, "grads")
    got = listed(out, k)
    equal(len(got), len(c["weights"]), what="one gradient per weight matrix")
    B, n = c["k"].shape[:2]
    for b in range(B):
        for t in range(n):
            want = grad_one([w[b] for w in c["weights"]], c["k"][b, t], c["v"][b, t])
            for i, g in enumerate(want):
                close(got[i][b, t], g, **tol(k), what=f"gradient of matrix {i}, token {t}")


@check("sequential_matches[*]")
def sequential_is_eq_9_10(out, ref):
    c = inputs(ref)
    states, moms = memory_run(c, 1)
    for name, want in (("states", states), ("momenta", moms)):
        k = key(out, name)
        for i, w in enumerate(want):
            finite(out[f"{k}.{i}"], name)
            close(out[f"{k}.{i}"], w, **tol(k), what=f"{name} of matrix {i}")


@check("chunked_matches[*]")
def chunked_is_minibatch_form(out, ref):
    c = inputs(ref)
    states, moms = memory_run(c, int(ref["chunk_size"]))
    for name, want in (("states", states), ("momenta", moms)):
        k = key(out, name)
        for i, w in enumerate(want):
            close(out[f"{k}.{i}"], w, **tol(k), what=f"{name} of matrix {i}")


@check("retrieve_matches[*]")
def retrieval_uses_step_t(out, ref):
    c = inputs(ref)
    states, _ = memory_run(c, 1)
    k = key(out, "read")
    B, T = c["q"].shape[:2]
    want = np.stack([np.stack([forward([s[b, t] for s in states], c["q"][b, t]) for t in range(T)])
                     for b in range(B)])
    close(out[k], want, **tol(k), what="y_t = M_t(q_t)")


@check("hand_values")
def hand_values(out, ref):
    # M(x) = w x, w0 = 0.5, S0 = 0.1; token 1: k=1, v=1; token 2: k=2, v=0; grad of (w k - v)^2 is 2 k (w k - v)
    # at w0: token 1: 2 * 1 * (0.5 - 1) = -1; token 2: 2 * 2 * (1.0 - 0) = 4
    close(out["grads.0"].reshape(-1), [-1.0, 4.0], rtol=1e-12, atol=1e-14, what="surprise at M_0")
    # sequential: S1 = 0.5 * 0.1 - 0.2 * (-1) = 0.25, M1 = 0.9 * 0.5 + 0.25 = 0.7
    # token 2 at M1: g = 2 * 2 * 1.4 = 5.6, S2 = 0.25 * 0.25 - 0.1 * 5.6 = -0.4975, M2 = 0.8 * 0.7 - 0.4975 = 0.0625
    close(out["seq.0.0"].reshape(-1), [0.7, 0.0625], rtol=1e-12, atol=1e-14, what="sequential M_t")
    close(out["seq.1.0"].reshape(-1), [0.25, -0.4975], rtol=1e-12, atol=1e-14, what="sequential S_t")
    # one chunk of 2: token 2's surprise at M0 (4): S2 = 0.0625 - 0.4 = -0.3375, M2 = 0.56 - 0.3375 = 0.2225
    close(out["chunk2.0.0"].reshape(-1), [0.7, 0.2225], rtol=1e-12, atol=1e-14, what="chunked M_t")
    close(out["chunk2.1.0"].reshape(-1), [0.25, -0.3375], rtol=1e-12, atol=1e-14, what="chunked S_t")
    # retrieval y_t = M_t q_t: 0.7 * 2 = 1.4, 0.0625 * (-1) = -0.0625
    close(out["read"].reshape(-1), [1.4, -0.0625], rtol=1e-12, atol=1e-14, what="retrieval")


@check("chunk_size_one_is_sequential[*]")
def chunk_one(out, ref):
    for part in ("0", "1"):
        for i in range(len(listed(out, f"seq.{part}"))):
            close(out[f"chunk1.{part}.{i}"], out[f"seq.{part}.{i}"], rtol=1e-10, atol=1e-12,
                  what="chunk size 1 = sequential")


@check("memory_layer[*]")
def layer_chunk_one(out, ref):
    finite(out["chunked"], "layer output")
    if ref["chunk"] == 1:
        close(out["chunked"], out["sequential"], rtol=1e-10, atol=1e-12, what="chunk size 1 = sequential")
    else:
        expect(np.abs(out["chunked"] - out["sequential"]).max() > 1e-8, "chunks of 3 approximate the sequential form")
