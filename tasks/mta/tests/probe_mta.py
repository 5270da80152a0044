"""Probe for mta/1: the Multi-Token Attention layer in mta/attention.py. Runs in the sandbox; emits outputs only.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox) unless the case
says compare="none"; the trusted checks in check_mta.py recompute the paper's equations and check its properties.
Cheap unit cases come first, the layer, the model and the training script last."""
from __future__ import annotations

from pathlib import Path

import torch

from lmrbench_probe import case
from mta.attention import MTAttention, attention_weights, head_mix, key_query_conv, mask_future
from mta.cache import LayerCache
from mta.config import ModelConfig
from mta.data import BlockTask
from mta.layers import apply_rotary
from mta.model import MTALM
from train import train

CASES = torch.load(Path(__file__).parent / "fixtures" / "mta_cases.pt", weights_only=True)
CONV, MIX, WEIGHTS, LAYER, MODEL = (CASES[k] for k in ("conv", "mix", "weights", "layer", "model"))
F64 = torch.float64
DTYPES = {"float64": torch.float64, "float32": torch.float32}
# tolerances measured in NOTES.md
TOL64 = dict(rtol=1e-9, atol=1e-11)
TOL32 = {"f32.*": dict(rtol=2e-4, atol=2e-5)}
BOTH_SIDES = ("pre", "post")


def f64(x: torch.Tensor) -> torch.Tensor:
    return x.detach().to(F64)


def prefix(dtype: torch.dtype) -> str:
    return "f32." if dtype == torch.float32 else ""


# ---------------------------------------------------------------- mask_future


@case(params=[0.0, float("-inf"), 2.5], ids=["zero", "minus-inf", "other"], compare="exact")
def mask_values(value):
    g = torch.Generator().manual_seed(3)
    scores = torch.randn(2, 3, 4, 7, generator=g, dtype=F64)
    out = {"offset_rows": mask_future(scores, torch.arange(3, 7), torch.arange(7), value),
           "square": mask_future(scores[..., :4], torch.arange(4), torch.arange(4), value),
           "f32": mask_future(scores.float(), torch.arange(3, 7), torch.arange(7), value),
           "three_d": mask_future(scores[0], torch.arange(3, 7), torch.arange(7), value),
           "scores": scores, "value": torch.tensor(value, dtype=F64)}
    out["input_untouched"] = bool(torch.isfinite(scores).all())
    return out


@case
def mask_rejects_mismatched_positions():
    return {"result": mask_future(torch.zeros(1, 1, 4, 7), torch.arange(3), torch.arange(7), 0.0)}


# ---------------------------------------------------------------- key_query_conv


def conv_id(i: int) -> str:
    c = CONV[i]
    b, h, tq, tk = c["scores"].shape
    return f"{i}-h{h}-{tq}x{tk}-k{c['kernel'].shape[1]}x{c['kernel'].shape[2]}-{prefix(c['scores'].dtype) or 'f64'}"


@case(params=range(len(CONV)), ids=[conv_id(i) for i in range(len(CONV))], **TOL64, outputs=TOL32)
def conv_matches_reference(i):
    c = CONV[i]
    scores = c["scores"].clone().requires_grad_(True)
    kernel = c["kernel"].clone().requires_grad_(True)
    out = key_query_conv(scores, kernel)
    cot = torch.linspace(-1, 1, out.numel(), dtype=out.dtype).reshape(out.shape)
    g_scores, g_kernel = torch.autograd.grad((out * cot).sum(), [scores, kernel])
    p = prefix(scores.dtype)
    return {f"{p}out": out, f"{p}grad_scores": g_scores, f"{p}grad_kernel": g_kernel,
            "scores": f64(c["scores"]), "kernel": f64(c["kernel"])}


@case(rtol=1e-12, atol=1e-12)
def conv_hand_values():
    scores = torch.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], dtype=F64)
    kernel = torch.tensor([[[1.0, 10.0], [100.0, 1000.0]]], dtype=F64)
    wide = torch.zeros(1, 1, 3, 5, dtype=F64)
    wide[0, 0, 1, 2] = 1.0
    k3 = torch.arange(1.0, 10.0, dtype=F64).reshape(1, 3, 3)
    return {"two_by_two": key_query_conv(scores, kernel), "impulse": key_query_conv(wide, k3)}


