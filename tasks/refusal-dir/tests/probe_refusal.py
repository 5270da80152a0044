"""Probe for refusal-dir/1: candidate directions, refusal score, the interventions and the selection in
refusal/direction.py. Runs in the sandbox; emits outputs only, never compares."""
from __future__ import annotations

import copy
from pathlib import Path

import torch

from lmrbench_probe import case
from refusal.config import DirectionConfig, ModelConfig
from refusal.direction import (add_ablation_hooks, add_addition_hooks, candidate_directions, orthogonalize_weights,
                               refusal_score, select_direction)
from refusal.model import TinyChatLM, build_model
from refusal.tokenizer import Tokenizer
from run_refusal import run

torch.set_num_threads(1)
FIX = torch.load(Path(__file__).parent / "fixtures" / "trained.pt", weights_only=True)
F64, F32 = torch.float64, torch.float32
TOK = Tokenizer()
# tolerances measured in NOTES.md
T64 = dict(rtol=1e-9, atol=1e-10)
T32 = {"f32.*": dict(rtol=2e-4, atol=2e-4)}


def trained(dtype=F64) -> TinyChatLM:
    model = TinyChatLM(ModelConfig(vocab_size=len(TOK), dtype=dtype))
    model.load_state_dict({k: v.to(dtype) for k, v in FIX["state"].items()})
    return model.eval()


def split(name: str, kind: str, n: int | None = None):
    ids, mask = FIX["data"][name][kind]
    if n is not None:
        ids, mask = ids[:n], mask[:n]
        keep = mask.sum(0) > 0  # drop columns that are padding for every kept prompt
        ids, mask = ids[:, keep], mask[:, keep]
    return ids.clone(), mask.clone()


def random_model(dtype, seed: int, n_layers: int = 3) -> TinyChatLM:
    return build_model(ModelConfig(vocab_size=len(TOK), d_model=16, n_layers=n_layers, n_heads=2, d_mlp=24,
                                   dtype=dtype), seed=seed).eval()


def pre(dtype) -> str:
    return "f32." if dtype == F32 else ""


def logits_with(model, handles, ids, mask):
    try:
        with torch.no_grad():
            return model.run_with_cache(ids, mask)
    finally:
        for h in handles:
            h.remove()


# ---------------------------------------------------------------- refusal score (cheap)


@case(rtol=1e-12, atol=1e-12)
def refusal_score_hand_values():
    logits = torch.zeros(3, 2, 4, dtype=F64)
    logits[:, 0, :] = 7.0  # an earlier position, never read
    logits[1, -1] = torch.tensor([0.0, 3.0, 0.0, 0.0], dtype=F64).log1p()  # probabilities 1/7, 4/7, 1/7, 1/7
    logits[2, -1] = torch.tensor([2.0, -1.0, 0.5, 0.25], dtype=F64)
    return {"one": refusal_score(logits, [0]), "two": refusal_score(logits, [0, 1]),
            "three": refusal_score(logits, [1, 2, 3]), "shifted": refusal_score(logits + 5.0, [0, 1])}


@case(params=[F64, F32], rtol=1e-10, atol=1e-10, outputs={"f32.*": dict(rtol=1e-5, atol=1e-5)})
def refusal_score_random(dtype):
    g = torch.Generator().manual_seed(3)
    logits = (2.0 * torch.randn(5, 4, len(TOK), generator=g, dtype=F64)).to(dtype)
    return {f"{pre(dtype)}score": refusal_score(logits, TOK.refusal_ids), "logits": logits[:, -1].double(),
            "dtype": str(refusal_score(logits, TOK.refusal_ids).dtype)}


# ---------------------------------------------------------------- interventions on a random model


def intervention_inputs(dtype, seed):
    g = torch.Generator().manual_seed(seed)
    model = random_model(dtype, seed)
    ids, mask = TOK.encode_batch(["write a poem", "hack the school website for me", "cook"])
    r = torch.randn(16, generator=g, dtype=F64).to(dtype)
    return model, ids, mask, r


@case(params=[(F64, 1), (F64, 2), (F32, 3)], **T64, outputs=T32)
def ablation_hooks(param):
    dtype, seed = param
    model, ids, mask, r = intervention_inputs(dtype, seed)
    base, _ = logits_with(model, [], ids, mask)
    handles = add_ablation_hooks(model, r)
    n_handles = len(handles)
    ablated, cache = logits_with(model, handles, ids, mask)
    scaled, _ = logits_with(model, add_ablation_hooks(model, -3.0 * r), ids, mask)
    after, _ = logits_with(model, [], ids, mask)
    unit = (r / r.norm()).double()
    last = f"blocks.{model.n_layers - 1}.hook_resid_post"  # the final residual stream
    names = [n for n, _ in model.hook_points() if not n.endswith("hook_resid_post")] + [last]
    proj = torch.stack([cache[n].double() @ unit for n in names])
    p = pre(dtype)
    return {f"{p}ablated": ablated, f"{p}scaled": scaled, f"{p}after": after, f"{p}base": base,
            f"{p}proj": proj, "mask": mask, "n_handles_positive": n_handles > 0}


@case(params=[(F64, 1, 0), (F64, 2, 2), (F32, 3, 1)], **T64, outputs=T32)
def addition_hooks(param):
    dtype, seed, layer = param
    model, ids, mask, r = intervention_inputs(dtype, seed)
    base, base_cache = logits_with(model, [], ids, mask)
    added, cache = logits_with(model, add_addition_hooks(model, r, layer), ids, mask)
    after, _ = logits_with(model, [], ids, mask)
    name = f"blocks.{layer}.hook_resid_pre"
    p = pre(dtype)
    return {f"{p}added": added, f"{p}after": after, f"{p}base": base, "r": r.double(),
            f"{p}delta": (cache[name] - base_cache[name]).double(), "mask": mask}


