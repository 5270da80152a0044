"""Trusted checks for deltaproduct/1: the recurrences of paper.md recomputed step by step in numpy (float64),
hand-checked values, and the properties the layer's interface states (padding, cache, chunk size)."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-9, atol=1e-11)
F32 = dict(rtol=1e-4, atol=1e-5)
EPS = 1e-20  # the layers' norm_eps in the probe


def key_of(out: dict, name: str) -> str:
    return f"f32.{name}" if f"f32.{name}" in out else name


def tol_of(key: str) -> dict:
    return F32 if key.startswith("f32.") else F64


def listed(out: dict, name: str) -> list:
    items, i = [], 0
    while f"{name}.{i}" in out:
        items.append(out[f"{name}.{i}"])
        i += 1
    return items


def householder_step(S: np.ndarray, k: np.ndarray, v: np.ndarray, beta: float) -> np.ndarray:
    """One delta-rule step on one head's state (K, V): (I - beta k k^T) S + beta k v^T."""
    return (np.eye(len(k)) - beta * np.outer(k, k)) @ S + beta * np.outer(k, v)


def naive_product(q, k, v, beta, log_gate, S0) -> tuple[np.ndarray, np.ndarray]:
    """(Gated) DeltaProduct token by token: H_i = alpha_i A(x_i) H_{i-1} + B(x_i), o_i = H_i^T q_i.

    q (B, L, H, K); k (B, L, n_h, H, K); v (B, L, n_h, H, V); beta (B, L, n_h, H); log_gate (B, L, H) or None.
    Returns the outputs (B, L, H, V) and the states after every token (B, L, H, K, V)."""
    B, L, n_h, H, K = k.shape
    V = v.shape[-1]
    S = np.zeros((B, H, K, V)) if S0 is None else S0.copy()
    outs, states = np.zeros((B, L, H, V)), np.zeros((B, L, H, K, V))
    for b in range(B):
        for h in range(H):
            M = S[b, h]
            for i in range(L):
                if log_gate is not None:
                    M = np.exp(log_gate[b, i, h]) * M
                for j in range(n_h):
                    M = householder_step(M, k[b, i, j, h], v[b, i, j, h], beta[b, i, j, h])
                outs[b, i, h] = M.T @ q[b, i, h]
                states[b, i, h] = M
    return outs, states


def naive_rule(q, k, v, beta, log_gate, S0) -> tuple[np.ndarray, np.ndarray]:
    """The (gated) delta rule step by step: n_h = 1 of `naive_product`."""
    return naive_product(q, k[:, :, None], v[:, :, None], beta[:, :, None], log_gate, S0)


# ---------------------------------------------------------------- chunkwise delta rule


@check("rule_matches_reference[*]")
def rule_is_the_recurrence(out, ref):
    o, states = naive_rule(ref["q"], ref["k"], ref["v"], ref["beta"], ref["log_gate"], ref["initial_state"])
    ok, sk = key_of(out, "o"), key_of(out, "state")
    close(out[ok].astype(np.float64), o, **tol_of(ok), what="outputs of the delta rule")
    close(out[sk].astype(np.float64), states[:, -1], **tol_of(sk), what="state after the last step")


@check("rule_hand_values")
def rule_hand_values(out, ref):
    # K = 2, V = 1, k = e1, beta = 0.5. Step 1: S = 0.5 * e1 * 2 -> [[1], [0]], o = 1.
    # Step 2 (v = 3): S = (1 - 0.5) * 1 + 0.5 * 3 = 2, o = 2.
    # Gated (alpha_2 = 0.5): S = (1 - 0.5) * (0.5 * 1) + 1.5 = 1.75, o = 1.75.
    for name, second in (("plain", 2.0), ("gated", 1.75)):
        for c in ("1", "2"):
            close(out[f"{name}{c}.o"].reshape(-1), [1.0, second], rtol=1e-12, atol=1e-14, what=f"{name} o, C={c}")
            close(out[f"{name}{c}.state"].reshape(-1), [second, 0.0], rtol=1e-12, atol=1e-14,
                  what=f"{name} state, C={c}")


@check("rule_without_final_state")
def rule_without_final_state(out, ref):
    equal(out["state_is_none"], True, what="final_state is None when output_final_state is false")


# ---------------------------------------------------------------- DeltaProduct


@check("product_matches_reference[*]")
def product_is_the_recurrence(out, ref):
    o, states = naive_product(ref["q"], ref["k"], ref["v"], ref["beta"], ref["log_gate"], ref["initial_state"])
    ok, sk = key_of(out, "o"), key_of(out, "state")
    close(out[ok].astype(np.float64), o, **tol_of(ok), what="DeltaProduct outputs")
    close(out[sk].astype(np.float64), states[:, -1], **tol_of(sk), what="state after the last token")


