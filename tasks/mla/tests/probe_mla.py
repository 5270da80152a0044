"""Probe for mla/1: `MultiHeadLatentAttention.queries`, `.latents`, `.attend`, `.forward`, `.absorbed_weights` and
`.decode` in mla/attention.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_mla.py add hand-checked values and the properties the method description states."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from lmrbench_probe import case
from mla.attention import AbsorbedWeights, MultiHeadLatentAttention
from mla.cache import LatentCache
from mla.config import ModelConfig
from mla.model import MlaLM
from train import generate_uncached, train

FIXTURES = Path(__file__).parent / "fixtures"
LAYER = torch.load(FIXTURES / "layer_cases.pt", weights_only=True)
ATTEND = torch.load(FIXTURES / "attend_cases.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=2e-4, atol=5e-5)}


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


def build(c: dict) -> MultiHeadLatentAttention:
    layer = MultiHeadLatentAttention(ModelConfig(**c["config"])).to(c["state"]["w_o.weight"].dtype)
    layer.load_state_dict(c["state"])
    return layer


def param_grads(layer: torch.nn.Module, loss: torch.Tensor, extra: dict[str, torch.Tensor], p: str) -> dict:
    params = dict(layer.named_parameters())
    leaves = [*extra.values(), *params.values()]
    grads = torch.autograd.grad(loss, leaves, allow_unused=True)
    names = [*(f"grad_{n}" for n in extra), *(f"grad.{n}" for n in params)]
    return {f"{p}{n}": (torch.zeros_like(leaf) if g is None else g) for n, leaf, g in zip(names, leaves, grads)}


# ---------------------------------------------------------------- queries, latents


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def queries_matches_reference(i):
    c = LAYER[i]
    layer = build(c)
    h = c["h"].clone().requires_grad_(True)
    t = h.shape[1]
    positions = torch.arange(c["prefix"], c["prefix"] + t)
    q_c, q_rope = layer.queries(h, positions)
    gen = torch.Generator().manual_seed(i)
    loss = (q_c * torch.randn(q_c.shape, generator=gen, dtype=F64).to(h.dtype)).sum() + \
        (q_rope * torch.randn(q_rope.shape, generator=gen, dtype=F64).to(h.dtype)).sum()
    p = prefix(h.dtype)
    return {f"{p}q_c": q_c, f"{p}q_rope": q_rope, **param_grads(layer, loss, {"h": h}, p)}


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def latents_matches_reference(i):
    c = LAYER[i]
    layer = build(c)
    h = c["h"].clone().requires_grad_(True)
    positions = torch.arange(c["prefix"], c["prefix"] + h.shape[1])
    latent, k_rope = layer.latents(h, positions)
    gen = torch.Generator().manual_seed(i)
    loss = (latent * torch.randn(latent.shape, generator=gen, dtype=F64).to(h.dtype)).sum() + \
        (k_rope * torch.randn(k_rope.shape, generator=gen, dtype=F64).to(h.dtype)).sum()
    p = prefix(h.dtype)
    return {f"{p}latent": latent, f"{p}k_rope": k_rope, **param_grads(layer, loss, {"h": h}, p)}


# ---------------------------------------------------------------- attend


@case(params=range(len(ATTEND)), **TOL64, outputs=TOL32)
def attend_matches_reference(i):
    c = ATTEND[i]
    layer = build(c)
    inputs = {n: c[n].clone().requires_grad_(True) for n in ("q_c", "q_rope", "latent", "k_rope")}
    out = layer.attend(**inputs)
    p = prefix(out.dtype)
    return {f"{p}out": out, **param_grads(layer, (out * c["cotangent"]).sum(), inputs, p)}


@case
def attend_more_queries_than_tokens_raises():
    layer = MultiHeadLatentAttention(ModelConfig(d_model=8, n_heads=2, head_dim=2, rope_head_dim=2,
                                                 kv_lora_rank=3, q_lora_rank=4)).to(F64)
    return {"result": layer.attend(torch.zeros(1, 2, 4, 2, dtype=F64), torch.zeros(1, 2, 4, 2, dtype=F64),
                                   torch.zeros(1, 3, 3, dtype=F64), torch.zeros(1, 3, 2, dtype=F64))}


# ---------------------------------------------------------------- forward


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def forward_matches_reference(i):
    c = LAYER[i]
    layer = build(c)
    h = c["h"].clone().requires_grad_(True)
    out = layer(h)
    p = prefix(h.dtype)
    return {f"{p}out": out, **param_grads(layer, (out * c["cotangent"]).sum(), {"h": h}, p)}


def hand_layer() -> MultiHeadLatentAttention:
    """One head, d_h = 1, d_h^R = 2, d_c = d_c' = 1, d = 2, no norm epsilon; weights of check_mla.hand_values."""
    cfg = ModelConfig(d_model=2, n_heads=1, head_dim=1, rope_head_dim=2, kv_lora_rank=1, q_lora_rank=1, norm_eps=0.0)
    layer = MultiHeadLatentAttention(cfg).to(F64)
    weights = {"w_dq": [[1.0, 0.0]], "w_uq": [[1.0]], "w_qr": [[1.0], [0.0]], "w_dkv": [[0.0, 1.0]],
               "w_uk": [[1.0]], "w_uv": [[1.0]], "w_kr": [[1.0, 0.0], [0.0, 0.0]], "w_o": [[1.0], [0.0]]}
    with torch.no_grad():
        for name, value in weights.items():
            getattr(layer, name).weight.copy_(torch.tensor(value, dtype=F64))
    return layer


