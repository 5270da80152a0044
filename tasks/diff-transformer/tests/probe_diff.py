"""Probe for diff-transformer/1: `lambda_init_fn` and `DiffAttention` in difft/attention.py. Runs in the sandbox;
emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted checks
in check_diff.py add hand-checked values and the properties the method description states."""
from __future__ import annotations

import math
from pathlib import Path

import torch

from difft.attention import DiffAttention, lambda_init_fn
from difft.cache import LayerCache
from difft.config import ModelConfig
from difft.model import DiffLM
from lmrbench_probe import case

FIXTURES = Path(__file__).parent / "fixtures"
LAYER = torch.load(FIXTURES / "layer_cases.pt", weights_only=True)
MODEL = torch.load(FIXTURES / "model_cases.pt", weights_only=True)
F64 = torch.float64
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-10, atol=1e-12)
TOL32 = {"f32.*": dict(rtol=5e-4, atol=5e-5)}
GRADS = ("q_proj.weight", "k_proj.weight", "v_proj.weight", "out_proj.weight", "head_norm.weight",
         "lambda_q1", "lambda_k1", "lambda_q2", "lambda_k2")


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


def build_layer(c: dict) -> DiffAttention:
    layer = DiffAttention(ModelConfig(**c["config"]), c["layer"]).to(c["x"].dtype)
    layer.load_state_dict(c["state"], strict=False)
    return layer


def build_model(c: dict) -> DiffLM:
    model = DiffLM(ModelConfig(**c["config"])).to(c["state"]["tok_emb.weight"].dtype)
    model.load_state_dict(c["state"], strict=False)
    return model


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(F64)


# ---------------------------------------------------------------- lambda_init_fn


@case(rtol=1e-14, atol=1e-15)
def lambda_init_values():
    cfg = ModelConfig()
    return {"values": [lambda_init_fn(layer) for layer in range(1, 13)],
            "attribute": [DiffAttention(cfg, layer).lambda_init for layer in (1, 2, 6)],
            "layer_attribute": [DiffAttention(cfg, layer).layer for layer in (1, 2, 6)]}


@case(params=["fn", "layer"])
def lambda_init_rejects_layer0(kind):
    if kind == "fn":
        return {"result": lambda_init_fn(0)}
    return {"result": DiffAttention(ModelConfig(), 0)}


# ---------------------------------------------------------------- one layer


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def layer_matches_reference(i):
    c = LAYER[i]
    layer = build_layer(c)
    x = c["x"].clone().requires_grad_(True)
    out = layer(x)
    params = dict(layer.named_parameters())
    leaves = [x] + [params[n] for n in GRADS]
    grads = torch.autograd.grad((out * c["cotangent"]).sum(), leaves, allow_unused=True)
    p = prefix(c["x"].dtype)
    return {f"{p}out": out, f"{p}lambda": layer.lambda_value(), f"{p}grad_x": grads[0],
            **{f"{p}grad.{n}": (g if g is not None else torch.zeros_like(params[n])) for n, g in zip(GRADS, grads[1:])},
            "x": f64(c["x"]), "state": {k: f64(v) for k, v in c["state"].items()}, "layer": c["layer"],
            "config": {k: v for k, v in c["config"].items() if k in ("n_heads", "head_dim", "norm_eps", "rope_base")}}


@case(params=range(len(LAYER)), **TOL64, outputs=TOL32)
def layer_cache_matches_full(i):
    c = LAYER[i]
    layer = build_layer(c)
    with torch.no_grad():
        full = layer(c["x"].clone())
        cache = LayerCache()
        parts, start, lengths = [], 0, []
        for n in c["chunks"]:
            parts.append(layer(c["x"][:, start:start + n].clone(), cache))
            start += n
            lengths.append(cache.length)
    p = prefix(c["x"].dtype)
    return {f"{p}full": full, f"{p}chunked": torch.cat(parts, dim=1), "lengths": lengths}


@case(rtol=1e-12, atol=1e-13)
def lambda_hand_value():
    cfg = ModelConfig(d_model=8, n_heads=1, head_dim=4)
    layer = DiffAttention(cfg, 3).double()
    with torch.no_grad():
        layer.lambda_q1.copy_(torch.tensor([1.0, 0.5, 0.0, 2.0], dtype=F64))
        layer.lambda_k1.copy_(torch.tensor([0.2, -1.0, 3.0, 0.25], dtype=F64))
        layer.lambda_q2.copy_(torch.tensor([0.0, 1.0, 1.0, 0.0], dtype=F64))
        layer.lambda_k2.copy_(torch.tensor([5.0, 0.1, -0.3, 7.0], dtype=F64))
    lam = layer.lambda_value()
    grads = torch.autograd.grad(lam, [layer.lambda_q1, layer.lambda_k2])
    return {"lambda": lam, "grad_q1": grads[0], "grad_k2": grads[1]}


