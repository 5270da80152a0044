"""Trusted checks for hf-gated-deltanet/1 (never enter the sandbox).

The delta-rule ops, the L2 norm, the gated RMSNorm and the causal convolution are recomputed here in float64 from
the case's own inputs, by the equations of paper.md (Sections 2-4). The release computes the delta rule in float32
whatever the input dtype, so every comparison accepts float32 rounding (and therefore also a float64
implementation). Model-level invariances (chunkwise prefill = token-by-token decode = segmented prefill, left
padding, cache reorder/reset/crop, greedy generation) are checked within the candidate's own run."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

OP_RTOL, OP_ATOL = 1e-4, 2e-5      # float32 arithmetic inside the ops, values of order 1
MODEL_ATOL = 3e-4                  # model logits of order 1-4 after float32 delta-rule layers (golden: <= 3.4e-5)


def _a(x):
    return np.asarray(x, dtype=np.float64)


def _l2(x, eps=1e-6):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + eps)


def gated_delta_reference(q, k, v, g, beta, S0, l2):
    """Paper Section 2, token by token: S <- a S; S <- S + k (b (v - k^T S))^T; o = S^T (q / sqrt(d_k)).
    Layout [batch, time, heads, dim]; the state is [batch, value head, d_k, d_v]; key/query head h // (hv / hk)
    serves value head h."""
    _, T, hk, dk = k.shape
    hv = v.shape[2]
    rep = hv // hk
    if l2:
        q, k = _l2(q), _l2(k)
    q = q / np.sqrt(dk)
    S = S0.copy()
    out = np.zeros(v.shape)
    for t in range(T):
        for h in range(hv):
            kh = h // rep
            St = S[:, h] * np.exp(g[:, t, h])[:, None, None]
            kt, qt, vt = k[:, t, kh], q[:, t, kh], v[:, t, h]
            mem = np.einsum("bk,bkv->bv", kt, St)
            delta = beta[:, t, h][:, None] * (vt - mem)
            St = St + kt[:, :, None] * delta[:, None, :]
            S[:, h] = St
            out[:, t, h] = np.einsum("bk,bkv->bv", qt, St)
    return out, S


@check("delta_rule_ops[*]")
def delta_rule_ops(out, ref):
    l2 = bool(ref["l2"])
    want_o, want_S = gated_delta_reference(_a(out["q"]), _a(out["k"]), _a(out["v"]), _a(out["g"]),
                                           _a(out["beta"]), _a(out["S0"]), l2)
    for key in ("chunk_out", "rec_out", "no_state_out"):
        equal(_a(out[key]).shape, want_o.shape, what=f"{key} shape [batch, time, value heads, d_v]")
        close(out[key], want_o, rtol=OP_RTOL, atol=OP_ATOL, what=f"{key}: gated delta rule outputs (paper Sec. 2-3)")
    for key in ("chunk_state", "rec_state"):
        equal(_a(out[key]).shape, want_S.shape, what=f"{key} shape [batch, value heads, d_k, d_v]")
        close(out[key], want_S, rtol=OP_RTOL, atol=OP_ATOL, what=f"{key}: final recurrent state")
    expect(bool(out["no_state_is_none"]), "output_final_state=False must give no final state (None)")


@check("norms_and_l2")
def norms_and_l2(out, ref):
    x, z, w = _a(out["x"]), _a(out["z"]), _a(out["w"])
    close(out["l2"], _l2(x), rtol=1e-6, atol=1e-9, what="l2norm over the last dim")
    close(out["l2_dim0"], _l2(x.T).T, rtol=1e-6, atol=1e-9, what="l2norm over dim 0")
    # paper Sec. 4: RMS-normalise over the value head dim, scale by the weight, gate by SiLU(z)
    silu = z / (1 + np.exp(-z))
    want = w * x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * silu
    close(out["gated"], want, rtol=1e-5, atol=1e-6, what="gated RMSNorm")


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


@check("prefill_then_decode[*]")
def prefill_then_decode(out, ref):
    full = _a(out["full"])
    close(out["stepped"], full, rtol=0, atol=MODEL_ATOL, what="chunked prefill + token-by-token decode = one forward")
    close(out["segmented"], full, rtol=0, atol=MODEL_ATOL, what="prefill continued by a second chunked segment")
    equal(int(out["seq_length"]), 75, what="cache length after 67 + 8 tokens")
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
    # the reference's smallest top-1/top-2 margin is 0.066, far above float rounding
    equal(_a(out["sequences"]).astype(np.int64).tolist(), _a(ref["sequences"]).astype(np.int64).tolist(),
          what="greedy tokens")
    close(out["gen_logits"], out["forward_logits"], rtol=0, atol=MODEL_ATOL,
          what="logits seen while generating with the cache = one forward over the generated sequence")


@check("cache_reorder_reset_crop")
def cache_ops(out, ref):
    close(out["swapped_step"], out["ref_step"], rtol=0, atol=1e-9, what="reorder_cache = running the swapped batch")
    close(out["after_reset"], out["fresh"], rtol=0, atol=MODEL_ATOL, what="a reset cache = a fresh one")
    close(out["after_crop"], out["direct"], rtol=0, atol=MODEL_ATOL, what="crop(-2) rolls the states back 2 tokens")
    equal(int(out["cropped_len"]), 8, what="cache length after 7 + 3 tokens cropped by 2")


@check("init_weights")
def init_weights(out, ref):
    # Qwen3NextRMSNorm (not masked) scales by (1 + weight): zeros are the identity
    close(out["rms_norm_w"], 0.0, atol=0, what="pre-norm weights start at 0 (the visible RMSNorm uses 1 + weight)")
    close(out["final_norm_w"], 0.0, atol=0, what="final norm weight starts at 0")
    close(out["gated_norm_w"], 1.0, atol=0, what="gated RMSNorm weight starts at 1 (identity scale)")
    A = _a(out["A"])
    expect(bool(np.isfinite(A).all() and (A > 0).all()), "A = exp(A_log) must be positive and finite")
    finite(out["dt_bias"], what="dt_bias")
    for key in ("experts_std", "experts_down_std", "router_std"):
        v = float(out[key])
        expect(0.04 <= v <= 0.06, f"{key} = {v}: MoE weights are drawn with std initializer_range = 0.05")
