"""Probe for loglinear-attn/1: the targets of loglin/loglinear.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_loglinear.py recompute the masked form position by position and add hand-checked values. Cheap cases
first."""
from __future__ import annotations

from pathlib import Path

import torch

from generate import greedy_generate
from loglin.cache import LevelCache
from loglin.config import LogLinearConfig, ModelConfig
from loglin.data import copy_batch
from loglin.loglinear import (
    LogLinearMamba2,
    chunk_loglinear_attention,
    delta_interactions,
    fenwick_levels,
    hierarchical_mask,
    level_states,
    loglinear_attention,
    loglinear_delta_step,
    loglinear_gated_delta,
    loglinear_step,
    merge_levels,
)
from lmrbench_probe import case
from train import build, train

FIXTURES = Path(__file__).parent / "fixtures"
ATT = torch.load(FIXTURES / "attention_cases.pt", weights_only=True)
MERGE = torch.load(FIXTURES / "merge_cases.pt", weights_only=True)
DELTA = torch.load(FIXTURES / "delta_cases.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-9, atol=1e-11)
TOL32 = {"f32.*": dict(rtol=2e-4, atol=2e-5)}
NAMES = ("q", "k", "v", "log_a", "lam")


def fresh(c: dict) -> dict:
    """A copy of a fixture case, so that an implementation that works in place cannot alter later cases."""
    return {n: x.clone() if isinstance(x, torch.Tensor) else x for n, x in c.items()}


def prefix(c: dict) -> str:
    return "f32." if c["q"].dtype == torch.float32 else ""


def inputs_of(i: int) -> dict:
    """The case's inputs in float64 for the trusted checks."""
    return {"in": {n: ATT[i][n].to(F64) for n in NAMES}}


def steps(c: dict, states: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor]]:
    B, T, H, K = c["q"].shape
    NL = c["lam"].shape[-1]
    if states is None:
        states = c["q"].new_zeros(B, H, NL, K, c["v"].shape[-1])
    outs, all_states = [], []
    for t in range(T):
        o, states = loglinear_step(c["q"][:, t], c["k"][:, t], c["v"][:, t], c["log_a"][:, t], c["lam"][:, t],
                                   states, t)
        outs.append(o)
        all_states.append(states.clone())
    return torch.stack(outs, 1), states, all_states


# ---------------------------------------------------------------- levels and the hierarchical mask


@case(params=[1, 2, 3, 7, 8, 9, 16], compare="exact")
def levels(T):
    lev = fenwick_levels(T)
    return {"levels": lev}


@case(params=range(6), **TOL64)
def mask_matches_reference(i):
    c = fresh(ATT[i])
    return {"mask": hierarchical_mask(c["lam"]), "lam": ATT[i]["lam"]}


def tiny() -> dict:
    # K = V = 1, q = k = 1, v = 1, 2, 3, 4, a = 1/2 everywhere, lambda^(l) = 10 ** l (3 levels)
    one = torch.ones(1, 4, 1, 1, dtype=F64)
    v = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64).view(1, 4, 1, 1)
    log_a = torch.full((1, 4, 1), 0.5, dtype=F64).log()
    lam = torch.tensor([1.0, 10.0, 100.0], dtype=F64).expand(1, 4, 1, 3).clone()
    return {"q": one.clone(), "k": one.clone(), "v": v, "log_a": log_a, "lam": lam}


@case(**TOL64)
def hand_values():
    c = tiny()
    out = {"mask": hierarchical_mask(c["lam"]), "quadratic": loglinear_attention(**c)}
    for C in (1, 2, 4, 8):
        out[f"chunk{C}"], out[f"chunk{C}_states"] = chunk_loglinear_attention(**c, chunk_size=C,
                                                                             output_final_state=True)
    out["steps"], out["step_states"], _ = steps(c)
    out["level_states"] = level_states(c["k"], c["v"], c["log_a"], 3)
    return out


# ---------------------------------------------------------------- the three forms


@case(params=range(len(ATT)), **TOL64, outputs=TOL32)
def quadratic_matches_reference(i):
    c = fresh(ATT[i])
    return {f"{prefix(c)}o": loglinear_attention(c["q"], c["k"], c["v"], c["log_a"], c["lam"]), **inputs_of(i)}


@case(params=range(len(MERGE)), **TOL64)
def merge_matches_reference(i):
    states = MERGE[i]["states"]
    NL = states.shape[-3]
    out = {}
    for p in range(1, 2 ** (NL - 1)):
        b = (p & -p).bit_length() - 1
        if b + 1 < NL:
            # Reachable inputs only: after position p - 1 the level the merge fills (b + 1) is empty, so replacing it
            # (Eq. (12)) and adding to it agree; the other levels are arbitrary.
            w = states.clone()
            w[..., b + 1, :, :] = 0
            out[f"p{p}"] = merge_levels(w, p)
            out[f"input{p}"] = w  # after the call: must be unchanged
    out["states"] = states
    return out


