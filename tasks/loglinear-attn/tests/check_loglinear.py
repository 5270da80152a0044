"""Trusted checks for loglinear-attn/1 (run in the harness, never in the sandbox).

The reference comparison has already passed when these run. Here: the masked form of paper.md Eqs. (8)-(11)
recomputed position by position in numpy from the fixture inputs, hand-checked values, and the agreement the
paper states between the quadratic, chunkwise and recurrent forms."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

RTOL, ATOL = 1e-9, 1e-11
RTOL32, ATOL32 = 2e-4, 2e-5


def level(t: int, s: int) -> int:
    # paper.md Eq. (8)
    return 0 if s == t else 1 + int(np.floor(np.log2(t ^ s)))


def naive(inp: dict) -> tuple[np.ndarray, np.ndarray]:
    """Eq. (9)/(11) term by term: outputs (B, T, H, V) and the level states of the last position."""
    q, k, v, log_a, lam = (np.asarray(inp[n], dtype=np.float64) for n in ("q", "k", "v", "log_a", "lam"))
    B, T, H, K = q.shape
    V, NL = v.shape[-1], lam.shape[-1]
    o = np.zeros((B, T, H, V))
    states = np.zeros((B, H, NL, K, V))
    for t in range(T):
        for s in range(t + 1):
            decay = np.exp(log_a[:, s + 1:t + 1].sum(1))  # Eq. (5): prod_{r=s+1}^{t} a_r, (B, H)
            l = level(t, s)
            w = lam[:, t, :, l] * decay * (q[:, t] * k[:, s]).sum(-1)
            o[:, t] += w[..., None] * v[:, s]
            if t == T - 1:
                states[:, :, l] += decay[..., None, None] * k[:, s, :, :, None] * v[:, s, :, None, :]
    return o, states


def tol(out: dict, key: str) -> tuple[float, float]:
    return (RTOL32, ATOL32) if key.startswith("f32.") else (RTOL, ATOL)


def inputs(ref: dict, T: int | None = None) -> dict:
    return {n: ref[f"in.{n}"] for n in ("q", "k", "v", "log_a", "lam")}


@check("levels[*]")
def levels_follow_eq8(out, ref):
    lev = np.asarray(out["levels"])
    T = lev.shape[0]
    want = np.array([[level(t, s) if s <= t else -1 for s in range(T)] for t in range(T)])
    equal(lev, want)


@check("levels[4]")
def levels_hand_table(out, ref):
    # T = 8, paper.md Section 3.1: t = 6 (110) -> {6}: 0, level 1 empty, {4, 5}: 2, {0..3}: 3;
    # t = 7 (111) -> {7}: 0, {6}: 1, {4, 5}: 2, {0..3}: 3
    equal(np.asarray(out["levels"])[6], [3, 3, 3, 3, 2, 2, 0, -1])
    equal(np.asarray(out["levels"])[7], [3, 3, 3, 3, 2, 2, 1, 0])
    equal(np.asarray(out["levels"])[4], [3, 3, 3, 3, 0, -1, -1, -1])


@check("mask_matches_reference[*]")
def mask_eq10(out, ref):
    lam = np.asarray(ref["lam"])
    B, T, H, NL = lam.shape
    want = np.zeros((B, H, T, T))
    for t in range(T):
        for s in range(t + 1):
            want[:, :, t, s] = lam[:, t, :, level(t, s)]
    close(out["mask"], want, rtol=RTOL, atol=ATOL)


@check("hand_values")
def hand(out, ref):
    # q = k = 1, v = 1, 2, 3, 4, a = 1/2, lambda^(l) = 10^l:
    # o_0 = 1; o_1 = 2 + 10 * (1 * 1/2) = 7; o_2 (t = 10b) = 3 + 100 * (1 * 1/4 + 2 * 1/2) = 128;
    # o_3 (t = 11b) = 4 + 10 * (3 * 1/2) + 100 * (1 * 1/8 + 2 * 1/4) = 4 + 15 + 62.5 = 81.5
    want = np.array([1.0, 7.0, 128.0, 81.5]).reshape(1, 4, 1, 1)
    for key in ("quadratic", "chunk1", "chunk2", "chunk4", "chunk8", "steps"):
        close(out[key], want, rtol=1e-12, atol=1e-12)
    # level states after t = 3: {3}: 4; {2}: 3 * 1/2 = 1.5; {0, 1}: 1/8 + 2/4 = 0.625
    st = np.array([4.0, 1.5, 0.625]).reshape(1, 1, 3, 1, 1)
    for key in ("chunk1_states", "chunk2_states", "chunk4_states", "chunk8_states", "step_states", "level_states"):
        close(out[key], st, rtol=1e-12, atol=1e-12)
    mask = np.asarray(out["mask"])[0, 0]
    close(mask[3], [100.0, 100.0, 10.0, 1.0], rtol=1e-12, atol=0)
    close(mask[2], [100.0, 100.0, 1.0, 0.0], rtol=1e-12, atol=0)


@check("quadratic_matches_reference[*]")
def quadratic_eq11(out, ref):
    o, _ = naive(inputs(ref))
    key = "f32.o" if "f32.o" in out else "o"
    close(out[key], o, *tol(out, key))


@check("chunk_matches_reference[*]")
def chunk_agrees(out, ref):
    o, states = naive(inputs(ref))
    p = "f32." if "f32.o" in out else ""
    close(out[p + "o"], o, *tol(out, p + "o"))
    close(out[p + "states"], states, *tol(out, p + "o"))


@check("level_states_match_reference[*]")
def level_states_eq9(out, ref):
    _, states = naive(inputs(ref))
    key = "f32.states" if "f32.states" in out else "states"
    close(out[key], states, *tol(out, key))


@check("step_matches_reference[*]")
def step_agrees(out, ref):
    o, states = naive(inputs(ref))
    p = "f32." if "f32.o" in out else ""
    close(out[p + "o"], o, *tol(out, p + "o"))
    close(np.asarray(out[p + "states"])[:, -1], states, *tol(out, p + "o"))


@check("chunk_sizes[*]")
def chunk_size_invariance(out, ref):
    keys = sorted(k for k in out if k.split(".")[-1].startswith("c") and "#" not in k)
    for key in keys[1:]:
        close(out[key], out[keys[0]], *tol(out, key))
    for C in (1, 2, 4, 8, 32):
        expect(out[f"state_is_none{C}"] is True, "states must be None without output_final_state")


@check("merge_matches_reference[*]")
def merge_eq12(out, ref):
    states = np.asarray(ref["states"])
    NL = states.shape[-3]
    for key in out:
        if not key.startswith("p") or "#" in key:
            continue
        p = int(key[1:])
        b = (p & -p).bit_length() - 1
        given = states.copy()  # the probe's input: level b + 1 empty (a reachable state)
        given[..., b + 1, :, :] = 0.0
        equal(out[f"input{p}"], given)  # merge_levels must not modify its input
        want = states.copy()
        want[..., b + 1, :, :] = states[..., :b + 1, :, :].sum(-3)
        want[..., :b + 1, :, :] = 0.0
        close(out[key], want, rtol=RTOL, atol=ATOL)
        expect(NL > b + 1, "merge beyond the last level")


@check("step_leaves_input_and_ignores_states_at_zero")
def step_input(out, ref):
    equal(out["after"], out["before"])  # the input states are not modified


@check("gradients[*]")
def gradients_by_finite_differences(out, ref):
    # directional derivative of sum(o * w) along a fixed direction: central differences of the naive Eq. (11)
    inp = inputs(ref)
    w = np.asarray(ref["w"])
    rng = np.random.default_rng(0)
    for n in ("q", "k", "v", "log_a", "lam"):
        d = rng.standard_normal(np.asarray(inp[n]).shape)
        h = 1e-5
        plus, minus = dict(inp), dict(inp)
        plus[n] = np.asarray(inp[n]) + h * d
        minus[n] = np.asarray(inp[n]) - h * d
        fd = ((naive(plus)[0] * w).sum() - (naive(minus)[0] * w).sum()) / (2 * h)
        close(float((np.asarray(out[f"chunk.{n}"]) * d).sum()), fd, rtol=1e-6, atol=1e-7)


@check("layer_chunk_size_invariance[*]")
def layer_chunk_sizes(out, ref):
    for C in (2, 8, 16):
        close(out[f"c{C}"], out["c1"], rtol=RTOL, atol=ATOL)


@check("layer_cache[*]")
def layer_cache_agrees(out, ref):
    close(out["no_cache"], out["full"], rtol=RTOL, atol=ATOL)
    close(out["incremental"], out["full"], rtol=RTOL, atol=ATOL)
    n = len([k for k in out if k.startswith("states.") and "#" not in k])
    close(out[f"states.{n - 1}"], out["full_state"], rtol=RTOL, atol=ATOL)
    equal(out["layers.0"], 1)


@check("model_generate")
def generate_agrees(out, ref):
    close(out["logits"], out["full_logits"], rtol=RTOL, atol=ATOL)


def naive_delta(inp: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eqs. (20)-(21) with explicit transition matrices: G (B, H, T, T), outputs, last level states."""
    q, k, v, log_a, beta, lam = (np.asarray(inp[n], dtype=np.float64)
                                 for n in ("q", "k", "v", "log_a", "beta", "lam"))
    B, T, H, K = q.shape
    V, NL = v.shape[-1], lam.shape[-1]
    G = np.zeros((B, H, T, T))
    o = np.zeros((B, T, H, V))
    states = np.zeros((B, H, NL, K, V))
    eye = np.eye(K)
    for s in range(T):
        P = np.broadcast_to(eye, (B, H, K, K)).copy()  # A_t ... A_{s+1}
        for t in range(s, T):
            if t > s:
                A = np.exp(log_a[:, t])[..., None, None] * (
                    eye - beta[:, t, :, None, None] * k[:, t, :, :, None] * k[:, t, :, None, :])
                P = A @ P
            g = beta[:, s] * np.einsum("bhk,bhkj,bhj->bh", q[:, t], P, k[:, s])
            G[:, :, t, s] = g
            l = level(t, s)
            o[:, t] += (lam[:, t, :, l] * g)[..., None] * v[:, s]
            if t == T - 1:
                states[:, :, l] += beta[:, s, :, None, None] * np.einsum("bhkj,bhj->bhk", P, k[:, s])[..., None] \
                    * v[:, s, :, None, :]
    return G, o, states