def cancelling_layer(layer_index: int, lam: float) -> DiffAttention:
    """Q_2 = Q_1 and K_2 = K_1 in every head, and lambda vectors that give lambda = `lam` (Eq. (2))."""
    cfg = ModelConfig(d_model=16, n_heads=2, head_dim=4)
    torch.manual_seed(1)
    layer = DiffAttention(cfg, layer_index).double()
    init = layer.lambda_init
    with torch.no_grad():
        for proj in (layer.q_proj, layer.k_proj):
            w = torch.randn(2, 1, 4, 16, dtype=F64).expand(2, 2, 4, 16)  # (head, half, d, d_model)
            proj.weight.copy_(w.reshape(16, 16))
        layer.v_proj.weight.copy_(torch.randn(16, 16, dtype=F64))
        layer.out_proj.weight.copy_(torch.randn(16, 16, dtype=F64))
        layer.head_norm.weight.fill_(1.0)
        # exp(q1 . k1) - exp(0) + init = lam
        layer.lambda_q1.copy_(torch.tensor([math.log(lam + 1 - init), 0.0, 0.0, 0.0], dtype=F64))
        layer.lambda_k1.copy_(torch.tensor([1.0, 0.0, 0.0, 0.0], dtype=F64))
        layer.lambda_q2.zero_()
        layer.lambda_k2.copy_(torch.tensor([0.0, 2.0, -1.0, 0.5], dtype=F64))
    return layer


@case(rtol=1e-10, atol=1e-12, outputs={"lambda_one": dict(rtol=0, atol=1e-9)})  # rounding residue ~1e-12
def identical_maps_cancel():
    x = torch.randn(2, 6, 16, generator=torch.Generator().manual_seed(2), dtype=F64)
    with torch.no_grad():
        return {"lambda_one": cancelling_layer(4, 1.0)(x), "lambda_half": cancelling_layer(4, 0.5)(x),
                "lambda_zero": cancelling_layer(4, 0.0)(x), "x": x}


@case(rtol=1e-10, atol=1e-12)
def causality():
    c = LAYER[0]
    layer = build_layer(c)
    x = c["x"].clone()
    y = x.clone()
    y[:, 4:] = torch.randn(y[:, 4:].shape, generator=torch.Generator().manual_seed(3), dtype=x.dtype)
    with torch.no_grad():
        return {"base": layer(x), "changed_future": layer(y)}


@case(params=["2d", "width"])
def layer_rejects_bad_input(kind):
    layer = DiffAttention(ModelConfig(), 1)
    x = torch.randn(5, 32) if kind == "2d" else torch.randn(1, 5, 16)
    return {"result": layer(x)}


# ---------------------------------------------------------------- the model, with and without the cache


@case(params=range(len(MODEL)), **TOL64, outputs=TOL32)
def model_cache_matches_full(i):
    c = MODEL[i]
    model = build_model(c)
    tokens = c["tokens"]
    with torch.no_grad():
        full = model(tokens)
        cache = model.new_cache()
        parts, start = [], 0
        for n in c["chunks"]:
            parts.append(model(tokens[:, start:start + n], cache))
            start += n
        prompt = tokens[:, :3]
        cached = model.generate(prompt, 5)
        recomputed = model.generate(prompt, 5, use_cache=False)
    p = prefix(c["state"]["tok_emb.weight"].dtype)
    return {f"{p}full": full, f"{p}chunked": torch.cat(parts, dim=1), "cache_length": cache.length,
            "generated_cached": cached, "generated_recomputed": recomputed}


@case(params=[0, 3], **TOL64, outputs=TOL32)
def model_train_steps(i):
    c = MODEL[i]
    model = build_model(c)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1, foreach=False)
    g = torch.Generator().manual_seed(8)
    losses = []
    for _ in range(3):
        batch = torch.randint(0, model.cfg.vocab_size, (2, 9), generator=g)
        loss = model.loss(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    p = prefix(c["state"]["tok_emb.weight"].dtype)
    lambdas = torch.stack([block.attn.lambda_value().detach() for block in model.blocks])
    named = dict(model.named_parameters())
    return {f"{p}losses": torch.stack(losses), f"{p}lambdas": lambdas,
            f"{p}params": torch.cat([named[n].detach().reshape(-1) for n in sorted(c["state"])])}