@check("product_hand_values")
def product_hand_values(out, ref):
    # one token, n_h = 2, beta = 0.5, H_0 = [[2], [0]]; step 1: k = e1, v = 1; step 2: k = e2, v = 4.
    # plain: row 1 = 2 - 0.5 * 2 + 0.5 * 1 = 1.5; row 2 = 0 - 0 + 0.5 * 4 = 2.
    # gated, alpha = 0.5 on the previous state: row 1 = 1 - 0.5 * 1 + 0.5 = 1; row 2 = 2.
    # the query reads the state after both steps: o = H^T e1 = row 1, H^T e2 = row 2.
    for name, row1 in (("plain", 1.5), ("gated", 1.0), ("gated_c1", 1.0), ("gated_c3", 1.0)):
        close(out[f"{name}.state"].reshape(-1), [row1, 2.0], rtol=1e-12, atol=1e-14, what=f"{name} state")
        close(out[f"{name}.o_e1"].reshape(-1), [row1], rtol=1e-12, atol=1e-14, what=f"{name} H^T e1")
        close(out[f"{name}.o_e2"].reshape(-1), [2.0], rtol=1e-12, atol=1e-14, what=f"{name} H^T e2")


@check("step_matches_reference[*]")
def step_is_the_recurrence(out, ref):
    o, states = naive_product(ref["q"], ref["k"], ref["v"], ref["beta"], ref["log_gate"], ref["initial_state"])
    ok, sk = key_of(out, "o"), key_of(out, "states")
    close(out[ok].astype(np.float64), o, **tol_of(ok), what="outputs of the decoding step")
    close(out[sk].astype(np.float64), states, **tol_of(sk), what="state after each token")


# ---------------------------------------------------------------- the layer


def silu(z: np.ndarray) -> np.ndarray:
    return z / (1.0 + np.exp(-z))


def unit(z: np.ndarray) -> np.ndarray:
    return z / np.sqrt((z * z).sum(-1, keepdims=True) + EPS)


def layer_forward(ref: dict) -> np.ndarray:
    """Section 3 of paper.md with the layer's modules: unit SiLU queries/keys, sigmoid beta (doubled for
    [-1, 1] eigenvalues), the gate of `log_forget_gate`, the recurrence, per-head RMSNorm, output projection."""
    w, x = {k[len("weights."):]: v for k, v in ref.items() if k.startswith("weights.") and "#" not in k}, ref["x"]
    B, L, _ = x.shape
    H, n_h = int(ref["H"]), int(ref["n_h"])
    K, V = w["wq"].shape[0] // H, w["wv"].shape[1] // H
    q = unit(silu(x @ w["wq"].T).reshape(B, L, H, K))
    k = np.stack([unit(silu(x @ w["wk"][j].T).reshape(B, L, H, K)) for j in range(n_h)], axis=2)
    v = np.stack([(x @ w["wv"][j].T).reshape(B, L, H, V) for j in range(n_h)], axis=2)
    beta = np.stack([1.0 / (1.0 + np.exp(-(x @ w["wb"][j].T + w["bb"][j]))) for j in range(n_h)], axis=2)
    if ref["neg"]:
        beta = 2.0 * beta
    log_gate = None
    if ref["gate"]:
        a = x @ w["wa"].T + w["dt_bias"]
        log_gate = -np.exp(w["A_log"]) * np.log1p(np.exp(a))
    o, _ = naive_product(q, k, v, beta, log_gate, None)
    o = o / np.sqrt((o * o).mean(-1, keepdims=True) + EPS) * w["norm"]
    return o.reshape(B, L, H * V) @ w["wo"].T


@check("layer_matches_equations[*]")
def layer_is_section3(out, ref):
    close(out["y"], layer_forward(ref), **F64, what="layer output")


@check("layer_chunk_size_invariance[*]")
def layer_chunk_size_invariance(out, ref):
    for c in ("c2", "c7", "c64"):
        close(out[c], out["c1"], **F64, what=f"chunk size {c[1:]} vs 1")


@check("layer_padding")
def layer_padding(out, ref):
    padded, states = out["padded"], out["padded_state"]
    for r, (a, b) in enumerate([(0, 9), (3, 9), (0, 7), (2, 8)]):
        close(padded[r, a:b], out[f"alone{r}"][0], **F64, what=f"row {r}: real positions as if unpadded")
        close(states[r], out[f"alone_state{r}"][0], **F64, what=f"row {r}: state after the last real token")
    close(out["int_mask"], padded, **F64, what="a 0/1 integer mask")


@check("layer_cache[*]")
def layer_cache(out, ref):
    close(out["incremental"], out["full"], **F64, what="prefill + one-token steps vs one call")
    close(out["no_cache"], out["full"], **F64, what="with and without a cache")
    states = listed(out, "states")
    close(states[-1], out["full_state"], **F64, what="cached state after the last position")
    equal(listed(out, "other_layers"), [1], what="the layer stores its state under its layer_idx only")
    equal(out["seen"], 0, what="the layer does not advance the cache")


@check("layer_single_position[*]")
def layer_single_position(out, ref):
    close(out["alone"], out["longer"], **F64, what="one position alone vs first of three")
    close(out["empty_cache"], out["longer"], **F64, what="one position with an empty cache")
    expect(out["state"] is not None, "the state after one position was not stored in the cache")


# ---------------------------------------------------------------- end to end


@check("model_generate[*]")
def model_generate(out, ref):
    close(out["logits"], out["full_logits"], **F64, what="cached greedy decoding vs full forwards")
    equal(out["tokens"].tolist(), out["full_logits"].argmax(-1).tolist(), what="greedy tokens")


@check("model_trains")
def model_trains(out, ref):
    losses = listed(out, "losses")
    finite(np.array(losses), "losses")
    for p in listed(out, "params"):
        finite(p, "parameters")