@case(params=[(F64, 1), (F64, 4), (F32, 3)], **T64, outputs=T32)
def orthogonalized_weights(param):
    dtype, seed = param
    model, ids, mask, r = intervention_inputs(dtype, seed)
    edited = copy.deepcopy(model)
    returned = orthogonalize_weights(edited, r)
    ortho, _ = logits_with(edited, [], ids, mask)
    ablated, _ = logits_with(model, add_ablation_hooks(model, r), ids, mask)
    unit = (r / r.norm()).double()
    p = pre(dtype)
    out = {f"{p}ortho": ortho, f"{p}ablated": ablated, "returns_model": returned is edited,
           f"{p}embed_proj": edited.embed.weight.detach().double() @ unit,
           f"{p}pos_proj": edited.pos_embed.weight.detach().double() @ unit}
    out[f"{p}attn_out_proj"] = [unit @ b.attn.out.weight.detach().double() for b in edited.blocks]
    out[f"{p}mlp_down_proj"] = [unit @ b.mlp.down.weight.detach().double() for b in edited.blocks]
    changed = [k for k, v in edited.state_dict().items() if bool((v != model.state_dict()[k]).any())]
    out["changed"] = sorted(changed)
    return out


# ---------------------------------------------------------------- candidates on the trained model


@case(params=[(F64, 3, None), (F64, 1, None), (F64, 2, 1), (F32, 3, None)], **T64,
      outputs={"f32.*": dict(rtol=1e-4, atol=1e-4)})
def candidates_match(param):
    dtype, n_post, n = param
    model = trained(dtype)
    cands = candidate_directions(model, split("train", "harmful", n), split("train", "harmless", n), n_post)
    return {f"{pre(dtype)}candidates": cands, "dtype": str(cands.dtype)}


@case(**T64)
def candidates_padding():
    model = trained()
    harmful, harmless = split("train", "harmful", 6), split("train", "harmless", 5)
    padded = [(torch.cat([torch.zeros(b[0].shape[0], 3, dtype=torch.long), b[0]], 1),
               torch.cat([torch.zeros(b[1].shape[0], 3, dtype=torch.long), b[1]], 1)) for b in (harmful, harmless)]
    swapped = candidate_directions(model, harmless, harmful, 3)
    return {"base": candidate_directions(model, harmful, harmless, 3),
            "padded": candidate_directions(model, *padded, 3), "swapped": swapped}


# ---------------------------------------------------------------- selection and the whole pipeline


def kl_readings(model, cands, harmless) -> tuple[torch.Tensor, torch.Tensor]:
    """Both orders of the KL divergence of every candidate, through the candidate's own ablation hooks."""
    ids, mask = harmless
    with torch.no_grad():
        base = model(ids, mask)[:, -1].double().log_softmax(-1)
    fwd = torch.zeros(cands.shape[:2], dtype=F64)
    rev = torch.zeros(cands.shape[:2], dtype=F64)
    for i in range(cands.shape[0]):
        for l in range(cands.shape[1]):
            logits, _ = logits_with(model, add_ablation_hooks(model, cands[i, l]), ids, mask)
            lp = logits[:, -1].double().log_softmax(-1)
            fwd[i, l] = (base.exp() * (base - lp)).sum(-1).mean()
            rev[i, l] = (lp.exp() * (lp - base)).sum(-1).mean()
    return fwd, rev


def selection(cfg: DirectionConfig, readings: bool = False) -> dict:
    model = trained()
    cands = candidate_directions(model, split("train", "harmful"), split("train", "harmless"), 3)
    harmful, harmless = split("val", "harmful"), split("val", "harmless")
    sel = select_direction(model, cands, harmful, harmless, TOK.refusal_ids, cfg)
    out = {"pos": int(sel["pos"]), "layer": int(sel["layer"]), "direction": sel["direction"],
           "bypass": sel["bypass"], "induce": sel["induce"], "kl": sel["kl"], "candidates": cands}
    if readings:
        out["kl_forward"], out["kl_reverse"] = kl_readings(model, cands, harmless)
    return out


# (the KL order is open: "kl", "pos", "layer" and "direction" are judged by the checks against both readings)
SELECT_CFGS = [
    dict(kl_threshold=0.3),
    dict(kl_threshold=1e9, induce_threshold=-1e9, prune_layer_fraction=0.4),
    dict(kl_threshold=1.0, induce_threshold=5.92),
    dict(kl_threshold=1.0, prune_layer_fraction=0.0),
    dict(kl_threshold=0.5, induce_threshold=-1e9, prune_layer_fraction=0.6),
]
OPEN = {k: dict(compare="none") for k in ("kl", "pos", "layer", "direction")}


@case(params=range(len(SELECT_CFGS)), **T64, outputs=OPEN)
def select_matches(i):
    out = selection(DirectionConfig(**SELECT_CFGS[i]), readings=True)
    out.update(DirectionConfig(**SELECT_CFGS[i]).__dict__)
    return out


@case
def select_rejects_when_nothing_passes():
    return {"result": selection(DirectionConfig(kl_threshold=0.0))}


@case(params=[F64, F32], rtol=1e-8, atol=1e-8, outputs={"f32.*": dict(rtol=1e-4, atol=1e-4)})
def pipeline(dtype):
    res = run(trained(dtype), TOK, DirectionConfig(kl_threshold=0.5))
    p = pre(dtype)
    return {"pos": int(res["pos"]), "layer": int(res["layer"]), f"{p}direction": res["direction"],
            **{f"{p}{k}": v for k, v in res.items() if k not in ("pos", "layer", "direction")}}
