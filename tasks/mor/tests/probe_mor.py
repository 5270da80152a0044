"""Probe for mor/1: the routing and decoding functions of mor/recursion.py. Emits outputs only; cheap cases first."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from lmrbench_probe import case
from mor.config import MoRConfig
from mor.model import MoRModel
from mor.recursion import (apply_recursion, capacity_schedule, decode_step, expert_choice_recursions,
                           expert_choice_select, fill_cache, mor_forward, token_choice_recursions)
from train import train

CASES = json.loads((Path(__file__).parent / "fixtures" / "mor_cases.json").read_text())
F64 = torch.float64
TOL = dict(rtol=1e-9, atol=1e-11)          # measured in NOTES.md
TRAIN_TOL = dict(rtol=1e-7, atol=1e-9)     # three AdamW steps (NOTES.md)


def build(seed: int, router_scale: float = 4.0, **kw) -> MoRModel:
    torch.manual_seed(seed)
    model = MoRModel(MoRConfig(**kw)).to(F64)
    with torch.no_grad():
        for p in model.router.parameters():
            p.mul_(router_scale)
    return model


def grads(model: MoRModel) -> dict:
    return {f"grad.{n}": (torch.zeros_like(p) if p.grad is None else p.grad.detach().clone())
            for n, p in model.named_parameters()}


def hidden(b: int, t: int, d: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(100 + seed)
    return torch.randn(b, t, d, generator=g, dtype=F64)


def readout(h: torch.Tensor, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(200 + seed)
    return (h * torch.randn(h.shape, generator=g, dtype=F64)).sum()


# ---------------------------------------------------------------- capacity schedule and top-k selection


@case(params=[tuple(c) for c in CASES["capacity"]], compare="exact")
def capacity(p):
    return {"caps": capacity_schedule(*p)}


@case(params=[(0, 3), (4, 0)])
def capacity_rejects(p):
    return {"caps": capacity_schedule(*p)}


@case(params=[tuple(c) for c in CASES["select"]], compare="exact")
def select(p):
    b, t, k, seed = p
    g = torch.Generator().manual_seed(seed)
    scores = torch.rand(b, t, generator=g, dtype=F64)
    eligible = torch.rand(b, t, generator=g) < 0.8
    eligible[:, :k] = True
    return {"selected": expert_choice_select(scores, eligible, k), "scores_unchanged": scores}


@case(compare="exact")
def select_ties_prefer_lower_position():
    scores = torch.tensor([[0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [0.2, 0.7, 0.7, 0.2, 0.7, 0.2]], dtype=F64)
    eligible = torch.tensor([[True, False, True, True, False, True], [True, True, False, True, True, True]])
    return {"k2": expert_choice_select(scores, eligible, 2), "k3": expert_choice_select(scores, eligible, 3)}


@case(compare="exact")
def select_long_rows_with_ties():
    g = torch.Generator().manual_seed(21)
    scores = torch.randint(0, 4, (3, 40), generator=g).to(F64) / 4
    eligible = torch.rand(3, 40, generator=g) < 0.7
    return {"k12": expert_choice_select(scores, eligible, 12), "k20": expert_choice_select(scores, eligible, 20)}


@case
def select_rejects_capacity_above_eligible():
    eligible = torch.tensor([[True, True, False], [True, False, False]])
    return {"selected": expert_choice_select(torch.zeros(2, 3, dtype=F64), eligible, 2)}


# ---------------------------------------------------------------- one recursion step


@case(params=[(1, False, 0), (2, False, 1), (2, True, 2), (1, True, 3)], **TOL)
def recursion_step(p):
    n_layers, shared, seed = p
    model = build(seed, n_layers=n_layers)
    b, t, d = 3, 7, model.cfg.d_model
    g = torch.Generator().manual_seed(seed)
    h = hidden(b, t, d, seed).requires_grad_(True)
    positions = torch.arange(t).expand(b, t) + torch.tensor([[0], [3], [1]])
    active = torch.rand(b, t, generator=g) < 0.6
    active[0] = torch.tensor([True, False, True, True, False, False, True])
    active[2] = False
    active[2, 5] = True
    gate = torch.rand(b, t, generator=g, dtype=F64).requires_grad_(True)
    skv = None
    if shared:
        hd, nh = model.cfg.head_dim, model.cfg.n_heads
        skv = [(torch.randn(b, nh, t, hd, generator=g, dtype=F64), torch.randn(b, nh, t, hd, generator=g, dtype=F64))
               for _ in range(n_layers)]
    h_in = h.detach().clone()
    h_new, kv = apply_recursion(model, h, positions, active, gate, skv)
    loss = readout(h_new, seed) + sum(readout(k, seed + 1) + readout(v, seed + 2) for k, v in kv)
    loss.backward()
    out = {"h_new": h_new.detach(), "kv": [(k.detach(), v.detach()) for k, v in kv], "h_unchanged": h_in,
           "grad_h": h.grad, "grad_gate": gate.grad, **grads(model)}
    return out


@case(**TOL)
def recursion_step_long_sequence():
    model = build(22, n_layers=1)
    g = torch.Generator().manual_seed(22)
    h = hidden(2, 30, model.cfg.d_model, 22)
    active = torch.rand(2, 30, generator=g) < 0.5
    gate = torch.rand(2, 30, generator=g, dtype=F64)
    h_new, kv = apply_recursion(model, h, torch.arange(30).expand(2, 30), active, gate)
    return {"h_new": h_new, "kv": kv}


@case(**TOL)
def recursion_step_no_active_tokens():
    model = build(9, n_layers=1)
    h = hidden(2, 4, model.cfg.d_model, 9)
    h_new, kv = apply_recursion(model, h, torch.arange(4).expand(2, 4), torch.zeros(2, 4, dtype=torch.bool),
                                torch.ones(2, 4, dtype=F64))
    return {"h_new": h_new, "kv": kv}


# ---------------------------------------------------------------- expert-choice recursions


@case(params=[tuple(c) for c in CASES["expert"]], **TOL)
def expert_choice(p):
    n_layers, n_rec, alpha, sharing, mode, t, seed, fix = p
    model = build(seed, n_layers=n_layers, n_recursions=n_rec, router_alpha=alpha, kv_sharing=sharing,
                  causal_fix=fix)
    h = hidden(2, t, model.cfg.d_model, seed)
    positions = torch.arange(t).expand(2, t)
    h_out, info = expert_choice_recursions(model, h, positions, mode=mode)
    (readout(h_out, seed) + 3.0 * info["aux_loss"]).backward()
    return {"h_out": h_out.detach(), "selected": info["selected"], "gates": info["gates"].detach(),
            "aux_loss": info["aux_loss"].detach(), **grads(model)}


@case(params=[("topk", "aux_loss"), ("threshold", "aux_loss"), ("threshold", "aux_router")], **TOL)
def expert_choice_equal_scores(p):
    mode, fix = p
    model = build(11, n_layers=1, n_recursions=3, causal_fix=fix)
    with torch.no_grad():
        for p in model.router.parameters():
            p.zero_()
    h = hidden(2, 7, model.cfg.d_model, 11)
    h_out, info = expert_choice_recursions(model, h, torch.arange(7).expand(2, 7), mode=mode)
    return {"h_out": h_out, "selected": info["selected"], "gates": info["gates"], "aux_loss": info["aux_loss"]}


@case
def expert_choice_rejects_mode():
    model = build(0)
    return {"out": expert_choice_recursions(model, hidden(1, 3, 16, 0), torch.arange(3)[None], mode="greedy")}


# ---------------------------------------------------------------- token-choice recursions


@case(params=[tuple(c) for c in CASES["token"]], **TOL)
def token_choice(p):
    n_layers, n_rec, alpha, sharing, t, seed = p
    model = build(seed, n_layers=n_layers, n_recursions=n_rec, router_alpha=alpha, kv_sharing=sharing,
                  routing="token")
    h = hidden(2, t, model.cfg.d_model, seed)
    positions = torch.arange(t).expand(2, t)
    h_out, info = token_choice_recursions(model, h, positions)
    (readout(h_out, seed) + 2.0 * info["balance_loss"] + 0.5 * info["z_loss"]).backward()
    return {"h_out": h_out.detach(), "depth": info["depth"], "selected": info["selected"],
            "gates": info["gates"].detach(), "balance_loss": info["balance_loss"].detach(),
            "z_loss": info["z_loss"].detach(), **grads(model)}


@case(**TOL)
def token_choice_equal_scores():
    model = build(12, n_layers=1, n_recursions=3, routing="token")
    with torch.no_grad():
        model.router.proj.weight.zero_()
    h = hidden(1, 5, model.cfg.d_model, 12)
    h_out, info = token_choice_recursions(model, h, torch.arange(5)[None])
    return {"h_out": h_out, "depth": info["depth"], "gates": info["gates"],
            "balance_loss": info["balance_loss"], "z_loss": info["z_loss"]}


# ---------------------------------------------------------------- the whole model


@case(params=[tuple(c) for c in CASES["model"]], **TOL)
def model_forward(p):
    routing, scheme, sharing, mode, seed, fix = p
    model = build(20 + seed, routing=routing, sharing=scheme, kv_sharing=sharing, causal_fix=fix)
    g = torch.Generator().manual_seed(500 + seed)
    ids = torch.randint(0, model.cfg.vocab_size, (2, 7), generator=g)
    logits, info = mor_forward(model, ids, mode=mode)
    total, parts = model.loss(ids)
    total.backward()
    return {"logits": logits.detach(), "selected": info["selected"], "total": total.detach(),
            **{k: v.detach() for k, v in parts.items()}, **grads(model)}


# ---------------------------------------------------------------- decoding with the recursion-wise cache


@case(params=[tuple(c) for c in CASES["decode"]], **TOL)
def decode(p):
    routing, n_layers, n_rec, sharing, b, t, seed, scheme, fix = p
    model = build(seed, n_layers=n_layers, n_recursions=n_rec, kv_sharing=sharing, routing=routing, sharing=scheme,
                  causal_fix=fix)
    g = torch.Generator().manual_seed(300 + seed)
    ids = torch.randint(0, model.cfg.vocab_size, (b, t), generator=g)
    cache = model.new_cache(b, t + 1)
    logits, sel = [], []
    with torch.no_grad():
        for i in range(t):
            lg, s = decode_step(model, cache, ids[:, i])
            logits.append(lg)
            sel.append(s)
        full, info = model(ids, mode="threshold")
    w = cache.written[:, None, :, None, :, None]
    return {"logits": torch.stack(logits, dim=1), "selected": torch.stack(sel, dim=2), "written": cache.written,
            "keys": cache.keys * w, "values": cache.values * w, "length": cache.length,
            "outer_keys": cache.outer_keys, "outer_values": cache.outer_values,
            "full_logits": full, "full_selected": info["selected"]}


@case
def decode_rejects_full_cache():
    model = build(5)
    cache = model.new_cache(1, 2)
    with torch.no_grad():
        for i in range(3):
            decode_step(model, cache, torch.tensor([i]))
    return {"length": cache.length}


@case(params=[("expert", "aux_loss"), ("token", "aux_loss"), ("expert", "aux_router")], **TOL)
def decode_equal_scores(p):
    routing, fix = p
    model = build(13, n_layers=1, n_recursions=3, routing=routing, causal_fix=fix)
    with torch.no_grad():
        for p in model.router.parameters():
            p.zero_()
    ids = torch.tensor([[3, 1, 4, 1], [5, 9, 2, 6]])
    cache = model.new_cache(2, 4)
    with torch.no_grad():
        out = [decode_step(model, cache, ids[:, i]) for i in range(4)]
    return {"logits": torch.stack([o[0] for o in out], dim=1), "selected": torch.stack([o[1] for o in out], dim=2),
            "written": cache.written}


# ---------------------------------------------------------------- prefill of the cache, then decoding


def masked_cache(cache) -> dict:
    w = cache.written[:, None, :, None, :, None]
    return {"keys": cache.keys * w, "values": cache.values * w, "written": cache.written.clone(),
            "length": cache.length, "outer_keys": cache.outer_keys.clone(), "outer_values": cache.outer_values.clone()}


@case(**TOL)
def fill_cache_direct():
    model = build(14, n_layers=2, n_recursions=3)
    cache = model.new_cache(2, 7)
    g = torch.Generator().manual_seed(14)
    kv = [(torch.randn(2, 2, 5, 8, generator=g, dtype=F64), torch.randn(2, 2, 5, 8, generator=g, dtype=F64))
          for _ in range(2)]
    selected = torch.rand(2, 5, generator=g) < 0.5
    fill_cache(cache, 1, kv, selected)
    return masked_cache(cache)


@case(params=[tuple(c) for c in CASES["prefill"]], **TOL)
def prefill(p):
    routing, n_layers, n_rec, sharing, b, t0, t, seed, scheme, fix = p
    model = build(seed, n_layers=n_layers, n_recursions=n_rec, kv_sharing=sharing, routing=routing, sharing=scheme,
                  causal_fix=fix)
    g = torch.Generator().manual_seed(400 + seed)
    ids = torch.randint(0, model.cfg.vocab_size, (b, t), generator=g)
    cache = model.new_cache(b, t)
    with torch.no_grad():
        pre, info = model.prefill(ids[:, :t0], cache)
        out = {"prefill_logits": pre, "prefill_selected": info["selected"],
               **{f"after_prefill.{k}": v for k, v in masked_cache(cache).items()}}
        logits = [decode_step(model, cache, ids[:, i]) for i in range(t0, t)]
        full, _ = model(ids, mode="threshold")
    out.update({"decode_logits": torch.stack([lg for lg, _ in logits], dim=1),
                "decode_selected": torch.stack([s for _, s in logits], dim=2), "full_logits": full,
                **{f"after_decode.{k}": v for k, v in masked_cache(cache).items()}})
    return out


@case(params=[("not_empty", "cycle"), ("too_short", "cycle"), ("too_short", "middle_cycle")])
def prefill_rejects(p):
    kind, scheme = p
    model = build(15, routing="token", sharing=scheme)
    ids = torch.tensor([[1, 2, 3]])
    cache = model.new_cache(1, 4 if kind == "not_empty" else 2)
    with torch.no_grad():
        if kind == "not_empty":
            decode_step(model, cache, torch.tensor([0]))
        return {"out": model.prefill(ids, cache)}


@case
def prefill_rejects_expert_choice():
    model = build(16)
    cache = model.new_cache(1, 2)
    with torch.no_grad():
        return {"out": expert_choice_recursions(model, hidden(1, 3, 16, 0), torch.arange(3)[None], "threshold",
                                                cache)}


@case
def prefill_rejects_token_choice():
    model = build(17, routing="token")
    cache = model.new_cache(1, 2)
    with torch.no_grad():
        return {"out": token_choice_recursions(model, hidden(1, 3, 16, 0), torch.arange(3)[None], cache)}


# ---------------------------------------------------------------- the training script (last: the costliest)


@case(params=["expert", "token"], **TRAIN_TOL)
def train_script(routing):
    cfg = MoRConfig(routing=routing, kv_sharing=routing == "token",
                    sharing="middle_cycle" if routing == "expert" else "cycle")
    model, history = train(cfg, steps=3, batch=2, seq_len=6)
    return {"history": history, **{f"w.{n}": p.detach() for n, p in model.named_parameters()}}