@case(params=range(len(ATT)), **TOL64, outputs=TOL32)
def level_states_match_reference(i):
    c = fresh(ATT[i])
    NL = c["lam"].shape[-1]
    return {f"{prefix(c)}states": level_states(c["k"], c["v"], c["log_a"], NL), **inputs_of(i)}


@case(params=range(len(ATT)), **TOL64, outputs=TOL32)
def chunk_matches_reference(i):
    c = fresh(ATT[i])
    p = prefix(c)
    o, states = chunk_loglinear_attention(c["q"], c["k"], c["v"], c["log_a"], c["lam"], c["chunk_size"],
                                          output_final_state=True)
    return {f"{p}o": o, f"{p}states": states, **inputs_of(i)}


@case(params=range(len(ATT)), **TOL64, outputs=TOL32)
def chunk_sizes(i):
    c = fresh(ATT[i])
    p = prefix(c)
    out = {}
    for C in (1, 2, 4, 8, 32):
        o, states = chunk_loglinear_attention(c["q"], c["k"], c["v"], c["log_a"], c["lam"], C)
        out[f"{p}c{C}"] = o
        out[f"state_is_none{C}"] = states is None
    return out


@case(params=range(len(ATT)), **TOL64, outputs=TOL32)
def step_matches_reference(i):
    c = fresh(ATT[i])
    p = prefix(c)
    o, _, all_states = steps(c)
    return {f"{p}o": o, f"{p}states": torch.stack(all_states, 1), **inputs_of(i)}


@case(**TOL64)
def step_leaves_input_and_ignores_states_at_zero():
    c = fresh(ATT[5])
    B, T, H, K = c["q"].shape
    NL = c["lam"].shape[-1]
    junk = torch.randn(B, H, NL, K, c["v"].shape[-1], generator=torch.Generator().manual_seed(5), dtype=F64)
    keep = junk.clone()
    o0, s0 = loglinear_step(c["q"][:, 0], c["k"][:, 0], c["v"][:, 0], c["log_a"][:, 0], c["lam"][:, 0], junk, 0)
    o1, s1 = loglinear_step(c["q"][:, 1], c["k"][:, 1], c["v"][:, 1], c["log_a"][:, 1], c["lam"][:, 1], junk, 3)
    return {"o0": o0, "s0": s0, "o1": o1, "s1": s1, "after": junk, "before": keep}


@case(params=[1, 5, 7], **TOL64)
def gradients(i):
    c = fresh(ATT[i])
    w = torch.randn(c["v"].shape, generator=torch.Generator().manual_seed(i), dtype=F64)
    # the chunkwise form is the one the layer trains through (train.py)
    leaves = {n: c[n].clone().requires_grad_(True) for n in NAMES}
    o, _ = chunk_loglinear_attention(*leaves.values(), 2)
    (o * w).sum().backward()
    return {"chunk": {n: leaves[n].grad for n in NAMES}, "w": w, **inputs_of(i)}


@case(params=["chunk3", "chunk0", "chunk_too_long", "quadratic_too_long", "mask_too_long", "states_too_long",
              "lam_shape", "log_a_shape", "step_position", "step_negative", "step_states_shape", "merge_zero",
              "merge_level", "step_k_shape", "step_v_shape", "step_lam_shape", "v_shape"])
def rejects(kind):
    c = fresh(ATT[5])  # T = 13, num_levels = 6
    q, k, v, log_a, lam = (c[n] for n in NAMES)
    short = lam[..., :4]  # 4 levels cover 8 positions
    if kind == "chunk3":
        return {"r": chunk_loglinear_attention(q, k, v, log_a, lam, 3)}
    if kind == "chunk0":
        return {"r": chunk_loglinear_attention(q, k, v, log_a, lam, 0)}
    if kind == "chunk_too_long":
        return {"r": chunk_loglinear_attention(q, k, v, log_a, short, 4)}
    if kind == "quadratic_too_long":
        return {"r": loglinear_attention(q, k, v, log_a, short)}
    if kind == "mask_too_long":
        return {"r": hierarchical_mask(short)}
    if kind == "states_too_long":
        return {"r": level_states(k, v, log_a, 4)}
    if kind == "lam_shape":
        return {"r": chunk_loglinear_attention(q, k, v, log_a, lam[:, :-1], 4)}
    if kind == "log_a_shape":
        return {"r": loglinear_attention(q, k, v, log_a[:, :-1], lam)}
    if kind == "v_shape":
        return {"r": chunk_loglinear_attention(q, k, v[:, :-1], log_a, lam, 4)}
    B, T, H, K = q.shape
    states = torch.zeros(B, H, 4, K, v.shape[-1], dtype=F64)
    if kind == "step_position":  # 12 = 1100b: its merge alone would fit in 4 levels
        return {"r": loglinear_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], short[:, 0], states, 12)}
    if kind == "step_k_shape":
        return {"r": loglinear_step(q[:, 0], k[:, 0, :, :-1], v[:, 0], log_a[:, 0], short[:, 0], states, 1)}
    if kind == "step_v_shape":
        return {"r": loglinear_step(q[:, 0], k[:, 0], v[:, 0, :1], log_a[:, 0], short[:, 0], states, 1)}
    if kind == "step_lam_shape":
        return {"r": loglinear_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], short[:1, 0], states, 1)}
    if kind == "step_negative":
        return {"r": loglinear_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], short[:, 0], states, -1)}
    if kind == "step_states_shape":
        return {"r": loglinear_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], lam[:, 0], states, 2)}
    if kind == "merge_zero":
        return {"r": merge_levels(states, 0)}
    return {"r": merge_levels(states, 8)}