@case(rtol=1e-12, atol=1e-12)
def hand_values():
    layer = hand_layer()
    h = torch.tensor([[[1.0, 1.0], [1.0, -1.0]]], dtype=F64)
    explicit, cache = layer.decode(h, LatentCache.empty(1, layer.cfg, F64))
    absorbed, _ = layer.decode(h, LatentCache.empty(1, layer.cfg, F64), layer.absorbed_weights())
    return {"forward": layer(h), "decode": explicit, "decode_absorbed": absorbed,
            "cache_latent": cache.latent, "cache_k_rope": cache.k_rope}


@case(params=range(3), **TOL64)
def single_token_output_is_projected_value(i):
    c = LAYER[i]
    layer = build(c)
    h = c["h"][:, :1]
    with torch.no_grad():
        direct = layer.w_o(layer.w_uv(layer.kv_norm(layer.w_dkv(h))))
    return {"out": layer(h), "direct": direct}


@case(params=["forward", "decode"], ids=["forward", "decode"], **TOL64)
def is_causal(mode):
    c = LAYER[1]
    layer = build(c)
    h = c["h"].clone()
    changed = h.clone()
    changed[:, 7:] = 3.0 * torch.randn(changed[:, 7:].shape, generator=torch.Generator().manual_seed(3), dtype=F64)
    if mode == "forward":
        return {"base": layer(h), "changed": layer(changed), "cut": 6}
    weights = layer.absorbed_weights()
    base, _ = layer.decode(h, LatentCache.empty(1, layer.cfg, F64), weights)
    other, _ = layer.decode(changed, LatentCache.empty(1, layer.cfg, F64), weights)
    return {"base": base, "changed": other, "cut": 6}


# ---------------------------------------------------------------- absorbed weights and decode


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def absorbed_weights_matches_reference(i):
    c = LAYER[i]
    layer = build(c)
    weights = layer.absorbed_weights()
    gen = torch.Generator().manual_seed(10 + i)
    loss = sum((w * torch.randn(w.shape, generator=gen, dtype=F64).to(w.dtype)).sum() for w in weights)
    p = prefix(weights.q_to_latent.dtype)
    return {f"{p}q_to_latent": weights.q_to_latent, f"{p}latent_to_model": weights.latent_to_model,
            **param_grads(layer, loss, {}, p)}


