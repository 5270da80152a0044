"""Probe for gated-attn/1: the gated attention layer in gated/attention.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/) unless the case says compare="none"; the
trusted checks in check_gated.py recompute the paper's equations in numpy and check its properties. Cheap unit
cases first, the layer, the model and the training script last."""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import torch

from lmrbench_probe import case
from gated.attention import GatedAttention, first_token_attention
from gated.cache import LayerCache
from gated.config import ModelConfig
from gated.diagnostics import layer_diagnostics
from gated.model import GatedLM
from train import train

CASES = torch.load(Path(__file__).parent / "fixtures" / "gated_cases.pt", weights_only=True)
LAYER, APPLY, MODEL = CASES["layer"], CASES["apply"], CASES["model"]
F64 = torch.float64
DTYPES = {"float64": torch.float64, "float32": torch.float32}
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-9, atol=1e-11)
TOL32 = {"f32.*": dict(rtol=2e-4, atol=2e-5)}


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(F64)


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


# ---------------------------------------------------------------- first_token_attention


@case(rtol=1e-12, atol=1e-14, outputs={"f32": dict(rtol=1e-6, atol=1e-7)})
def first_token_hand_values():
    probs = torch.zeros(1, 2, 3, 3, dtype=F64)
    probs[0, 0] = torch.tensor([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], dtype=F64)
    probs[0, 1] = torch.tensor([[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 0.6, 0.4]], dtype=F64)
    g = torch.Generator().manual_seed(2)
    rand = torch.softmax(torch.randn(3, 2, 5, 5, generator=g, dtype=F64), dim=3)
    return {"hand": first_token_attention(probs), "f32": first_token_attention(probs.float()),
            "random": first_token_attention(rand), "random_probs": rand}


# ---------------------------------------------------------------- apply_gate


def build_layer(c: dict) -> GatedAttention:
    layer = GatedAttention(ModelConfig(**c["config"])).to(DTYPES[c.get("dtype", "float64")])
    if "state" in c:
        layer.load_state_dict(c["state"])
    return layer


@case(params=range(len(APPLY)), ids=[c["name"] for c in APPLY], rtol=1e-12, atol=1e-14)
def apply_gate_matches_reference(i):
    c = APPLY[i]
    torch.manual_seed(0)
    layer = build_layer(c)
    return {"out": layer.apply_gate(c["y"].clone(), c["scores"].clone()), "y": c["y"], "scores": c["scores"],
            "combine": layer.cfg.gate_combine}


# ---------------------------------------------------------------- gate_scores


GATED = [i for i, c in enumerate(LAYER) if c["config"].get("gate_position", "sdpa") != "none"]


@case(params=GATED, ids=[LAYER[i]["name"] for i in GATED], **TOL64, outputs=TOL32)
def gate_scores_matches_reference(i):
    c = LAYER[i]
    layer = build_layer(c)
    dtype = DTYPES[c["dtype"]]
    x = c["x"].to(dtype).clone().requires_grad_(True)
    s = layer.gate_scores(x)
    cot = torch.cos(torch.arange(s.numel(), dtype=dtype)).reshape(s.shape)
    gx, gw = torch.autograd.grad((s * cot).sum(), [x, layer.gate_proj.weight])
    p = prefix(dtype)
    return {f"{p}scores": s, f"{p}grad_x": gx, f"{p}grad_w": gw, "x": f64(c["x"]),
            "state": {k: f64(v) for k, v in c["state"].items()}, "config": asdict(layer.cfg)}


@case
def gate_scores_without_gate_raises():
    torch.manual_seed(0)
    layer = GatedAttention(ModelConfig(gate_position="none"))
    return {"result": layer.gate_scores(torch.zeros(1, 2, 16))}


# ---------------------------------------------------------------- GatedAttention.forward


@case(params=range(len(LAYER)), ids=[c["name"] for c in LAYER], **TOL64, outputs=TOL32)
def layer_matches_reference(i):
    c = LAYER[i]
    layer = build_layer(c)
    dtype = DTYPES[c["dtype"]]
    x = c["x"].to(dtype).clone().requires_grad_(True)
    res = layer(x)
    params = dict(layer.named_parameters())
    names = sorted(params)
    grads = torch.autograd.grad((res.out * c["cotangent"].to(dtype)).sum(), [x] + [params[n] for n in names],
                                allow_unused=True)
    p = prefix(dtype)
    out = {f"{p}out": res.out, f"{p}probs": res.probs, f"{p}gate": res.gate, f"{p}grad_x": grads[0],
           **{f"{p}grad.{n}": (g if g is not None else torch.zeros_like(params[n])) for n, g in zip(names, grads[1:])}}
    out.update(x=f64(c["x"]), state={k: f64(v) for k, v in c["state"].items()}, config=asdict(layer.cfg),
               dtype=c["dtype"], is_tuple=isinstance(res, tuple) and len(res) == 3)
    return out


