"""Trusted checks for refusal-dir/1 (never enter the sandbox): hand-checked values and the properties the method
description states, on the outputs probe_refusal.py emitted, after the default comparison with the reference's
outputs has passed. Parameters of a case are read from `ref`, never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

F64 = dict(rtol=1e-9, atol=1e-9)
F32 = dict(rtol=2e-4, atol=2e-4)


def key(out: dict, name: str) -> str:
    return f"f32.{name}" if f"f32.{name}" in out else name


def tol(k: str) -> dict:
    return F32 if k.startswith("f32.") else F64


def listed(out: dict, name: str) -> list:
    items, i = [], 0
    while f"{name}.{i}" in out:
        items.append(out[f"{name}.{i}"])
        i += 1
    return items


# ---------------------------------------------------------------- refusal score


@check("refusal_score_hand_values")
def refusal_score_hand_values(out, ref):
    # row 0: uniform over 4 tokens. One refusal token: P = 1/4, log(P / (1 - P)) = log(1/3); two: P = 1/2 -> 0;
    # three: P = 3/4 -> log 3.
    # row 1: probabilities (1, 4, 1, 1) / 7. {0}: 1/7 -> log(1/6); {0, 1}: 5/7 -> log(5/2); {1, 2, 3}: 6/7 -> log 6.
    # row 2: logits (2, -1, 0.5, 0.25): log-odds of a set S = log(sum_S e^z) - log(sum_rest e^z).
    z = [2.0, -1.0, 0.5, 0.25]

    def lo(s):
        return math.log(sum(math.exp(z[i]) for i in s)) - math.log(sum(math.exp(z[i]) for i in range(4) if i not in s))

    close(out["one"], [math.log(1 / 3), math.log(1 / 6), lo({0})], rtol=1e-12, atol=1e-12, what="one token")
    close(out["two"], [0.0, math.log(2.5), lo({0, 1})], rtol=1e-12, atol=1e-12, what="two tokens")
    close(out["three"], [math.log(3.0), math.log(6.0), lo({1, 2, 3})], rtol=1e-12, atol=1e-12, what="three tokens")
    # a constant added to every logit does not change the probabilities
    close(out["shifted"], out["two"], rtol=1e-12, atol=1e-12, what="shift invariance")


@check("refusal_score_random[*]")
def refusal_score_random(out, ref):
    k = key(out, "score")
    logits = ref["logits"]
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p = p / p.sum(-1, keepdims=True)
    pr = p[:, [int(i) for i in REFUSAL_IDS]].sum(-1)
    close(out[k].astype(np.float64), np.log(pr / (1 - pr)), **(dict(rtol=1e-5, atol=1e-5) if k.startswith("f32.")
                                                             else dict(rtol=1e-10, atol=1e-10)), what="log-odds")
    equal(out["dtype"], ref["dtype"], what="dtype of the score")


REFUSAL_IDS = (44, 45)  # "sorry", "cannot" in refusal/tokenizer.py VOCAB (6 special + 8 harmful + 30 neutral words)


# ---------------------------------------------------------------- interventions


@check("ablation_hooks[*]")
def ablation_hooks(out, ref):
    a = key(out, "ablated")
    t = tol(a)
    finite(out[a], "ablated logits")
    mask = ref["mask"].astype(bool)
    # every residual-stream activation has no component along r (at the real positions)
    proj = out[key(out, "proj")][:, mask]
    close(proj, np.zeros_like(proj), rtol=0, atol=1e-5 if a.startswith("f32.") else 1e-9, what="projection on r")
    # ablation depends on the direction only through r_hat: -3 r gives the same model
    close(out[key(out, "scaled")], out[a], **t, what="scale of r")
    # removing the handles restores the model
    close(out[key(out, "after")], out[key(out, "base")], rtol=0, atol=0, what="hooks removed")
    expect(bool(out["n_handles_positive"]), "handles returned")
    # ablation changes the output (r is a random direction of a random model)
    expect(np.abs(out[a] - out[key(out, "base")])[mask].max() > 1e-3, "ablation has an effect")


@check("addition_hooks[*]")
def addition_hooks(out, ref):
    d = key(out, "delta")
    mask = ref["mask"].astype(bool)
    delta = out[d][mask]
    close(delta, np.broadcast_to(ref["r"], delta.shape), **tol(d), what="x + r at the chosen layer")
    close(out[key(out, "after")], out[key(out, "base")], rtol=0, atol=0, what="hooks removed")


WRITERS = {"embed.weight", "pos_embed.weight"}


@check("orthogonalized_weights[*]")
def orthogonalized_weights(out, ref):
    o = key(out, "ortho")
    t = tol(o)
    # weight orthogonalization is equivalent to directional ablation at every activation
    close(out[o], out[key(out, "ablated")], rtol=0, atol=2e-5 if o.startswith("f32.") else 1e-9,
          what="orthogonalized = ablated")
    atol = 1e-5 if o.startswith("f32.") else 1e-12
    for name in ("embed_proj", "pos_proj"):
        v = out[key(out, name)]
        close(v, np.zeros_like(v), rtol=0, atol=atol, what=name)
    for name in ("attn_out_proj", "mlp_down_proj"):
        for v in listed(out, key(out, name)):
            close(v, np.zeros_like(v), rtol=0, atol=atol, what=name)
    expect(bool(out["returns_model"]), "returns the model")
    changed = set(listed(out, "changed"))
    n_layers = len(listed(ref, key(ref, "attn_out_proj")))
    want = WRITERS | {f"blocks.{l}.attn.out.weight" for l in range(n_layers)} | {
        f"blocks.{l}.mlp.down.weight" for l in range(n_layers)}
    equal(sorted(changed), sorted(want), what="the matrices writing to the residual stream, and only those")


# ---------------------------------------------------------------- candidates


@check("candidates_padding")
def candidates_padding(out, ref):
    close(out["padded"], out["base"], rtol=1e-9, atol=1e-9, what="extra left padding")
    close(out["swapped"], -out["base"], rtol=1e-9, atol=1e-9, what="harmful and harmless swapped")


@check("candidates_match[*]")
def candidates_finite(out, ref):
    finite(out[key(out, "candidates")], "candidates")


# ---------------------------------------------------------------- selection


def select(bypass, induce, kl, r):
    n_post, n_layers = bypass.shape
    best = None
    for i in range(n_post):
        for l in range(n_layers):
            if l >= n_layers * (1 - r["prune_layer_fraction"]) or induce[i, l] <= r["induce_threshold"] \
                    or kl[i, l] >= r["kl_threshold"]:
                continue
            if best is None or bypass[i, l] < bypass[best]:
                best = (i, l)
    return best


@check("select_matches[*]")
def select_matches(out, ref):
    kl = out["kl"]
    finite(kl, "kl scores")
    readings = {"forward": ref["kl_forward"], "reverse": ref["kl_reverse"]}
    match = [name for name, v in readings.items()
             if v.shape == kl.shape and np.allclose(kl, v, rtol=1e-6, atol=1e-8)]
    expect(bool(match), "kl is the mean KL divergence between the harmless last-position distributions with and "
                        "without ablation (either order)")
    best = select(ref["bypass"], ref["induce"], readings[match[0]], ref)
    expect(best is not None, "a candidate passes the filters")
    equal((int(out["pos"]), int(out["layer"])), best, what="argmin of the bypass score among the kept candidates")
    close(out["direction"], ref["candidates"][best], rtol=1e-12, atol=1e-12, what="the selected candidate")


@check("pipeline[*]")
def pipeline(out, ref):
    k = key(out, "harmful_ablated")
    close(out[key(out, "harmful_orthogonalized")], out[k], rtol=0, atol=2e-5 if k.startswith("f32.") else 1e-9,
          what="orthogonalized = ablated")
    # the trained model refuses harmful prompts and not harmless ones; ablation bypasses, addition induces
    expect(out[key(out, "harmful_base")] > 0 > out[key(out, "harmless_base")], "baseline behaviour")
    expect(out[k] < out[key(out, "harmful_base")] - 3.0, "ablation lowers refusal")
    expect(out[key(out, "harmless_added")] > out[key(out, "harmless_base")] + 3.0, "addition induces refusal")