@case(params=["ndim", "heads"])
def conv_rejects(kind):
    if kind == "ndim":
        return {"result": key_query_conv(torch.zeros(2, 3, 3), torch.zeros(2, 1, 1))}
    return {"result": key_query_conv(torch.zeros(1, 2, 3, 3), torch.zeros(3, 1, 1))}


# ---------------------------------------------------------------- head_mix


@case(params=range(len(MIX)), **TOL64, outputs=TOL32)
def mix_matches_reference(i):
    c = MIX[i]
    maps = c["maps"].clone().requires_grad_(True)
    kernel = c["kernel"].clone().requires_grad_(True)
    out = head_mix(maps, kernel)
    g_maps, g_kernel = torch.autograd.grad((out * out.detach()).sum(), [maps, kernel])
    p = prefix(maps.dtype)
    return {f"{p}out": out, f"{p}grad_maps": g_maps, f"{p}grad_kernel": g_kernel, "maps": f64(c["maps"]),
            "kernel": f64(c["kernel"])}


@case(rtol=1e-12, atol=1e-12)
def mix_hand_values():
    maps = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64).reshape(1, 4, 1, 1)
    kernel = torch.tensor([[[1.0, 10.0], [100.0, 1000.0]], [[0.5, -1.0], [2.0, 0.0]]], dtype=F64)
    return {"out": head_mix(maps, kernel)}


@case(params=["ndim", "groups", "not-square"])
def mix_rejects(kind):
    if kind == "ndim":
        return {"result": head_mix(torch.zeros(4, 3, 3), torch.zeros(2, 2, 2))}
    if kind == "groups":
        return {"result": head_mix(torch.zeros(1, 6, 3, 3), torch.zeros(2, 2, 2))}
    return {"result": head_mix(torch.zeros(1, 4, 3, 3), torch.zeros(2, 2, 1))}


# ---------------------------------------------------------------- attention_weights


def weights_outputs(c: dict) -> dict:
    dtype = DTYPES[c["dtype"]]
    tq, tk = c["scores"].shape[-2:]
    first = c["first"]
    scores = c["scores"].to(dtype).clone().requires_grad_(True)
    kq = c["kq_kernel"].to(dtype).clone().requires_grad_(True)
    hk = c["head_kernel"].to(dtype).clone().requires_grad_(True)
    w = attention_weights(scores, torch.arange(first, first + tq), torch.arange(tk), kq, c["kq_conv"], hk,
                          c["head_conv"])
    cot = torch.cos(torch.arange(w.numel(), dtype=dtype)).reshape(w.shape)
    grads = torch.autograd.grad((w * cot).sum(), [scores, kq, hk], allow_unused=True)
    p = prefix(dtype)
    out = {f"{p}weights": w, **{f"{p}grad_{n}": (g if g is not None else torch.zeros_like(x))
                                for n, g, x in zip(("scores", "kq", "head"), grads, (scores, kq, hk))}}
    out.update(scores=f64(c["scores"]), kq_kernel=f64(c["kq_kernel"]), head_kernel=f64(c["head_kernel"]),
               first=first, kq_conv=c["kq_conv"], head_conv=c["head_conv"])
    return out


def same_side(c: dict) -> bool:
    return c["kq_conv"] == c["head_conv"] and c["kq_conv"] in BOTH_SIDES


WEIGHTS_FIXED = [i for i, c in enumerate(WEIGHTS) if not same_side(c)]
WEIGHTS_EITHER = [i for i, c in enumerate(WEIGHTS) if same_side(c)]


def weights_id(i: int) -> str:
    c = WEIGHTS[i]
    return f"{i}-kq_{c['kq_conv']}-head_{c['head_conv']}-{c['dtype']}"


@case(params=WEIGHTS_FIXED, ids=[weights_id(i) for i in WEIGHTS_FIXED], **TOL64, outputs=TOL32)
def weights_matches_reference(i):
    return weights_outputs(WEIGHTS[i])


# both convolutions on the same side of the softmax: paper.md leaves their order open; the check accepts both
@case(params=WEIGHTS_EITHER, ids=[weights_id(i) for i in WEIGHTS_EITHER], compare="none")
def weights_both_same_side(i):
    return weights_outputs(WEIGHTS[i])