# ---------------------------------------------------------------- log-linear Gated DeltaNet

DNAMES = ("q", "k", "v", "log_a", "beta", "lam")


def delta_inputs(i: int) -> dict:
    return {"in": {n: DELTA[i][n].to(F64) for n in DNAMES}}


@case(**TOL64)
def delta_hand_values():
    # K = 1, k = q = 1, beta = 1/2, a = 1: each transition A = 1 - 1/2 = 1/2; v = 1, 2, 3, 4, lambda^(l) = 10 ** l
    c = tiny()
    c["log_a"] = torch.zeros(1, 4, 1, dtype=F64)
    beta = torch.full((1, 4, 1), 0.5, dtype=F64)
    out = {"G": delta_interactions(c["q"], c["k"], c["log_a"], beta),
           "o": loglinear_gated_delta(c["q"], c["k"], c["v"], c["log_a"], beta, c["lam"])}
    states = torch.zeros(1, 1, 3, 1, 1, dtype=F64)
    outs = []
    for t in range(4):
        o, states = loglinear_delta_step(c["q"][:, t], c["k"][:, t], c["v"][:, t], c["log_a"][:, t], beta[:, t],
                                         c["lam"][:, t], states, t)
        outs.append(o)
    out["steps"], out["states"] = torch.stack(outs, 1), states
    return out


@case(params=range(len(DELTA)), **TOL64, outputs=TOL32)
def delta_interactions_match_reference(i):
    c = fresh(DELTA[i])
    p = prefix(c)
    return {f"{p}G": delta_interactions(c["q"], c["k"], c["log_a"], c["beta"]), **delta_inputs(i)}


@case(params=range(len(DELTA)), **TOL64, outputs=TOL32)
def delta_masked_matches_reference(i):
    c = fresh(DELTA[i])
    p = prefix(c)
    return {f"{p}o": loglinear_gated_delta(*(c[n] for n in DNAMES)), **delta_inputs(i)}


@case(params=range(len(DELTA)), **TOL64, outputs=TOL32)
def delta_step_matches_reference(i):
    c = fresh(DELTA[i])
    p = prefix(c)
    B, T, H, K = c["q"].shape
    NL = c["lam"].shape[-1]
    init = torch.full((B, H, NL, K, c["v"].shape[-1]), 7.0, dtype=c["q"].dtype)  # ignored at position 0
    states = init
    outs, all_states = [], []
    for t in range(T):
        o, states = loglinear_delta_step(*(c[n][:, t] for n in DNAMES), states, t)
        outs.append(o)
        all_states.append(states.clone())
    return {f"{p}o": torch.stack(outs, 1), f"{p}states": torch.stack(all_states, 1), "first_input": init,
            **delta_inputs(i)}


@case(params=["interactions_beta", "masked_lam", "masked_too_long", "step_position", "step_beta",
              "interactions_k", "step_k", "step_states"])