def dinputs(ref: dict) -> dict:
    return {n: ref[f"in.{n}"] for n in ("q", "k", "v", "log_a", "beta", "lam")}


@check("delta_hand_values")
def delta_hand(out, ref):
    # A = 1/2, beta = 1/2: G_{t,s} = 1/2 * (1/2)^(t-s); the outputs are half those of hand_values:
    # 0.5, 3.5, 64, 40.75; level states after t = 3: 1/2 * (4, 1.5, 0.625)
    close(np.asarray(out["G"])[0, 0, 3], [0.0625, 0.125, 0.25, 0.5], rtol=1e-12, atol=0)
    want = np.array([0.5, 3.5, 64.0, 40.75]).reshape(1, 4, 1, 1)
    close(out["o"], want, rtol=1e-12, atol=1e-12)
    close(out["steps"], want, rtol=1e-12, atol=1e-12)
    close(out["states"], np.array([2.0, 0.75, 0.3125]).reshape(1, 1, 3, 1, 1), rtol=1e-12, atol=1e-12)


@check("delta_interactions_match_reference[*]")
def delta_g_eq20(out, ref):
    G, _, _ = naive_delta(dinputs(ref))
    key = "f32.G" if "f32.G" in out else "G"
    close(out[key], G, *tol(out, key))


@check("delta_masked_matches_reference[*]")
def delta_masked_eq21(out, ref):
    _, o, _ = naive_delta(dinputs(ref))
    key = "f32.o" if "f32.o" in out else "o"
    close(out[key], o, *tol(out, key))


@check("delta_step_matches_reference[*]")
def delta_step_eq22(out, ref):
    _, o, states = naive_delta(dinputs(ref))
    p = "f32." if "f32.o" in out else ""
    close(out[p + "o"], o, *tol(out, p + "o"))
    close(np.asarray(out[p + "states"])[:, -1], states, *tol(out, p + "o"))
    close(out["first_input"], np.full_like(np.asarray(out["first_input"]), 7.0), rtol=0, atol=0)