@case(params=["kq", "head", "kq-kernel-missing", "head-kernel-missing"])
def weights_rejects(kind):
    s, pos = torch.zeros(1, 2, 3, 3), torch.arange(3)
    kq, hk = torch.zeros(2, 1, 1), torch.eye(2)[None]
    if kind == "kq":
        return {"result": attention_weights(s, pos, pos, kq, "middle", hk, "post")}
    if kind == "head":
        return {"result": attention_weights(s, pos, pos, kq, "pre", hk, "both")}
    if kind == "kq-kernel-missing":
        return {"result": attention_weights(s, pos, pos, None, "post", hk, "none")}
    return {"result": attention_weights(s, pos, pos, kq, "none", None, "pre")}


@case
def weights_ignore_unused_kernels():
    g = torch.Generator().manual_seed(4)
    s = torch.randn(1, 2, 5, 5, generator=g, dtype=F64)
    pos = torch.arange(5)
    return {"none_none": attention_weights(s, pos, pos, None, "none", None, "none"),
            "softmax": torch.softmax(s.masked_fill(pos[None, :] > pos[:, None], float("-inf")), -1)}


# ---------------------------------------------------------------- MTAttention


def build_layer(c: dict) -> MTAttention:
    layer = MTAttention(ModelConfig(**c["config"]), c["layer"]).to(DTYPES[c["dtype"]])
    layer.load_state_dict(c["state"])
    return layer


def layer_outputs(c: dict) -> dict:
    layer = build_layer(c)
    dtype = DTYPES[c["dtype"]]
    x = c["x"].to(dtype).clone().requires_grad_(True)
    out = layer(x)
    names = ("q_proj.weight", "v_proj.weight", "kq_kernel", "head_kernel", "head_norm.weight")
    params = dict(layer.named_parameters())
    grads = torch.autograd.grad((out * c["cotangent"].to(dtype)).sum(), [x] + [params[n] for n in names],
                                allow_unused=True)
    p = prefix(dtype)
    res = {f"{p}out": out, f"{p}grad_x": grads[0],
           **{f"{p}grad.{n}": (g if g is not None else torch.zeros_like(params[n])) for n, g in zip(names, grads[1:])}}
    # the layer's inputs for the checks' recomputation: rotary queries and keys, values (repository code)
    cfg = layer.cfg
    b, t, _ = c["x"].shape
    with torch.no_grad():
        x64 = f64(c["x"])
        pos = torch.arange(t)
        heads = [proj(x64).view(b, t, cfg.n_heads, cfg.head_dim).transpose(1, 2)
                 for proj in (layer.q_proj.double(), layer.k_proj.double(), layer.v_proj.double())]
        res.update(q=apply_rotary(heads[0], pos, cfg.rope_base), k=apply_rotary(heads[1], pos, cfg.rope_base),
                   v=heads[2])
    res.update(state={k: f64(v) for k, v in c["state"].items()}, layer=c["layer"], use_kq=layer.use_kq,
               kq_conv=cfg.kq_conv, head_conv=cfg.head_conv, group_norm=cfg.group_norm, norm_eps=cfg.norm_eps)
    return res


def layer_same_side(c: dict) -> bool:
    cfg = ModelConfig(**c["config"])
    return cfg.kq_conv == cfg.head_conv and cfg.kq_conv in BOTH_SIDES and c["layer"] % cfg.kq_every == 0


LAYER_FIXED = [i for i, c in enumerate(LAYER) if not layer_same_side(c)]
LAYER_EITHER = [i for i, c in enumerate(LAYER) if layer_same_side(c)]


@case(params=LAYER_FIXED, ids=[LAYER[i]["name"] for i in LAYER_FIXED], **TOL64, outputs=TOL32)
def layer_matches_reference(i):
    return layer_outputs(LAYER[i])


@case(params=LAYER_EITHER, ids=[LAYER[i]["name"] for i in LAYER_EITHER], compare="none")
def layer_both_same_side(i):
    return layer_outputs(LAYER[i])