@case(params=range(0, len(LAYER), 2), ids=[LAYER[i]["name"] for i in range(0, len(LAYER), 2)], compare="none")
def layer_causality(i):
    c = LAYER[i]
    layer = build_layer(c)
    x = c["x"].to(DTYPES[c["dtype"]])
    cut = x.shape[1] // 2
    y = x.clone()
    y[:, cut:] = torch.randn(y[:, cut:].shape, generator=torch.Generator().manual_seed(5), dtype=F64).to(y.dtype)
    with torch.no_grad():
        a, b = layer(x.clone()), layer(y)
    return {"a": f64(a.out[:, :cut]), "b": f64(b.out[:, :cut]), "dtype": c["dtype"]}


def chunks_of(t: int) -> list[int]:
    return [t // 2, 1, t - t // 2 - 1]


# the full pass is compared with the reference in layer_matches_reference; the check compares the chunked pass
@case(params=range(len(LAYER)), ids=[c["name"] for c in LAYER], compare="none")
def layer_cache_matches_full(i):
    c = LAYER[i]
    layer = build_layer(c)
    x = c["x"].to(DTYPES[c["dtype"]])
    with torch.no_grad():
        full = layer(x.clone())
        cache = LayerCache()
        parts, probs, start, lengths = [], [], 0, []
        for n in chunks_of(x.shape[1]):
            res = layer(x[:, start:start + n].clone(), cache)
            parts.append(res.out)
            probs.append(res.probs)
            start += n
            lengths.append(cache.length)
    return {"full": f64(full.out), "full_probs": f64(full.probs), "chunked": f64(torch.cat(parts, dim=1)),
            "last_probs": f64(probs[-1]), "first_probs": f64(probs[0]), "lengths": torch.tensor(lengths),
            "chunks": torch.tensor(chunks_of(x.shape[1])), "dtype": c["dtype"]}


@case(params=["ndim", "width"])
def layer_rejects_bad_input(kind):
    torch.manual_seed(0)
    layer = GatedAttention(ModelConfig())
    x = torch.zeros(5, 16) if kind == "ndim" else torch.zeros(1, 5, 12)
    return {"result": layer(x)}


# ---------------------------------------------------------------- the model and the scripts


@case(params=range(len(MODEL)), ids=[c["name"] for c in MODEL], **TOL64, outputs=TOL32)
def model_matches_reference(i):
    c = MODEL[i]
    dtype = DTYPES[c["dtype"]]
    model = GatedLM(ModelConfig(**c["config"])).to(dtype)
    model.load_state_dict(c["state"])
    with torch.no_grad():
        res = model(c["tokens"])
        diag = layer_diagnostics(model, c["tokens"])
    p = prefix(dtype)
    return {f"{p}logits": res.logits, f"{p}probs": res.probs, f"{p}hidden": res.hidden,
            f"{p}first_token": torch.tensor([d["first_token"] for d in diag], dtype=F64),
            f"{p}max_activation": torch.tensor([d["max_activation"] for d in diag], dtype=F64)}


@case(params=range(len(MODEL)), ids=[c["name"] for c in MODEL], **TOL64,
      outputs={**TOL32, "generated*": dict(compare="exact"), "cache_length": dict(compare="exact")})
def model_decoding(i):
    c = MODEL[i]
    dtype = DTYPES[c["dtype"]]
    model = GatedLM(ModelConfig(**c["config"])).to(dtype)
    model.load_state_dict(c["state"])
    tokens, cut = c["tokens"], 4
    with torch.no_grad():
        full = model(tokens).logits
        cache = model.new_cache()
        stepped = torch.cat([model(tokens[:, :cut], cache).logits] +
                            [model(tokens[:, t:t + 1], cache).logits for t in range(cut, tokens.shape[1])], dim=1)
    p = prefix(dtype)
    return {f"{p}stepped": stepped, f"{p}full": f64(full), "cache_length": cache.length, "dtype": c["dtype"],
            "generated": model.generate(tokens[:, :3], 5), "generated_no_cache": model.generate(tokens[:, :3], 5,
                                                                                               use_cache=False)}


@case(rtol=1e-6, atol=1e-8)
def train_script_run():
    result = train(ModelConfig(), steps=3, batch_size=2, length=8, dtype=torch.float64)
    return {"losses": torch.tensor(result.losses, dtype=F64),
            "first_token": torch.tensor([d["first_token"] for d in result.diagnostics], dtype=F64),
            "gate_mean": torch.tensor([d["gate_mean"] for d in result.diagnostics], dtype=F64)}