def delta_rejects(kind):
    c = fresh(DELTA[3])  # T = 12, num_levels = 5
    q, k, v, log_a, beta, lam = (c[n] for n in DNAMES)
    if kind == "interactions_beta":
        return {"r": delta_interactions(q, k, log_a, beta[:, :-1])}
    if kind == "masked_lam":
        return {"r": loglinear_gated_delta(q, k, v, log_a, beta, lam[:, :-1])}
    if kind == "masked_too_long":
        return {"r": loglinear_gated_delta(q, k, v, log_a, beta, lam[..., :4])}
    B, T, H, K = q.shape
    states = torch.zeros(B, H, 5, K, v.shape[-1], dtype=F64)
    if kind == "interactions_k":
        return {"r": delta_interactions(q, k[..., :-1], log_a, beta)}
    if kind == "step_k":
        return {"r": loglinear_delta_step(q[:, 0], k[:, 0, :, :-1], v[:, 0], log_a[:, 0], beta[:, 0], lam[:, 0],
                                          states, 1)}
    if kind == "step_states":
        return {"r": loglinear_delta_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], beta[:, 0], lam[:, 0],
                                          states[:, :, :4], 1)}
    if kind == "step_position":  # 24 = 11000b: its merge alone would fit in 5 levels
        return {"r": loglinear_delta_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], beta[:, 0], lam[:, 0], states, 24)}
    return {"r": loglinear_delta_step(q[:, 0], k[:, 0], v[:, 0], log_a[:, 0], beta[:, 0, :1], lam[:, 0], states, 1)}


# ---------------------------------------------------------------- the layer

# H, K, V, num_levels, chunk_size
LAYERS = [(1, 3, 2, 4, 2), (2, 4, 3, 5, 4), (3, 2, 2, 6, 8)]


def make_layer(i: int, seed: int = 0) -> LogLinearMamba2:
    H, K, V, NL, C = LAYERS[i]
    cfg = LogLinearConfig(hidden_size=6, num_heads=H, head_k_dim=K, head_v_dim=V, num_levels=NL, chunk_size=C)
    torch.manual_seed(seed)
    layer = LogLinearMamba2(cfg, layer_idx=1).to(F64)
    with torch.no_grad():
        layer.dt_bias.copy_(torch.randn(H, dtype=F64))
        layer.o_norm.weight.copy_(1.0 + 0.5 * torch.randn(V, dtype=F64))
    return layer


@case(params=range(len(LAYERS)), **TOL64)
def layer_forward(i):
    layer = make_layer(i)
    x = torch.randn(2, 7, 6, generator=torch.Generator().manual_seed(i), dtype=F64)
    with torch.no_grad():
        y = layer(x.clone())
    return {"y": y}


@case(params=range(len(LAYERS)), **TOL64)
def layer_chunk_size_invariance(i):
    layer = make_layer(i)
    x = torch.randn(1, 8, 6, generator=torch.Generator().manual_seed(10 + i), dtype=F64)
    out = {}
    with torch.no_grad():
        for C in (1, 2, 8, 16):
            layer.cfg = LogLinearConfig(**{**layer.cfg.__dict__, "chunk_size": C})
            out[f"c{C}"] = layer(x)
    return out


@case(params=range(len(LAYERS)), **TOL64)
def layer_cache(i):
    # prefill 3 positions, 2 more in one call, then one at a time; against one call and against no cache
    layer = make_layer(i)
    T = min(8, layer.cfg.max_positions)
    x = torch.randn(2, T, 6, generator=torch.Generator().manual_seed(20 + i), dtype=F64)
    out = {}
    with torch.no_grad():
        full_cache = LevelCache()
        out["full"] = layer(x, cache=full_cache)
        out["full_state"] = full_cache.get(1)
        out["no_cache"] = layer(x)
        cache = LevelCache()
        parts, states = [], []
        for a, b in [(0, 3), (3, 5)] + [(t, t + 1) for t in range(5, T)]:
            parts.append(layer(x[:, a:b], cache=cache))
            cache.advance(b - a)
            states.append(cache.get(1).clone())
        out["incremental"] = torch.cat(parts, 1)
        out["states"] = states
        out["layers"] = sorted(cache.states)
    return out


@case
def layer_too_long():
    layer = make_layer(0)  # 4 levels: 8 positions
    cache = LevelCache(seen_tokens=6)
    return {"r": layer(torch.zeros(1, 3, 6, dtype=F64), cache=cache)}


# ---------------------------------------------------------------- the model, end to end (most expensive last)


def model_config() -> ModelConfig:
    layer = LogLinearConfig(hidden_size=8, num_heads=2, head_k_dim=3, head_v_dim=4, num_levels=5, chunk_size=4)
    return ModelConfig(vocab_size=7, num_layers=2, mlp_ratio=2, layer=layer)


@case(**TOL64)
def model_generate():
    model = build(model_config(), seed=3, dtype=F64)
    ids = copy_batch(2, 3, 7, torch.Generator().manual_seed(4))
    tokens, logits = greedy_generate(model, ids, 6)
    with torch.no_grad():
        full = model(torch.cat([ids, tokens[:, :-1]], 1))[:, ids.shape[1] - 1:]
    return {"tokens": tokens, "logits": logits, "full_logits": full}


@case(rtol=1e-7, atol=1e-9)
def model_trains():
    model = build(model_config(), seed=5, dtype=F64)
    losses = train(model, steps=3, batch=2, half=4)
    return {"losses": torch.tensor(losses, dtype=F64)}