# the full pass is compared with the reference in layer_*; here the check compares the chunked pass with it
@case(params=range(len(LAYER)), ids=[c["name"] for c in LAYER], compare="none")
def layer_cache_matches_full(i):
    c = LAYER[i]
    layer = build_layer(c)
    x = c["x"].to(DTYPES[c["dtype"]])
    with torch.no_grad():
        full = layer(x.clone())
        cache = LayerCache()
        parts, start, lengths = [], 0, []
        for n in c["chunks"]:
            parts.append(layer(x[:, start:start + n].clone(), cache))
            start += n
            lengths.append(cache.length)
    return {"full": f64(full), "chunked": f64(torch.cat(parts, dim=1)), "lengths": torch.tensor(lengths),
            "chunks": torch.tensor(c["chunks"]),
            "dtype": c["dtype"]}


@case(params=range(len(LAYER)), ids=[c["name"] for c in LAYER], compare="none")
def layer_causality(i):
    c = LAYER[i]
    layer = build_layer(c)
    x = c["x"].to(DTYPES[c["dtype"]])
    cut = x.shape[1] // 2
    y = x.clone()
    y[:, cut:] = torch.randn(y[:, cut:].shape, generator=torch.Generator().manual_seed(5), dtype=F64).to(y.dtype)
    with torch.no_grad():
        return {"a": f64(layer(x.clone())[:, :cut]), "b": f64(layer(y)[:, :cut]), "dtype": c["dtype"]}


@case
def layer_rejects_bad_input():
    return {"result": MTAttention(ModelConfig(), 2)(torch.zeros(2, 5, 16))}


@case(rtol=1e-10, atol=1e-12)
def layer_at_initialisation():
    # identity kernels (given __init__): MTA computes standard attention with group normalisation
    torch.manual_seed(6)
    cfg = ModelConfig(kq_every=1)
    layer = MTAttention(cfg, 3).double()
    x = torch.randn(1, 6, cfg.d_model, generator=torch.Generator().manual_seed(7), dtype=F64)
    plain = MTAttention(ModelConfig(kq_conv="none", head_conv="none"), 3).double()
    plain.load_state_dict(layer.state_dict())
    with torch.no_grad():
        return {"mta": layer(x), "plain": plain(x)}


# ---------------------------------------------------------------- the model


def build_model(c: dict) -> MTALM:
    model = MTALM(ModelConfig(**c["config"])).to(DTYPES[c["dtype"]])
    model.load_state_dict(c["state"])
    return model.eval()


def model_outputs(c: dict) -> dict:
    model = build_model(c)
    tokens, cut = c["tokens"], c["cut"]
    changed = torch.cat([tokens[:, :cut], c["other"][:, cut:]], dim=1)
    with torch.no_grad():
        logits = model(tokens)
        logits_changed = model(changed)
        cache = model.new_cache()
        stepped = torch.cat([model(tokens[:, :cut], cache)] + [model(tokens[:, t:t + 1], cache)
                                                               for t in range(cut, tokens.shape[1])], dim=1)
    p = prefix(DTYPES[c["dtype"]])
    return {f"{p}logits": logits, f"{p}stepped": stepped, "prefix_a": f64(logits[:, :cut]),
            "prefix_b": f64(logits_changed[:, :cut]), "cache_length": cache.length,
            "generated": model.generate(tokens[:, :5], 6), "generated_no_cache": model.generate(tokens[:, :5], 6,
                                                                                                use_cache=False),
            "dtype": c["dtype"]}


def model_same_side(c: dict) -> bool:
    cfg = ModelConfig(**c["config"])
    return cfg.kq_conv == cfg.head_conv and cfg.kq_conv in BOTH_SIDES


MODEL_FIXED = [i for i, c in enumerate(MODEL) if not model_same_side(c)]
MODEL_EITHER = [i for i in range(len(MODEL)) if i not in MODEL_FIXED]


@case(params=MODEL_FIXED, ids=[MODEL[i]["name"] for i in MODEL_FIXED], **TOL64,
      outputs={**TOL32, "generated*": dict(compare="exact")})
def model_matches_reference(i):
    return model_outputs(MODEL[i])


@case(params=MODEL_EITHER, ids=[MODEL[i]["name"] for i in MODEL_EITHER], compare="none")
def model_properties(i):
    return model_outputs(MODEL[i])


@case(rtol=1e-6, atol=1e-8)
def train_script_run():
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        result = train(ModelConfig(), BlockTask(n_blocks=3, block_len=3), steps=3, batch_size=4,
                       dtype=torch.float64)
    finally:
        torch.set_default_dtype(previous)
    return {"losses": torch.tensor(result.losses, dtype=F64), "accuracy": result.answer_accuracy}
