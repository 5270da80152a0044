"""Probe for soft-thinking/1: concept_token, ColdStop and soft_thinking_generate in softthink/soft_thinking.py.
Runs in the sandbox; emits outputs only, never compares. The end-to-end cases also emit a replay of the answer
phase computed with the repository's own model and greedy decoder on the emitted concept tokens."""
from __future__ import annotations

from pathlib import Path

import torch
from lmrbench_probe import case
from softthink.config import ModelConfig, SoftThinkingConfig
from softthink.decoding import greedy_continue
from softthink.model import TinyLM
from softthink.soft_thinking import ColdStop, concept_embedding, concept_token, soft_thinking_generate
from softthink.tokenizer import Tokenizer

CASES = torch.load(Path(__file__).parent / "fixtures" / "soft_thinking_cases.pt", weights_only=True)
CONCEPT, EMB, COLD, E2E = CASES["concept"], CASES["embedding"], CASES["cold"], CASES["e2e"]
F64 = dict(rtol=1e-10, atol=1e-12)
F32 = {"f32*": dict(rtol=2e-5, atol=2e-6)}  # "f32" and its flattened keys ("f32.uniform", ...)


def cfg_of(c: dict, **kw) -> SoftThinkingConfig:
    return SoftThinkingConfig(**{k: c[k] for k in ("temperature", "top_k", "top_p")}, **kw)


# ---------------------------------------------------------------- concept_token


@case(params=range(len(CONCEPT)), outputs=F32, **F64)
def concept_token_matches(i):
    c = CONCEPT[i]
    logits = c["logits"]
    probs = concept_token(logits.clone(), cfg_of(c))
    return {"f32" if logits.dtype == torch.float32 else "f64": probs, "logits": logits.to(torch.float64),
            "temperature": c["temperature"], "top_k": c["top_k"], "top_p": c["top_p"]}


@case(**F64)
def concept_token_hand_values():
    lg = torch.log(torch.tensor([0.4, 0.3, 0.2, 0.1], dtype=torch.float64))
    out = {}
    for name, t, k, p in (("plain", 1.0, 0, 1.0), ("k2", 1.0, 2, 1.0), ("p06", 1.0, 0, 0.6),
                          ("p075", 1.0, 0, 0.75), ("k3p07", 1.0, 3, 0.7), ("t05", 0.5, 0, 1.0),
                          ("k1", 3.0, 1, 1.0), ("p_small", 1.0, 0, 0.1)):
        out[name] = concept_token(lg, SoftThinkingConfig(temperature=t, top_k=k, top_p=p))
    return out


@case(**F64)
def concept_token_rows_independent():
    c = CONCEPT[4]
    logits = c["logits"]
    whole = concept_token(logits, cfg_of(c))
    rows = torch.stack([concept_token(logits[a, b], cfg_of(c)) for a in range(2) for b in range(3)])
    return {"whole": whole.reshape(6, -1), "rows": rows}


# ---------------------------------------------------------------- concept_embedding


@case(params=range(len(EMB)), outputs=F32, **F64)
def concept_embedding_matches(i):
    c = EMB[i]
    tag = "f32" if c["weight"].dtype == torch.float32 else "f64"
    out = {m: concept_embedding(c["concept"].clone(), c["weight"].clone(), m) for m in ("weighted", "uniform")}
    return {tag: out, "concept": c["concept"].to(torch.float64), "weight": c["weight"].to(torch.float64)}


@case
def concept_embedding_rejects_unknown_mixture():
    return {"result": concept_embedding(torch.ones(3) / 3, torch.eye(3), "mean")}


# ---------------------------------------------------------------- ColdStop


@case(params=range(len(COLD)))
def cold_stop_decisions(i):
    c = COLD[i]
    monitor = ColdStop(c["threshold"], c["patience"])
    plain = [bool(monitor.update(float(h))) for h in c["entropies"]]
    monitor = ColdStop(c["threshold"], c["patience"])
    with_reset = []
    for t, h in enumerate(c["entropies"]):
        if t == c["reset_at"]:
            monitor.reset()
        with_reset.append(bool(monitor.update(float(h))))
    return {"plain": plain, "with_reset": with_reset, "entropies": c["entropies"], "threshold": c["threshold"],
            "patience": c["patience"], "reset_at": c["reset_at"]}


@case
def cold_stop_hand_values():
    monitor = ColdStop(0.25, 2)
    first = [bool(monitor.update(h)) for h in (0.1, 0.25, 0.0, 0.2, 0.3, 0.0, 0.0, 0.0)]
    monitor = ColdStop(0.0, 1)
    zero = [bool(monitor.update(h)) for h in (0.0, 0.0)]
    return {"first": first, "zero_threshold": zero}


@case
def cold_stop_rejects_zero_patience():
    return {"result": ColdStop(0.1, 0)}


# ---------------------------------------------------------------- soft_thinking_generate


def generate(c: dict, cfg: SoftThinkingConfig | None = None) -> dict:
    tok = Tokenizer()
    model = TinyLM.from_seed(ModelConfig(**c["model"]))
    cfg = cfg or SoftThinkingConfig(**c["cfg"])
    prompt = tok.prompt(c["question"])
    out = soft_thinking_generate(model, prompt.clone(), cfg, tok.end_think_id, tok.eos_id)
    concepts = torch.as_tensor(out.concept_tokens)
    with torch.no_grad():
        mix = concepts.to(torch.float64)
        if cfg.mixture == "uniform":
            mix = (mix > 0).to(torch.float64)
            mix = mix / mix.sum(dim=-1, keepdim=True)
        embeds = torch.cat([model.embed(prompt), mix @ model.embedding_weight,
                            model.embed(torch.tensor([tok.end_think_id]))])
        replay = greedy_continue(model, embeds, cfg.max_answer_tokens, tok.eos_id)
    return {"concepts": concepts, "answer": torch.as_tensor(out.answer_ids), "reason": out.stop_reason,
            "replay": replay, "threshold": cfg.cold_stop_threshold if cfg.cold_stop else -1.0,
            "patience": cfg.cold_stop_patience, "max_think": cfg.max_think_tokens}


@case(params=range(len(E2E)), compare="none")
def generate_end_to_end(i):
    return generate(E2E[i])


@case(params=[5, 6, 7], compare="none")
def generate_without_cold_stop(i):
    c = E2E[i]  # cases that end by Cold Stop when it is enabled
    return generate(c, SoftThinkingConfig(**{**c["cfg"], "cold_stop": False, "max_think_tokens": 20}))


@case(**F64)
def generate_zero_budget():
    out = generate(E2E[0], SoftThinkingConfig(max_think_tokens=0))
    return {"n_concepts": int(out["concepts"].shape[0]), "answer": out["answer"], "reason": out["reason"]}