def cached_decode(layer: MultiHeadLatentAttention, c: dict, absorb: bool) -> dict:
    h = c["h"].clone().requires_grad_(True)
    old = LatentCache(c["cache_latent"].clone(), c["cache_k_rope"].clone())
    weights = layer.absorbed_weights() if absorb else None
    out, new = layer.decode(h, old, weights)
    p = prefix(h.dtype)
    grads = param_grads(layer, (out * c["cotangent"]).sum(), {"h": h}, p)
    return {f"{p}out": out, f"{p}cache_latent": new.latent, f"{p}cache_k_rope": new.k_rope,
            f"{p}old_latent": old.latent, f"{p}old_k_rope": old.k_rope, "prefix": c["prefix"], **grads}


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def decode_explicit_matches_reference(i):
    return cached_decode(build(LAYER[i]), LAYER[i], absorb=False)


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def decode_absorbed_matches_reference(i):
    return cached_decode(build(LAYER[i]), LAYER[i], absorb=True)


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def chunked_decode_equals_forward(i):
    c = LAYER[i]
    layer = build(c)
    h = c["h"]
    p = prefix(h.dtype)
    result = {f"{p}forward": layer(h)}
    for absorb in (False, True):
        cache = LatentCache.empty(h.shape[0], layer.cfg, h.dtype)
        weights = layer.absorbed_weights() if absorb else None
        sizes = [c["prefix"], *c["chunks"]] if c["prefix"] else list(c["chunks"])
        outs, start = [], 0
        for size in sizes:
            out, cache = layer.decode(h[:, start:start + size], cache, weights)
            outs.append(out)
            start += size
        result[f"{p}decode_{'absorbed' if absorb else 'explicit'}"] = torch.cat(outs, dim=1)
        result[f"{p}cache_{'absorbed' if absorb else 'explicit'}"] = cache.latent
        result[f"{p}k_rope_{'absorbed' if absorb else 'explicit'}"] = cache.k_rope
    return result


@case(params=range(3), **TOL64)
def absorbed_decode_uses_only_the_absorbed_weights(i):
    c = LAYER[i]
    layer = build(c)
    cache = LatentCache(c["cache_latent"], c["cache_k_rope"])
    weights = tuple(w.detach() for w in layer.absorbed_weights())
    before, _ = layer.decode(c["h"], cache, AbsorbedWeights(*weights))
    with torch.no_grad():
        gen = torch.Generator().manual_seed(20 + i)
        for name in ("w_uq", "w_uk", "w_uv", "w_o"):
            weight = getattr(layer, name).weight
            weight.add_(torch.randn(weight.shape, generator=gen, dtype=F64))
    after, _ = layer.decode(c["h"], cache, AbsorbedWeights(*weights))
    return {"before": before, "after": after}


@case
def decode_batch_mismatch_raises():
    c = LAYER[0]
    layer = build(c)
    return {"result": layer.decode(c["h"], LatentCache.empty(3, layer.cfg, F64))}


# ---------------------------------------------------------------- the model end to end


@case(rtol=1e-8, atol=1e-10)
def model_end_to_end():
    cfg = ModelConfig(vocab_size=16, d_model=16, n_heads=2, head_dim=4, rope_head_dim=4, kv_lora_rank=6,
                      q_lora_rank=8, n_layers=2, d_ff=32)
    model, losses = train(cfg, steps=3, batch_size=2, seq_len=12, seed=1, dtype=F64)
    tokens = torch.randint(0, 16, (2, 10), generator=torch.Generator().manual_seed(7))
    logits = model(tokens)
    prefill, caches = model.decode(tokens[:, :6], model.empty_caches(2), absorb=True)
    rest, caches = model.decode(tokens[:, 6:], caches, absorb=True)
    explicit, _ = model.decode(tokens, model.empty_caches(2), absorb=False)
    prompt = tokens[:, :4]
    return {"logits": logits, "loss": model.loss(tokens), "train_losses": torch.tensor(losses, dtype=F64),
            "decoded": torch.cat([prefill, rest], dim=1), "decoded_explicit": explicit,
            "cache_length": caches[0].length, "cache_elements": caches[0].elements_per_token(),
            "generated": model.generate(prompt, 6), "uncached": generate_uncached(model, prompt, 6),
            "log_vocab": math.log(16)}
