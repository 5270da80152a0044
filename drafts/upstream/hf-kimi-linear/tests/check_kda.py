"""Trusted checks for hf-kimi-linear/1 (never enter the sandbox).

The KDA ops, the L2 norm, the forget gate, the gated RMSNorm and the causal convolution are recomputed here in
float64 from the case's own inputs, by the equations of paper.md (Sections 3-4). The release computes KDA in float32
whatever the input dtype, so every comparison accepts float32 rounding (and therefore also a float64
implementation). Model-level invariances (chunkwise prefill = token-by-token decode = segmented prefill, left
padding, cache reorder/reset/crop, greedy generation) are checked within the candidate's own run."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

OP_RTOL, OP_ATOL = 1e-4, 2e-5      # float32 arithmetic inside the ops, values of order 1
MODEL_ATOL = 3e-4                  # model logits of order 1-4 after float32 KDA layers

LIN, FULL = "linear_attention", "full_attention"


def _a(x):
    return np.asarray(x, dtype=np.float64)


def _seq(out, key):
    """A list the probe emitted (the runner flattens it to `key.0`, `key.1`, ... behind a ("seq", n) marker)."""
    v = out[key]
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "seq":
        return [_seq(out, f"{key}.{i}") for i in range(int(v[1]))]
    return v


def _l2(x, eps=1e-6):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + eps)


def kda_reference(q, k, v, g, beta, S0, l2):
    """Paper Sec. 3.1, token by token: S <- Diag(alpha) S; S <- S + k (b (v - k^T S))^T; o = S^T (q / sqrt(d_k)).
    Layout [batch, time, heads, dim]; g = log alpha per key channel; the state is [batch, head, d_k, d_v]."""
    _, T, _, dk = k.shape
    if l2:
        q, k = _l2(q), _l2(k)
    q = q / np.sqrt(dk)
    S = S0.copy()
    out = np.zeros(v.shape)
    for t in range(T):
        S = S * np.exp(g[:, t])[..., None]
        mem = np.einsum("bhk,bhkv->bhv", k[:, t], S)
        delta = beta[:, t][..., None] * (v[:, t] - mem)
        S = S + k[:, t][..., None] * delta[:, :, None, :]
        out[:, t] = np.einsum("bhk,bhkv->bhv", q[:, t], S)
    return out, S


@check("kda_ops[*]")
def kda_ops(out, ref):
    l2 = bool(ref["l2"])
    want_o, want_S = kda_reference(_a(out["q"]), _a(out["k"]), _a(out["v"]), _a(out["g"]), _a(out["beta"]),
                                   _a(out["S0"]), l2)
    for key in ("chunk_out", "rec_out", "no_state_out"):
        equal(_a(out[key]).shape, want_o.shape, what=f"{key} shape [batch, time, heads, d_v]")
        close(out[key], want_o, rtol=OP_RTOL, atol=OP_ATOL, what=f"{key}: KDA outputs (paper Sec. 3.1-3.2)")
    for key in ("chunk_state", "rec_state"):
        equal(_a(out[key]).shape, want_S.shape, what=f"{key} shape [batch, heads, d_k, d_v]")
        close(out[key], want_S, rtol=OP_RTOL, atol=OP_ATOL, what=f"{key}: final recurrent state")
    expect(bool(out["no_state_is_none"]), "output_final_state=False must give no final state (None)")


@check("norms_and_gate")
def norms_and_gate(out, ref):
    x, z, w = _a(out["x"]), _a(out["z"]), _a(out["w"])
    close(out["l2"], _l2(x), rtol=1e-6, atol=1e-9, what="l2norm over the last dim")
    close(out["l2_dim0"], _l2(x.T).T, rtol=1e-6, atol=1e-9, what="l2norm over dim 0")
    # paper Sec. 3.3: RMS-normalise the head's read-out, scale by the weight, gate by sigmoid(gate)
    sig = 1 / (1 + np.exp(-z))
    want = w * x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * sig
    close(out["gated"], want, rtol=1e-5, atol=1e-6, what="gated RMSNorm with a sigmoid output gate")
    # paper Sec. 3.3: g = -exp(A_log[head]) * softplus(W_up W_down h + dt_bias), per channel, heads of 4 channels
    h, fa, fb = _a(out["h"]), _a(out["f_a"]), _a(out["f_b"])
    pre = h @ fa.T @ fb.T + _a(out["dt_bias"])
    soft = np.logaddexp(0.0, pre)
    A = np.exp(np.repeat(_a(out["A_log"]), 4))
    want_g = (-A * soft).reshape(*h.shape[:2], 3, 4)
    la = _a(out["log_alpha"])
    equal(la.size, want_g.size, what="forget gate output size (a log-decay per token and channel)")
    close(la.reshape(want_g.shape), want_g, rtol=1e-5, atol=1e-5, what="forget gate log-decay -exp(A) softplus(...)")


@check("causal_conv_helpers")
def causal_conv_helpers(out, ref):
    x, w, bias = _a(out["x"]), _a(out["w"]), _a(out["bias"])
    B, C, T = x.shape
    K = w.shape[1]
    xp = np.concatenate([np.zeros((B, C, K - 1)), x], -1)
    lin = np.stack([(xp[:, :, t:t + K] * w[None]).sum(-1) for t in range(T)], -1)
    silu = lambda a: a / (1 + np.exp(-a))  # noqa: E731
    close(out["full"], silu(lin + bias[None, :, None]), rtol=1e-9, atol=1e-12, what="causal conv + bias + SiLU")
    close(out["nobias"], lin, rtol=1e-9, atol=1e-12, what="causal conv without bias or activation")
    window = np.concatenate([_a(out["state_before"]), _a(out["x1"])], -1)[:, :, -K:]
    step = silu((window * w[None]).sum(-1) + bias[None])[:, :, None]
    close(out["step"], step, rtol=1e-9, atol=1e-12, what="one decode step of the conv with its state")
    close(out["state_after"], window, rtol=0, atol=0, what="conv state after the step: the last K inputs")
    h, m = _a(out["h"]), _a(out["mask"])
    close(out["masked"], h * m[:, :, None], rtol=0, atol=0, what="padding positions zeroed")
    close(out["unmasked"], h, rtol=0, atol=0, what="no mask: unchanged")


@check("prefill_then_decode[*]")
def prefill_then_decode(out, ref):
    full = _a(out["full"])
    close(out["stepped"], full, rtol=0, atol=MODEL_ATOL, what="chunked prefill + token-by-token decode = one forward")
    close(out["segmented"], full, rtol=0, atol=MODEL_ATOL, what="prefill continued by a second chunked segment")
    equal(int(out["seq_length"]), 75, what="cache length after 67 + 8 tokens")
    K = int(ref["kernel"])
    equal([int(c) for c in _seq(out, "conv_width")], [K] * len(_seq(ref, "conv_width")),
          what="conv state keeps the last kernel-size inputs (paper Sec. 4)")
    expect(bool(out["no_state_before"]), "a fresh cache has no conv/recurrent state (None)")


@check("forward_logits[*]")
def forward_logits(out, ref):
    finite(out["logits"], what="logits")


@check("left_padding")
def left_padding(out, ref):
    close(out["padded_real"], out["alone"], rtol=0, atol=MODEL_ATOL, what="left-padded row = the row alone")
    close(out["other_batched"], out["other"], rtol=0, atol=MODEL_ATOL, what="unpadded row in the batch = alone")
    close(out["gen_logits"], out["gen_alone_logits"], rtol=0, atol=MODEL_ATOL,
          what="greedy generation logits of the left-padded row = of the row alone")


@check("greedy_generate")
def greedy_generate(out, ref):
    equal(_a(out["sequences"]).astype(np.int64).tolist(), _a(ref["sequences"]).astype(np.int64).tolist(),
          what="greedy tokens")
    close(out["gen_logits"], out["forward_logits"], rtol=0, atol=MODEL_ATOL,
          what="logits seen while generating with the cache = one forward over the generated sequence")


@check("cache_reorder_reset_crop")
def cache_ops(out, ref):
    close(out["swapped_step"], out["ref_step"], rtol=0, atol=1e-9, what="reorder_cache = running the swapped batch")
    close(out["after_reset"], out["fresh"], rtol=0, atol=MODEL_ATOL, what="a reset cache = a fresh one")
    close(out["reset_one"], out["fresh_one"], rtol=0, atol=MODEL_ATOL,
          what="a one-token step on a reset cache = a fresh one-token forward")
    close(out["after_crop"], out["direct"], rtol=0, atol=MODEL_ATOL, what="crop(-2) rolls the states back 2 tokens")
    close(out["after_crop2"], out["direct2"], rtol=0, atol=MODEL_ATOL, what="a second record/crop round")
    equal(int(out["cropped_len"]), 8, what="cache length after 7 + 3 tokens cropped by 2")
    equal([int(t) for t in _seq(out, "to_keep")], [3, 3, 0],
          what="get_recurrent_states_to_keep: max over layers, the KDA layer's 3, 0 for an MLA layer (docstring)")


def _ratio_layout(n, first_full):
    return [FULL if i % 4 == first_full and (i > 0) else LIN for i in range(n)]


@check("config_layer_types")
def config_layer_types(out, ref):
    # paper Sec. 4: 3 KDA layers per MLA layer, repeating every 4 layers; the release puts MLA at layers 4, 8
    # (0-indexed) and the report's 3:1 reading at 3, 7: both are accepted
    default = _seq(out, "default")
    expect(default in (_ratio_layout(9, 3), _ratio_layout(9, 0)),
           f"default layer_types {default}: three KDA layers for every MLA layer, repeating every four layers")
    equal(_seq(out, "default_mlp"), ["dense"] + ["sparse"] * 8,
          what="default mlp_layer_types (first_k_dense_replace=1)")
    equal(_seq(out, "explicit"), [FULL, LIN, FULL], what="explicit layer_types kept")
    equal(_seq(out, "explicit_mlp"), ["sparse"] * 3, what="explicit mlp_layer_types kept")
    equal(_seq(out, "ckpt"), [LIN, FULL, LIN, LIN, FULL], what="layer kinds from linear_attn_config (1-indexed)")
    equal(_seq(out, "ckpt_mlp"), ["dense", "dense", "sparse", "sparse", "sparse"], what="first_k_dense_replace=2")
    equal([int(v) for v in _seq(out, "ckpt_dims")], [16, 3, 2],
          what="head_dim, num_heads, kernel from linear_attn_config")
    equal(int(out["kv_heads"]), 6, what="num_key_value_heads None -> num_attention_heads")
    # Optional: the one caller (generation/utils.py:2156) reads it with a default, so a config without it is a
    # reading the package allows (blind solves); where it is set, it is the MLA query-key width.
    expect(int(out["qk_head_dim"]) in (-1, 10), "qk_head_dim, where set, = qk_nope_head_dim + qk_rope_head_dim")


@check("layer_dispatch")
def layer_dispatch(out, ref):
    want = [["KimiLinearDeltaAttention", "KimiLinearMLP"], ["KimiLinearDeltaAttention", "KimiLinearMoE"],
            ["KimiLinearAttention", "KimiLinearMoE"], ["KimiLinearDeltaAttention", "KimiLinearMLP"]]
    equal(_seq(out, "kinds"), want, what="mixer by layer_types, FFN by mlp_layer_types")
    equal(_seq(out, "cache_kinds"), _seq(ref, "cache_kinds"), what="cache layer kinds")
    expect(bool(out["finite"]), "a decode step of the float32 MoE model is finite")
    expect(bool(out["hidden"]), "hidden states have the model width")


@check("init_weights")
def init_weights(out, ref):
    close(out["gated_norm_w"], 1.0, atol=0, what="gated RMSNorm weight starts at 1 (paper Sec. 3.3)")
    finite(out["A_log"], what="A_log")
    finite(out["dt_bias"], what="dt_bias")
    for key in ("experts_std", "router_std", "q_std"):
        v = float(out[key])
        expect(0.04 <= v <= 0.06, f"{key} = {v}: weights are drawn with std initializer_range = 0.05")
